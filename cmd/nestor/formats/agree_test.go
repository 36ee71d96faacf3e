package formats

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"

	ics "github.com/arran4/golang-ical"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// fixtureNoTarget is the report of the prod stack nokc, which declares no
// kubeconfig: nothing was read, the plan is unverified.
func fixtureNoTarget(t *testing.T, dir string) *action.Report {
	t.Helper()
	tp := parsedTopology(t, dir, "nokc", "name: nokc\ntarget_kind: prod\nnodes:\n  - {name: demo1, role: control-plane}\n  - {name: demo2, role: worker}\nlayers:\n  - cnpg\n")
	obs := probes.NoTargetObservation("no kubeconfig: declare kubeconfig: in " + tp.Path + ", export KUBECONFIG, or pass --kubeconfig")
	return action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, fixtureAsOf)
}

// fixtureForbidden is the report of the prod stack ro, read by an identity
// that may read the API server's version and nothing else: the nodes, the
// layers and the StorageClasses are forbidden.
func fixtureForbidden(t *testing.T, dir string) *action.Report {
	t.Helper()
	tp := parsedTopology(t, dir, "ro", "name: ro\ntarget_kind: prod\nnodes:\n  - {name: ro1, role: control-plane}\n  - {name: ro2, role: worker}\nlayers:\n  - cilium\n")
	forbidden := topology.Because(topology.ReasonForbidden, "forbidden (user ro cannot list nodes)")
	obs := &topology.Observed{
		ServerVersion: topology.KnownFact("v1.37.2"),
		Nodes:         topology.UnknownFact[[]topology.NodeState](forbidden),
		Layers: []topology.LayerState{{Name: "cilium", Declared: true, Health: topology.Unknown, Code: topology.ReasonForbidden,
			Reason: "forbidden (user ro cannot list daemonsets.apps in namespace kube-system)"}},
		Storage: topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonForbidden, "forbidden (user ro cannot list storageclasses.storage.k8s.io)")),
	}
	obs.DeriveVersions()
	return action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, fixtureAsOf)
}

// fixtureBench is the report of a lima bench of two nodes read before it
// was bootstrapped: there is no bench kubeconfig, so the cluster's own API
// was not read, and vms is what limactl said. lab: one VM running, one
// stopped; void: limactl is not installed, so every read failed — not a
// missing target, yet nothing was read: no count, gauge or passing test
// may say otherwise.
func fixtureBench(t *testing.T, dir, name string, vms topology.Fact[[]topology.VM]) *action.Report {
	t.Helper()
	tp := parsedTopology(t, dir, name, "name: "+name+"\ntarget_kind: lima\nnodes:\n  - {name: "+name+"1, role: control-plane}\n  - {name: "+name+"2, role: worker}\nlayers:\n  - flannel\n")
	obs := probes.UnknownObservation(tp, topology.Because(topology.ReasonNoTarget, "no bench kubeconfig at ~/.nestor/bench/"+name+"/kubeconfig (bootstrap the bench first)"))
	obs.NoBenchCluster = true
	obs.VMs = &vms
	return action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, fixtureAsOf)
}

