package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"
)

// inventoryReadMode is how an inventory is read in a proof: by the
// installed ansible-inventory, or by nestor's own readers (PATH holds only
// ssh and env, so ansible-inventory is not found).
type inventoryReadMode struct {
	name string
	// reader is how the Note line names what read the inventory (with "%s"
	// for nestor's reader kind: YAML or INI).
	reader string
	path   func(t *testing.T) string
}

func inventoryReadModes() []inventoryReadMode {
	return []inventoryReadMode{
		{"ansible-inventory", "ansible-inventory", func(t *testing.T) string {
			if _, err := exec.LookPath("ansible-inventory"); err != nil {
				t.Skip("ansible-inventory is not on PATH: install Debian's ansible-core (apt-get install ansible-core; .ci/run does) to prove the Ansible path end to end")
			}
			return os.Getenv("PATH")
		}},
		{"nestor_readers", "nestor's %s reader (ansible-inventory is not on PATH)", func(t *testing.T) string {
			dir := t.TempDir()
			for _, prog := range []string{"ssh", "env"} {
				p, err := exec.LookPath(prog)
				if err != nil {
					t.Fatalf("%s is not installed: %v", prog, err)
				}
				if err := os.Symlink(p, filepath.Join(dir, prog)); err != nil {
					t.Fatal(err)
				}
			}
			return dir
		}},
	}
}

