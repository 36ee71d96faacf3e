package action

import (
	"testing"

	"nestor.dev/nestor/topology"
)

// A stack whose provider is still moving objects is "waiting" in the
// fleet, never "in sync", and fleet --detailed-exitcode gives 2 for it.
func TestFleetStatusWaiting(t *testing.T) {
	r := &Report{Actual: &topology.Observed{}, Plan: topology.Plan{Waiting: []topology.WaitingObject{{Subject: topology.PoolSubject("burst"), Message: "deleting"}}}, Summary: Summary{Waiting: 1}}
	if got := r.Outcome(); got != OutcomeWaiting {
		t.Fatalf("status = %q, want %q", got, OutcomeWaiting)
	}
	f := &FleetReport{Stacks: []FleetStack{{Name: "apps", Outcome: r.Outcome(), Report: r}}}
	if got := f.ExitCode(); got != ExitChanges {
		t.Errorf("--detailed-exitcode = %d, want %d", got, ExitChanges)
	}
}
