// Package stacks is nestor's stack store: a folder of topology files
// (NAME.yaml), and the active stack, a symlink `.active` → `NAME.yaml` in the
// same folder (README.md "Commands"). It never prints and never reads
// the environment: callers pass the folder.
package stacks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"nestor.dev/nestor/topology"
)

// ActiveLink is the name of the active-stack symlink inside the stacks folder.
const ActiveLink = ".active"

// DefaultDir is the stacks folder used when neither --stacks nor
// NESTOR_STACKS is set.
const DefaultDir = "stacks"

// Dir picks the stacks folder: flag if set, else the NESTOR_STACKS value from
// env (exported but empty counts as unset), else DefaultDir. It returns the
// folder as given (relative to the working directory when relative).
func Dir(flag string, env func(string) (string, bool)) string {
	if flag != "" {
		return flag
	}
	if env != nil {
		if v, ok := env("NESTOR_STACKS"); ok && v != "" {
			return v
		}
	}
	return DefaultDir
}

// Store is a stacks folder.
type Store struct {
	// Dir is the stacks folder.
	Dir string
}

// Entry is one stack of a Store. Exactly one of Topology and Err is set:
// an invalid file is listed with its error, not hidden.
type Entry struct {
	Name     string             `json:"name"`
	Path     string             `json:"path"`
	Active   bool               `json:"active"`
	Topology *topology.Topology `json:"-"`
	Err      error              `json:"-"`
}

// ErrNoActive is returned by Active when no stack has been selected.
var ErrNoActive = errors.New("no active stack")

// checkName refuses a stack name that is not a plain topology name
// (topology.CheckName), so that "../other/x" can never load one file and
// activate another.
func checkName(name string) error {
	if err := topology.CheckName(name); err != nil {
		return fmt.Errorf("%w; a stack name is the base name of NAME.yaml in the stacks folder (for a file elsewhere use -f FILE)", err)
	}
	return nil
}

// Path returns the topology file of stack name: DIR/NAME.yaml, or DIR/NAME.yml
// when only that exists. name must be a valid stack name (see Load).
func (s Store) Path(name string) string {
	p := filepath.Join(s.Dir, name+".yaml")
	if _, err := os.Stat(p); err != nil {
		alt := filepath.Join(s.Dir, name+".yml")
		if _, err2 := os.Stat(alt); err2 == nil {
			return alt
		}
	}
	return p
}

// List returns every NAME.yaml / NAME.yml of the folder, sorted by name, each
// loaded and validated (an invalid one carries its error in Entry.Err). It
// fails only when the folder cannot be read.
func (s Store) List() ([]Entry, error) {
	return s.list(nil, true)
}

// Files lists the stack files of the folder as List does, sorted by name,
// without reading them: each Entry's Topology and Err are unset until its
// Load (fleet reads each stack's file when it reads that stack, so the
// first stack is read before the last file is parsed). Errors: as List.
func (s Store) Files() ([]Entry, error) {
	return s.list(nil, false)
}

// Load parses e's topology file into e.Topology, or e.Err.
func (e *Entry) Load() {
	e.Topology, e.Err = Load(e.Path)
}

