package ssh

// The fuzz target of the Ansible YAML inventory reader. Run it with
//
//	go test -run '^$' -fuzz '^FuzzInventory$' -fuzztime 30s ./probes
//
// (tests/fuzz.sh runs every target).

import (
	"nestor.dev/nestor/tests/seeds"

	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// inventorySeeds are small inventories in the shapes the reader handles:
// merge keys and aliases, ranges, children, priorities, every alias of the
// connection variables.
var inventorySeeds = []string{
	kubesprayInv,
	`
all:
  vars: &common
    ansible_user: ops
    ansible_port: 2222
  children:
    cp:
      vars: {<<: [*common, {ansible_become: "yes"}], ansible_group_priority: 3}
      hosts:
        cp[1:3]: {ansible_host: 10.0.0.1, ansible_ssh_port: "2200"}
    workers:
      vars: {ansible_port: 22, <<: *common}
      hosts:
        w-[a:c:2]:
          ansible_user: w
          <<: [{ansible_user: merged}, {ansible_ssh_private_key_file: keys/w.pem}]
`,
	"zeta:\n  vars: {ansible_user: z}\n  hosts: {n1: , n2: }\nalpha:\n  vars: {ansible_user: a, ansible_group_priority: 10}\n  hosts: {n1: }\n",
	"all:\n  hosts:\n    a: {ansible_ssh_common_args: \"-o ProxyJump=b\", ansible_ssh_extra_args: -v, ansible_become: on}\n",
	"g1:\n  children:\n    g2:\n      children:\n        g1:\n",
	"all: {hosts: {a: {ansible_user: !vault |\n    $ANSIBLE_VAULT;1.1;AES256\n    3131\n}}}\n",
}

// FuzzInventory: the inventory reader never panics, and every error names
// the inventory file; the settings of each host do not depend on Go's map
// order (read twice, compared), nor on the order of the keys of a variable
// mapping (a YAML mapping has no order: each `vars:` mapping and each host's
// mapping written back reversed gives the same settings).
func FuzzInventory(f *testing.F) {
	for _, s := range inventorySeeds {
		f.Add([]byte(s))
	}
	for _, s := range seeds.Files(f, "testdata/seeds/inventory/*") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "hosts.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inv, err := parseInventory(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "inventory "+path) {
				t.Fatalf("the error does not name the inventory file: %v", err)
			}
			return
		}
		hosts := inv.hostOrder
		if len(hosts) > 20 {
			hosts = hosts[:20]
		}
		first := readHosts(t, inv, hosts)
		inv2, err := parseInventory(path)
		if err != nil {
			t.Fatalf("read twice, the inventory is first valid, then not: %v", err)
		}
		if again := readHosts(t, inv2, hosts); !reflect.DeepEqual(first, again) {
			t.Fatalf("read twice, the host settings differ:\n%+v\n%+v", first, again)
		}
		reordered, ok := reverseVarMappings(data)
		if !ok {
			return
		}
		path2 := filepath.Join(dir, "reordered.yaml")
		if err := os.WriteFile(path2, reordered, 0o644); err != nil {
			t.Fatal(err)
		}
		inv3, err := parseInventory(path2)
		if err != nil {
			return // e.g. an alias now before its anchor
		}
		second := readHosts(t, inv3, hosts)
		for i := range first {
			a, b := first[i], second[i]
			if (a.err == nil) != (b.err == nil) || !reflect.DeepEqual(a.vars, b.vars) {
				t.Fatalf("host %s: the order of the keys changes its settings:\n%s\n%+v %v\nreordered:\n%s\n%+v %v",
					hosts[i], data, a.vars, a.err, reordered, b.vars, b.err)
			}
		}
	})
}

type hostResult struct {
	vars HostVars
	err  error
}

