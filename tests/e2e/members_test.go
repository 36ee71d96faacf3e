package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/tests/harness"
)

// TestLayerIsAllOfItsWorkloads: on the real API server, with the demo
// cluster (cilium-envoy, part-of cilium in kube-system, at 3/4; rook-ceph's
// csi-rbdplugin DaemonSet at 3/4) and argocd-redis and
// argocd-applicationset-controller made 0/1 available through the status
// subresource, each of those layers is degraded naming the workload, lists
// it in its detail (JSON and --detailed), gets a repair step, and the stack
// is never in sync.
func TestLayerIsAllOfItsWorkloads(t *testing.T) {
	c := ownCluster(t, "demo.yaml")
	ctx := context.Background()
	deps := c.AdminClient().AppsV1().Deployments("argocd")
	for _, name := range []string{"argocd-redis", "argocd-applicationset-controller"} {
		d, err := deps.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 1, 1, 0, 0, 1
		if _, err := deps.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w := newWorld(t, c)
	kc := w.kubeconfig(c, filepath.Join(w.Home, ".kube", "demo.config"), harness.IdentityReadOnly, "")
	w.stackFile("demo", strings.ReplaceAll(strings.Replace(rbacStack, "%s", kc, 1), "%s", c.URL))

	r := w.run(nil, "preview", "--stacks", w.Stacks, "demo", "-o", "json", "--as-of", "2026-12-01")
	var doc struct {
		Actual struct {
			Layers []struct {
				Name, Health, Reason string
				Detail               []string
			}
		}
		Plan struct {
			Steps []struct{ Kind, Target string }
		}
		Summary struct {
			InSync bool `json:"in_sync"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	want := map[string][]string{
		"argocd":    {"argocd/argocd-redis 0/1 available", "argocd/argocd-applicationset-controller 0/1 available"},
		"cilium":    {"kube-system/cilium-envoy 3/4 available"},
		"rook-ceph": {"rook-ceph/csi-rbdplugin 3/4 available"},
	}
	for layer, workloads := range want {
		found := false
		for _, l := range doc.Actual.Layers {
			if l.Name != layer {
				continue
			}
			found = true
			if l.Health != "degraded" {
				t.Errorf("%s: %s (%s), want degraded", layer, l.Health, l.Reason)
			}
			for _, wl := range workloads {
				if !strings.Contains(l.Reason, wl) || !slices.Contains(l.Detail, wl) {
					t.Errorf("%s: reason %q, detail %q: want %q in both", layer, l.Reason, l.Detail, wl)
				}
			}
		}
		if !found {
			t.Errorf("no layer %s in %s", layer, r.stdout)
		}
		repaired := false
		for _, s := range doc.Plan.Steps {
			repaired = repaired || (s.Kind == "repair" && s.Target == layer)
		}
		if !repaired {
			t.Errorf("no repair step for %s: %+v", layer, doc.Plan.Steps)
		}
	}
	if doc.Summary.InSync {
		t.Error("in sync with workloads down")
	}

	text := w.run(nil, "preview", "--stacks", w.Stacks, "demo", "--no-input", "--detailed", "--as-of", "2026-12-01")
	for _, workloads := range want {
		for _, wl := range workloads {
			if !strings.Contains(text.stdout, wl) {
				t.Errorf("--detailed does not show %q:\n%s", wl, text.stdout)
			}
		}
	}
}
