package ssh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testInventory is one inventory the tests use: its file, and why nestor's
// own reader reads it even when ansible-inventory is installed ("" when
// ansible-inventory reads it).
type testInventory struct {
	name, path, fallback string
}

// testInventories lists every inventory of this package's tests: each file
// at the top of a testdata/inventory/CASE folder, and the inventories the
// tests write (inventory_test.go), those nestor's reader refuses as a whole
// excepted (their errors are nestor's own strictness, not a setting).
func testInventories(t *testing.T) []testInventory {
	t.Helper()
	var out []testInventory
	cases, err := filepath.Glob(filepath.Join("testdata", "inventory", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cases {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, testInventory{name: filepath.Base(filepath.Dir(p)), path: p})
		}
	}
	written := []struct {
		name     string
		files    map[string]string
		file     string
		fallback string
	}{
		{"kubesprayInv", map[string]string{"hosts.yaml": kubesprayInv}, "hosts.yaml", ""},
		{"invSameDepth", invSameDepth, "inv.yml", ""},
		{"invAliasesRanges", invAliasesRanges, "inv.yaml", ""},
		// group_vars/cp/vault.yml is encrypted: Ansible stops without the password.
		{"invVarsFolders", invVarsFolders, "inventory/hosts.yaml", "vault password"},
	}
	for _, c := range inventoryErrorCases {
		if c.ansible {
			written = append(written, struct {
				name     string
				files    map[string]string
				file     string
				fallback string
			}{"inventoryErrorCases/" + c.name, map[string]string{"inv.yaml": c.content}, "inv.yaml", ""})
		}
	}
	for _, w := range written {
		out = append(out, testInventory{name: w.name, path: filepath.Join(writeInv(t, w.files), w.file), fallback: w.fallback})
	}
	return out
}

// Both paths give the same host settings: for every test inventory, the
// real ansible-inventory (through LoadInventory, as discover --cp runs it)
// and nestor's own readers find the same hosts, and for each the same
// address, user, port, key, ssh arguments, become and groups — or both
// refuse its settings. Skipped only when ansible-inventory is not installed.
func TestReadersAgreeWithAnsible(t *testing.T) {
	requireAnsible(t)
	invs := testInventories(t)
	if len(invs) < 12 {
		t.Fatalf("only %d test inventories found", len(invs))
	}
	home := t.TempDir()
	for _, ti := range invs {
		t.Run(ti.name, func(t *testing.T) {
			own, err := readOwnInventory(ti.path)
			if err != nil {
				t.Fatal(err)
			}
			ans, err := LoadInventory(context.Background(), ti.path, realAnsible(home))
			if err != nil {
				t.Fatal(err)
			}
			if ti.fallback != "" {
				if ans.Reader == ReaderAnsible || !strings.Contains(ans.Why, ti.fallback) {
					t.Fatalf("read by %s (%s), want nestor's reader because of the %s", ans.Reader, ans.Why, ti.fallback)
				}
				return
			}
			if ans.Reader != ReaderAnsible {
				t.Fatalf("read by %s (%s), not by ansible-inventory", ans.Reader, ans.Why)
			}
			compareInventories(t, own, ans)
			t.Logf("%d hosts agree (%s and %s)", len(ans.Hosts()), own.Reader, ans.Reader)
		})
	}
}
