package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

type envOptions struct {
	stack stackFlags
	shell outputFlag
}

func newEnvCmd(a *App, g *globals) *cobra.Command {
	o := &envOptions{shell: outputFlag{allowed: []string{"bash", "zsh", "fish"}, value: "bash", typ: "shell"}}
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print shell exports for the stack (lima: the bench kubeconfig; prod: nothing)",
		Long: `env prints shell exports on stdout for the active (or --stack) stack:

  lima  export KUBECONFIG=<the bench kubeconfig>
  prod  nothing on stdout, so eval "$(nestor env)" is harmless; stderr says
        which kubeconfig nestor reads for the stack and how to fetch it.

It never exports the bench kubeconfig for a prod stack, whatever the environment holds.`,
		Example: `  eval "$(nestor env)"
  nestor env --stack bench --shell fish | source`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEnv(g, o)
		},
	}
	addStackFlags(a, cmd, &o.stack)
	cmd.Flags().Var(&o.shell, "shell", "shell syntax: bash|zsh|fish")
	_ = cmd.RegisterFlagCompletionFunc("shell", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return o.shell.allowed, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// shellQuote quotes s for a POSIX shell or fish as a single-quoted word.
func shellQuote(shell, s string) string {
	if shell == "fish" {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (a *App) runEnv(g *globals, o *envOptions) error {
	t, err := a.loadStack(g, &o.stack)
	if err != nil {
		return err
	}
	switch t.TargetKind {
	case topology.TargetLima:
		kc := t.BenchKubeconfig(a.home())
		if _, err := os.Stat(kc); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("there is no bench kubeconfig at %s for stack %s (the bench cluster has not been bootstrapped, or lima.kubeconfig: names another file; see `%s`); nothing exported", kc, t.Name, a.suggest("next"))
		}
		if o.shell.value == "fish" {
			fmt.Fprintf(a.Out, "set -gx KUBECONFIG %s;\n", shellQuote("fish", kc))
		} else {
			fmt.Fprintf(a.Out, "export KUBECONFIG=%s\n", shellQuote("sh", kc))
		}
		fmt.Fprintf(a.ErrOut, "# stack %s (lima): KUBECONFIG is the bench kubeconfig\n", t.Name)
		return nil
	case topology.TargetProd:
		kc, err := probes.ResolveKubeconfig(probes.ResolveOptions{Flag: g.kubeconfig, Env: a.Env, Home: a.home(), Topology: t})
		if err != nil {
			return err
		}
		fmt.Fprintf(a.ErrOut, "# stack %s is prod: nestor env exports nothing for it (KUBECONFIG is left as it is).\n", t.Name)
		if kc.Source == probes.SourceNone {
			fmt.Fprintf(a.ErrOut, "# nestor has no kubeconfig for it: add `kubeconfig: ~/.kube/%s.config` to %s, then `%s`.\n", t.Name, t.Path, a.suggest("discover --cp "+firstControlPlane(t)))
			return nil
		}
		fmt.Fprintf(a.ErrOut, "# nestor reads %s (from %s).\n", strings.Join(kc.Paths, ":"), sourceText(kc))
		if kc.Source == probes.SourceTopology && len(kc.Paths) == 1 {
			if _, err := os.Stat(kc.Paths[0]); errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(a.ErrOut, "# it does not exist yet: fetch it with `%s`.\n", a.suggest("discover --cp "+firstControlPlane(t)))
			}
		}
		if kc.Source == probes.SourceEnv {
			fmt.Fprintf(a.ErrOut, "# note: the exported KUBECONFIG beats the topology's kubeconfig:; unset it if it is not this stack's.\n")
		}
		return nil
	}
	return fmt.Errorf("%s: unknown target_kind %q", t.Path, t.TargetKind)
}
