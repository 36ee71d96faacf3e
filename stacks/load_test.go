package stacks

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"nestor.dev/nestor/topology"
)

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("no-such-stack.yaml")
	if err == nil || err.Error() != "no-such-stack.yaml: cannot read the topology: no such file or directory (check the path)" {
		t.Errorf("err = %v", err)
	}
}

// A file that cannot be read gets the fix of its cause: the process out of
// open files is not the path's fault, nor is a permission refused.
func TestLoadReadErrorFixes(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.HasSuffix(err.Error(), "cannot read the topology: is a directory (check the path)") {
		t.Errorf("a folder: %v", err)
	}
	for _, tc := range []struct {
		errno syscall.Errno
		want  string
	}{
		{syscall.EMFILE, "too many open files (the process has too many files open: raise its open-file limit (ulimit -n), or read fewer stacks at once (fleet --parallel))"},
		{syscall.ENFILE, "too many open files in system (the process has too many files open: raise its open-file limit (ulimit -n), or read fewer stacks at once (fleet --parallel))"},
		{syscall.EACCES, "permission denied (check the file's permissions)"},
		{syscall.EPERM, "operation not permitted (check the file's permissions)"},
		{syscall.ENOENT, "no such file or directory (check the path)"},
	} {
		err := readError("s/a.yaml", &fs.PathError{Op: "open", Path: "s/a.yaml", Err: tc.errno})
		if got, want := err.Error(), "s/a.yaml: cannot read the topology: "+tc.want; got != want {
			t.Errorf("%v:\n got %s\nwant %s", tc.errno, got, want)
		}
	}
}

// A topology loaded by a relative path gets its absolute Path (its
// relative kubeconfig: is resolved from its folder), while an error names
// the file as it was given.
func TestLoadMakesThePathAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("lab.yaml", []byte("name: lab\ntarget_kind: prod\nkubeconfig: kc.yaml\nnodes:\n  - name: n1\n    role: control-plane\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func(string) (*topology.Topology, error){Load, LoadFile} {
		tp, err := load("lab.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "lab.yaml"); tp.Path != want {
			t.Errorf("Path %q, want %q", tp.Path, want)
		}
	}
	if err := os.WriteFile("bad.yaml", []byte("name: bad\ntarget_kind: nowhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile("bad.yaml"); err == nil || !strings.HasPrefix(err.Error(), "bad.yaml:") {
		t.Errorf("error %v, want one naming bad.yaml as given", err)
	}
}