// readHosts reads the settings of each host of inv (as InventoryHost does,
// without reading the file again for each host).
func readHosts(t *testing.T, inv *inventory, hosts []string) []hostResult {
	t.Helper()
	var out []hostResult
	for _, h := range hosts {
		hv, err := inv.host(h)
		if err != nil && !strings.Contains(err.Error(), inv.path) {
			t.Fatalf("host %s: the error does not name the inventory file: %v", h, err)
		}
		out = append(out, hostResult{hv, err})
	}
	return out
}

// reverseVarMappings writes the inventory back with the entries of every
// variable mapping (a group's vars:, a host's mapping) in reverse order. It
// returns false when that would change the meaning on purpose: a mapping
// with a duplicate key (the later one wins), or a document yaml.v3 cannot
// read or write back.
func reverseVarMappings(data []byte) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil, false
	}
	ok := true
	var varMapping func(m *yaml.Node)
	varMapping = func(m *yaml.Node) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		seen := map[string]bool{}
		var pairs [][2]*yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			k := m.Content[i]
			if seen[k.Value] {
				ok = false
			}
			seen[k.Value] = true
			pairs = append(pairs, [2]*yaml.Node{k, m.Content[i+1]})
		}
		m.Content = m.Content[:0]
		for i := len(pairs) - 1; i >= 0; i-- {
			m.Content = append(m.Content, pairs[i][0], pairs[i][1])
		}
	}
	var group func(g *yaml.Node, depth int)
	group = func(g *yaml.Node, depth int) {
		if g == nil || g.Kind != yaml.MappingNode || depth > 50 {
			return
		}
		for i := 0; i+1 < len(g.Content); i += 2 {
			k, v := g.Content[i].Value, g.Content[i+1]
			switch k {
			case "vars":
				varMapping(v)
			case "hosts":
				if v.Kind == yaml.MappingNode {
					for j := 1; j < len(v.Content); j += 2 {
						varMapping(v.Content[j])
					}
				}
			case "children":
				if v.Kind == yaml.MappingNode {
					for j := 1; j < len(v.Content); j += 2 {
						group(v.Content[j], depth+1)
					}
				}
			}
		}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, false
	}
	for i := 1; i < len(root.Content); i += 2 {
		group(root.Content[i], 0)
	}
	if !ok {
		return nil, false
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, false
	}
	return out, true
}

// TestInventoryMergeKeyPrecedence: a YAML merge key (<<) merges as YAML says
// (yaml.org/type/merge.html, and PyYAML, Ansible's loader): a key written in
// the mapping wins over a merged one wherever the << stands, and among the
// mappings of a << list the first wins. It used to apply them in file
// order, so moving the << line changed the settings.
func TestInventoryMergeKeyPrecedence(t *testing.T) {
	const common = "all:\n  vars: &common {ansible_user: merged, ansible_port: 2222}\n"
	for _, tc := range []struct {
		name, data string
		user       string
		port       int
	}{
		{"group vars, << after the key", common + "  children:\n    g:\n      vars: {ansible_port: 22, <<: *common}\n      hosts: {h: }\n", "merged", 22},
		{"group vars, << before the key", common + "  children:\n    g:\n      vars: {<<: *common, ansible_port: 22}\n      hosts: {h: }\n", "merged", 22},
		{"host vars, << after the key", common + "  hosts:\n    h: {ansible_user: own, <<: *common}\n", "own", 2222},
		{"first mapping of a list wins", "all:\n  hosts:\n    h:\n      <<: [{ansible_user: first}, {ansible_user: second, ansible_port: 2}]\n", "first", 2},
		{"nested merges", "all:\n  vars:\n    a: &a {ansible_user: a, ansible_port: 1}\n    b: &b {<<: *a, ansible_user: b}\n  hosts:\n    h: {<<: *b}\n", "b", 1},
		{"the later of two equal keys", "all:\n  hosts:\n    h: {ansible_user: one, ansible_user: two}\n", "two", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeInv(t, map[string]string{"inv.yaml": tc.data})
			hv, err := InventoryHost(filepath.Join(dir, "inv.yaml"), "h")
			if err != nil {
				t.Fatal(err)
			}
			if hv.User != tc.user || hv.Port != tc.port {
				t.Errorf("user %q port %d, want %q %d", hv.User, hv.Port, tc.user, tc.port)
			}
		})
	}
}