// Mentioning returns the valid stacks of the folder whose file's text
// holds one of words, without parsing the others: a caller that needs the
// stacks of some target kinds passes their names, which every spelling of
// target_kind: NAME holds (the bench kubeconfig refusal reads only the
// kinds that own a bench). Invalid files are left out. Errors: as List.
func (s Store) Mentioning(words ...string) ([]Entry, error) {
	all, err := s.list(func(data []byte) bool {
		for _, w := range words {
			if bytes.Contains(data, []byte(w)) {
				return true
			}
		}
		return false
	}, true)
	if err != nil {
		return nil, err
	}
	out := []Entry{}
	for _, e := range all {
		if e.Topology != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// list lists the stack files, parsed when parse is set; when keep is set,
// a file whose bytes keep refuses is left out without being parsed.
func (s Store) list(keep func([]byte) bool, parse bool) ([]Entry, error) {
	des, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("stacks folder %s: %w (set --stacks DIR or NESTOR_STACKS)", s.Dir, err)
	}
	active, _ := s.Active()
	entries := []Entry{}
	for _, de := range des {
		n := de.Name()
		if de.IsDir() || strings.HasPrefix(n, ".") {
			continue
		}
		ext := filepath.Ext(n)
		if ext != ".yaml" && ext != ".yml" {
			continue
		}
		name := strings.TrimSuffix(n, ext)
		e := Entry{Name: name, Path: filepath.Join(s.Dir, n), Active: name == active}
		if keep != nil {
			data, err := os.ReadFile(e.Path)
			if err == nil && !keep(data) {
				continue
			}
		}
		if parse {
			e.Load()
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Active returns the name of the active stack, read from the .active
// symlink. It returns ErrNoActive (wrapped) when there is no link, and an
// error naming the link when it points at something that is not NAME.yaml in
// this folder or at a file that no longer exists.
func (s Store) Active() (string, error) {
	link := filepath.Join(s.Dir, ActiveLink)
	dest, err := os.Readlink(link)
	if _, serr := os.Stat(s.Dir); errors.Is(serr, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: the stacks folder %s does not exist (set --stacks DIR or NESTOR_STACKS)", ErrNoActive, s.Dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w in %s: run `nestor stack select NAME`", ErrNoActive, s.Dir)
	}
	if err != nil {
		return "", fmt.Errorf("active stack link %s: %w", link, err)
	}
	if filepath.Base(dest) != dest {
		return "", fmt.Errorf("active stack link %s points outside the stacks folder (%s): run `nestor stack select NAME`", link, dest)
	}
	ext := filepath.Ext(dest)
	if ext != ".yaml" && ext != ".yml" {
		return "", fmt.Errorf("active stack link %s points at %s, not a .yaml topology", link, dest)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, dest)); err != nil {
		return "", fmt.Errorf("active stack link %s points at %s, which does not exist: run `nestor stack select NAME`", link, dest)
	}
	return strings.TrimSuffix(dest, ext), nil
}

// Load loads and validates stack name from the folder. A missing stack is an
// error that lists the stacks the folder has.
func (s Store) Load(name string) (*topology.Topology, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	p := s.Path(name)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no stack %q in %s%s", name, s.Dir, s.known())
	}
	return Load(p)
}

func (s Store) known() string {
	if _, err := os.Stat(s.Dir); errors.Is(err, fs.ErrNotExist) {
		return " (the stacks folder " + s.Dir + " does not exist: set --stacks DIR or NESTOR_STACKS)"
	}
	if ex, names, ok := s.Examples(); ok {
		return " (the folder has no NAME.yaml; its subfolder " + ex.Dir + " holds the example stacks " + strings.Join(names, ", ") +
			": pass --stacks " + ex.Dir + " or export NESTOR_STACKS=" + ex.Dir + " to use them)"
	}
	entries, err := s.List()
	if err != nil || len(entries) == 0 {
		return " (the folder has no NAME.yaml)"
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	return " (stacks: " + strings.Join(names, ", ") + ")"
}

// Select makes name the active stack. The topology is loaded and validated
// first: an invalid one is not selected and its error is returned. The link
// is replaced atomically: a temporary symlink is created beside it and
// renamed over .active, so a reader sees the old or the new link, never none.
// Select writes nothing else. It returns the loaded topology.
func (s Store) Select(name string) (*topology.Topology, error) {
	t, err := s.Load(name)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(t.Path) != dir {
		return nil, fmt.Errorf("select %s: %s is not in the stacks folder %s", name, t.Path, dir)
	}
	tmp, err := os.MkdirTemp(s.Dir, ".active-tmp-")
	if err != nil {
		return nil, fmt.Errorf("select %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	tmpLink := filepath.Join(tmp, "link")
	if err := os.Symlink(filepath.Base(t.Path), tmpLink); err != nil {
		return nil, fmt.Errorf("select %s: %w", name, err)
	}
	if err := os.Rename(tmpLink, filepath.Join(s.Dir, ActiveLink)); err != nil {
		return nil, fmt.Errorf("select %s: replace %s: %w", name, filepath.Join(s.Dir, ActiveLink), err)
	}
	return t, nil
}
