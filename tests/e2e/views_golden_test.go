package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"

	"nestor.dev/nestor/tests/golden"
)

// draftDate is the day discover writes in its draft's header.
var draftDate = regexp.MustCompile(`on \d{4}-\d{2}-\d{2}\. Review it`)

// TestGoldenViewsDiscover draws discover's report and its -o yaml draft of
// a real cluster (the demo fixture: a NotReady node, a cordoned one, a
// degraded layer) and of a kapsule cluster read through the provider's
// stand-in with its kubeconfig, compared with
// tests/testdata/golden/discover/<case>/. The API server's and the
// stand-in's random ports are written $API and $SCW, the world's folder
// $ROOT, the draft's date $DATE.
func TestGoldenViewsDiscover(t *testing.T) {
	c := sharedFixtureCluster(t, "demo.yaml")
	w := newWorld(t, c)
	kc := w.kubeconfig(c, filepath.Join(w.Home, ".kube", "demo.config"), harness.IdentityReadOnly, "")
	w.stackFile("demo", "name: demo\ntarget_kind: prod\nkubeconfig: "+kc+"\nendpoint: "+c.URL+"\nkubernetes: {version: \"1.37\"}\n"+
		"nodes:\n  - {name: demo1, role: control-plane, address: 10.20.0.11}\n  - {name: demo2}\n  - {name: demo3}\n  - {name: demo4}\n"+
		"backend: ceph\nlayers: [cilium, rook-ceph, cnpg, kube-prometheus-stack, argocd]\n")
	kw := newKapsuleWorld(t)
	kw.stack("1.35", kw.kubeconfig, "")

	norm := func(s string, extra ...string) string {
		s = strings.ReplaceAll(s, w.Root, "$ROOT")
		s = strings.ReplaceAll(s, kw.Root, "$ROOT")
		s = strings.ReplaceAll(s, c.URL, "$API")
		s = strings.ReplaceAll(s, kw.cluster.URL, "$API")
		s = strings.ReplaceAll(s, kw.stub.URL, "$SCW")
		s = regexp.MustCompile(`checked \d+ s ago`).ReplaceAllString(s, "checked NN s ago")
		return draftDate.ReplaceAllString(s, "on $$DATE. Review it")
	}
	cases := []struct {
		name string
		w    *world
		env  []string
		args []string
	}{
		{"prod", w, w.env(), []string{"discover", "--stack", "demo"}},
		{"prod-draft", w, w.env(), []string{"discover", "--stack", "demo", "-o", "yaml"}},
		{"kapsule", kw.world, kw.env(creds()...), []string{"discover", "--stack", "lyneko-apps"}},
		{"kapsule-draft", kw.world, kw.env(creds()...), []string{"discover", "--stack", "lyneko-apps", "-o", "yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.w.runWith(runOpts{env: tc.env}, tc.args...)
			dir := filepath.Join(repoRoot(t), "tests", "testdata", "golden", "discover", tc.name)
			got := map[string]string{"stdout": norm(r.stdout), "stderr": norm(r.stderr), "code": fmt.Sprintf("%d\n", r.code)}
			golden.CheckDir(t, dir, got)
		})
	}
}
