package app

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
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

func newStackListCmd(a *App, g *globals) *cobra.Command {
	out := newOutputFlag("text", reportFormats...)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stacks: name, target kind, endpoint, active mark",
		Example: `  nestor stack list
  nestor stack list --stacks stacks/examples -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listStacks(a, g, out.value)
		},
	}
	out.register(cmd)
	return cmd
}

// listStacks writes the stacks of the folder in format (stack list, and
// stack select without a name); an empty folder is said on stderr for
// people, an empty list for programs.
func listStacks(a *App, g *globals, format string) error {
	rows, err := g.cfg.StackList()
	if err != nil {
		return err
	}
	if len(rows) == 0 && format == "text" {
		fmt.Fprintln(a.ErrOut, g.cfg.NoStacks())
		return nil
	}
	doc := action.StackList{FormatVersion: action.StackListFormatVersion, Stacks: rows}
	return write(a.Out, format, doc, func(w io.Writer) error { return views.StackList(w, rows) })
}

func newStackShowCmd(a *App, g *globals) *cobra.Command {
	var sel action.Selection
	out := newOutputFlag("text", reportFormats...)
	cmd := &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a stack's topology as loaded, with resolved paths",
		Long: `show loads a stack's topology (NAME, --stack NAME, -f FILE, else the active
stack), validates it and prints it: -o text (the default) and -o yaml as a
topology file that loads back, its resolved paths in comments at its top;
-o json as a versioned document with the resolved paths under resolved_paths.`,
		Example: `  nestor stack show                # the active stack
  nestor stack show dirqual -o json
  nestor stack show -f stacks/examples/bench.yaml`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(&sel, args); err != nil {
				return err
			}
			v, err := g.cfg.StackShow(sel)
			if err != nil {
				return err
			}
			if out.value == "json" {
				return write(a.Out, "json", v, nil)
			}
			return views.StackShow(a.Out, v) // text and yaml: the topology, which loads back
		},
	}
	addStackFlags(a, g, cmd, &sel)
	out.register(cmd)
	return cmd
}

func newStackSelectCmd(a *App, g *globals) *cobra.Command {
	var sel action.Selection
	cmd := &cobra.Command{
		Use:   "select [NAME]",
		Short: "Make NAME the active stack, and complete a prod stack's target; without NAME, list the stacks",
		Long: `select validates the topology and makes it the active stack: it replaces the
symlink STACKS/.active atomically and writes nothing else on its own. NAME is
a stack of the stacks folder (also --stack NAME, or -f FILE for a file of
that folder); without one, select lists the stacks, the active one marked.

For a prod stack it then checks the target. When the topology has no
kubeconfig:, it offers to add "kubeconfig: ~/.kube/NAME.config" (one line
inserted, every other byte kept); when that file is missing or does not
answer, it offers to fetch it from the control plane (nestor discover --cp).
Each write is confirmed. With --no-input nothing but the symlink is written:
select says what is missing and the command that fixes it.`,
		Example: `  nestor stack select               # list the stacks
  nestor stack select dirqual
  nestor stack select --no-input dirqual`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(&sel, args); err != nil {
				return err
			}
			if sel.File != "" {
				name, err := g.cfg.FolderStack(sel.File)
				if err != nil {
					return err
				}
				sel.Stack = name
			}
			if sel.Stack == "" {
				if err := listStacks(a, g, "text"); err != nil {
					return err
				}
				fmt.Fprintln(a.ErrOut, "Select one with: nestor stack select NAME")
				return nil
			}
			return action.StackSelect{Config: g.cfg, Name: sel.Stack}.Run(cmd.Context())
		},
	}
	addStackFlags(a, g, cmd, &sel)
	return cmd
}
