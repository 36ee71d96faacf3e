package ssh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// loadTopo writes a prod topology naming inventory inv and nodes, and
// loads it.
func loadTopo(t *testing.T, inv, nodes string) *topology.Topology {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "lab.yaml")
	body := "name: lab\ntarget_kind: prod\ninventory: " + inv + "\nnodes:\n" + nodes
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := stacks.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// The handed k3s-ansible case: node server1 with address 192.0.2.51, an
// inventory keyed by that address. Read by ansible-inventory (its recorded
// answer) or by nestor's reader, the host's port and user apply, and a
// note says which host matched, how, and what read the inventory.
func TestNodeSettingsByAddress(t *testing.T) {
	inv, err := filepath.Abs(filepath.Join("testdata", "inventory", "handed-k3s-ip-hosts", "k3s-ansible-ip-hosts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	tp := loadTopo(t, inv, "  - {name: server1, role: control-plane, address: 192.0.2.51}\n")
	var calls []ansibleCall
	for _, tc := range []struct {
		name string
		env  NodeEnv
		note string
	}{
		{"ansible-inventory", NodeEnv{Run: fakeAnsible(t, readTestdata(t, "ansible-list", "handed-k3s-ip-hosts.json"), "", nil, &calls)},
			"inventory " + inv + `, read by ansible-inventory: host "192.0.2.51" is node server1, found by the node's address 192.0.2.51 (the host's name).`},
		{"nestor's reader", NodeEnv{},
			"inventory " + inv + `, read by nestor's YAML reader: host "192.0.2.51" is node server1, found by the node's address 192.0.2.51 (the host's name).`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fo, notes, err := NodeSettings(context.Background(), tp, "server1", Flags{}, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if fo.Host != "192.0.2.51" || fo.Port != 2201 || fo.User != "example-admin" || fo.Address != "192.0.2.51" {
				t.Errorf("settings %+v", fo)
			}
			if len(notes) != 1 || notes[0] != tc.note {
				t.Errorf("notes %q\nwant %q", notes, tc.note)
			}
			args, err := SSHArgs(fo)
			if err != nil || !strings.Contains(strings.Join(args, " "), "-p 2201 -o ConnectTimeout=10 -- example-admin@192.0.2.51 ") {
				t.Errorf("ssh %q %v", args, err)
			}
		})
	}
}

// Two hosts for one node (one by name, one by address) is an error naming
// both; no ssh settings are returned.
func TestNodeSettingsConflict(t *testing.T) {
	dir := writeInv(t, map[string]string{"hosts.ini": "[server]\nserver1 ansible_host=192.0.2.99 ansible_port=2299\n192.0.2.51 ansible_port=2251\n"})
	tp := loadTopo(t, filepath.Join(dir, "hosts.ini"), "  - {name: server1, role: control-plane, address: 192.0.2.51}\n")
	_, notes, err := NodeSettings(context.Background(), tp, "server1", Flags{}, NodeEnv{})
	if err == nil || notes != nil || !strings.Contains(err.Error(), `matches 2 different hosts of inventory `+filepath.Join(dir, "hosts.ini")+`: "server1" (by its name) and "192.0.2.51" (by the node's address 192.0.2.51 (the host's name))`) {
		t.Errorf("%q %v", notes, err)
	}
	// Flags still beat what the inventory says of the one host found.
	tp = loadTopo(t, filepath.Join(dir, "hosts.ini"), "  - {name: server1, role: control-plane, address: 192.0.2.99}\n")
	fo, notes, err := NodeSettings(context.Background(), tp, "server1", Flags{Port: 22}, NodeEnv{})
	if err != nil || fo.Port != 22 || fo.Host != "192.0.2.99" || len(notes) != 1 ||
		!strings.Contains(notes[0], `read by nestor's INI reader: host "server1" is node server1, found by its name and by the node's address 192.0.2.99 (the host's ansible_host).`) {
		t.Errorf("%+v %q %v", fo, notes, err)
	}
}
