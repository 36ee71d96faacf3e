package app

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
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
	out := newOutputFlag("text", "text", "json", "yaml")
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stacks: name, target kind, endpoint, active mark",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := g.cfg.StackList()
			if err != nil {
				return err
			}
			if len(rows) == 0 && !out.machine() {
				fmt.Fprintf(a.ErrOut, "No stacks in %s: write NAME.yaml there (see stacks/examples/).\n", g.cfg.Stacks.Dir)
				return nil
			}
			return write(a.Out, out.value, rows, func(w io.Writer) error { return action.WriteStackList(w, rows) })
		},
	}
	out.register(cmd)
	return cmd
}

func newStackShowCmd(a *App, g *globals) *cobra.Command {
	out := newOutputFlag("yaml", "yaml", "json")
	cmd := &cobra.Command{
		Use:               "show [NAME]",
		Short:             "Show a stack's topology as loaded, with resolved paths",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeStacks(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			v, err := g.cfg.StackShow(name)
			if err != nil {
				return err
			}
			return write(a.Out, out.value, v, nil)
		},
	}
	out.register(cmd)
	return cmd
}

func newStackSelectCmd(a *App, g *globals) *cobra.Command {
	return &cobra.Command{
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
			return action.StackSelect{Config: g.cfg, Name: args[0]}.Run(cmd.Context())
		},
	}
}
