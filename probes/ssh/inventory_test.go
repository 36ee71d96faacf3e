package ssh

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeInv writes files (relative path → content) into a temp folder and
// returns the folder.
func writeInv(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A kubespray-like inventory: the merge order all → k8s_cluster →
// kube_control_plane → host.
const kubesprayInv = `# kubespray-style inventory
all:
  vars:
    ansible_user: ubuntu
    ansible_port: 22
    ansible_ssh_common_args: "-o ProxyJump=bastion@10.0.0.1"
  hosts:
    dirqual1:
      ansible_host: 10.67.2.11
    dirqual2:
      ansible_host: 10.67.2.12
      ansible_user: admin2
    dirqual3:
  children:
    k8s_cluster:
      vars:
        ansible_port: 2222
        ansible_become: true
      children:
        kube_control_plane:
          vars:
            ansible_user: ops
            ansible_ssh_private_key_file: keys/ops.pem
          hosts:
            dirqual1:
        kube_node:
          hosts:
            dirqual2:
            dirqual3:
`

func TestInventoryHostMergeOrder(t *testing.T) {
	dir := writeInv(t, map[string]string{"hosts.yaml": kubesprayInv})
	inv := filepath.Join(dir, "hosts.yaml")
	tests := []struct {
		host string
		want HostVars
	}{
		{"dirqual1", HostVars{
			Name: "dirqual1", Host: "10.67.2.11", User: "ops", Port: 2222,
			PrivateKeyFile: filepath.Join(dir, "keys/ops.pem"),
			SSHCommonArgs:  "-o ProxyJump=bastion@10.0.0.1", Become: true,
			Groups: []string{"all", "k8s_cluster", "kube_control_plane"},
		}},
		// host var beats every group var
		{"dirqual2", HostVars{
			Name: "dirqual2", Host: "10.67.2.12", User: "admin2", Port: 2222,
			SSHCommonArgs: "-o ProxyJump=bastion@10.0.0.1", Become: true,
			Groups: []string{"all", "k8s_cluster", "kube_node"},
		}},
		// no vars of its own: all + parent group
		{"dirqual3", HostVars{
			Name: "dirqual3", User: "ubuntu", Port: 2222,
			SSHCommonArgs: "-o ProxyJump=bastion@10.0.0.1", Become: true,
			Groups: []string{"all", "k8s_cluster", "kube_node"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			got, err := InventoryHost(inv, tc.host)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// invSameDepth has groups of the same depth, a priority and a deeper group.
var invSameDepth = map[string]string{"inv.yml": `
zeta:
  vars: {ansible_user: from-zeta}
  hosts: {n1: , n2: , n3: }
alpha:
  vars: {ansible_user: from-alpha, ansible_port: 1000}
  hosts: {n1: , n2: , n3: }
prio:
  vars: {ansible_user: from-prio, ansible_group_priority: 10}
  hosts: {n2: }
deep:
  children:
    deeper:
      vars: {ansible_port: 3000}
      hosts: {n3: }
`}

// Same depth: alphabetical order, the later name wins; ansible_group_priority
// beats the name; a deeper group beats both.
func TestInventorySameDepthAndPriority(t *testing.T) {
	dir := writeInv(t, invSameDepth)
	inv := filepath.Join(dir, "inv.yml")
	for host, want := range map[string][2]any{
		"n1": {"from-zeta", 1000},
		"n2": {"from-prio", 1000},
		"n3": {"from-zeta", 3000},
	} {
		got, err := InventoryHost(inv, host)
		if err != nil {
			t.Fatal(err)
		}
		if got.User != want[0] || got.Port != want[1] {
			t.Errorf("%s: user %q port %d, want %v", host, got.User, got.Port, want)
		}
	}
}

// invVarsFolders has group_vars/ and host_vars/ files and folders, one of
// them vault-encrypted.
var invVarsFolders = map[string]string{
	"inventory/hosts.yaml": `
all:
  vars: {ansible_user: file-all, ansible_port: 22}
  children:
    cp:
      vars: {ansible_port: 2200}
      hosts:
        m1: {ansible_host: 192.0.2.1}
`,
	"inventory/group_vars/all.yml":        "ansible_user: gv-all\nansible_ssh_extra_args: -o Foo=bar\n",
	"inventory/group_vars/cp/main.yaml":   "ansible_port: 2201\n",
	"inventory/group_vars/cp/vault.yml":   "$ANSIBLE_VAULT;1.1;AES256\n6162\n",
	"inventory/host_vars/m1":              "ansible_host: 192.0.2.99\n",
	"inventory/host_vars/other.yml":       "ansible_host: 192.0.2.50\n",
	"inventory/group_vars/unrelated.yaml": "ansible_user: nope\n",
}

// group_vars/ beside the inventory come after the groups' vars in the file,
// host_vars/ after the host's own; a vault file is skipped and noted.
func TestInventoryVarsFolders(t *testing.T) {
	dir := writeInv(t, invVarsFolders)
	got, err := InventoryHost(filepath.Join(dir, "inventory/hosts.yaml"), "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got.User != "gv-all" || got.Port != 2201 || got.Host != "192.0.2.99" || got.SSHExtraArgs != "-o Foo=bar" {
		t.Errorf("got %+v", got)
	}
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "vault.yml") {
		t.Errorf("notes: %q", got.Notes)
	}
}

// invAliasesRanges uses the old ansible_ssh_* names and host ranges.
var invAliasesRanges = map[string]string{"inv.yaml": `
workers:
  hosts:
    node[01:03]:
      ansible_ssh_host: 10.0.0.9
      ansible_ssh_user: legacy
      ansible_ssh_port: "2022"
      ansible_become: "yes"
    db-[a:b]:
`}

func TestInventoryAliasesAndRanges(t *testing.T) {
	dir := writeInv(t, invAliasesRanges)
	inv := filepath.Join(dir, "inv.yaml")
	got, err := InventoryHost(inv, "node02")
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != "10.0.0.9" || got.User != "legacy" || got.Port != 2022 || !got.Become {
		t.Errorf("got %+v", got)
	}
	if _, err := InventoryHost(inv, "db-b"); err != nil {
		t.Error(err)
	}
	_, err = InventoryHost(inv, "node4")
	if err == nil || !strings.Contains(err.Error(), "db-a, db-b, node01, node02, node03") || !strings.Contains(err.Error(), inv) {
		t.Errorf("unknown host error: %v", err)
	}
}

// inventoryErrorCases are inventories nestor refuses, or whose host a has a
// value nestor cannot take; ansible marks those Ansible itself reads (the
// refusal is about a value, so ansible-inventory's path refuses it too).
var inventoryErrorCases = []struct {
	name, content, host, want string
	ansible                   bool
}{
	{"list hosts", "all:\n  hosts:\n    - a\n", "a", "inv.yaml:3:5: hosts: of group all must be a mapping", false},
	{"unknown key", "all:\n  host:\n    a:\n", "a", `inv.yaml:2:3: group all: unknown key "host"`, false},
	{"jinja", "all:\n  hosts:\n    a:\n      ansible_user: \"{{ lookup('env','USER') }}\"\n", "a", "inv.yaml:4:21: ansible_user is a Jinja template", true},
	{"vault", "all:\n  hosts:\n    a:\n      ansible_user: !vault |\n        $ANSIBLE_VAULT;1.1;AES256\n        3131\n", "a", "ansible_user is vault-encrypted", true},
	{"bad port", "all:\n  vars:\n    ansible_port: ssh\n  hosts:\n    a:\n", "a", `inv.yaml:3:19: host a: port "ssh" is not a TCP port number`, true},
	{"bad become", "all:\n  hosts:\n    a: {ansible_become: maybe}\n", "a", "ansible_become \"maybe\" is not a boolean", true},
	{"cycle", "g1:\n  children:\n    g2:\n      children:\n        g1:\n", "a", "children: form a cycle: all → g1 → g2 → g1", false},
	{"not yaml", "all: [\n", "a", "inv.yaml: not valid YAML", false},
	{"empty", "", "a", `has no host "a" (hosts it knows: none)`, true},
}

func TestInventoryErrors(t *testing.T) {
	for _, tc := range inventoryErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeInv(t, map[string]string{"inv.yaml": tc.content})
			_, err := InventoryHost(filepath.Join(dir, "inv.yaml"), tc.host)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "inv.yaml")) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
	_, err := InventoryHost(filepath.Join(t.TempDir(), "missing.yaml"), "a")
	if err == nil || !strings.Contains(err.Error(), "missing.yaml: cannot read it: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}
