package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// addStackFlags registers -f FILE and --stack NAME, which choose the stack a
// command works on (else the active stack), with their completions: -f
// offers *.yaml and *.yml files, --stack the stacks of the folder.
func addStackFlags(a *App, g *globals, cmd *cobra.Command, sel *action.Selection) {
	cmd.Flags().StringVarP(&sel.File, "file", "f", "", "topology file to use (anywhere on disk)")
	cmd.Flags().StringVar(&sel.Stack, "stack", "", "stack NAME from the stacks folder (default: the active stack)")
	_ = cmd.RegisterFlagCompletionFunc("stack", completeStacks(a, g, 0))
	_ = cmd.RegisterFlagCompletionFunc("file", completeYAML)
}

// stackArg makes a command's optional NAME argument its stack: NAME is
// --stack NAME. Errors: NAME beside -f FILE, or beside --stack with
// another name.
func stackArg(sel *action.Selection, args []string) error {
	if len(args) == 0 {
		return nil
	}
	name := args[0]
	switch {
	case sel.File != "":
		return fmt.Errorf("stack %s and -f %s name two stacks: give one of them", name, sel.File)
	case sel.Stack != "" && sel.Stack != name:
		return fmt.Errorf("stack %s and --stack %s name two stacks: give one of them", name, sel.Stack)
	}
	sel.Stack = name
	return nil
}

// completeYAML completes -f with the topology files: *.yaml and *.yml.
func completeYAML(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeStacks completes stack names from the stacks folder (--stacks,
// $NESTOR_STACKS, ./stacks), leaving out the names already on the line;
// max > 0 is how many names the command takes (none is offered once they
// are all given), 0 for any number.
func completeStacks(a *App, g *globals, max int) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		entries, err := stacks.Store{Dir: stacks.Dir(g.stacks, a.Env)}.List()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			if !slices.Contains(args, e.Name) {
				names = append(names, e.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeContexts completes --context with the contexts of the kubeconfig
// the command would read (--kubeconfig, else KUBECONFIG, else the chosen
// stack's kubeconfig:), read as kubectl's completion reads them: the files
// only, nothing sent anywhere, nothing written.
func completeContexts(a *App, g *globals) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		var sel action.Selection
		sel.File, _ = cmd.Flags().GetString("file")
		sel.Stack, _ = cmd.Flags().GetString("stack")
		if sel.Stack == "" && sel.File == "" && len(args) == 1 && cmd.ValidArgsFunction != nil {
			sel.Stack = args[0]
		}
		return completionConfig(a, g).Contexts(sel), cobra.ShellCompDirectiveNoFileComp
	}
}

// completionConfig is the Config a completion function reads with: the
// global flags as parsed so far, never a prompt, nothing said on stderr
// (the shell would show it).
func completionConfig(a *App, g *globals) action.Config {
	c := a.complete(g).NoPrompt("completion never prompts")
	c.Log = nil
	return c
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

// oneStack is the argument rule of a command that works on one stack:
// none (the active stack, or --stack) or one NAME. More is refused with
// what to do instead, not cobra's bare count.
func oneStack(cmd *cobra.Command, args []string) error {
	if len(args) <= 1 {
		return nil
	}
	err := fmt.Sprintf("%s works on one stack; got %d names (%s): name one", cmd.CommandPath(), len(args), strings.Join(args, ", "))
	if cmd.Name() == "preview" {
		err += ", or run `nestor fleet " + strings.Join(args, " ") + "` to preview several"
	}
	return errors.New(err)
}
