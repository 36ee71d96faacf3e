package app

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
)

func newPreviewCmd(a *App, g *globals) *cobra.Command {
	var sel action.Selection
	out := newOutputFlag("text", append(reportFormats, documentFormats...)...)
	var detailed, verbose bool
	var judge *judgeFlags
	cmd := &cobra.Command{
		Use:   "preview [NAME]",
		Short: "Show desired, actual and plan for a stack; never writes",
		Long: `preview reads the stack's actual state now and prints three sections:
DESIRED (from the topology), ACTUAL (read now, not stored) and PLAN (the ordered
steps that would close the gap). It never writes: not the cluster, not the
topology, not a kubeconfig, not a cache.

For a prod stack the target is confirmed first (interactive), or its endpoint
checked against the topology's endpoint: (--no-input, no terminal, -o json).
A part that could not be read is shown as unknown with the reason, never as absent.

ACTUAL shows the versions (API server, kubelets by version) and where each minor
in use stands in the upstream support calendar; the findings (kubelets behind or
newer than the server, a downgrade asked for, end of life) follow the PLAN, each
with its severity. --as-of judges the calendar at another date. A layer's line
says why in a few words; --detailed adds, under it, every workload, CRD group and
StorageClass seen and what each of its status objects says (-o json holds them too).

Exit codes: 0 report printed (unknowns included), 1 no report (invalid topology,
bad flag, target refused or unreachable). With --detailed-exitcode: 0 in sync,
2 the plan has changes (upgrade and upgrade-node included), 1 an error or any
part of ACTUAL unknown. Findings never change these; --fail-on warning|error
exits 3 when a finding of that severity or worse exists (after the report;
1 still wins for nestor's own errors).`,
		Example: `  nestor preview                         # the active stack
  nestor preview dirqual -o json         # stack dirqual (--stack dirqual): versioned JSON document
  nestor preview -f stacks/examples/dirqual.yaml --no-input --detailed-exitcode`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(&sel, args); err != nil {
				return err
			}
			if err := out.checkFile(); err != nil {
				return err
			}
			c, err := judge.apply(config(g, out))
			if err != nil {
				return err
			}
			c, progress := withProgress(a, c, out)
			r, s, err := action.Preview{Config: c, Selection: sel}.Run(cmd.Context())
			progress.done()
			if err != nil {
				return errors.Join(err, out.emitFailure(a, action.NewFailure(s, err)))
			}
			if err := out.emit(a, r, func(w io.Writer) error {
				views.Preview(w, r, views.PreviewOptions{Color: a.color(), Detailed: verbose}, s.Suggest)
				return nil
			}); err != nil {
				return err
			}
			if code := r.ExitCode(); detailed && code != action.ExitOK {
				return action.SilentError{Code: code}
			}
			if code := r.FailOn(judge.severity()); code != action.ExitOK {
				return action.SilentError{Code: code}
			}
			return nil
		},
	}
	addStackFlags(a, g, cmd, &sel)
	out.register(cmd)
	out.registerFile(cmd)
	cmd.Flags().BoolVar(&detailed, "detailed-exitcode", false, "exit 0 in sync, 2 changes, 1 error or unknown")
	cmd.Flags().BoolVar(&verbose, "detailed", false, "under each layer, every workload, CRD group and StorageClass seen and what each of its status objects says")
	judge = addJudgeFlags(cmd)
	return cmd
}

func newNextCmd(a *App, g *globals) *cobra.Command {
	var sel action.Selection
	out := newOutputFlag("text", reportFormats...)
	cmd := &cobra.Command{
		Use:   "next [NAME]",
		Short: "Say which phase comes next for the stack, why, and what runs it (read-only)",
		Long: `next reads the stack's actual state (as preview does, read-only) and names the
first phase of its sequence that is not done, why, and what runs it (RUNBOOK.md's
phase table). Phases: prod: bootstrap → k8s → layers (a prod stack never gets
"up": its machines pre-exist); lima: up → bootstrap → k8s → layers; kapsule:
cluster → pools → layers (the provider runs the control plane and the nodes; a
phase it is still moving is waiting, not done).

When a phase cannot be judged because ACTUAL is unknown, next says so and that
the next step is to make the target readable, not to install anything.`,
		Example: `  nestor next                # the active stack
  nestor next bench -o json  # stack bench, as a versioned document`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(&sel, args); err != nil {
				return err
			}
			n, err := action.Next{Config: config(g, out), Selection: sel}.Run(cmd.Context())
			if err != nil {
				return err
			}
			return write(a.Out, out.value, n, func(w io.Writer) error { views.Next(w, n); return nil })
		},
	}
	addStackFlags(a, g, cmd, &sel)
	out.register(cmd)
	return cmd
}

func newEnvCmd(a *App, g *globals) *cobra.Command {
	var sel action.Selection
	shell := &outputFlag{allowed: []string{"bash", "zsh", "fish"}, value: "bash", typ: "shell"}
	out := newOutputFlag("text", reportFormats...)
	out.alias = map[string]string{"shell": "text"}
	cmd := &cobra.Command{
		Use:   "env [NAME]",
		Short: "Print shell exports for the stack (lima: the bench kubeconfig; prod: nothing)",
		Long: `env prints shell exports on stdout for the active (or --stack) stack:

  lima  export KUBECONFIG=<the bench kubeconfig>
  prod  nothing on stdout, so eval "$(nestor env)" is harmless; stderr says
        which kubeconfig nestor reads for the stack and how to fetch it.

It never exports the bench kubeconfig for a prod stack, whatever the environment
holds. Its text form (-o text, the default; -o shell is the same) is the
exports; -o json and -o yaml print the variables and the notes as a
versioned document.`,
		Example: `  eval "$(nestor env)"
  nestor env bench --shell fish | source`,
		Args:              oneStack,
		ValidArgsFunction: completeStacks(a, g, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := stackArg(&sel, args); err != nil {
				return err
			}
			r, err := action.Env{Config: config(g, out), Selection: sel}.Run()
			if err != nil {
				return err
			}
			return write(a.Out, out.value, r, func(w io.Writer) error {
				views.Env(w, a.ErrOut, r, shell.value)
				return nil
			})
		},
	}
	addStackFlags(a, g, cmd, &sel)
	out.register(cmd)
	cmd.Flags().Var(shell, "shell", "shell syntax: bash|zsh|fish")
	_ = cmd.RegisterFlagCompletionFunc("shell", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return shell.allowed, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}
