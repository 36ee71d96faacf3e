package ssh

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The handed kubespray inventory: [all:vars] for every host, hosts with
// inline vars, a group made of another through :children.
func TestINIKubespray(t *testing.T) {
	path := filepath.Join("testdata", "inventory", "handed-kubespray-ini", "kubespray-inventory.ini")
	inv, err := readOwnInventory(path)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Reader != ReaderINI {
		t.Errorf("reader %q", inv.Reader)
	}
	if got := inv.Hosts(); !reflect.DeepEqual(got, []string{"node1", "node2", "node3", "node4", "node5"}) {
		t.Errorf("hosts %q", got)
	}
	got, err := inv.Host("node2")
	if err != nil {
		t.Fatal(err)
	}
	want := HostVars{Name: "node2", Host: "198.51.100.42", User: "example-admin", Port: 2222,
		PrivateKeyFile: "~/.ssh/id_ed25519_lab", Groups: []string{"all", "etcd", "kube_control_plane"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("node2\n got %+v\nwant %+v", got, want)
	}
	got, err = inv.Host("node5")
	if err != nil || got.Host != "198.51.100.45" || got.Port != 2222 || !reflect.DeepEqual(got.Groups, []string{"all", "kube_node"}) {
		t.Errorf("node5: %+v %v", got, err)
	}
}

// Another hand: ranges, NAME:PORT, quotes, comments of both kinds, nested
// :children, [group:vars] with blanks around =, group_vars/ and host_vars/
// beside the file (which beat the file's group vars), a host before any
// section (ungrouped).
func TestINIRangesQuotingComments(t *testing.T) {
	dir := filepath.Join("testdata", "inventory", "ini-ranges-quoting")
	inv, err := readOwnInventory(filepath.Join(dir, "hosts.ini"))
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "keys/lab_ed25519")
	for _, tc := range []HostVars{
		{Name: "bastion.example", Host: "203.0.113.5", User: "admin", Groups: []string{"all", "ungrouped"}},
		// [kube_control_plane] inline vars, become True; group_vars/kube_control_plane.yml port
		{Name: "cp3.lab.example", User: "ops", Port: 2200, PrivateKeyFile: key, Become: true, Groups: []string{"all", "k8s_cluster", "kube_control_plane"}},
		// host_vars/cp2.lab.example.yaml beats the inline vars
		{Name: "cp2.lab.example", Host: "192.0.2.22", User: "ops", Port: 2200, PrivateKeyFile: key, Groups: []string{"all", "k8s_cluster", "kube_control_plane"}},
		// NAME:PORT, then ansible_port= on the same line wins (set after it)
		{Name: "cp4.lab.example", Host: "192.0.2.24", User: "admin", Port: 2231, PrivateKeyFile: key, Groups: []string{"all", "k8s_cluster", "kube_control_plane"}},
		// letters range, a double-quoted value
		{Name: "etcd-b", Host: "192.0.2.30", User: "admin", Groups: []string{"all", "etcd"}},
		// zero-padded range, a single-quoted value holding double quotes
		{Name: "worker02", User: "admin", Port: 2222, PrivateKeyFile: key, SSHCommonArgs: `-o ProxyJump="jump@203.0.113.5" -o ServerAliveInterval=30`,
			SSHExtraArgs: "-o ConnectTimeout=5", Groups: []string{"all", "k8s_cluster", "kube_node"}},
		// keyed by address, a trailing # comment
		{Name: "192.0.2.41", User: "root", Port: 2222, PrivateKeyFile: key, SSHExtraArgs: "-o ConnectTimeout=5", Groups: []string{"all", "k8s_cluster", "kube_node"}},
	} {
		got, err := inv.Host(tc.Name)
		if err != nil {
			t.Errorf("%s: %v", tc.Name, err)
			continue
		}
		if got.Notes == nil {
			got.Notes = nil
		}
		if !reflect.DeepEqual(got, tc) {
			t.Errorf("%s\n got %+v\nwant %+v", tc.Name, got, tc)
		}
	}
	if n := len(inv.Hosts()); n != 10 {
		t.Errorf("%d hosts: %q", n, inv.Hosts())
	}
}

// An INI inventory in a file without an extension: not YAML, so read as
// INI as Ansible does after its yaml plugin; a quoted port.
func TestINIWithoutExtension(t *testing.T) {
	inv, err := readOwnInventory(filepath.Join("testdata", "inventory", "ini-noext-ip-hosts", "inventory"))
	if err != nil {
		t.Fatal(err)
	}
	if inv.Reader != ReaderINI {
		t.Errorf("reader %q", inv.Reader)
	}
	for host, port := range map[string]int{"192.0.2.51": 2201, "192.0.2.53": 2202} {
		got, err := inv.Host(host)
		if err != nil || got.Port != port || got.User != "example-admin" {
			t.Errorf("%s: %+v %v", host, got, err)
		}
	}
}

