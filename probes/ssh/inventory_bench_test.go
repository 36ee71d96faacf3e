package ssh

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkInventoryHostRange reads an inventory whose host ranges expand
// to 100,000 hosts in one group and 100,000 in another: the cost of a
// large range must grow with the hosts, not with their square (adding a
// host to a group is a set lookup).
//
//	go test -run '^$' -bench InventoryHostRange ./probes/ssh
func BenchmarkInventoryHostRange(b *testing.B) {
	for _, tc := range []struct{ name, text string }{
		{"yaml", "l:\n  hosts:\n    \"n[0:99999]\":\n  children:\n    m:\n      hosts:\n        \"x[0:99999]\":\n"},
		{"ini", "[l]\nn[0:99999]\n[m]\nx[0:99999]\n[l:children]\nm\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "hosts")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				b.Fatal(err)
			}
			parse := func() (*inventory, error) { return parseINIInventory(path, []byte(tc.text)) }
			if tc.name == "yaml" {
				parse = func() (*inventory, error) { return parseInventory(path) }
			}
			b.ReportAllocs()
			for b.Loop() {
				inv, err := parse()
				if err != nil {
					b.Fatal(err)
				}
				if n := len(inv.hostOrder); n != 200000 {
					b.Fatalf("%d hosts, want 200000", n)
				}
			}
		})
	}
}
