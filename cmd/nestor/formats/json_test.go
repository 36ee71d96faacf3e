package formats

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// TestFleetWriteJSON holds action.FleetReport.WriteJSON, which writes the fleet's
// document one stack at a time, to exactly what json.Encoder with a
// two-space indent writes for the same report.
func TestFleetWriteJSON(t *testing.T) {
	n := func(v int) *int { return &v }
	stack := func(name string) action.FleetStack {
		return action.FleetStack{
			Name: name, File: "/stacks/" + name + ".yaml", TargetKind: topology.TargetProd,
			Outcome: action.OutcomeChanges, Reason: `1 to add <node> & "quoted"`, Target: "https://10.0.0.1:6443",
			Version: "v1.37.2", Changes: n(1), Waiting: n(0), Unknown: n(0),
			Deadline: &upgrade.HardDate{Date: time.Date(2027, 2, 28, 0, 0, 0, 0, time.UTC), Minor: "1.38"},
			Report:   &action.Report{},
		}
	}
	for _, tc := range []struct {
		name   string
		stacks []action.FleetStack
	}{
		{"nil stacks", nil},
		{"no stack", []action.FleetStack{}},
		{"one stack", []action.FleetStack{stack("a")}},
		{"three stacks, one without report", []action.FleetStack{stack("a"), {Name: "b", Outcome: action.OutcomeUnreachable, Reason: "dial tcp: refused"}, stack("c")}},
		{"the fleet of the format fixtures", fixtureFleet(t, t.TempDir()).Stacks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &action.FleetReport{FormatVersion: action.FleetFormatVersion, AsOf: "2026-12-02", Stacks: tc.stacks}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := WriteFleetJSON(&got, r); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("WriteJSON differs from json.Encoder:\n--- got\n%s\n--- want\n%s", got.String(), want.String())
			}
		})
	}
}
