package stacks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cloneLayout is a stacks folder as a clone of nestor has it: the Go
// package's source and an examples/ subfolder of stacks.
func cloneLayout(t *testing.T) Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "stacks")
	for p, body := range map[string]string{
		"stacks.go":             "package stacks\n",
		"examples/dirqual.yaml": "name: dirqual\ntarget_kind: prod\nlayers: []\n",
		"examples/bench.yaml":   "name: bench\ntarget_kind: lima\nnodes:\n  - {name: n1, role: control-plane}\nlayers: []\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Store{Dir: dir}
}

// TestExamplesOfAClone: a folder with no stack but an examples/ subfolder
// of stacks points at it — in Examples, and in the error of a stack it
// does not have; a folder with stacks of its own points nowhere.
func TestExamplesOfAClone(t *testing.T) {
	s := cloneLayout(t)
	ex, names, ok := s.Examples()
	if !ok || ex.Dir != filepath.Join(s.Dir, "examples") || strings.Join(names, ",") != "bench,dirqual" {
		t.Fatalf("Examples = %v %v %t", ex, names, ok)
	}
	_, err := s.Load("dirqual")
	if err == nil || !strings.Contains(err.Error(), "holds the example stacks bench, dirqual: pass --stacks "+ex.Dir) {
		t.Errorf("Load(dirqual): %v", err)
	}
	if _, _, ok := ex.Examples(); ok {
		t.Errorf("the examples folder has stacks of its own: it points at no examples")
	}
}
