package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// StackListFormatVersion is the version of `stack list -o json` and of
// `stack show`'s document.
const StackListFormatVersion = 1

// StackList is `stack list`'s JSON document.
type StackList struct {
	FormatVersion int        `json:"format_version"`
	Stacks        []StackRow `json:"stacks"`
}

// StackRow is one line of `stack list` (and its JSON element).
type StackRow struct {
	Name       string `json:"name"`
	TargetKind string `json:"target_kind,omitempty"`
	Endpoint   string `json:"endpoint,omitempty"`
	Active     bool   `json:"active"`
	File       string `json:"file"`
	Error      string `json:"error,omitempty"`
}

// StackList returns the stacks of the stacks folder, an invalid one with
// its error. A broken active link is a warning on Log. Errors: the folder
// cannot be listed.
func (c Config) StackList() ([]StackRow, error) {
	entries, err := c.Stacks.List()
	if err != nil {
		return nil, err
	}
	if _, err := c.Stacks.Active(); err != nil && !errors.Is(err, stacks.ErrNoActive) {
		c.logf("Warning: %v", err)
	}
	rows := make([]StackRow, 0, len(entries))
	for _, e := range entries {
		r := StackRow{Name: e.Name, Active: e.Active, File: e.Path}
		if e.Err != nil {
			r.Error = e.Err.Error()
		} else {
			r.TargetKind = string(e.Topology.TargetKind)
			r.Endpoint = e.Topology.Endpoint
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// StackShowDoc is `stack show`'s document: the topology as loaded. Its
// JSON is the topology's keys with path, warnings (when any),
// resolved_paths and format_version; its YAML (views.StackShow) is a topology
// file that loads back, the rest in comments at its top.
type StackShowDoc struct {
	// Doc is the JSON document.
	Doc map[string]any
	// Topology is Doc without what is not a topology key, and Header the
	// comment lines of the YAML.
	Topology map[string]any
	Header   []string
}

// MarshalJSON writes Doc.
func (d *StackShowDoc) MarshalJSON() ([]byte, error) { return json.Marshal(d.Doc) }

// StackShow returns the topology of the stack sel chooses (LoadStack) as
// loaded, with its resolved paths. Errors: LoadStack's.
func (c Config) StackShow(sel Selection) (*StackShowDoc, error) {
	s, err := c.LoadStack(sel)
	if err != nil {
		return nil, err
	}
	t := s.Topology
	v := map[string]any{}
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	paths := map[string]string{}
	if t.Kubeconfig != "" {
		paths["kubeconfig"] = t.ResolvePath(t.Kubeconfig, c.Home)
	}
	if k, err := KindOf(t); err == nil {
		// A kind read through a file of its own (lima's bench) says so.
		if kc, err := k.Resolve(probes.ResolveOptions{Home: c.Home, Topology: t}); err == nil && kc.Source == probes.SourceBench {
			paths["bench_kubeconfig"] = kc.Paths[0]
		}
	}
	if t.Inventory != "" {
		paths["inventory"] = t.ResolvePath(t.Inventory, c.Home)
	}
	topo := map[string]any{}
	for k, val := range v {
		if k != "path" && k != "warnings" {
			topo[k] = val
		}
	}
	header := []string{fmt.Sprintf("Stack %s as nestor loaded it from %s (it loads back as a topology).", t.Name, t.Path)}
	for _, k := range slices.Sorted(maps.Keys(paths)) {
		header = append(header, fmt.Sprintf("resolved %s: %s", strings.ReplaceAll(k, "_", " "), paths[k]))
	}
	for _, w := range t.Warnings {
		header = append(header, "warning: "+w)
	}
	v["resolved_paths"] = paths
	v["format_version"] = StackListFormatVersion
	return &StackShowDoc{Doc: v, Topology: topo, Header: header}, nil
}

// FolderStack is the name of the stack of the stacks folder whose file is
// path (stack select -f FILE). Errors: path is not a NAME.yaml or NAME.yml
// of the stacks folder (select makes a stack of the folder active: the
// error says how to bring a file there, or to pass -f FILE to each
// command instead).
func (c Config) FolderStack(path string) (string, error) {
	dir, file := canonicalDir(filepath.Dir(path)), filepath.Base(path)
	ext := filepath.Ext(file)
	name := strings.TrimSuffix(file, ext)
	if dir != canonicalDir(c.Stacks.Dir) || (ext != ".yaml" && ext != ".yml") {
		return "", fmt.Errorf("%s is not a stack of the stacks folder %s: stack select makes a stack of that folder active; copy the file there (cp %s %s) and select it by name, or pass -f %s to each command",
			path, c.Stacks.Dir, ShellQuote("sh", path), ShellQuote("sh", filepath.Join(c.Stacks.Dir, name+".yaml")), ShellQuote("sh", path))
	}
	return name, nil
}

// canonicalDir is dir absolute, cleaned, its symlinks resolved where it
// exists.
func canonicalDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// StackSelect is `nestor stack select NAME`: it makes NAME the active
// stack, after confirming (or strictly checking) a prod target, then
// completes a prod stack's target: the kubeconfig: line, then the fetch,
// each confirmed, nothing but the link with --no-input.
type StackSelect struct {
	Config
	Name string
}

// Run selects the stack. A refused target leaves the active stack as it
// was. Errors: the topology does not load; the pipeline refused; a write
// failed; the operator said No to the target (SilentError).
func (c StackSelect) Run(ctx context.Context) error {
	t, err := c.Stacks.Load(c.Name)
	if err != nil {
		return err
	}
	s, err := c.named(t, true)
	if err != nil {
		return err
	}
	var op *probes.Opened
	missing := ""
	if s.Kind.Guarded() {
		if op, missing, err = c.checkTarget(ctx, s); err != nil {
			return err
		}
	}
	if t, err = c.Stacks.Select(c.Name); err != nil {
		return err
	}
	s.Topology = t
	c.logf("Active stack: %s (%s) — %s", t.Name, t.TargetKind, t.Path)
	if !s.Kind.Guarded() {
		if note := s.Kind.Selected(t, c.Home, s.Suggest); note != "" {
			c.logf("%s", note)
		}
		return nil
	}
	if missing == "" {
		return nil // confirmed above
	}
	if op.Kubeconfig.Source == probes.SourceNone {
		var done bool
		if op, missing, done, err = c.addKubeconfig(ctx, s); err != nil || done {
			return err
		}
		t = s.Topology
	}
	node := FirstControlPlane(t)
	fetch := probes.FetchCommand(t, s.Suggest)
	if !c.Interactive || op.Kubeconfig.Source != probes.SourceTopology || !strings.HasPrefix(fetch, "`") {
		// Without a prompt, or with nowhere for ssh to connect: the hint.
		c.logf("Warning: stack %s has no readable target: %s\nFetch the kubeconfig: %s", t.Name, missing, fetch)
		return nil
	}
	c.logf("Stack %s has no readable target yet: %s", t.Name, missing)
	// A copy of the cluster's admin credentials: asked, default No.
	ok, err := c.Prompter.Confirm(fmt.Sprintf("Fetch its kubeconfig (the cluster's admin credentials) from %s over ssh now?", node), false)
	if err != nil {
		return err
	}
	if !ok {
		c.logf("Nothing fetched. Later: %s", fetch)
		return nil
	}
	return Fetch{Config: c.Config, Node: node}.fetchKubeconfig(ctx, s, node, FetchOptions{})
}

// addKubeconfig offers to add `kubeconfig: ~/.kube/NAME.config` to stack
// s's topology (without a prompt it only says so), then checks the target
// it names. It returns what was opened and what is still missing, and done
// when select has nothing more to do (declined, not interactive, or the
// file already answers).
func (c StackSelect) addKubeconfig(ctx context.Context, s *Stack) (*probes.Opened, string, bool, error) {
	t := s.Topology
	value := "~/.kube/" + t.Name + ".config"
	if !c.Interactive {
		// The selection itself succeeded: what is missing is a warning,
		// with the fix, not a failure of select.
		c.logf("Warning: %s declares no kubeconfig:, so nestor has no target for stack %s.\n"+
			"Add this line after target_kind: (or run `nestor stack select %s` in a terminal, which offers it):\n  kubeconfig: %s\n"+
			"then fetch it with %s", t.Path, t.Name, t.Name, value, probes.FetchCommand(t, s.Suggest))
		return nil, "", true, nil
	}
	ok, err := c.Prompter.Confirm(fmt.Sprintf("%s declares no kubeconfig:. Add `kubeconfig: %s` to it?", filepath.Base(t.Path), value), true)
	if err != nil {
		return nil, "", true, err
	}
	if !ok {
		c.logf("Left %s unchanged: stack %s has no target until it declares kubeconfig:.", t.Path, t.Name)
		return nil, "", true, nil
	}
	if err := addKubeconfigLine(t.Path, value); err != nil {
		return nil, "", true, err
	}
	c.logf("Added `kubeconfig: %s` to %s.", value, t.Path)
	if t, err = c.Stacks.Load(t.Name); err != nil {
		return nil, "", true, err
	}
	s.Topology = t
	op, missing, err := c.checkTarget(ctx, s)
	if err != nil {
		return nil, "", true, err
	}
	// The file may already exist: then it is confirmed, and select is done.
	return op, missing, missing == "", nil
}

// checkTarget opens a prod stack's target through the pipeline and reads
// what the guard reads (version, nodes), so that a target that does not
// answer is told apart from a refused one. It returns what was opened and
// what is missing: "" when the target answered (and was confirmed), else
// why there is no readable target (no kubeconfig, a missing file, a target
// that does not answer). Errors: the pipeline's refusals and a No at the
// prompt.
func (c StackSelect) checkTarget(ctx context.Context, s *Stack) (*probes.Opened, string, error) {
	op, err := c.Open(ctx, s, OpenOptions{})
	if err == nil && op.Target != nil {
		_, err = op.View(ctx)
	}
	var ue *probes.UnreachableError
	switch {
	case errors.As(err, &ue):
		return op, fmt.Sprintf("the kubeconfig %s does not answer (%s)", ue.Kubeconfig, ue.Reason), nil
	case err != nil:
		return nil, "", err
	case op.NoTarget != nil:
		return op, op.NoTarget.Error(), nil
	}
	return op, "", nil
}

// addKubeconfigLine inserts `kubeconfig: value` into the topology at path as
// a one-line text edit (topology.SetKubeconfig), written to a temporary file
// in the same folder and renamed over the original, keeping its mode: every
// other byte, comment and line ending is unchanged, and a crash leaves the old
// file or the new one, never half of one.
func addKubeconfigLine(path, value string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	edited, err := topology.SetKubeconfig(data, value)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := topology.Parse(path, edited); err != nil {
		return fmt.Errorf("%s: the edit would make the topology invalid, left unchanged: %w", path, err)
	}
	return writeFileAtomic(path, edited, 0)
}

// writeFileAtomic writes data to path through a temporary file in the same
// folder, fsynced, then renamed over path. mode 0 keeps the mode of an
// existing file (0644 for a new one). Its errors name path and its folder,
// never the temporary file, which the operator never asked for (writeError).
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := writeFileAtomicRaw(path, data, mode); err != nil {
		return writeError(path, err)
	}
	return nil
}

// writeError says why path could not be written, in terms of path and its
// folder: "the folder D does not exist", "the folder D is not writable
// (permission denied)", else "cannot write PATH: " and the system's words
// without the temporary file's name.
func writeError(path string, err error) error {
	dir := filepath.Dir(path)
	var pe *fs.PathError
	why := err.Error()
	if errors.As(err, &pe) {
		why = pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		why = le.Err.Error()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: the folder %s does not exist (create it, or name a file in a folder that exists)", path, dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot write %s: the folder %s is not writable (%s)", path, dir, why)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	return fmt.Errorf("cannot write %s: %s", path, why)
}

// WriteFile writes data to path atomically: a temporary file in the same
// folder (named .NAME.tmp-*, which node_exporter's textfile collector, reading
// *.prom only, never reads), fsynced, renamed over path; an existing file
// keeps its mode (0644 for a new one). A reader sees the old file or the
// new one, never half of it.
func WriteFile(path string, data []byte) error {
	return writeFileAtomic(path, data, 0)
}

// CheckFolder is the check of a file to be written at path made before
// any work (--output-file before the read): its folder exists and is a
// folder. Its error is writeError's.
func CheckFolder(path string) error {
	fi, err := os.Stat(filepath.Dir(path))
	switch {
	case err != nil:
		return writeError(path, err)
	case !fi.IsDir():
		return writeError(path, syscall.ENOTDIR)
	}
	return nil
}

func writeFileAtomicRaw(path string, data []byte, mode os.FileMode) error {
	// Write through a symlink to the file it names, as editors do, rather
	// than replacing the link with a regular file.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if mode == 0 {
		mode = 0o644
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename itself durable.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// NoStacks says that the stacks folder holds no stack, and where some are:
// its examples/ subfolder when it has one (stacks.Store.Examples: run from
// the root of a clone of nestor, ./stacks is the Go package and its
// examples), else how to write one.
func (c Config) NoStacks() string {
	if ex, names, ok := c.Stacks.Examples(); ok {
		return fmt.Sprintf("No stacks in %s, but its subfolder %s holds the example stacks %s: use them with --stacks %s (or export NESTOR_STACKS=%s), or copy one into %s and edit it.",
			c.Stacks.Dir, ex.Dir, strings.Join(names, ", "), ex.Dir, ex.Dir, c.Stacks.Dir)
	}
	return fmt.Sprintf("No stacks in %s: write NAME.yaml there (nestor's repository has examples in stacks/examples/).", c.Stacks.Dir)
}
