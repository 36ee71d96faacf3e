package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cloneRoot copies the layout of a clone of nestor into a temporary folder
// — stacks/ the Go package with the shipped stacks/examples/ — and makes it
// the working directory.
func cloneRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	examples, _ := filepath.Glob("../../../stacks/examples/*.yaml")
	if len(examples) == 0 {
		t.Fatal("no shipped example stacks")
	}
	files := map[string]string{"stacks/stacks.go": "package stacks\n"}
	for _, e := range examples {
		data, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		files["stacks/examples/"+filepath.Base(e)] = string(data)
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	return root
}

// TestFromTheRootOfAClone: at the root of a clone, ./stacks holds no stack
// but its examples: stack list, preview and stack select say so and name
// stacks/examples; then RUNBOOK §1's commands, run as written, work; and
// the .active link they write is ignored by git.
func TestFromTheRootOfAClone(t *testing.T) {
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	runbook, err := os.ReadFile(filepath.Join(repo, "RUNBOOK.md"))
	if err != nil {
		t.Fatal(err)
	}
	root := cloneRoot(t)
	home := t.TempDir()
	for _, args := range [][]string{{"stack", "list"}, {"preview"}, {"stack", "select", "dirqual"}} {
		a, _, errOut := testApp(t, map[string]string{"HOME": home}, false, nil)
		Run(a, args)
		if !strings.Contains(errOut.String(), "stacks/examples") || !strings.Contains(errOut.String(), "--stacks stacks/examples") {
			t.Errorf("%v from a clone's root does not point at stacks/examples:\n%s", args, errOut)
		}
	}

	// RUNBOOK §1's block, line by line: the export, then each nestor line.
	sec := string(runbook)
	sec = sec[strings.Index(sec, "## 1. "):]
	block := sec[strings.Index(sec, "```sh\n")+6:]
	block = block[:strings.Index(block, "```")]
	env := map[string]string{"HOME": home}
	ran := 0
	for _, line := range strings.Split(block, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "export":
			k, v, _ := strings.Cut(f[1], "=")
			env[k] = strings.ReplaceAll(v, "$PWD", root)
		case len(f) > 0 && f[0] == "nestor" && !strings.Contains(line, "path/to/"):
			a, out, errOut := testApp(t, env, false, nil)
			a.Run = limactl("") // no limactl on this machine: the bench is unknown, honestly
			if code := Run(a, f[1:]); code != ExitOK {
				t.Errorf("RUNBOOK §1 %q: exit %d\n%s%s", strings.TrimSpace(line), code, out, errOut)
			}
			ran++
		}
	}
	if ran < 4 {
		t.Errorf("ran %d commands of RUNBOOK §1", ran)
	}
	if _, err := os.Lstat(filepath.Join(root, "stacks", "examples", ".active")); err != nil {
		t.Errorf("stack select wrote no link: %v", err)
	}
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "check-ignore", "-q", "stacks/examples/.active")
		cmd.Dir = repo
		if err := cmd.Run(); err != nil {
			t.Errorf("git does not ignore stacks/examples/.active: %v", err)
		}
	}
}
