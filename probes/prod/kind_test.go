package prod

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/internal/probetest"
	"nestor.dev/nestor/topology"
)

// brokenCA is a kubeconfig whose CA does not parse, for server.
func brokenCA(server string) string {
	return "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: " + server +
		"\n    certificate-authority-data: bm90IGEgY2VydGlmaWNhdGU=\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: " + probetest.SecretToken + "}\n"
}

// The identity first: a kubeconfig of another cluster is refused as such
// without a prompt, whatever else is wrong with it (here a CA that does not
// parse); the stack's own broken kubeconfig is the load error it is.
func TestGuardComparesTheServerOfABrokenKubeconfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, server string
		mismatch     bool
	}{
		{"another cluster's", "https://10.9.9.9:6443", true},
		{"the stack's own", "https://10.0.0.1:6443", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := probetest.WriteFile(t, filepath.Join(dir, tc.name, "kubeconfig"), brokenCA(tc.server))
			tp := &topology.Topology{Name: "p", Path: filepath.Join(dir, "p.yaml"), TargetKind: topology.TargetProd, Endpoint: "https://10.0.0.1:6443"}
			for _, interactive := range []bool{false, true} {
				_, err := probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{KubeconfigFlag: kc, Interactive: interactive,
					Confirm: func(probes.GuardView) (bool, error) {
						t.Fatal("asked to confirm a kubeconfig that does not load")
						return false, nil
					}})
				var mismatch *probes.EndpointMismatchError
				switch {
				case tc.mismatch && !errors.As(err, &mismatch):
					t.Errorf("interactive %v: err = %v, want an *EndpointMismatchError", interactive, err)
				case !tc.mismatch && (errors.As(err, &mismatch) || err == nil || !strings.Contains(err.Error(), "TLS")):
					t.Errorf("interactive %v: err = %v, want the load error", interactive, err)
				}
				if err != nil && strings.Contains(err.Error(), probetest.SecretToken) {
					t.Errorf("the token is in the error: %v", err)
				}
			}
		})
	}
}
