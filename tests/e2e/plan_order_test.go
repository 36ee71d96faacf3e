package e2e

// End-to-end proofs of the plan's order on the demo cluster (fixture
// demo.yaml: demo1 control plane, demo2–demo4 workers; demo3 NotReady,
// demo4's kubelet v1.36.4, the others v1.37.2; server v1.37.2): the steps
// are a dependency order (checked by decodePreview with
// plan.CheckOrder), a blocked step names what unblocks it, and a node
// the topology does not declare is never the subject of a change.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"
)

// orderWorld writes stack name, read through the demo cluster, declaring
// kubernetes.version version and the nodes named (the first the control
// plane), no layer.
func orderWorld(t *testing.T, c *harness.Cluster, name, version string, nodes ...string) *world {
	t.Helper()
	w := newWorld(t, c)
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", name+".config"), harness.IdentityReadOnly, "")
	var decl strings.Builder
	for i, n := range nodes {
		role := "worker"
		if i == 0 {
			role = "control-plane"
		}
		fmt.Fprintf(&decl, "  - {name: %s, role: %s}\n", n, role)
	}
	w.stackFile(name, fmt.Sprintf("name: %s\ntarget_kind: prod\nkubeconfig: ~/.kube/%s.config\nendpoint: %s\nkubernetes:\n  version: %q\nnodes:\n%slayers: []\n",
		name, name, c.URL, version, decl.String()))
	return w
}

func stepRefs(d previewDoc) []string {
	var out []string
	for _, s := range d.Plan.Steps {
		ref := s.Kind + " " + s.Target
		if s.To != "" {
			ref += " → " + s.To
		}
		out = append(out, ref)
	}
	return out
}

func TestPlanOrderDemoCluster(t *testing.T) {
	c := sharedFixtureCluster(t, "demo.yaml")

	t.Run("1.40: demo3 repaired first, demo4's kubelet moved before the control plane needs it", func(t *testing.T) {
		w := orderWorld(t, c, "demo", "1.40", "demo1", "demo2", "demo3", "demo4")
		d := decodePreview(t, w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "demo", "-o", "json"))
		head := []string{"repair-node demo3", "upgrade kubernetes → 1.38", "upgrade kubernetes → 1.39", "upgrade-node demo4 → 1.37", "upgrade kubernetes → 1.40"}
		refs := stepRefs(d)
		if len(refs) < len(head) || strings.Join(refs[:len(head)], "\n") != strings.Join(head, "\n") {
			t.Errorf("steps:\n%s\nwant them to start with:\n%s", strings.Join(refs, "\n"), strings.Join(head, "\n"))
		}
		r := w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "demo")
		wantContains(t, "preview", r.stdout,
			"   4. ~ upgrade-node demo4  (kubelet v1.36.4 → 1.37 (step 1 of 4 to 1.40: one minor at a time, as kubeadm upgrades))\n"+
				"   5. ~ upgrade kubernetes  (API server 1.39 → 1.40 (step 3 of 3 to 1.40: the API server must not skip minors); after upgrade-node demo4 → 1.37: kubelet v1.36.4 on demo4 would otherwise be 4 minors behind 1.40, more than the 3 the version skew policy allows)\n"+
				"        ↳ after 4. upgrade-node demo4 → 1.37\n")
		if strings.Contains(r.stdout, "blocked") {
			t.Errorf("a blocked step where the plan moves every kubelet:\n%s", r.stdout)
		}
		wantContains(t, "preview", r.stdout, "~ upgrade-node demo3  (kubelet v1.37.2 → 1.38 (step 1 of 3 to 1.40: one minor at a time, as kubeadm upgrades))\n        ↳ after 1. repair-node demo3\n")
	})

	t.Run("a stack declaring dirqual1–4 on the demo nodes: information only, and the skew still holds", func(t *testing.T) {
		w := orderWorld(t, c, "dirqual", "1.40", "dirqual1", "dirqual2", "dirqual3", "dirqual4")
		d := decodePreview(t, w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "dirqual", "-o", "json"))
		for _, s := range d.Plan.Steps {
			if strings.HasPrefix(s.Target, "demo") && s.Kind != "undeclared" {
				t.Errorf("a change step for a node the topology does not declare: %s %s (%s)", s.Kind, s.Target, s.Reason)
			}
		}
		var blocked []planStep
		for _, s := range d.Plan.Steps {
			if len(s.Blocked) > 0 {
				blocked = append(blocked, s)
			}
		}
		want := "; blocked: kubelet v1.36.4 on demo4 would be 4 minors behind 1.40, more than the 3 the version skew policy allows, and it is not declared in the topology, so no step of this plan upgrades it: upgrade it to 1.37 or later outside nestor, or declare it under nodes:, first"
		if len(blocked) != 1 || blocked[0].To != "1.40" || !strings.HasSuffix(blocked[0].Reason, want) || blocked[0].Blocked[0].Key != "nodes/demo4" {
			t.Errorf("blocked steps: %+v\nwant the upgrade to 1.40, blocked by node demo4: …%s", blocked, want)
		}
		r := w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "dirqual")
		wantContains(t, "preview", r.stdout, "i undeclared demo4  (registered in the cluster but not declared in the topology)")
		if strings.Contains(r.stdout, "upgrade-node demo") || strings.Contains(r.stdout, "repair-node demo") {
			t.Errorf("a change step for a demo node:\n%s", r.stdout)
		}
	})
}
