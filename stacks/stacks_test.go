package stacks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const valid = "name: %s\ntarget_kind: prod\nnodes:\n  - {name: n1, role: control-plane}\n"

func write(t *testing.T, dir, file, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDir(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cases := []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"f", map[string]string{"NESTOR_STACKS": "e"}, "f"},
		{"", map[string]string{"NESTOR_STACKS": "e"}, "e"},
		{"", map[string]string{"NESTOR_STACKS": ""}, DefaultDir},
		{"", nil, DefaultDir},
	}
	for _, c := range cases {
		if got := Dir(c.flag, env(c.env)); got != c.want {
			t.Errorf("Dir(%q, %v) = %q, want %q", c.flag, c.env, got, c.want)
		}
	}
}

func TestListSelectActive(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", strings.ReplaceAll(valid, "%s", "a"))
	write(t, dir, "b.yml", strings.ReplaceAll(valid, "%s", "b"))
	write(t, dir, "broken.yaml", "name: broken\ntarget_kind: [\n")
	write(t, dir, "notes.txt", "ignored")
	s := Store{Dir: dir}
	if _, err := s.Active(); !errors.Is(err, ErrNoActive) {
		t.Fatalf("Active before select: %v, want ErrNoActive", err)
	}
	if _, err := s.Select("broken"); err == nil {
		t.Fatal("an invalid topology was selected")
	}
	if _, err := os.Lstat(filepath.Join(dir, ActiveLink)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("link written for an invalid stack: %v", err)
	}
	if _, err := s.Select("missing"); err == nil || !strings.Contains(err.Error(), "stacks: a, b, broken") {
		t.Fatalf("missing stack error should list the stacks: %v", err)
	}
	for _, name := range []string{"a", "b"} {
		tp, err := s.Select(name)
		if err != nil {
			t.Fatalf("select %s: %v", name, err)
		}
		if tp.Name != name {
			t.Fatalf("loaded %q", tp.Name)
		}
		got, err := s.Active()
		if err != nil || got != name {
			t.Fatalf("Active = %q, %v; want %s", got, err, name)
		}
	}
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
		if e.Name == "broken" && e.Err == nil {
			t.Error("broken.yaml listed without its error")
		}
		if e.Active != (e.Name == "b") {
			t.Errorf("%s active=%v", e.Name, e.Active)
		}
	}
	if strings.Join(names, ",") != "a,b,broken" {
		t.Fatalf("List names %v", names)
	}
	// Nothing but the link was left in the folder (no temp link behind).
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".active-tmp") {
			t.Fatalf("temporary left behind: %s", de.Name())
		}
	}
}

func TestActiveDanglingLink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("gone.yaml", filepath.Join(dir, ActiveLink)); err != nil {
		t.Fatal(err)
	}
	if _, err := (Store{Dir: dir}).Active(); err == nil || !strings.Contains(err.Error(), "gone.yaml") {
		t.Fatalf("dangling link: %v", err)
	}
}

func TestSelectRefusesPaths(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "stacks")
	other := filepath.Join(root, "other")
	for _, d := range []string{dir, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "x.yaml", strings.ReplaceAll(valid, "%s", "x"))
	write(t, other, "x.yaml", "name: x\ntarget_kind: lima\nnodes:\n  - {name: n1, role: control-plane}\n")
	for _, name := range []string{"../other/x", "/abs/x", "X", "x.yaml", ""} {
		if _, err := (Store{Dir: dir}).Select(name); err == nil || !strings.Contains(err.Error(), "not a stack name") {
			t.Errorf("Select(%q) = %v, want a refusal", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ActiveLink)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a link was written: %v", err)
	}
}

// Mentioning parses only the files that mention one of its words, and
// returns the valid ones alone.
func TestMentioningOnlyParsesCandidates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bench.yaml", "name: bench\ntarget_kind: \"lima\"\nnodes:\n  - {name: lima-node1, role: control-plane}\n")
	write("prod.yaml", "name: prod\ntarget_kind: prod\nnodes:\n  - {name: p1, role: control-plane}\n")
	write("broken.yaml", "name: broken\ntarget_kind: prod\nnodes: 3\n")      // invalid, never parsed
	write("limaish.yaml", "name: limaish\ntarget_kind: prod\nnodes: oops\n") // says lima: parsed, invalid, left out
	got, err := Store{Dir: dir}.Mentioning("lima")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "bench" {
		t.Fatalf("Mentioning(lima) = %+v, want bench alone", got)
	}
	got, err = Store{Dir: dir}.Mentioning("lima", "prod")
	if err != nil {
		t.Fatal(err)
	}
	if names := []string{got[0].Name, got[1].Name}; len(got) != 2 || names[0] != "bench" || names[1] != "prod" {
		t.Fatalf("Mentioning(lima, prod) = %+v, want bench and prod", got)
	}
}
