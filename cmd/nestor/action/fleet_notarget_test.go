package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/stacks"
)

// Fleet reads each stack through its own kubeconfig: only, so a stack
// that declares none is told so and given that fix — never told to
// export KUBECONFIG or pass --kubeconfig, which fleet does not use.
func TestFleetNoTargetNamesOnlyTheTopologysKubeconfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.yaml"), []byte("name: lab\ntarget_kind: prod\nnodes:\n  - {name: lab1, role: control-plane, address: 10.0.0.1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, _ := testConfig(t, map[string]string{"HOME": t.TempDir(), "KUBECONFIG": filepath.Join(dir, "other.config")}, false, nil)
	c.Stacks = stacks.Store{Dir: dir}
	r, err := Fleet{Config: c}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stacks) != 1 || r.Stacks[0].Outcome != OutcomeNoTarget {
		t.Fatalf("stacks %+v, want lab with no target", r.Stacks)
	}
	reason := r.Stacks[0].Reason
	if strings.Contains(reason, "KUBECONFIG") || strings.Contains(reason, "--kubeconfig") || !strings.Contains(reason, "declares no kubeconfig:") || !strings.Contains(reason, "add `kubeconfig: ~/.kube/lab.config`") {
		t.Errorf("reason %q: want the topology's own kubeconfig: and its fix, no KUBECONFIG or --kubeconfig", reason)
	}
}
