// Package golden is the one home of nestor's golden files in tests: the
// -update flag every package's golden tests share, and the comparison of
// an output with its file. A golden file holds what a view or a format
// printed once and a person reviewed; -update rewrites them with what the
// tests produce now, to be reviewed in the diff like code.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (and README.md's demo block) with what the tests produce; review the diff like code")

// Updating reports whether the tests were run with -update: a test that
// keeps its golden text elsewhere (README.md's demo block) rewrites it then.
func Updating() bool { return *update }

// Check compares got with the file at path: with -update it first writes
// got there (creating its folder); a missing file fails, naming the
// command that creates it; a difference fails with what was got.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run the test with -update, then review it", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

// CheckDir compares each of got (a name → its text) with dir/NAME.golden,
// as Check does, in the order of the names.
func CheckDir(t testing.TB, dir string, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		Check(t, filepath.Join(dir, name+".golden"), []byte(got[name]))
	}
}
