package app

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// addStackFlags registers -f FILE and --stack NAME, which choose the stack a
// command works on (else the active stack).
func addStackFlags(a *App, cmd *cobra.Command, sel *action.Selection) {
	cmd.Flags().StringVarP(&sel.File, "file", "f", "", "topology file to use (anywhere on disk)")
	cmd.Flags().StringVar(&sel.Stack, "stack", "", "stack NAME from the stacks folder (default: the active stack)")
	_ = cmd.RegisterFlagCompletionFunc("stack", completeStacks(a))
}

// completeStacks completes stack names from the stacks folder.
func completeStacks(a *App) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		dir, _ := cmd.Flags().GetString("stacks")
		entries, err := stacks.Store{Dir: stacks.Dir(dir, a.Env)}.List()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// config is the command's Config: g's, without prompts when out is a
// machine format.
func config(g *globals, out *outputFlag) action.Config {
	if out != nil && out.machine() {
		return g.cfg.NoPrompt("-o " + out.value + " never prompts")
	}
	return g.cfg
}

// withProgress returns c with a terminal progress line told what is read
// (none for machine output or without a terminal), and the line, whose
// done erases it before the command writes its output.
func withProgress(a *App, c action.Config, out *outputFlag) (action.Config, *progressLine) {
	p := a.newProgress(out.machine())
	c.Progress = p.callback()
	return c, p
}

// judgeFlags are --as-of and --fail-on, shared by preview and fleet.
type judgeFlags struct {
	asOf   string
	failOn *outputFlag
}

func addJudgeFlags(cmd *cobra.Command) *judgeFlags {
	j := &judgeFlags{failOn: &outputFlag{allowed: []string{"warning", "error"}, typ: "severity"}}
	cmd.Flags().StringVar(&j.asOf, "as-of", "", "judge the support calendar at this date (YYYY-MM-DD) instead of today")
	cmd.Flags().Var(j.failOn, "fail-on", "exit 3 when a finding of this severity or worse exists: warning|error")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return j.failOn.allowed, cobra.ShellCompDirectiveNoFileComp
	})
	return j
}

// apply sets c.AsOf from --as-of. Errors: a date that is not YYYY-MM-DD.
func (j *judgeFlags) apply(c action.Config) (action.Config, error) {
	if j.asOf == "" {
		return c, nil
	}
	d, err := time.Parse(time.DateOnly, j.asOf)
	if err != nil {
		return c, fmt.Errorf("--as-of %q is not a date: write YYYY-MM-DD (e.g. 2027-11-01)", j.asOf)
	}
	c.AsOf = d
	return c, nil
}

// severity is --fail-on's severity ("" when not given).
func (j *judgeFlags) severity() topology.Severity { return topology.Severity(j.failOn.value) }
