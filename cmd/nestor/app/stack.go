package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

func newStackCmd(a *App, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stack",
		Short: "List, show and select the stacks of the stacks folder",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for \"nestor stack\" (one of: list, show, select)", args[0])
			}
			return fmt.Errorf("nestor stack needs a command: list, show or select (see nestor stack --help)")
		},
	}
	cmd.AddCommand(newStackListCmd(a, g), newStackShowCmd(a, g), newStackSelectCmd(a, g))
	return cmd
}

// stackRow is one line of `stack list` (and its JSON element).
type stackRow struct {
	Name       string `json:"name"`
	TargetKind string `json:"target_kind,omitempty"`
	Endpoint   string `json:"endpoint,omitempty"`
	Active     bool   `json:"active"`
	File       string `json:"file"`
	Error      string `json:"error,omitempty"`
}

func newStackListCmd(a *App, g *globals) *cobra.Command {
	out := outputFlag{allowed: []string{"text", "json"}, value: "text"}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stacks: name, target kind, endpoint, active mark",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st := a.store(g)
			entries, err := st.List()
			if err != nil {
				return err
			}
			if _, err := st.Active(); err != nil && !errors.Is(err, stacks.ErrNoActive) {
				fmt.Fprintf(a.ErrOut, "Warning: %v\n", err)
			}
			if len(entries) == 0 && out.value != "json" {
				fmt.Fprintf(a.ErrOut, "No stacks in %s: write NAME.yaml there (see stacks/examples/).\n", st.Dir)
				return nil
			}
			rows := make([]stackRow, 0, len(entries))
			for _, e := range entries {
				r := stackRow{Name: e.Name, Active: e.Active, File: e.Path}
				if e.Err != nil {
					r.Error = e.Err.Error()
				} else {
					r.TargetKind = string(e.Topology.TargetKind)
					r.Endpoint = e.Topology.Endpoint
				}
				rows = append(rows, r)
			}
			if out.value == "json" {
				enc := json.NewEncoder(a.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(a.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ACTIVE\tNAME\tTARGET KIND\tENDPOINT")
			for _, r := range rows {
				mark := ""
				if r.Active {
					mark = "*"
				}
				kind, ep := r.TargetKind, r.Endpoint
				if r.Error != "" {
					kind = "INVALID"
					ep = "(nestor stack show " + r.Name + ")"
				}
				if ep == "" {
					ep = "<none>"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", mark, r.Name, kind, ep)
			}
			return tw.Flush()
		},
	}
	out.register(cmd)
	return cmd
}

func newStackShowCmd(a *App, g *globals) *cobra.Command {
	out := outputFlag{allowed: []string{"yaml", "json"}, value: "yaml"}
	cmd := &cobra.Command{
		Use:               "show [NAME]",
		Short:             "Show a stack's topology as loaded, with resolved paths",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeStacks(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			st := a.store(g)
			name := ""
			if len(args) == 1 {
				name = args[0]
			} else {
				n, err := st.Active()
				if err != nil {
					return fmt.Errorf("%w (or name one: nestor stack show NAME)", err)
				}
				name = n
			}
			t, err := st.Load(name)
			if err != nil {
				return err
			}
			v := map[string]any{}
			raw, err := json.Marshal(t)
			if err != nil {
				return err
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			paths := map[string]string{}
			if t.Kubeconfig != "" {
				paths["kubeconfig"] = t.ResolvePath(t.Kubeconfig, a.home())
			}
			if t.TargetKind == topology.TargetLima {
				paths["bench_kubeconfig"] = t.BenchKubeconfig(a.home())
			}
			if t.Inventory != "" {
				paths["inventory"] = t.ResolvePath(t.Inventory, a.home())
			}
			v["resolved_paths"] = paths
			if out.value == "json" {
				enc := json.NewEncoder(a.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			enc := yaml.NewEncoder(a.Out)
			enc.SetIndent(2)
			defer enc.Close()
			return enc.Encode(v)
		},
	}
	out.register(cmd)
	return cmd
}

func newStackSelectCmd(a *App, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "select NAME",
		Short: "Make NAME the active stack, and complete a prod stack's target",
		Long: `select validates the topology and makes it the active stack: it replaces the
symlink STACKS/.active atomically and writes nothing else on its own.

For a prod stack it then checks the target. When the topology has no
kubeconfig:, it offers to add "kubeconfig: ~/.kube/NAME.config" (one line
inserted, every other byte kept); when that file is missing or does not
answer, it offers to fetch it from the control plane (nestor discover --cp).
Each write is confirmed. With --no-input nothing but the symlink is written:
select says what is missing and the command that fixes it.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeStacks(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runStackSelect(cmd.Context(), g, args[0])
		},
	}
	return cmd
}

func (a *App) runStackSelect(ctx context.Context, g *globals, name string) error {
	st := a.store(g)
	t, err := st.Load(name)
	if err != nil {
		return err
	}
	// A prod stack whose target can be read is confirmed (or, with
	// --no-input, its endpoint checked) before anything is written, so a
	// refused target leaves the active stack as it was (issue 4).
	var pt prodTarget
	unreachable := ""
	if t.TargetKind == topology.TargetProd {
		if pt, err = a.resolveProd(g, t); err != nil {
			return err
		}
		if pt.target != nil {
			_, err := a.guard(ctx, g, t, pt.target, "")
			var ue *unreachableError
			switch {
			case errors.As(err, &ue):
				unreachable = fmt.Sprintf("the kubeconfig %s does not answer (%s)", ue.kubeconfig, ue.reason)
			case err != nil:
				return err
			}
		}
	}
	if t, err = st.Select(name); err != nil {
		return err
	}
	fmt.Fprintf(a.ErrOut, "Active stack: %s (%s) — %s\n", t.Name, t.TargetKind, t.Path)
	if t.TargetKind != topology.TargetProd {
		fmt.Fprintf(a.ErrOut, "Bench kubeconfig: %s\n", t.BenchKubeconfig(a.home()))
		return nil
	}
	if pt.target != nil && unreachable == "" {
		return nil // confirmed above
	}
	interactive := a.interactive(g)
	a.sel = "--stack " + t.Name
	if g.stacks != "" {
		a.sel += " --stacks " + shellQuote("sh", g.stacks)
	}
	if pt.kc.Source == probes.SourceNone {
		value := "~/.kube/" + t.Name + ".config"
		if !interactive {
			// The selection itself succeeded: what is missing is a warning,
			// with the fix, not a failure of select.
			fmt.Fprintf(a.ErrOut, "Warning: %s declares no kubeconfig:, so nestor has no target for stack %s.\n"+
				"Add this line after target_kind: (or run `nestor stack select %s` in a terminal, which offers it):\n  kubeconfig: %s\n"+
				"then fetch it with `%s`\n", t.Path, t.Name, t.Name, value, a.suggest("discover --cp "+firstControlPlane(t)))
			return nil
		}
		ok, err := a.Prompter.Confirm(fmt.Sprintf("%s declares no kubeconfig:. Add `kubeconfig: %s` to it?", filepath.Base(t.Path), value), true)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(a.ErrOut, "Left %s unchanged: stack %s has no target until it declares kubeconfig:.\n", t.Path, t.Name)
			return nil
		}
		if err := addKubeconfigLine(t.Path, value); err != nil {
			return err
		}
		fmt.Fprintf(a.ErrOut, "Added `kubeconfig: %s` to %s.\n", value, t.Path)
		if t, err = st.Load(t.Name); err != nil {
			return err
		}
		if pt, err = a.resolveProd(g, t); err != nil {
			return err
		}
		if pt.target != nil {
			// The file already existed: confirm the target it names.
			_, err := a.guard(ctx, g, t, pt.target, "")
			var ue *unreachableError
			if !errors.As(err, &ue) {
				return err
			}
			unreachable = fmt.Sprintf("the kubeconfig %s does not answer (%s)", ue.kubeconfig, ue.reason)
		}
	}
	missing := pt.noTarget
	if unreachable != "" {
		missing = unreachable
	}
	node := firstControlPlane(t)
	if !interactive || pt.kc.Source != probes.SourceTopology {
		fmt.Fprintf(a.ErrOut, "Warning: stack %s has no readable target: %s\nFetch the kubeconfig with `%s`\n", t.Name, missing, a.suggest("discover --cp "+node))
		return nil
	}
	fmt.Fprintf(a.ErrOut, "Stack %s has no readable target yet: %s\n", t.Name, missing)
	ok, err := a.Prompter.Confirm(fmt.Sprintf("Fetch its kubeconfig from %s over ssh now?", node), true)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(a.ErrOut, "Nothing fetched. Later: %s\n", a.suggest("discover --cp "+node))
		return nil
	}
	return a.fetchKubeconfig(ctx, g, t, node, fetchOptions{})
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
// existing file (0644 for a new one).
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
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