// agreeFleet is fixtureFleet with the stacks of nothing read (nokc, and
// void, whose every read failed), of a forbidden read (ro), of a lima bench
// not bootstrapped (lab) and of an API server that did not answer (far).
func agreeFleet(t *testing.T, dir string) *action.FleetReport {
	f := fixtureFleet(t, dir)
	for i := range f.Stacks {
		if f.Stacks[i].Report != nil {
			f.Stacks[i].FromReport() // as Fleet.Run fills each line
		}
	}
	for _, r := range []*action.Report{fixtureNoTarget(t, dir), fixtureForbidden(t, dir), fixtureBench(t, dir, "lab", topology.KnownFact([]topology.VM{{Name: "lab1", Status: "Running"}, {Name: "lab2", Status: "Stopped"}})),
		fixtureBench(t, dir, "void", topology.UnknownFact[[]topology.VM](topology.Because(topology.ReasonNotInstalled, "limactl is not installed (not found on PATH)")))} {
		s := action.FleetStack{Name: r.Stack.Name, File: r.Stack.File, TargetKind: r.Stack.TargetKind, Report: r}
		s.FromReport()
		f.Stacks = append(f.Stacks, s)
	}
	far := parsedTopology(t, dir, "far", "name: far\ntarget_kind: prod\nendpoint: https://10.9.0.7:6443\nkubeconfig: far.config\nnodes:\n  - {name: far1, role: control-plane}\n")
	unreachable := &probes.UnreachableError{Endpoint: "https://10.9.0.7:6443", Context: "far", Kubeconfig: filepath.Join(dir, "far.config"),
		Reason: "dial tcp 10.9.0.7:6443: connect: connection timed out", Source: "kubeconfig: in " + far.Path}
	f.Stacks = append(f.Stacks, action.FleetStack{Name: "far", File: far.Path, TargetKind: topology.TargetProd, Outcome: action.OutcomeUnreachable,
		Reason: unreachable.Error(), Err: unreachable, Topology: far})
	sort.Slice(f.Stacks, func(i, j int) bool { return f.Stacks[i].Name < f.Stacks[j].Name })
	return f
}

// agreeClaim is one claim as a format says it: the stack, the topology key
// it concerns, and its rule ("step/install", "unknown", "no-report"…).
type agreeClaim struct{ stack, key, rule string }

// agreeCounts are a stack's counts as a format says them: "-" when it
// says none was judged.
type agreeCounts struct{ status, changes, waiting, unknown string }

// modelClaims and modelCounts are what the model says: every plan item of
// every stack with a report (at PlanItem.Key), a no-report claim for
// a stack without one, and the counts of action.Report.Counts.
func modelClaims(f *action.FleetReport) ([]agreeClaim, map[string]agreeCounts) {
	var claims []agreeClaim
	counts := map[string]agreeCounts{}
	for _, s := range f.Stacks {
		c := agreeCounts{status: string(s.Outcome), changes: "-", waiting: "-", unknown: "-"}
		if s.Report == nil {
			claims = append(claims, agreeClaim{s.Name, ErrorKey(s.Err), RuleNoReport})
			counts[s.Name] = c
			continue
		}
		for _, it := range Items(s.Report) {
			claims = append(claims, agreeClaim{s.Name, it.Key(), it.Rule()})
		}
		ch, w, u := s.Report.Counts()
		c.changes, c.waiting, c.unknown = action.CountText(ch), action.CountText(w), action.CountText(u)
		counts[s.Name] = c
	}
	return sortClaims(claims), counts
}

func sortClaims(cs []agreeClaim) []agreeClaim {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		return a.stack+"\x00"+a.key+"\x00"+a.rule < b.stack+"\x00"+b.key+"\x00"+b.rule
	})
	return cs
}

