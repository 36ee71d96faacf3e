package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/tests/harness"
	"nestor.dev/nestor/topology"
)

// TestDiscover proves `nestor stack select` and `nestor discover` (finding
// and fetching a stack's kubeconfig) end to end with the built binary, a real
// kube-apiserver loaded with dirqual-healthy.yaml and a real sshd:
// 1 stack select on a pty adds kubeconfig: and fetches it; 2 the same with
// --no-input writes nothing but the symlink; 3 an inventory with inherited
// group vars drives the fetch over ssh (and a loopback server is rewritten);
// 4 an unknown host key is refused by ssh and nothing is written; 5 an
// existing different kubeconfig is never replaced with --no-input; 6 the
// discover -o yaml draft previews with an empty PLAN. Each subtest checks
// HOME and the stacks folder byte by byte where nothing may change, and the
// audit log that nestor's user agent only read.
func TestDiscover(t *testing.T) {
	bin := nestorBinary(t)
	c := harness.StartT(t, harness.Options{BindAddress: "0.0.0.0"})
	if err := c.LoadFixture(filepath.Join("..", "testdata", "clusters", "dirqual-healthy.yaml")); err != nil {
		t.Fatal(err)
	}
	sshd := harness.StartSshdT(t)
	t.Logf("sshd on port %d (user %s), cluster %s", sshd.Port, sshd.User, c.URL)

	files := t.TempDir()
	adminPath := filepath.Join(files, "admin.conf")
	if err := c.WriteKubeconfig(adminPath, harness.IdentityAdmin, c.URL); err != nil {
		t.Fatal(err)
	}
	w := &discoverWorld{bin: bin, c: c, sshd: sshd, admin: []byte(readFile(t, adminPath))}
	// kubeadm's admin.conf at its default place on the "node"…
	if err := sshd.PutRemoteFile("/etc/kubernetes/admin.conf", w.admin); err != nil {
		t.Fatal(err)
	}
	// …and a k3s one, whose server is a loopback address of the node.
	k3sPath := filepath.Join(files, "k3s.yaml")
	if err := c.WriteKubeconfig(k3sPath, harness.IdentityAdmin, "https://localhost:"+strconv.Itoa(c.Port)); err != nil {
		t.Fatal(err)
	}
	if err := sshd.PutRemoteFile("/etc/rancher/k3s/k3s.yaml", []byte(readFile(t, k3sPath))); err != nil {
		t.Fatal(err)
	}
	// cat as root needs no sudo; any other user gets sudo -n.
	catCmd := func(path string) string {
		cmd := "cat -- '" + path + "'"
		if sshd.User != "root" {
			cmd = "sudo -n " + cmd
		}
		return cmd
	}
	lastCommand := func(t *testing.T) string {
		t.Helper()
		cmds, err := sshd.Commands()
		if err != nil {
			t.Fatal(err)
		}
		if len(cmds) == 0 {
			return ""
		}
		return cmds[len(cmds)-1]
	}
	const timeout = 30 * time.Second

	t.Run("1_stack_select_pty_adds_kubeconfig_and_fetches", func(t *testing.T) {
		e := w.newStackEnv(t, topoOptions{endpoint: c.URL, cpAddress: "127.0.0.1"}, "127.0.0.1")
		orig := readFile(t, e.topo)

		p := startPTY(t, bin, e.env, "stack", "select", "dirqual")
		p.expect("Active stack: dirqual (prod)", timeout)
		p.expect("dirqual.yaml declares no kubeconfig:. Add `kubeconfig: ~/.kube/dirqual.config` to it?", timeout)
		p.send("y\r")
		p.expect("Added `kubeconfig: ~/.kube/dirqual.config`", timeout)
		p.expect("Fetch its kubeconfig (the cluster's admin credentials) from dirqual1 over ssh now? (y/N)", timeout)
		p.send("y\r")
		p.expect("Wrote "+filepath.Join(e.home, ".kube", "dirqual.config")+" (mode 0600).", timeout)
		p.expect("nodes       4 seen, 4 Ready: dirqual1, dirqual2, dirqual3, dirqual4", timeout)
		p.expect("Is this the stack dirqual?", timeout)
		p.send("y\r")
		p.expect("Access proven: "+c.URL+" answers with 4 node(s).", timeout)
		if code := p.wait(); code != 0 {
			t.Fatalf("stack select exited %d:\n%s", code, p.output())
		}
		t.Logf("the terminal showed:\n%s", p.output())

		assertOneLineAdded(t, orig, readFile(t, e.topo), "kubeconfig: ~/.kube/dirqual.config\n")
		kc := filepath.Join(e.home, ".kube", "dirqual.config")
		assertMode(t, kc, 0o600)
		assertMode(t, filepath.Dir(kc), 0o700)
		if readFile(t, kc) != string(w.admin) {
			t.Errorf("%s is not the node's admin.conf", kc)
		}
		if got := lastCommand(t); got != catCmd("/etc/kubernetes/admin.conf") {
			t.Errorf("the node ran %q, want %q", got, catCmd("/etc/kubernetes/admin.conf"))
		}
		if out := p.output(); strings.Contains(out, "client-key-data") || strings.Contains(out, "PRIVATE KEY") {
			t.Errorf("a credential was printed:\n%s", out)
		}

		// A following preview reads it, and writes nothing.
		homeBefore, stacksBefore := snapshot(t, e.home), snapshot(t, e.stacks)
		out, errOut, code := runNestor(t, bin, e.env, "preview", "--no-input")
		if code != 0 {
			t.Fatalf("preview exited %d", code)
		}
		contains(t, "preview", out+errOut, c.URL, "dirqual1", "dirqual4")
		assertSameTree(t, "HOME after preview", homeBefore, snapshot(t, e.home))
		assertSameTree(t, "the stacks folder after preview", stacksBefore, snapshot(t, e.stacks))
		assertAuditReadOnly(t, c)
	})

	t.Run("2_stack_select_no_input_writes_only_the_symlink", func(t *testing.T) {
		e := w.newStackEnv(t, topoOptions{endpoint: c.URL, cpAddress: "127.0.0.1"}, "127.0.0.1")
		// Another stack is active before.
		old := strings.Replace(dirqualTopology(topoOptions{endpoint: c.URL, cpAddress: "127.0.0.1"}), "name: dirqual\n", "name: old\n", 1)
		writeFile(t, filepath.Join(e.stacks, "old.yaml"), old, 0o644)
		if err := os.Symlink("old.yaml", filepath.Join(e.stacks, ".active")); err != nil {
			t.Fatal(err)
		}
		homeBefore, stacksBefore := snapshot(t, e.home), snapshot(t, e.stacks)
		commandsBefore, _ := sshd.Commands()

		_, errOut, code := runNestor(t, bin, e.env, "stack", "select", "dirqual", "--no-input")
		t.Logf("exit code %d", code)
		contains(t, "stack select --no-input", errOut,
			"declares no kubeconfig:", "kubeconfig: ~/.kube/dirqual.config", "nestor discover --cp dirqual1")
		if dest, err := os.Readlink(filepath.Join(e.stacks, ".active")); err != nil || dest != "dirqual.yaml" {
			t.Errorf(".active → %q (%v), want dirqual.yaml", dest, err)
		}
		assertSameTree(t, "the stacks folder", stacksBefore, snapshot(t, e.stacks), ".active")
		assertSameTree(t, "HOME", homeBefore, snapshot(t, e.home))
		if cmds, _ := sshd.Commands(); len(cmds) != len(commandsBefore) {
			t.Errorf("--no-input contacted the node: %q", cmds[len(commandsBefore):])
		}
	})

	t.Run("3_inventory_group_vars_fetch_over_sshd", func(t *testing.T) {
		e := w.newStackEnv(t, topoOptions{kubeconfig: "~/.kube/dirqual.config", endpoint: c.URL, cpAddress: "127.0.0.1"}, "127.0.0.1")
		stacksBefore := snapshot(t, e.stacks)
		_, errOut, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "--cp", "dirqual1", "--remote-path", adminPath, "--no-input")
		if code != 0 {
			t.Fatalf("discover --cp exited %d", code)
		}
		// user from all:, port and known_hosts from k8s_cluster:, key from kube_control_plane:
		contains(t, "discover --cp", errOut,
			fmt.Sprintf("ssh -o BatchMode=yes -i %s -p %d -o UserKnownHostsFile=%s -o ConnectTimeout=10 -- %s@127.0.0.1 ", sshd.ClientKey, sshd.Port, e.knownHosts, sshd.User),
			"Wrote "+filepath.Join(e.home, ".kube", "dirqual.config")+" (mode 0600).",
			"nodes       4 seen, 4 Ready: dirqual1, dirqual2, dirqual3, dirqual4",
			"Access proven: "+c.URL+" answers with 4 node(s).")
		kc := filepath.Join(e.home, ".kube", "dirqual.config")
		assertMode(t, kc, 0o600)
		assertMode(t, filepath.Dir(kc), 0o700)
		if readFile(t, kc) != string(w.admin) {
			t.Errorf("%s is not the fetched admin.conf", kc)
		}
		if got := lastCommand(t); got != catCmd(adminPath) {
			t.Errorf("the node ran %q, want %q", got, catCmd(adminPath))
		}
		assertSameTree(t, "the stacks folder", stacksBefore, snapshot(t, e.stacks))

		// Fetched again: the same bytes, left as they are.
		homeBefore := snapshot(t, e.home)
		_, errOut, code = runNestor(t, bin, e.env, "discover", "--cp", "dirqual1", "--remote-path", adminPath, "--no-input", "--stack", "dirqual")
		if code != 0 {
			t.Fatalf("second discover --cp exited %d", code)
		}
		contains(t, "second discover --cp", errOut, kc+" unchanged")
		assertSameTree(t, "HOME after an identical fetch", homeBefore, snapshot(t, e.home))
		assertAuditReadOnly(t, c)
	})

	t.Run("3b_loopback_server_rewritten_to_node_address", func(t *testing.T) {
		nodeURL := "https://127.0.0.2:" + strconv.Itoa(c.Port)
		e := w.newStackEnv(t, topoOptions{kubeconfig: "~/.kube/dirqual.config", endpoint: nodeURL, cpAddress: "127.0.0.2"}, "127.0.0.2")
		_, errOut, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "--cp", "dirqual1", "--remote-path", "/etc/rancher/k3s/k3s.yaml", "--no-input")
		if code != 0 {
			t.Fatalf("discover --cp exited %d", code)
		}
		contains(t, "discover --cp", errOut,
			"@127.0.0.2 ",
			"Rewrote its server https://localhost:"+strconv.Itoa(c.Port)+" (a loopback address of the node) to "+nodeURL,
			"Access proven: "+nodeURL+" answers with 4 node(s).")
		kc := readFile(t, filepath.Join(e.home, ".kube", "dirqual.config"))
		if !strings.Contains(kc, "server: "+nodeURL+"\n") || strings.Contains(kc, "localhost") {
			t.Errorf("the written kubeconfig's server is not %s", nodeURL)
		}
		if got := lastCommand(t); got != catCmd("/etc/rancher/k3s/k3s.yaml") {
			t.Errorf("the node ran %q", got)
		}
		assertAuditReadOnly(t, c)
	})

	t.Run("4_unknown_host_key_refused_nothing_written", func(t *testing.T) {
		e := w.newStackEnv(t, topoOptions{kubeconfig: "~/.kube/dirqual.config", endpoint: c.URL, cpAddress: "127.0.0.1"}) // empty known_hosts
		homeBefore, stacksBefore := snapshot(t, e.home), snapshot(t, e.stacks)
		khBefore := readFile(t, e.knownHosts)
		_, errOut, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "--cp", "dirqual1", "--remote-path", adminPath, "--no-input")
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		contains(t, "discover --cp", errOut, "-o BatchMode=yes", "nothing written", "failed (exit 255)", "Host key verification failed.", "never disables host-key checking")
		assertSameTree(t, "HOME", homeBefore, snapshot(t, e.home))
		assertSameTree(t, "the stacks folder", stacksBefore, snapshot(t, e.stacks))
		if readFile(t, e.knownHosts) != khBefore {
			t.Errorf("known_hosts was changed")
		}
	})

	t.Run("5_existing_different_kubeconfig_not_replaced_with_no_input", func(t *testing.T) {
		e := w.newStackEnv(t, topoOptions{kubeconfig: "~/.kube/dirqual.config", endpoint: c.URL, cpAddress: "127.0.0.1"}, "127.0.0.1")
		kc := filepath.Join(e.home, ".kube", "dirqual.config")
		if err := c.WriteKubeconfig(kc, harness.IdentityReadOnly, c.URL); err != nil {
			t.Fatal(err)
		}
		homeBefore, stacksBefore := snapshot(t, e.home), snapshot(t, e.stacks)
		_, errOut, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "--cp", "dirqual1", "--remote-path", adminPath, "--no-input")
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		contains(t, "discover --cp", errOut,
			"not replaced: "+kc+" already exists and differs",
			"context  readonly@nestor-test → admin@nestor-test",
			"user     readonly → admin",
			"--no-input never replaces an existing kubeconfig")
		for _, secret := range []string{"client-key-data", "client-certificate-data", "PRIVATE KEY", "BEGIN"} {
			if strings.Contains(errOut, secret) {
				t.Errorf("the output shows %q", secret)
			}
		}
		assertSameTree(t, "HOME", homeBefore, snapshot(t, e.home))
		assertSameTree(t, "the stacks folder", stacksBefore, snapshot(t, e.stacks))
	})

	t.Run("6_discover_yaml_draft_previews_with_empty_plan", func(t *testing.T) {
		e := w.newStackEnv(t, topoOptions{kubeconfig: "~/.kube/dirqual.config", endpoint: c.URL, cpAddress: "10.67.2.11"}, "127.0.0.1")
		writeFile(t, filepath.Join(e.home, ".kube", "dirqual.config"), string(w.admin), 0o600)
		homeBefore, stacksBefore := snapshot(t, e.home), snapshot(t, e.stacks)

		out, _, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "--no-input")
		if code != 0 {
			t.Fatalf("discover exited %d", code)
		}
		contains(t, "discover", out, "SERVER", "v1.37", "NODES (4, 4 Ready)", "dirqual1", "control-plane", "10.67.2.11",
			"rook-ceph-block", "rook-ceph.rbd.csi.ceph.com", "(default)", "ceph.rook.io", "cilium", "cnpg", "argocd", "registry")

		jsonOut, _, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "-o", "json")
		if code != 0 {
			t.Fatalf("discover -o json exited %d", code)
		}
		var doc struct {
			FormatVersion int `json:"format_version"`
			Nodes         struct {
				Known bool              `json:"known"`
				Value []json.RawMessage `json:"value"`
			} `json:"nodes"`
			Layers []struct {
				Name   string `json:"name"`
				Health string `json:"health"`
			} `json:"layers"`
			DefaultStorage struct {
				Value struct {
					Class string `json:"class"`
				} `json:"value"`
			} `json:"default_storage"`
		}
		if err := json.Unmarshal([]byte(jsonOut), &doc); err != nil {
			t.Fatalf("discover -o json: %v", err)
		}
		if doc.FormatVersion != 1 || !doc.Nodes.Known || len(doc.Nodes.Value) != 4 || doc.DefaultStorage.Value.Class != "rook-ceph-block" || len(doc.Layers) < 6 {
			t.Errorf("discover -o json: %+v", doc)
		}

		draft, _, code := runNestor(t, bin, e.env, "discover", "--stack", "dirqual", "--no-input", "-o", "yaml")
		if code != 0 {
			t.Fatalf("discover -o yaml exited %d", code)
		}
		assertSameTree(t, "HOME after discover", homeBefore, snapshot(t, e.home))
		assertSameTree(t, "the stacks folder after discover", stacksBefore, snapshot(t, e.stacks))

		draftDir := t.TempDir()
		draftPath := filepath.Join(draftDir, "dirqual.yaml")
		writeFile(t, draftPath, draft, 0o644)
		dt, err := stacks.Load(draftPath)
		if err != nil {
			t.Fatalf("the draft does not load: %v\n%s", err, draft)
		}
		if dt.Name != "dirqual" || dt.TargetKind != topology.TargetProd || dt.Endpoint != c.URL || dt.Kubeconfig != "~/.kube/dirqual.config" ||
			len(dt.Nodes) != 4 || dt.Nodes[0].Role != topology.RoleControlPlane || dt.Nodes[0].Address != "10.67.2.11" || dt.Backend != "ceph" {
			t.Errorf("draft: %+v", dt)
		}

		pj, _, code := runNestor(t, bin, e.env, "preview", "-f", draftPath, "--no-input", "-o", "json", "--detailed-exitcode")
		if code != 0 {
			t.Errorf("preview of the draft --detailed-exitcode exited %d, want 0 (in sync)", code)
		}
		var rep struct {
			Plan struct {
				Steps      []json.RawMessage `json:"steps"`
				Unknowns   []jsonClaim       `json:"unknowns"`
				Unverified bool              `json:"unverified"`
			} `json:"plan"`
			Summary struct {
				InSync bool `json:"in_sync"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(pj), &rep); err != nil {
			t.Fatalf("preview -o json: %v", err)
		}
		if len(rep.Plan.Steps) != 0 || len(rep.Plan.Unknowns) != 0 || rep.Plan.Unverified || !rep.Summary.InSync {
			t.Errorf("the draft's PLAN is not empty: %s", pj)
		}
		assertAuditReadOnly(t, c)
	})
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != want {
		t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
	}
}
