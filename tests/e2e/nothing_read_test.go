package e2e

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// A stack of which every read failed judges nothing, whatever its kind,
// as a stack with no target does: the provider's API of a kapsule stack
// refuses every connection (its stand-in closed), and a lima bench has
// neither limactl nor its kubeconfig. preview still reports, and says so;
// fleet's counts are none, its Prometheus series say nothing was read and
// give no plan gauge, its JSON counts are null.
func TestNothingReadJudgesNothing(t *testing.T) {
	kw := newKapsuleWorld(t)
	kw.stack("1.35", "", "")
	kw.stub.Close()
	kw.writeFile(filepath.Join(kw.Stacks, "bench.yaml"), []byte("name: bench\ntarget_kind: lima\nnodes:\n  - {name: lima-node1, role: control-plane}\nlayers:\n  - flannel\n"))
	env := creds("PATH=" + t.TempDir()) // no limactl, nor anything else to run

	for _, stack := range []string{"lyneko-apps", "bench"} {
		r := kw.run(env, "preview", "--stack", stack, "--stacks", kw.Stacks, "--no-input")
		wantCode(t, r, 0)
		wantLine(t, stack+": nothing judged", r.stdout, `^Plan: .* Not in sync: nothing could be read, so nothing is judged\.$`)
	}

	r := kw.run(env, "fleet", "--stacks", kw.Stacks, "-o", "prometheus")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader([]byte(r.stdout)))
	if err != nil {
		t.Fatalf("fleet -o prometheus: %v\n%s", err, r.stdout)
	}
	for _, stack := range []string{"lyneko-apps", "bench"} {
		found := false
		for _, m := range fams["nestor_read_success"].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["stack"] == stack {
				found = true
				if m.GetGauge().GetValue() != 0 || labels["status"] != "unknown" {
					t.Errorf("%s: nestor_read_success %v %v, want 0 with status unknown", stack, m.GetGauge().GetValue(), labels)
				}
			}
		}
		if !found {
			t.Errorf("%s: no nestor_read_success", stack)
		}
		for _, name := range []string{"nestor_plan_changes", "nestor_plan_unknown", "nestor_in_sync", "nestor_layers"} {
			for _, m := range fams[name].GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "stack" && l.GetValue() == stack {
						t.Errorf("%s: %s present for a stack nothing was read of", stack, name)
					}
				}
			}
		}
	}

	r = kw.run(env, "fleet", "--stacks", kw.Stacks, "-o", "json")
	var doc struct {
		Stacks []struct {
			Name, Status              string
			Changes, Waiting, Unknown *int
		}
	}
	if err := jsonDecode(r.stdout, &doc); err != nil {
		t.Fatalf("fleet -o json: %v", err)
	}
	if len(doc.Stacks) != 2 {
		t.Fatalf("fleet -o json: %d stacks, want 2:\n%s", len(doc.Stacks), r.stdout)
	}
	for _, s := range doc.Stacks {
		if s.Status != "unknown" || s.Changes != nil || s.Waiting != nil || s.Unknown != nil {
			t.Errorf("%s: status %q, counts %v %v %v; want unknown and no counts", s.Name, s.Status, s.Changes, s.Waiting, s.Unknown)
		}
	}
}