func TestINIErrors(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"unknown section type", "[web:host]\na\n", "hosts.ini:1: section [web:host] has an unknown type"},
		{"spaces in section", "[web servers]\na\n", "hosts.ini:1: invalid section [web servers]"},
		{"vars without =", "[web]\na\n[web:vars]\nansible_user\n", "hosts.ini:4:1: expected key=value in [web:vars]"},
		{"host word without =", "[web]\na ansible_user admin\n", `hosts.ini:2: expected key=value after the host name, got "ansible_user"`},
		{"vars of an undeclared group", "[web:vars]\nansible_user=x\n", "hosts.ini:1: [web:vars] names group web, which no [web] or [web:children] section declares"},
		{"undeclared child", "[web]\na\n[all_web:children]\nweb\nwebz\n", "hosts.ini:5: [all_web:children] names group webz"},
		{"unterminated quote", "[web]\na ansible_user='x\n", "hosts.ini:2: host line:"},
		{"trailing colon", "[web]\na:\n", `hosts.ini:2:1: host "a:" ends with ':'`},
		{"bad range", "[web]\nnode[3:1]\n", "hosts.ini:2:1: host pattern \"node[3:1]\": bad numeric range"},
		{"jinja value", "[web]\na ansible_port='{{ port }}'\n", "hosts.ini:2:16: ansible_port is a Jinja template"},
		{"bad port", "[web]\na\n[web:vars]\nansible_port = ssh\n", `hosts.ini:4:16: host a: port "ssh" is not a TCP port number`},
		{"cycle", "[a:children]\nb\n[b:children]\na\n", ":children sections form a cycle: a → b → a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeInv(t, map[string]string{"hosts.ini": tc.content})
			_, err := InventoryHost(filepath.Join(dir, "hosts.ini"), "a")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "hosts.ini")) {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}

// A YAML-named file holding INI is read as INI (Ansible's ini plugin after
// its yaml plugin); when neither reads it, the error gives the INI reason
// for a file that looks INI.
func TestINIInYAMLNamedFile(t *testing.T) {
	dir := writeInv(t, map[string]string{
		"hosts.yml": "[cp]\ncp1 ansible_host=192.0.2.1\n",
		"bad.yml":   "[cp]\ncp1 ansible_host='x\n",
	})
	inv, err := readOwnInventory(filepath.Join(dir, "hosts.yml"))
	if err != nil || inv.Reader != ReaderINI {
		t.Fatalf("%+v %v", inv, err)
	}
	if hv, err := inv.Host("cp1"); err != nil || hv.Host != "192.0.2.1" {
		t.Errorf("%+v %v", hv, err)
	}
	_, err = readOwnInventory(filepath.Join(dir, "bad.yml"))
	if err == nil || !strings.Contains(err.Error(), "bad.yml:2: host line:") {
		t.Errorf("bad: %v", err)
	}
}

func TestINIValue(t *testing.T) {
	for in, want := range map[string][2]string{
		`2222`:          {"!!int", "2222"},
		`+22`:           {"!!int", "22"},
		`0022`:          {"!!str", "0022"}, // Python 3 refuses a leading zero: the text
		`'2201'`:        {"!!str", "2201"},
		`"a b"`:         {"!!str", "a b"},
		`'it\'s'`:       {"!!str", "it's"},
		`"a"b"`:         {"!!str", `"a"b"`},
		`True`:          {"!!bool", "true"},
		`false`:         {"!!str", "false"}, // not a Python literal; Ansible's boolean() reads it later
		`None`:          {"!!null", ""},
		`198.51.100.41`: {"!!str", "198.51.100.41"},
		``:              {"!!str", ""},
		// what Python's literal_eval also reads: comments, joined strings,
		// other integer spellings
		`22 # the lab's port`: {"!!int", "22"},
		`"x" 'y' # joined`:    {"!!str", "xy"},
		`0x10`:                {"!!int", "16"},
		`1_000`:               {"!!int", "1000"},
		`True # yes`:          {"!!bool", "true"},
		`ssh # c`:             {"!!str", "ssh # c"},
		`'''x''' "y"`:         {"!!str", "xy"},
	} {
		tag, v := iniValue(in)
		if tag != want[0] || v != want[1] {
			t.Errorf("%s → %s %q, want %s %q", in, tag, v, want[0], want[1])
		}
	}
}

func TestSplitHostPort(t *testing.T) {
	for in, want := range map[string][2]string{
		"node1":              {"node1", ""},
		"node1:2222":         {"node1", "2222"},
		"node[1:3]":          {"node[1:3]", ""},
		"node[1:3]:2222":     {"node[1:3]", "2222"},
		"192.0.2.1:22":       {"192.0.2.1", "22"},
		"2001:db8::1":        {"2001:db8::1", ""},
		"[2001:db8::1]:2201": {"2001:db8::1", "2201"},
		"a:b":                {"a:b", ""},
	} {
		p, port := splitHostPort(in)
		if p != want[0] || port != want[1] {
			t.Errorf("%s → %q %q, want %q", in, p, port, want)
		}
	}
}
