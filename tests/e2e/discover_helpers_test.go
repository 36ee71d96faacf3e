package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"
)

// runNestor runs the built binary with exactly env, stdin not a terminal,
// and returns what it printed and its exit code.
func runNestor(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run nestor %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("$ nestor %s  → exit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, out.String(), errb.String())
	return out.String(), errb.String(), code
}

// snapshot records every entry under dir, keyed by its path relative to
// dir, as record does (kind, mode, and content hash or link target): what
// "byte-identical" compares. A missing dir is an empty snapshot.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	abs := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		return record(abs, p)
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", dir, err)
	}
	out := make(map[string]string, len(abs))
	for p, v := range abs {
		rel, _ := filepath.Rel(dir, p)
		out[rel] = v
	}
	return out
}

// assertSameTree fails the test naming every entry of a tree that differs
// between the snapshots before and after, except the paths in ignore.
func assertSameTree(t *testing.T, what string, before, after map[string]string, ignore ...string) {
	t.Helper()
	if diffs := treeDiffs(before, after, ignore...); len(diffs) > 0 {
		t.Errorf("%s is not byte-identical: %s", what, strings.Join(diffs, "; "))
	}
}

// treeDiffs lists, sorted, the entries created, removed or changed between
// two snapshots, except the paths in ignore.
func treeDiffs(before, after map[string]string, ignore ...string) []string {
	skip := map[string]bool{}
	for _, i := range ignore {
		skip[i] = true
	}
	var diffs []string
	for k, b := range before {
		switch a, ok := after[k]; {
		case skip[k]:
		case !ok:
			diffs = append(diffs, "removed "+k)
		case a != b:
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok && !skip[k] {
			diffs = append(diffs, "created "+k)
		}
	}
	sort.Strings(diffs)
	return diffs
}

// assertAuditReadOnly fails the test when nestor's user agent (nestor/…)
// made any request other than get, list or watch, and when it made none at
// all (the proof would then prove nothing).
func assertAuditReadOnly(t *testing.T, c *harness.Cluster) {
	t.Helper()
	events, err := c.AuditEvents("nestor/")
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	if len(events) == 0 {
		t.Fatalf("the audit log has no request from nestor/: nothing was proven")
	}
	for _, e := range events {
		switch e.Verb {
		case "get", "list", "watch":
		default:
			t.Errorf("nestor made a %s request: %s", e.Verb, e)
		}
	}
}

// discoverWorld is what every discover proof shares: the built binary, one
// test cluster loaded with dirqual-healthy.yaml and listening on every
// address (so 127.0.0.2 reaches it too), and one sshd.
type discoverWorld struct {
	bin  string
	c    *harness.Cluster
	sshd *harness.Sshd
	// admin is a kubeconfig of the cluster (admin identity, server
	// https://127.0.0.1:PORT): the "remote" admin.conf.
	admin []byte
}

// stackEnv is one proof's private world: HOME, the stacks folder with
// dirqual.yaml, the inventory and the known_hosts file ssh is told to use.
type stackEnv struct {
	home, stacks, topo, inventory, knownHosts string
	env                                       []string
}

// topoOptions shape dirqual.yaml.
type topoOptions struct {
	kubeconfig string // "" → no kubeconfig: line
	endpoint   string
	cpAddress  string // dirqual1's address
}

// dirqualTopology is a realistic topology: comments, blank lines, the four
// nodes and six layers of the fixture.
func dirqualTopology(o topoOptions) string {
	var b strings.Builder
	b.WriteString("# dirqual — the qualification lab's production cluster (test copy).\n")
	b.WriteString("# nestor reads it and never writes to it.\n")
	b.WriteString("name: dirqual\ntarget_kind: prod\n")
	if o.kubeconfig != "" {
		fmt.Fprintf(&b, "kubeconfig: %s\n", o.kubeconfig)
	}
	fmt.Fprintf(&b, "endpoint: %s   # the API server this stack must be\n\n", o.endpoint)
	b.WriteString("inventory: hosts.yaml  # Ansible, beside this file\n\n")
	fmt.Fprintf(&b, "nodes:\n  - {name: dirqual1, role: control-plane, address: %s}\n", o.cpAddress)
	b.WriteString("  - {name: dirqual2, role: worker, address: 10.67.2.12}\n")
	b.WriteString("  - {name: dirqual3, role: worker, address: 10.67.2.13}\n")
	b.WriteString("  - {name: dirqual4, role: worker, address: 10.67.2.14}\n\n")
	b.WriteString("backend: ceph\n\nlayers:\n  - cilium\n  - rook-ceph\n  - cnpg\n  - kube-prometheus-stack\n  - argocd\n  - registry\n")
	return b.String()
}

// dirqualInventory is an Ansible YAML inventory where the connection
// settings are inherited: the user from all, the port and ssh arguments
// (the known_hosts file) from k8s_cluster, the key from kube_control_plane.
func dirqualInventory(user string, port int, knownHosts, key string) string {
	return fmt.Sprintf(`# Ansible inventory of dirqual (kubespray layout)
all:
  vars:
    ansible_user: %s
  children:
    k8s_cluster:
      vars:
        ansible_port: %d
        ansible_ssh_common_args: "-o UserKnownHostsFile=%s"
      children:
        kube_control_plane:
          vars:
            ansible_ssh_private_key_file: %s
          hosts:
            dirqual1:
        kube_node:
          hosts:
            dirqual2:
            dirqual3:
            dirqual4:
`, user, port, knownHosts, key)
}

// newStackEnv makes a fresh HOME and stacks folder for one proof, with
// dirqual.yaml, hosts.yaml and a known_hosts file trusting the test sshd on
// knownAddrs (none: an empty known_hosts).
func (w *discoverWorld) newStackEnv(t *testing.T, o topoOptions, knownAddrs ...string) *stackEnv {
	t.Helper()
	root := t.TempDir()
	e := &stackEnv{
		home:       filepath.Join(root, "home"),
		stacks:     filepath.Join(root, "stacks"),
		knownHosts: filepath.Join(root, "ssh", "known_hosts"),
	}
	for _, d := range []string{e.home, e.stacks, filepath.Dir(e.knownHosts)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.sshd.WriteKnownHosts(e.knownHosts, knownAddrs...); err != nil {
		t.Fatal(err)
	}
	e.topo = filepath.Join(e.stacks, "dirqual.yaml")
	e.inventory = filepath.Join(e.stacks, "hosts.yaml")
	writeFile(t, e.topo, dirqualTopology(o), 0o644)
	writeFile(t, e.inventory, dirqualInventory(w.sshd.User, w.sshd.Port, e.knownHosts, w.sshd.ClientKey), 0o644)
	e.env = []string{
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"NESTOR_STACKS=" + e.stacks,
	}
	return e
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// assertOneLineAdded fails unless edited is orig with exactly the line want
// inserted (every other line, comment and blank line kept).
func assertOneLineAdded(t *testing.T, orig, edited, want string) {
	t.Helper()
	o := strings.SplitAfter(orig, "\n")
	e := strings.SplitAfter(edited, "\n")
	if len(e) != len(o)+1 {
		t.Fatalf("the topology has %d lines, want %d (one added):\n%s", len(e), len(o)+1, edited)
	}
	i := 0
	for i < len(o) && o[i] == e[i] {
		i++
	}
	if e[i] != want {
		t.Fatalf("line %d is %q, want %q", i+1, e[i], want)
	}
	if strings.Join(e[i+1:], "") != strings.Join(o[i:], "") {
		t.Fatalf("lines after the insertion changed:\n%s", edited)
	}
}

func contains(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s does not contain %q:\n%s", what, s, text)
		}
	}
}