// TestInventoryAliasCycles: an alias inside the node it names (a group
// that holds itself through children:, a merge of the mapping that holds
// the merge) is an error at the alias; it used to recurse until the stack
// overflowed, killing the process.
func TestInventoryAliasCycles(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"group holds itself", "g: &a {children: {h: *a}}\n", "inv.yaml:1:22: group g: children: h is an alias of a group that holds it"},
		{"deeper", "g: &a\n  children:\n    h:\n      children: {i: *a}\n", "inv.yaml:4:21: group h: children: i is an alias of a group that holds it"},
		{"vars merge themselves", "all: {vars: &v {<<: *v}}\n", "inv.yaml:1:21: << merges a mapping that holds this very merge"},
		{"host vars, through a list", "all:\n  hosts:\n    h: &v {<<: [{a: 1}, *v]}\n", "inv.yaml:3:25: << merges a mapping that holds this very merge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeInv(t, map[string]string{"inv.yaml": tc.data})
			_, err := InventoryHost(filepath.Join(dir, "inv.yaml"), "h")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// An alias of a group elsewhere (not inside itself) is no cycle.
	dir := writeInv(t, map[string]string{"inv.yaml": "a: &a {hosts: {h: {ansible_user: u}}}\nb: {children: {c: *a}}\n"})
	if hv, err := InventoryHost(filepath.Join(dir, "inv.yaml"), "h"); err != nil || hv.User != "u" || !reflect.DeepEqual(hv.Groups, []string{"all", "a", "b", "c"}) {
		t.Errorf("alias of another group: %+v, %v", hv, err)
	}
}

// TestInventoryExpansionBounds: host ranges and aliases that would expand
// an inventory of a few lines into millions of hosts or groups are refused
// with an error naming the place, promptly; a range whose bounds are near
// the integer limits is counted without overflow (it used to wrap to an
// empty or endless range).
func TestInventoryExpansionBounds(t *testing.T) {
	var laughs strings.Builder
	laughs.WriteString("g0: &g0 {hosts: {h: }}\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&laughs, "g%d: &g%d {children: {a%d: *g%d, b%d: *g%d}}\n", i, i, i, i-1, i, i-1)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"one huge range", "all: {hosts: {\"n[0:99999999999]\": }}\n", `inv.yaml:1:15: host pattern "n[0:99999999999]": expands to more than 100000 hosts`},
		{"ranges multiplied", "all: {hosts: {\"n[0:999]-[0:999]\": }}\n", "expands to more than 100000 hosts"},
		{"the whole int range", "all: {hosts: {\"n[-9223372036854775808:9223372036854775807]\": }}\n", "expands to more than 100000 hosts"},
		{"the whole int range, large step", "all: {hosts: {\"n[-9223372036854775808:9223372036854775807:4611686018427387904]\": }}\n", `has no host "h" (hosts it knows: n-4611686018427387904, n-9223372036854775808, n0, n4611686018427387904)`},
		{"aliases doubling groups", laughs.String(), "the inventory expands (through aliases and host ranges) to more than 1000000 groups and hosts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeInv(t, map[string]string{"inv.yaml": tc.data})
			start := time.Now()
			_, err := InventoryHost(filepath.Join(dir, "inv.yaml"), "h")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	dir := writeInv(t, map[string]string{"inv.yaml": "all: {hosts: {\"n[9223372036854775806:9223372036854775807:5]\": {ansible_user: u}}}\n"})
	if hv, err := InventoryHost(filepath.Join(dir, "inv.yaml"), "n9223372036854775806"); err != nil || hv.User != "u" {
		t.Errorf("range at the integer limit: %+v, %v", hv, err)
	}
}