// TestFormatsAgree renders one fleet — the kinds, no target, forbidden,
// degraded, waiting, refused, invalid — in every format, reads each back,
// and checks that they say the same claims and counts as the model, and
// that nothing unread is a pass, a 1, a 0 or a green row.
func TestFormatsAgree(t *testing.T) {
	dir := t.TempDir()
	f := agreeFleet(t, dir)
	claims, counts := modelClaims(f)
	judged := map[string]bool{}
	for _, s := range f.Stacks {
		judged[s.Name] = s.Report != nil && s.Report.Judged()
	}
	// What the model says was judged, held to the stacks' own readings:
	// a stack with no target, or whose every read failed, judges nothing;
	// one read in part (the bench's VMs, a forbidden cluster) does.
	for name, want := range map[string]bool{"nokc": false, "void": false, "lab": true, "ro": true, "dirqual": true, "apps": true} {
		if judged[name] != want {
			t.Errorf("%s judged %v, want %v", name, judged[name], want)
		}
	}

	t.Run("JSON: the claims are typed and counted", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteFleetJSON(&b, f); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Stacks []struct {
				Name   string
				Status string
				Report *struct {
					Plan struct {
						Steps    []struct{ Subject topology.Subject }
						Findings []struct{ Subject topology.Subject }
						Unknowns []topology.UnknownPart
						Waiting  []topology.WaitingObject
					}
				}
			}
		}
		raw := map[string]any{}
		if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		stacks := raw["stacks"].([]any)
		var got []agreeClaim
		for i, s := range doc.Stacks {
			row := stacks[i].(map[string]any)
			c := agreeCounts{status: s.Status}
			for _, k := range []struct {
				name string
				to   *string
			}{{"changes", &c.changes}, {"waiting", &c.waiting}, {"unknown", &c.unknown}} {
				switch v := row[k.name].(type) {
				case nil:
					*k.to = "-"
				case float64:
					*k.to = fmt.Sprint(v)
				}
			}
			if c != counts[s.Name] {
				t.Errorf("%s: JSON says %+v, the model %+v", s.Name, c, counts[s.Name])
			}
			if s.Report == nil {
				continue
			}
			p := s.Report.Plan
			for _, u := range p.Unknowns {
				if u.Subject.Key == "" || u.Subject.Kind == "" || !slices.Contains(topology.ReasonCodes(), u.Code) {
					t.Errorf("%s: unknown %+v: a subject without a kind or key, or a reason outside the closed set", s.Name, u)
				}
				got = append(got, agreeClaim{s.Name, u.Subject.Key, RuleUnknown})
			}
			for _, w := range p.Waiting {
				got = append(got, agreeClaim{s.Name, w.Subject.Key, RuleWaiting})
			}
			for _, st := range p.Steps {
				if st.Subject.Key == "" {
					t.Errorf("%s: a step without a subject key", s.Name)
				}
			}
			for _, fd := range p.Findings {
				if fd.Subject.Key == "" {
					t.Errorf("%s: a finding without a subject key", s.Name)
				}
			}
		}
		var want []agreeClaim
		for _, c := range claims {
			if c.rule == RuleUnknown || c.rule == RuleWaiting {
				want = append(want, c)
			}
		}
		if got, want := sortClaims(got), want; !slices.Equal(got, want) {
			t.Errorf("JSON's unknown and waiting claims %v, the model's %v", got, want)
		}
	})

	t.Run("SARIF: every claim a result at its key, a stack without a report too, URIs relative", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteSARIF(&b, f, SARIFOptions{}); err != nil {
			t.Fatal(err)
		}
		d := decodeSARIF(t, b.Bytes())
		var got []agreeClaim
		for _, res := range d.Runs[0].Results {
			got = append(got, agreeClaim{res.Properties.Stack, res.Properties.Key, res.RuleID})
			for _, l := range res.Locations {
				if u := l.PhysicalLocation.ArtifactLocation; u.URIBaseID != srcRoot || strings.Contains(u.URI, ":") {
					t.Errorf("result %s of %s at %+v: not relative to %s", res.RuleID, res.Properties.Stack, u, srcRoot)
				}
			}
		}
		if got := sortClaims(got); !slices.Equal(got, claims) {
			t.Errorf("SARIF results\n%v\nthe model's claims\n%v", got, claims)
		}
		// Each part not read carries the model's reason code, and nothing
		// else carries one.
		var gotCodes, wantCodes []string
		for _, res := range d.Runs[0].Results {
			if res.Properties.Reason != "" {
				gotCodes = append(gotCodes, res.Properties.Stack+" "+res.Properties.Key+" "+res.Properties.Reason)
			}
		}
		for _, s := range f.Stacks {
			if s.Report == nil {
				continue
			}
			for _, it := range Items(s.Report) {
				if it.Unknown != nil {
					wantCodes = append(wantCodes, s.Name+" "+it.Key()+" "+string(it.Unknown.Code))
				}
			}
		}
		slices.Sort(gotCodes)
		slices.Sort(wantCodes)
		if len(wantCodes) == 0 || !slices.Equal(gotCodes, wantCodes) {
			t.Errorf("SARIF's reason codes %q, the model's %q", gotCodes, wantCodes)
		}
	})

	t.Run("JUnit: nothing unread passes; a change fails where it is", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteJUnit(&b, f, JUnitOptions{ReadAt: fixtureReadAt}); err != nil {
			t.Fatal(err)
		}
		var doc junitSuites
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		for _, s := range doc.Suites {
			var r *action.Report
			for _, fs := range f.Stacks {
				if fs.Name == s.Name {
					r = fs.Report
				}
			}
			for _, c := range s.Cases {
				key := junitKey(s.Name, c)
				passed := c.Failure == nil && c.Skipped == nil && c.Error == nil
				if passed && !judged[s.Name] {
					t.Errorf("%s: testcase %s passes, but nothing of the stack was judged", s.Name, key)
				}
				if r == nil || !passed {
					continue
				}
				for _, u := range r.Plan.Unknowns {
					if u.Subject.Covers(key) {
						t.Errorf("%s: testcase %s passes, but %q was not read", s.Name, key, u.String())
					}
				}
				for _, cl := range claims {
					if cl.stack == s.Name && cl.key == key && (strings.HasPrefix(cl.rule, "step/") && cl.rule != "step/undeclared") {
						t.Errorf("%s: testcase %s passes, but %s concerns it", s.Name, key, cl.rule)
					}
				}
			}
		}
	})

	t.Run("Prometheus: nothing unread is a 1 or a 0", func(t *testing.T) {
		var b bytes.Buffer
		if err := WritePrometheus(&b, f, PrometheusOptions{ReadAt: fixtureReadAt}); err != nil {
			t.Fatal(err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Stacks {
			v, ok := sample(fams, metricReadSuccess, map[string]string{"stack": s.Name})
			if !ok || (v == 1) != judged[s.Name] {
				t.Errorf("%s: nestor_read_success %v (present %v), judged %v", s.Name, v, ok, judged[s.Name])
			}
			c := counts[s.Name]
			for name, want := range map[string]string{metricWaiting: c.waiting, metricUnknown: c.unknown, metricInSync: "-", metricLayers: "-"} {
				got, ok := sample(fams, name, map[string]string{"stack": s.Name})
				switch {
				case !judged[s.Name] && ok:
					t.Errorf("%s: %s %v for a stack nothing was judged of: the series must be absent", s.Name, name, got)
				case judged[s.Name] && !ok:
					t.Errorf("%s: %s absent for a judged stack", s.Name, name)
				case judged[s.Name] && want != "-" && fmt.Sprint(got) != want:
					t.Errorf("%s: %s %v, the model %s", s.Name, name, got, want)
				}
			}
			if judged[s.Name] {
				total := 0.0
				for _, m := range fams[metricChanges].GetMetric() {
					for _, l := range m.GetLabel() {
						if l.GetName() == "stack" && l.GetValue() == s.Name {
							total += m.GetGauge().GetValue()
						}
					}
				}
				if fmt.Sprint(total) != c.changes {
					t.Errorf("%s: nestor_plan_changes adds up to %v, the model %s", s.Name, total, c.changes)
				}
			} else if _, ok := sample(fams, metricChanges, map[string]string{"stack": s.Name}); ok {
				t.Errorf("%s: nestor_plan_changes for a stack nothing was judged of", s.Name)
			}
		}
		if strings.Contains(b.String(), `stack=""`) {
			t.Errorf("a series about no stack:\n%s", b.String())
		}
	})

	t.Run("Markdown and the text table: the same counts, in the same columns", func(t *testing.T) {
		var md, text bytes.Buffer
		if err := WriteMarkdown(&md, f); err != nil {
			t.Fatal(err)
		}
		if err := views.Fleet(&text, f, false); err != nil {
			t.Fatal(err)
		}
		rows := map[string]agreeCounts{}
		for _, line := range strings.Split(md.String(), "\n") {
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 6 || strings.Contains(line, "---") || strings.TrimSpace(cells[0]) == "stack" {
				continue
			}
			trim := func(i int) string { return strings.TrimSpace(cells[i]) }
			rows[trim(0)] = agreeCounts{status: trim(2), changes: trim(3), waiting: trim(4), unknown: trim(5)}
		}
		lines := strings.Split(text.String(), "\n")
		if h := strings.Fields(lines[0]); len(h) < 3 || !slices.Equal(h[len(h)-3:], []string{"CHANGES", "WAITING", "UNKNOWN"}) {
			t.Fatalf("text header %q: want CHANGES WAITING UNKNOWN last", lines[0])
		}
		if !strings.Contains(md.String(), "| changes | waiting | unknown |") {
			t.Errorf("Markdown's columns are not the text's order:\n%s", md.String())
		}
		for _, s := range f.Stacks {
			want := counts[s.Name]
			if got := rows[s.Name]; got != want {
				t.Errorf("%s: Markdown row %+v, the model %+v", s.Name, got, want)
			}
			for _, l := range lines[1:] {
				fs := strings.Fields(l)
				if len(fs) < 4 || fs[0] != s.Name {
					continue
				}
				if got := (agreeCounts{status: want.status, changes: fs[len(fs)-3], waiting: fs[len(fs)-2], unknown: fs[len(fs)-1]}); got != want {
					t.Errorf("%s: text row %q, the model %+v", s.Name, l, want)
				}
			}
		}
	})

	t.Run("ICS: every event a date of the model, none of a stack not read", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteICS(&b, f, ICSOptions{Stamp: fixtureReadAt}); err != nil {
			t.Fatal(err)
		}
		cal, err := ics.ParseCalendar(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		prop := func(e *ics.VEvent, name string) string {
			if p := e.GetProperty(ics.ComponentProperty(name)); p != nil {
				return p.Value
			}
			return ""
		}
		var got []string
		for _, e := range cal.Events() {
			start, err := e.GetAllDayStartAt()
			if err != nil {
				t.Errorf("%s: %v", e.Id(), err)
			}
			stack, kind, subject := prop(e, icsStack), prop(e, icsEvent), prop(e, icsSubject)
			if e.Id() != ICSUID(stack, topology.DateKind(kind), subject) {
				t.Errorf("event %s: its UID is not made of its stack %s, kind %s and subject %s", e.Id(), stack, kind, subject)
			}
			if !judged[stack] {
				t.Errorf("event %s of %s, a stack nothing was judged of", e.Id(), stack)
			}
			got = append(got, stack+" "+kind+" "+subject+" "+start.Format(time.DateOnly))
		}
		var want []string
		undated := map[string]bool{}
		for _, p := range cal.CalendarProperties {
			if p.IANAToken == icsUndated {
				undated[p.Value] = true
			}
		}
		for _, s := range f.Stacks {
			if s.Report == nil {
				if !undated[s.Name+": no report ("+string(s.Outcome)+"): "+s.Reason] {
					t.Errorf("%s has no report, and the calendar does not say so: %v", s.Name, undated)
				}
				continue
			}
			asOf, _ := time.Parse(time.DateOnly, s.Report.AsOf)
			dates, parts := topology.StackDates(s.Report.Actual, asOf)
			for _, d := range dates {
				want = append(want, s.Name+" "+string(d.Kind)+" "+d.Subject+" "+d.Date.Format(time.DateOnly))
			}
			for _, p := range parts {
				if !undated[s.Name+": "+p.String()] {
					t.Errorf("%s: %q is not in the calendar's notes %v", s.Name, p, undated)
				}
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("ICS events\n%v\nthe model's dates\n%v", got, want)
		}
	})
}

// junitKey is the topology key of a testcase (junitName's inverse).
func junitKey(stack string, c junitCase) string {
	class := strings.TrimPrefix(c.ClassName, stack+".")
	switch class {
	case "stack":
		return topology.KeyName
	case "settings":
		return c.Name
	}
	return class + "/" + c.Name
}
