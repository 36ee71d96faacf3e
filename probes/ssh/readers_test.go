package ssh

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A node is found by its name, or by its address: a host keyed by that
// address (any IPv6 spelling) or whose ansible_host (or ansible_ssh_host)
// is it. Each inventory of these cases is one of the test inventories, in
// YAML and in INI.
func TestFindByNameOrAddress(t *testing.T) {
	k3s := filepath.Join("testdata", "inventory", "handed-k3s-ip-hosts", "k3s-ansible-ip-hosts.yml")
	k3sINI := filepath.Join("testdata", "inventory", "ini-noext-ip-hosts", "inventory")
	variants := filepath.Join("testdata", "inventory", "yaml-address-variants", "hosts.yaml")
	kubespray := filepath.Join("testdata", "inventory", "handed-kubespray-ini", "kubespray-inventory.ini")
	for _, tc := range []struct {
		name, inv, node, address string
		want                     Match
		how                      string
		port                     int
		user                     string
	}{
		{"handed: keyed by the node's address", k3s, "server1", "192.0.2.51",
			Match{Host: "192.0.2.51", ByAddress: "name"}, "by the node's address 192.0.2.51 (the host's name)", 2201, "example-admin"},
		{"the same in INI without an extension", k3sINI, "server1", "192.0.2.51",
			Match{Host: "192.0.2.51", ByAddress: "name"}, "by the node's address 192.0.2.51 (the host's name)", 2201, "example-admin"},
		{"INI, a host's own port", k3sINI, "agent2", "192.0.2.53",
			Match{Host: "192.0.2.53", ByAddress: "name"}, "by the node's address 192.0.2.53 (the host's name)", 2202, "example-admin"},
		{"IPv6 written uncompressed, key [v6]:port", variants, "v6-cp", "2001:DB8:0:0:0:0:0:51",
			Match{Host: "2001:db8::51", ByAddress: "name"}, "by the node's address 2001:DB8:0:0:0:0:0:51 (the host's name)", 2201, "gv-admin"},
		{"host_vars/ADDRESS.yml of an address-keyed host", variants, "cp2", "192.0.2.62",
			Match{Host: "192.0.2.62", ByAddress: "name"}, "by the node's address 192.0.2.62 (the host's name)", 2262, "gv-admin"},
		{"ansible_host", variants, "cp1", "192.0.2.61",
			Match{Host: "cp-a", ByAddress: "ansible_host"}, "by the node's address 192.0.2.61 (the host's ansible_host)", 0, "gv-admin"},
		{"the old ansible_ssh_host", variants, "cp3", "192.0.2.63",
			Match{Host: "cp-legacy", ByAddress: "ansible_host"}, "by the node's address 192.0.2.63 (the host's ansible_host)", 2263, "legacy"},
		{"by name, the address elsewhere", kubespray, "node1", "192.0.2.41",
			Match{Host: "node1", ByName: true}, "by its name", 2222, "example-admin"},
		{"by name and ansible_host", kubespray, "node1", "198.51.100.41",
			Match{Host: "node1", ByName: true, ByAddress: "ansible_host"}, "by its name and by the node's address 198.51.100.41 (the host's ansible_host)", 2222, "example-admin"},
		{"by name, no address in the topology", kubespray, "node4", "",
			Match{Host: "node4", ByName: true}, "by its name", 2222, "example-admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := readOwnInventory(tc.inv)
			if err != nil {
				t.Fatal(err)
			}
			hv, m, err := inv.Find(tc.node, tc.address)
			if err != nil {
				t.Fatal(err)
			}
			if m != tc.want || m.How(tc.address) != tc.how {
				t.Errorf("match %+v (%s), want %+v (%s)", m, m.How(tc.address), tc.want, tc.how)
			}
			if hv.Name != tc.want.Host || hv.Port != tc.port || hv.User != tc.user {
				t.Errorf("settings %+v, want host %s port %d user %s", hv, tc.want.Host, tc.port, tc.user)
			}
		})
	}
}

