package e2e

// End-to-end tests of `nestor env` and `nestor next`. (next on dirqual with
// CNPG missing is in TestPreviewDirqualDriftAndNext, which owns the cluster
// where CNPG was removed.)

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"
)

// `env` on a prod stack while KUBECONFIG already points at the bench prints
// nothing on stdout (and says on stderr which kubeconfig nestor reads); `env`
// on the bench prints the export, and eval of it in bash makes kubectl reach
// the bench cluster.
func TestEnvProdAndBench(t *testing.T) {
	bench := sharedFixtureCluster(t, benchFixture)
	w := benchWorld(t, bench, true)
	w.dirqualStack("https://10.67.2.11:6443", "~/.kube/dirqual.config")
	benchKC := w.benchKubeconfig()

	t.Run("prod stack with KUBECONFIG at the bench", func(t *testing.T) {
		w := w.in(t)
		for _, shell := range []string{"bash", "zsh", "fish"} {
			r := w.run([]string{"KUBECONFIG=" + benchKC}, "env", "--stack", "dirqual", "--stacks", w.Stacks, "--shell", shell)
			wantCode(t, r, 0)
			if r.stdout != "" {
				t.Errorf("env --shell %s on a prod stack printed on stdout (must be empty):\n%q", shell, r.stdout)
			}
			wantContains(t, "stderr", r.stderr, "prod", "exports nothing", benchKC, "KUBECONFIG")
			if len(r.audit[0]) != 0 {
				t.Errorf("env read the cluster: %v", r.audit[0])
			}
		}
		// Without KUBECONFIG: stderr names the topology's kubeconfig and how
		// to fetch it (it does not exist in this HOME).
		r := w.run(nil, "env", "--stack", "dirqual", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		if r.stdout != "" {
			t.Errorf("env on a prod stack printed on stdout:\n%q", r.stdout)
		}
		wantContains(t, "stderr", r.stderr, filepath.Join(w.Home, ".kube", "dirqual.config"), "nestor discover --cp dirqual1")
		wantNotContains(t, "prod env", r.stderr, benchKC)
		if calls := w.limaCalls(); len(calls) != 0 {
			t.Errorf("limactl was run by env: %v", calls)
		}
	})

	t.Run("bench stack", func(t *testing.T) {
		w := w.in(t)
		r := w.run(nil, "env", "--stack", "bench", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		if want := "export KUBECONFIG='" + benchKC + "'\n"; r.stdout != want {
			t.Errorf("stdout = %q, want %q", r.stdout, want)
		}
		r = w.run(nil, "env", "--stack", "bench", "--stacks", w.Stacks, "--shell", "fish")
		wantCode(t, r, 0)
		if want := "set -gx KUBECONFIG '" + benchKC + "';\n"; r.stdout != want {
			t.Errorf("fish: stdout = %q, want %q", r.stdout, want)
		}
	})

	t.Run("eval makes kubectl reach the bench", func(t *testing.T) {
		w := w.in(t)
		bin, err := harness.BinDir()
		if err != nil {
			t.Fatal(err)
		}
		kubectl := filepath.Join(bin, "kubectl")
		if _, err := os.Stat(kubectl); err != nil {
			t.Fatalf("kubectl of the test cluster build: %v (tests/k8sbin/build.sh builds it)", err)
		}
		cache := t.TempDir() // kubectl's discovery cache, outside the world
		script := `set -eu
eval "$(nestor env --stack bench --stacks "$STACKS")"
printf 'KUBECONFIG=%s\n' "$KUBECONFIG"
kubectl --cache-dir "$CACHE" get nodes -o name
# a prod stack's env is harmless: it leaves KUBECONFIG as it is
eval "$(nestor env --stack dirqual --stacks "$STACKS")"
printf 'after prod: KUBECONFIG=%s\n' "$KUBECONFIG"
`
		nestorDir := filepath.Dir(nestorBinary(t))
		env := []string{
			"PATH=" + nestorDir + ":" + bin + ":" + w.LimaBin + ":/usr/bin:/bin",
			"HOME=" + w.Home, "NO_COLOR=1",
			"LIMACTL_STANDIN_LOG=" + w.LimaLog, "LIMACTL_STANDIN_OUTPUT=" + w.LimaOutput,
			"STACKS=" + w.Stacks, "CACHE=" + cache,
		}
		before := w.snapshot()
		mark := len(allAudit(t, bench))
		ctx, cancel := context.WithTimeout(context.Background(), runLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
		cmd.Env = env
		cmd.Dir = w.Root
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("bash: %v\n--- stdout\n%s--- stderr\n%s", err, stdout.String(), stderr.String())
		}
		t.Logf("bash:\n%s--- stderr\n%s", stdout.String(), stderr.String())
		want := "KUBECONFIG=" + benchKC + "\nnode/lima-node1\nnode/lima-node2\nafter prod: KUBECONFIG=" + benchKC + "\n"
		if stdout.String() != want {
			t.Errorf("stdout = %q, want %q", stdout.String(), want)
		}
		w.assertUnchanged(before, result{args: []string{"env (in bash)"}})
		// kubectl, with the exported kubeconfig, listed the bench's nodes.
		listed := false
		for _, e := range allAudit(t, bench)[mark:] {
			if strings.HasPrefix(e.UserAgent, "kubectl") && e.Verb == "list" && strings.HasPrefix(e.RequestURI, "/api/v1/nodes") && e.User == harness.UserReadOnly {
				listed = true
			}
			if strings.HasPrefix(e.UserAgent, nestorUA) {
				t.Errorf("nestor env sent a request: %s", e)
			}
		}
		if !listed {
			t.Errorf("no kubectl list of nodes in the bench cluster's audit log")
		}
	})
}

// allAudit returns every request (any user agent) c recorded so far.
func allAudit(t testing.TB, c *harness.Cluster) []harness.AuditEvent {
	t.Helper()
	ev, err := c.AuditEvents("")
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// `next` on a prod stack (the case of CNPG missing is in
// TestPreviewDirqualDriftAndNext): with no target it says to declare the
// target, then fetch it, installs nothing and never mentions VMs — even with a
// ~/.kube/config at hand; on the healthy cluster every phase is done, still
// without a word of VMs.
func TestNextProd(t *testing.T) {
	prod := sharedFixtureCluster(t, healthyFixture)
	bait := sharedFixtureCluster(t, benchFixture)

	t.Run("no target", func(t *testing.T) {
		w := newWorld(t, bait, prod)
		w.dirqualStack(prod.URL, "")
		w.kubeconfig(bait, filepath.Join(w.Home, ".kube", "config"), harness.IdentityAdmin, "")
		r := w.run(nil, "next", "--stack", "dirqual", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		wantLine(t, "unknown", r.stdout, `^Stack dirqual: next phase unknown — nothing was read`)
		wantLine(t, "declare the target", r.stdout, "^Next: give the stack a target first: add `kubeconfig: ~/.kube/dirqual.config` \\(`nestor stack select dirqual` offers it\\), then fetch it with .*nestor discover .*--cp dirqual1")
		wantNoVM(t, "next with no target", r.stdout+r.stderr)
		wantNotContains(t, "next with no target", r.stdout, "install", "bootstrap")
		if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
			t.Errorf("next sent %d requests with no target: %v %v", n, r.audit[0], r.audit[1])
		}
		if calls := w.limaCalls(); len(calls) != 0 {
			t.Errorf("limactl was run for a prod stack: %v", calls)
		}

		r = w.run(nil, "next", "--stack", "dirqual", "--stacks", w.Stacks, "-o", "json")
		wantCode(t, r, 0)
		var n struct {
			Phase, Why, Run string
			Done, Unknown   bool
		}
		if err := jsonDecode(r.stdout, &n); err != nil {
			t.Fatalf("next -o json: %v", err)
		}
		if !n.Unknown || n.Done || n.Phase != "" || !strings.Contains(n.Run, "give the stack a target first: add `kubeconfig:") {
			t.Errorf("next = %+v, want unknown, no phase, run: give the stack a target first: add `kubeconfig:", n)
		}
	})

	t.Run("healthy", func(t *testing.T) {
		w, _ := dirqualWorld(t, prod, harness.IdentityReadOnly)
		r := w.run(nil, "next", "--stack", "dirqual", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		wantLine(t, "done", r.stdout, `^Stack dirqual: every phase is done`)
		wantNoVM(t, "next on a healthy prod stack", r.stdout+r.stderr)
		if calls := w.limaCalls(); len(calls) != 0 {
			t.Errorf("limactl was run for a prod stack: %v", calls)
		}
	})
}
