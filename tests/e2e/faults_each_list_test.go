package e2e

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/tests/faultproxy"
)

// TestFaultEachListNoClaimRestsOnIt fails every list a preview makes, one
// at a time — a 500, a 403, and a hang past the deadline — and checks the
// one rule for partial reads: a claim built on a part that was not read is
// unknown, never a step, a health word or "in sync". Against the baseline
// read of the same stack (the healthy dirqual cluster, with layers that are
// absent there so that the baseline plans installs), a failed list may only
// turn a layer unknown and take steps away: it never adds a step, never
// changes a health to anything but unknown, and the plan is never in sync
// unless what failed only feeds findings — then a finding says it was not
// read. Every unknown carries a reason code.
func TestFaultEachListNoClaimRestsOnIt(t *testing.T) {
	eachListFails(t, newFaultRig(t, true), func(string) bool { return true })
}

// TestFaultEachListOnTheDemo is the same rule on the demo cluster, where
// kube-prometheus-stack is absent: its workload lists failing (the
// monitoring namespace, a timeout behind a slow proxy) once made it
// "degraded (no Prometheus resource; workloads: timed out)" with a repair
// step, where the full read says absent.
func TestFaultEachListOnTheDemo(t *testing.T) {
	eachListFails(t, newFaultRigOn(t, "demo.yaml", false), func(p string) bool {
		return strings.Contains(p, "/namespaces/monitoring/") || strings.HasSuffix(p, "customresourcedefinitions") || strings.Contains(p, "monitoring.coreos.com")
	})
}

// eachListFails runs the rule of TestFaultEachListNoClaimRestsOnIt on r's
// stack, with longhorn and flux (absent on both clusters) added to its
// layers so that the baseline plans installs, failing in turn each list of
// the baseline read for which only(path) is true.
func eachListFails(t *testing.T, r *faultRig, only func(path string) bool) {
	t.Helper()
	appendLayers(t, filepath.Join(r.Stacks, "dirqual.yaml"), "  - longhorn\n  - flux\n")
	type doc struct {
		Actual struct {
			Layers []struct{ Name, Health, Reason string }
		}
		Plan struct {
			Steps    []struct{ Kind, Target string }
			Unknowns []jsonClaim
			Findings []struct{ Kind string }
		}
		Summary struct {
			InSync bool `json:"in_sync"`
		}
	}
	read := func(t *testing.T) (bounded, doc) {
		t.Helper()
		b := runBounded(r.in(t), boundedOpts{limit: faultTimeout + deadlineMargin + 5*time.Second}, r.previewArgs(faultTimeout, false)...)
		wantWithin(t, b, faultTimeout+deadlineMargin)
		var d doc
		if err := json.Unmarshal([]byte(b.stdout), &d); err != nil {
			t.Fatalf("%v\n%s", err, b.result)
		}
		return b, d
	}
	base, baseDoc := read(t)
	steps := map[string]bool{}
	for _, s := range baseDoc.Plan.Steps {
		steps[s.Kind+" "+s.Target] = true
	}
	health := map[string]string{}
	for _, l := range baseDoc.Actual.Layers {
		health[l.Name] = l.Health
	}
	if health["longhorn"] != "absent" || !steps["install longhorn"] {
		t.Fatalf("baseline: want longhorn absent and installed, nothing unknown; got %+v\n%s", baseDoc, base.stdout)
	}
	paths := map[string]bool{}
	for _, req := range r.proxy.Log() {
		if req.Method == "GET" && req.Path != "" && req.Path != faultproxy.PathVersion {
			paths[req.Path] = true
		}
	}
	var list []string
	for p := range paths {
		if only(p) {
			list = append(list, p)
		}
	}
	sort.Strings(list)
	if len(list) < 3 {
		t.Fatalf("the baseline preview made %d lists: %v", len(list), list)
	}
	t.Logf("%d lists: %s", len(list), strings.Join(list, " "))
	for _, p := range list {
		for _, f := range []namedFault{{"500", faultproxy.Status(500, 0)}, {"403", faultproxy.Status(403, 0)}, {"hang", faultproxy.Hang()}} {
			t.Run(p+" "+f.name, func(t *testing.T) {
				route := faultproxy.Route{Path: p}
				r.proxy.Set(route, f.fault)
				defer r.proxy.Clear(route)
				b, d := read(t)
				for _, s := range d.Plan.Steps {
					if !steps[s.Kind+" "+s.Target] {
						t.Errorf("step %s %s appears when %s failed: a step rests on a read that failed", s.Kind, s.Target, p)
					}
				}
				for _, l := range d.Actual.Layers {
					if h, ok := health[l.Name]; ok && l.Health != h && l.Health != "unknown" {
						t.Errorf("layer %s: %s (%s) when %s failed, %s in the full read: only unknown may replace it", l.Name, l.Health, l.Reason, p, h)
					}
				}
				for _, u := range d.Plan.Unknowns {
					if u.Reason == "" || u.Subject.Key == "" {
						t.Errorf("unknown %q without a reason code or a key", u.String())
					}
				}
				if d.Summary.InSync {
					said := false
					for _, fd := range d.Plan.Findings {
						said = said || fd.Kind == "status-unread" || fd.Kind == "upgrade-unknown"
					}
					if !said {
						t.Errorf("in sync although %s failed, and no finding says it was not read\n%s", p, b.stdout)
					}
				}
			})
		}
	}
}