// Two different hosts for one node is an error naming both and how each
// matched; no host at all lists the hosts and says the address was tried.
func TestFindConflictsAndMisses(t *testing.T) {
	dir := writeInv(t, map[string]string{
		"hosts.yml": `
k3s_cluster:
  children:
    server:
      hosts:
        server1:
          ansible_host: 192.0.2.99
        192.0.2.51:
        cp-b:
          ansible_host: 192.0.2.52
        192.0.2.52:
`,
		"hosts.ini": "[server]\nserver1 ansible_host=192.0.2.99\n192.0.2.51\n",
	})
	for _, file := range []string{"hosts.yml", "hosts.ini"} {
		inv, err := readOwnInventory(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = inv.Find("server1", "192.0.2.51")
		var ae *AmbiguousHostError
		if !errors.As(err, &ae) || len(ae.Matches) != 2 {
			t.Fatalf("%s: %v", file, err)
		}
		for _, want := range []string{`node server1 (address 192.0.2.51) matches 2 different hosts of inventory ` + filepath.Join(dir, file),
			`"server1" (by its name)`, `"192.0.2.51" (by the node's address 192.0.2.51 (the host's name))`, "nestor will not guess"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v\nlacks %q", file, err, want)
			}
		}
	}
	inv, err := readOwnInventory(filepath.Join(dir, "hosts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// two hosts by address: one keyed by it, another whose ansible_host it is
	_, _, err = inv.Find("cp2", "192.0.2.52")
	if err == nil || !strings.Contains(err.Error(), `"cp-b" (by the node's address 192.0.2.52 (the host's ansible_host))`) ||
		!strings.Contains(err.Error(), `"192.0.2.52" (by the node's address 192.0.2.52 (the host's name))`) {
		t.Errorf("two by address: %v", err)
	}
	_, _, err = inv.Find("cp9", "192.0.2.9")
	var uh *UnknownHostError
	if !errors.As(err, &uh) || !strings.Contains(err.Error(), `has no host "cp9", nor one whose name or ansible_host is its address 192.0.2.9 (hosts it knows: 192.0.2.51, 192.0.2.52, cp-b, server1)`) {
		t.Errorf("miss: %v", err)
	}
}

func TestSameHost(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"192.0.2.1", "192.0.2.1", true},
		{"2001:db8::1", "2001:0DB8:0:0:0:0:0:1", true},
		{"[2001:db8::1]", "2001:db8::1", true},
		{"::ffff:192.0.2.1", "192.0.2.1", true},
		{"Node1.Lab.", "node1.lab", true},
		{"192.0.2.1", "192.0.2.10", false},
		{"192.0.2.1", "node1", false},
		{"", "", false},
	} {
		if got := sameHost(tc.a, tc.b); got != tc.want {
			t.Errorf("sameHost(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// Ansible's group-variable precedence (VARIABLE_PRECEDENCE: all_inventory,
// groups_inventory, all_plugins_inventory, groups_plugins_inventory):
// group_vars/all.yml beats the vars a group sets in the inventory file, and
// group_vars/GROUP beats group_vars/all. Of group_vars/all (a folder) and
// group_vars/all.yml, Ansible reads only the first found (the folder).
func TestGroupVarsPrecedence(t *testing.T) {
	dir := writeInv(t, map[string]string{
		"hosts.yaml": `
all:
  vars: {ansible_user: file-all, ansible_port: 22, ansible_ssh_extra_args: file-all}
  children:
    cp:
      vars: {ansible_port: 2200, ansible_user: file-cp}
      hosts:
        m1:
        m2:2299:
`,
		"group_vars/all/main.yml": "ansible_port: 2201\nansible_ssh_extra_args: gv-all-folder\n",
		"group_vars/all.yml":      "ansible_ssh_extra_args: gv-all-file-never-read\n",
		"group_vars/cp.yml":       "ansible_user: gv-cp\n",
		"host_vars/m2/vars~":      "ansible_port: 1\n",
	})
	inv, err := readOwnInventory(filepath.Join(dir, "hosts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := inv.Host("m1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Port != 2201 || got.User != "gv-cp" || got.SSHExtraArgs != "gv-all-folder" {
		t.Errorf("m1: %+v", got)
	}
	// m2:2299 is host m2 with ansible_port 2299 (a host var: beats every
	// group's); host_vars/m2/vars~ is a backup Ansible skips.
	got, err = inv.Host("m2")
	if err != nil || got.Port != 2299 || !reflect.DeepEqual(inv.Hosts(), []string{"m1", "m2"}) {
		t.Errorf("m2: %+v %v (hosts %q)", got, err, inv.Hosts())
	}
}

// What only Ansible reads (a folder, a script, a plugin's configuration) is
// refused with the way out: install ansible-core, or export the inventory.
func TestOwnReadersRefuseWhatOnlyAnsibleReads(t *testing.T) {
	dir := writeInv(t, map[string]string{
		"inventory/hosts.ini": "[cp]\ncp1\n",
		"aws_ec2.yml":         "plugin: amazon.aws.aws_ec2\nregions: [eu-west-3]\n",
		"inventory.py":        "#!/usr/bin/env python3\nprint('{}')\n",
	})
	if err := os.Chmod(filepath.Join(dir, "inventory.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"inventory":    "is a folder: nestor's own readers read one file",
		"aws_ec2.yml":  "configures the inventory plugin amazon.aws.aws_ec2",
		"inventory.py": "is an inventory script (executable, #!): nestor runs no script",
	} {
		p := filepath.Join(dir, file)
		_, err := readOwnInventory(p)
		if err == nil || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "install ansible-core") || !strings.Contains(err.Error(), "ansible-inventory -i "+p+" --list --yaml --export > hosts.yaml") {
			t.Errorf("%s: %v", file, err)
		}
	}
}
