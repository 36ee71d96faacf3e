package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/scwstub"

	"nestor.dev/nestor/tests/golden"
)

const (
	goldenAccessKey = "SCWK7QH2M9XWD4RTNB5P"
	goldenSecretKey = "5f3e9a71-c2d8-4b6e-a0f4-8d17b3c6e925"
)

// viewsWorld is the golden world plus a kapsule stack read through a
// stand-in of the provider's API (no kubeconfig: the provider alone), so
// the managed views and a mixed fleet can be drawn.
func viewsWorld(t *testing.T) (*goldenWorld, *scwstub.Stub) {
	t.Helper()
	w := newGoldenWorld(t)
	s := scwstub.Start(scwstub.Options{Region: "fr-par", ClusterID: scwstub.ClusterID, SecretKey: goldenSecretKey})
	t.Cleanup(s.Close)
	data := scwstub.Typical("fr-par", "https://"+scwstub.ClusterID+".api.k8s.fr-par.scw.cloud:6443")
	data.Pools[1].Status = "scaling"
	data.Available = []string{"1.35.4", "1.36.1"}
	s.Serve(data)
	w.write(t, filepath.Join(w.stacks, "lyneko-apps.yaml"), "# Lyneko's apps cluster on Kapsule, read through the provider's API alone.\nname: lyneko-apps\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: "+scwstub.ClusterID+
		"\n  project_id: "+scwstub.ProjectID+"\n  api_url: "+s.URL+"\nkubernetes:\n  version: \"1.36\"\npools:\n  - {name: default, node_type: PRO2-XXS, size: 3, zone: fr-par-1}\n  - {name: burst, node_type: PRO2-S, autoscaling: {min: 0, max: 5}}\nlayers: []\n")
	// A kapsule stack of the same cluster that only waits (its declared
	// version is the cluster's), and a prod stack whose endpoint is a port
	// nothing answers on (unreachable, not refused).
	w.write(t, filepath.Join(w.stacks, "apps-waiting.yaml"), "name: apps-waiting\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: "+scwstub.ClusterID+
		"\n  api_url: "+s.URL+"\nkubernetes:\n  version: \"1.35\"\npools:\n  - {name: default, node_type: PRO2-XXS, size: 3, zone: fr-par-1}\n  - {name: burst, node_type: PRO2-S, autoscaling: {min: 0, max: 5}}\nlayers: []\n")
	// The same cluster declared on a dedicated offer, outside the stacks
	// folder (read with -f, so no fleet line): a set-type step up.
	w.write(t, filepath.Join(w.root, "offer", "lyneko-apps.yaml"), "name: lyneko-apps\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: "+scwstub.ClusterID+
		"\n  api_url: "+s.URL+"\n  type: kapsule-dedicated-4\nkubernetes:\n  version: \"1.35\"\npools:\n  - {name: default, node_type: PRO2-XXS, size: 3, zone: fr-par-1}\n  - {name: burst, node_type: PRO2-S, autoscaling: {min: 0, max: 200}}\nlayers: []\n")
	w.write(t, filepath.Join(w.stacks, "edge.yaml"), "name: edge\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\nendpoint: "+w.closedURL+"\nnodes:\n  - {name: edge1, role: control-plane}\nlayers: []\n")
	return w, s
}

// TestGoldenViews draws, through the real entry point, the views the
// TestGolden cases do not reach: a kapsule preview (the provider block, its
// pools and calendar, a pool moving, an upgrade offered) in text and JSON,
// and a fleet of every kind and fate (lima, prod without a target, prod
// refused, kapsule waiting and changing, an invalid topology), text and
// JSON. The stand-in's random port is written $SCW, the world's root $ROOT.
// Fleet's words and codes: a FILE that cannot be read exits 1 and is no
// line of the fleet; a kapsule stack without credentials anywhere is "no
// target", not "invalid", in preview as in fleet (an unverified report, as
// a prod stack without a kubeconfig gets); --context, like --kubeconfig, names one
// kubeconfig's context and is not used, said once.
func TestGoldenViews(t *testing.T) {
	cases := []struct {
		command, name string
		args          []string
		limactl       string
		json          bool
		// noCreds leaves the Scaleway credentials unexported.
		noCreds bool
	}{
		{command: "preview", name: "kapsule-provider-only", args: []string{"preview", "--stack", "lyneko-apps", "--as-of", "2026-11-30"}},
		{command: "preview", name: "kapsule-provider-only-json", args: []string{"preview", "--stack", "lyneko-apps", "--as-of", "2026-11-30", "-o", "json"}, json: true},
		{command: "preview", name: "kapsule-offer-up", args: []string{"preview", "-f", "$ROOT/offer/lyneko-apps.yaml", "--as-of", "2026-11-30"}},
		{command: "fleet", name: "mixed", args: []string{"fleet", "--as-of", "2026-11-30"}, limactl: "bench-node2-stopped.jsonl"},
		{command: "fleet", name: "mixed-detailed", args: []string{"fleet", "--as-of", "2026-11-30", "--detailed"}, limactl: "bench-node2-stopped.jsonl"},
		{command: "fleet", name: "mixed-json", args: []string{"fleet", "--as-of", "2026-11-30", "-o", "json"}, limactl: "bench-node2-stopped.jsonl", json: true},
		{command: "fleet", name: "file-unreadable", args: []string{"fleet", "--as-of", "2026-11-30", "lyneko-apps", "-f", "/nonexistent/x.yaml"}},
		{command: "fleet", name: "kapsule-no-credentials", args: []string{"fleet", "--as-of", "2026-11-30", "lyneko-apps", "--detailed"}, noCreds: true},
		{command: "preview", name: "kapsule-no-credentials", args: []string{"preview", "--stack", "lyneko-apps", "--as-of", "2026-11-30"}, noCreds: true},
		{command: "fleet", name: "context-not-used", args: []string{"fleet", "--as-of", "2026-11-30", "edge", "lab", "--context", "other"}},
	}
	for _, c := range cases {
		t.Run(c.command+"/"+c.name, func(t *testing.T) {
			w, s := viewsWorld(t)
			env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks, "SCW_ACCESS_KEY": goldenAccessKey, "SCW_SECRET_KEY": goldenSecretKey}
			if c.noCreds {
				delete(env, "SCW_ACCESS_KEY")
				delete(env, "SCW_SECRET_KEY")
			}
			a, out, errOut := testApp(t, env, false, nil)
			a.Run = limactl(c.limactl)
			args := slices.Clone(c.args)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "$ROOT", w.root)
			}
			code := Run(a, append(args, "--timeout", "2s"))
			norm := func(s0 string) string {
				s0 = strings.ReplaceAll(s0, w.root, "$ROOT")
				s0 = strings.ReplaceAll(s0, s.URL, "$SCW")
				s0 = strings.ReplaceAll(s0, w.closedURL, "$CLOSED")
				return strings.ReplaceAll(s0, strings.TrimPrefix(w.closedURL, "https://"), "$CLOSEDADDR")
			}
			stdout := norm(out.String())
			if c.json {
				var doc any
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
				}
			}
			if strings.Contains(out.String()+errOut.String(), goldenSecretKey) {
				t.Fatal("the secret key reached the output")
			}
			compareGolden(t, filepath.Join(goldenRoot, c.command, c.name), map[string]string{
				"stdout": stdout, "stderr": norm(errOut.String()), "code": fmt.Sprintf("%d\n", code)})
		})
	}
}

// compareGolden compares each of got (file base name → text) with
// dir/NAME.golden, rewriting them first with -update.
func compareGolden(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	golden.CheckDir(t, dir, got)
}