// TestInventoryCases proves end to end, with the built binary, a real
// kube-apiserver and a real sshd, that discover --cp finds the node's
// inventory host by name or by the node's address and connects with what
// that host declares, through ansible-inventory when installed and through
// nestor's own readers otherwise:
//
//  1. k3s-ansible's YAML layout, hosts keyed by address: the host keyed by
//     the node's address gives the port (a string) and the user;
//  2. kubespray's INI layout, given with --inventory: the host whose
//     ansible_host is the node's address is found, and its group vars apply;
//  3. one host by name and another by address: refused, naming both, and
//     the node is never contacted.
func TestInventoryCases(t *testing.T) {
	bin := buildNestorForDiscover(t)
	c := harness.StartT(t, harness.Options{BindAddress: "0.0.0.0"})
	if err := c.LoadFixture(filepath.Join("..", "testdata", "clusters", "dirqual-healthy.yaml")); err != nil {
		t.Fatal(err)
	}
	sshd := harness.StartSshdT(t)
	files := t.TempDir()
	adminPath := filepath.Join(files, "admin.conf")
	if err := c.WriteKubeconfig(adminPath, harness.IdentityAdmin, c.URL); err != nil {
		t.Fatal(err)
	}
	w := &discoverWorld{bin: bin, c: c, sshd: sshd, admin: []byte(readFile(t, adminPath))}
	if err := sshd.PutRemoteFile("/etc/kubernetes/admin.conf", w.admin); err != nil {
		t.Fatal(err)
	}
	wantCommand := "cat -- '/etc/kubernetes/admin.conf'"
	if sshd.User != "root" {
		wantCommand = "sudo -n " + wantCommand
	}
	commands := func(t *testing.T) []string {
		t.Helper()
		cmds, err := sshd.Commands()
		if err != nil {
			t.Fatal(err)
		}
		return cmds
	}
	// The node dirqual1 is at 127.0.0.2 (the sshd and the API server listen
	// there too); its admin.conf names https://127.0.0.1:PORT, a loopback
	// address nestor rewrites to the node's.
	nodeURL := "https://127.0.0.2:" + strconv.Itoa(c.Port)
	topo := topoOptions{kubeconfig: "~/.kube/dirqual.config", endpoint: nodeURL, cpAddress: "127.0.0.2"}
	port := strconv.Itoa(sshd.Port)

	for _, mode := range inventoryReadModes() {
		t.Run(mode.name, func(t *testing.T) {
			path := mode.path(t)
			withPath := func(e *stackEnv) []string {
				env := append([]string{}, e.env...)
				for i, kv := range env {
					if len(kv) > 5 && kv[:5] == "PATH=" {
						env[i] = "PATH=" + path
					}
				}
				return env
			}
			reader := func(kind string) string {
				if mode.reader == "ansible-inventory" {
					return mode.reader
				}
				return fmt.Sprintf(mode.reader, kind)
			}

			t.Run("1_k3s_yaml_host_keyed_by_the_node_address", func(t *testing.T) {
				e := w.newStackEnv(t, topo, "127.0.0.2")
				writeFile(t, e.inventory, fmt.Sprintf(`---
# k3s-ansible layout: hosts keyed by address, the port as a string.
k3s_cluster:
  children:
    server:
      hosts:
        127.0.0.2:
    agent:
      hosts:
        10.67.2.12:
        10.67.2.13:
  vars:
    ansible_port: "%s"
    ansible_user: %s
    ansible_ssh_private_key_file: %s
    ansible_ssh_common_args: "-o UserKnownHostsFile=%s"
    k3s_version: v1.31.12+k3s1
    api_endpoint: "{{ groups['server'] | first }}"
`, port, sshd.User, sshd.ClientKey, e.knownHosts), 0o644)
				before := len(commands(t))
				_, errOut, code := runNestor(t, bin, withPath(e), "discover", "--stack", "dirqual", "--cp", "dirqual1", "--no-input")
				if code != 0 {
					t.Fatalf("discover --cp exited %d", code)
				}
				contains(t, "discover --cp", errOut,
					fmt.Sprintf(`Note: inventory %s, read by %s: host "127.0.0.2" is node dirqual1, found by the node's address 127.0.0.2 (the host's name).`, e.inventory, reader("YAML")),
					fmt.Sprintf("ssh -o BatchMode=yes -i %s -p %s -o UserKnownHostsFile=%s -o ConnectTimeout=10 -- %s@127.0.0.2 ", sshd.ClientKey, port, e.knownHosts, sshd.User),
					"Wrote "+filepath.Join(e.home, ".kube", "dirqual.config")+" (mode 0600).",
					"Access proven: "+nodeURL+" answers with 4 node(s).")
				if got := readFile(t, filepath.Join(e.home, ".kube", "dirqual.config")); !strings.Contains(got, "server: "+nodeURL+"\n") {
					t.Errorf("the written kubeconfig's server is not %s", nodeURL)
				}
				if cmds := commands(t); len(cmds) != before+1 || cmds[len(cmds)-1] != wantCommand {
					t.Errorf("the node ran %q, want one %q", cmds[before:], wantCommand)
				}
				if _, err := os.Stat(filepath.Join(e.home, ".ansible")); !os.IsNotExist(err) {
					t.Errorf("~/.ansible was created (%v): ansible-inventory must write nothing in HOME", err)
				}
				assertAuditReadOnly(t, c)
			})

			t.Run("2_kubespray_ini_host_whose_ansible_host_is_the_node_address", func(t *testing.T) {
				e := w.newStackEnv(t, topo, "127.0.0.2")
				ini := filepath.Join(filepath.Dir(e.inventory), "inventory.ini")
				writeFile(t, ini, fmt.Sprintf(`# kubespray layout, INI; the node is named cp-a here.
[kube_control_plane]
cp-a ansible_host=127.0.0.2  ip=10.67.2.11 etcd_member_name=etcd1

[etcd:children]
kube_control_plane

[kube_node]
dirqual[2:4]

[k8s_cluster:children]
kube_control_plane
kube_node

[k8s_cluster:vars]
ansible_port=%s
ansible_ssh_common_args='-o UserKnownHostsFile="%s"'

[all:vars]
ansible_user=%s
ansible_ssh_private_key_file=%s
`, port, e.knownHosts, sshd.User, sshd.ClientKey), 0o644)
				_, errOut, code := runNestor(t, bin, withPath(e), "discover", "--stack", "dirqual", "--cp", "dirqual1", "--inventory", ini, "--no-input")
				if code != 0 {
					t.Fatalf("discover --cp exited %d", code)
				}
				contains(t, "discover --cp", errOut,
					fmt.Sprintf(`Note: inventory %s, read by %s: host "cp-a" is node dirqual1, found by the node's address 127.0.0.2 (the host's ansible_host).`, ini, reader("INI")),
					fmt.Sprintf("ssh -o BatchMode=yes -i %s -p %s -o UserKnownHostsFile=%s -o ConnectTimeout=10 -- %s@127.0.0.2 ", sshd.ClientKey, port, e.knownHosts, sshd.User),
					"Access proven: "+nodeURL+" answers with 4 node(s).")
				assertAuditReadOnly(t, c)
			})

			t.Run("3_two_hosts_for_one_node_refused", func(t *testing.T) {
				e := w.newStackEnv(t, topo, "127.0.0.2")
				writeFile(t, e.inventory, fmt.Sprintf(`all:
  vars:
    ansible_port: %s
    ansible_user: %s
    ansible_ssh_private_key_file: %s
    ansible_ssh_common_args: "-o UserKnownHostsFile=%s"
  hosts:
    dirqual1:
      ansible_host: 127.0.0.1
    127.0.0.2:
`, port, sshd.User, sshd.ClientKey, e.knownHosts), 0o644)
				homeBefore, stacksBefore := snapshot(t, e.home), snapshot(t, e.stacks)
				before := len(commands(t))
				_, errOut, code := runNestor(t, bin, withPath(e), "discover", "--stack", "dirqual", "--cp", "dirqual1", "--no-input")
				if code != 1 {
					t.Fatalf("exit %d, want 1", code)
				}
				contains(t, "discover --cp", errOut,
					fmt.Sprintf(`node dirqual1 (address 127.0.0.2) matches 2 different hosts of inventory %s: "dirqual1" (by its name) and "127.0.0.2" (by the node's address 127.0.0.2 (the host's name)); nestor will not guess`, e.inventory))
				if cmds := commands(t); len(cmds) != before {
					t.Errorf("the node was contacted: %q", cmds[before:])
				}
				assertSameTree(t, "HOME", homeBefore, snapshot(t, e.home))
				assertSameTree(t, "the stacks folder", stacksBefore, snapshot(t, e.stacks))
			})
		})
	}
}
