package app

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/golden"
)

// goldenRoot is the one golden-file tree of the CLI's output (STYLE.md):
// tests/testdata/golden/<command>/<case>/{stdout,stderr,code}.
const goldenRoot = "../../../tests/testdata/golden"

// goldenWorld is a throw-away stacks folder with the shipped example stacks
// and a few more, a HOME, and the recorded limactl answers.
type goldenWorld struct {
	root, home, stacks string
	closedURL          string
}

func newGoldenWorld(t *testing.T) *goldenWorld {
	t.Helper()
	w := &goldenWorld{root: t.TempDir()}
	w.home = filepath.Join(w.root, "home")
	w.stacks = filepath.Join(w.root, "stacks")
	for _, d := range []string{w.home, w.stacks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"dirqual", "bench"} {
		data, err := os.ReadFile(filepath.Join("../../../stacks/examples", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		w.write(t, filepath.Join(w.stacks, name+".yaml"), string(data))
	}
	// A port nothing listens on: the offline endpoint check refuses before
	// anything would be sent there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.closedURL = "https://" + l.Addr().String()
	l.Close()
	kc := fmt.Sprintf("apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: %s\n    insecure-skip-tls-verify: true\ncontexts:\n- name: lab\n  context: {cluster: lab, user: lab}\nusers:\n- name: lab\n  user: {token: not-a-real-token}\n", w.closedURL)
	w.write(t, filepath.Join(w.home, ".kube", "lab.config"), kc)
	w.write(t, filepath.Join(w.stacks, "lab.yaml"), "# a prod stack whose kubeconfig points elsewhere than its endpoint\nname: lab\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\nendpoint: https://192.0.2.10:6443\nnodes:\n  - {name: lab1, role: control-plane, address: 192.0.2.10}\nlayers: [cilium]\n")
	w.write(t, filepath.Join(w.stacks, "noep.yaml"), "name: noep\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\nnodes:\n  - {name: noep1, role: control-plane}\nlayers: [cilium]\n")
	w.write(t, filepath.Join(w.stacks, "broken.yaml"), "name: broken\ntarget_kind: mars\n")
	return w
}

func (w *goldenWorld) write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// limactl answers `limactl list --json` with a recorded listing.
func limactl(recording string) func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	return func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
		if name != "limactl" || strings.Join(args, " ") != "list --json" {
			return nil, nil, fmt.Errorf("unexpected %s %v", name, args)
		}
		if recording == "" {
			return nil, nil, &exec.Error{Name: "limactl", Err: exec.ErrNotFound}
		}
		data, err := os.ReadFile(filepath.Join("../../../tests/testdata/limactl", recording))
		return data, nil, err
	}
}

// TestGolden runs each command through the real entry point, Run, with
// buffers for streams (Helm's runTestCmd), and compares stdout, stderr and
// the exit code with tests/testdata/golden/<command>/<case>/. Paths of the
// throw-away world are written $ROOT, the closed port's URL $CLOSED.
func TestGolden(t *testing.T) {
	cases := []struct {
		command, name string
		args          []string
		env           map[string]string
		limactl       string
	}{
		{command: "preview", name: "no-target", args: []string{"preview", "--stack", "dirqual"}},
		{command: "preview", name: "lima-vm-stopped", args: []string{"preview", "--stack", "bench"}, limactl: "bench-node2-stopped.jsonl"},
		{command: "preview", name: "lima-no-limactl", args: []string{"preview", "--stack", "bench"}},
		{command: "next", name: "no-target", args: []string{"next", "--stack", "dirqual"}},
		{command: "next", name: "lima-vm-stopped", args: []string{"next", "--stack", "bench"}, limactl: "bench-node2-stopped.jsonl"},
		{command: "env", name: "prod", args: []string{"env", "--stack", "dirqual"}},
		{command: "env", name: "prod-json", args: []string{"env", "--stack", "dirqual", "-o", "json"}},
		{command: "env", name: "lima-no-bench", args: []string{"env", "--stack", "bench"}},
		{command: "stack", name: "list", args: []string{"stack", "list"}},
		{command: "stack", name: "list-json", args: []string{"stack", "list", "-o", "json"}},
		{command: "stack", name: "show", args: []string{"stack", "show", "dirqual"}},
		{command: "refusal", name: "endpoint-mismatch", args: []string{"preview", "--stack", "lab"}},
		{command: "refusal", name: "no-endpoint", args: []string{"preview", "--stack", "noep"}},
		{command: "refusal", name: "kubeconfig-on-lima", args: []string{"preview", "--stack", "bench", "--kubeconfig", "/tmp/x"}},
		{command: "refusal", name: "file-and-stack", args: []string{"preview", "--stack", "bench", "-f", "x.yaml"}},
		{command: "refusal", name: "invalid-topology", args: []string{"preview", "--stack", "broken"}},
		{command: "refusal", name: "bench-kubeconfig-for-prod", args: []string{"preview", "--stack", "dirqual"}, env: map[string]string{"KUBECONFIG": "$ROOT/.work/bench/kubeconfig"}},
		{command: "refusal", name: "discover-cp-on-lima", args: []string{"discover", "--cp", "lima-node1", "--stack", "bench"}},
		{command: "refusal", name: "bad-output", args: []string{"preview", "-o", "xml"}},
	}
	for _, c := range cases {
		t.Run(c.command+"/"+c.name, func(t *testing.T) {
			w := newGoldenWorld(t)
			env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}
			for k, v := range c.env {
				env[k] = strings.ReplaceAll(v, "$ROOT", w.root)
			}
			if c.name == "bench-kubeconfig-for-prod" {
				w.write(t, filepath.Join(w.root, ".work", "bench", "kubeconfig"), "apiVersion: v1\nkind: Config\n")
			}
			a, out, errOut := testApp(t, env, false, nil)
			a.Run = limactl(c.limactl)
			code := Run(a, c.args)
			norm := func(s string) string {
				s = strings.ReplaceAll(s, w.root, "$ROOT")
				return strings.ReplaceAll(s, w.closedURL, "$CLOSED")
			}
			got := map[string]string{"stdout": norm(out.String()), "stderr": norm(errOut.String()), "code": fmt.Sprintf("%d\n", code)}
			golden.CheckDir(t, filepath.Join(goldenRoot, c.command, c.name), got)
		})
	}
}
