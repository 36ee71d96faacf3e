package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// stackFlags choose which stack a command works on: -f FILE, --stack NAME,
// else the active stack of the stacks folder.
type stackFlags struct {
	file  string
	stack string
}

func addStackFlags(a *App, cmd *cobra.Command, sf *stackFlags) {
	cmd.Flags().StringVarP(&sf.file, "file", "f", "", "topology file to use (anywhere on disk)")
	cmd.Flags().StringVar(&sf.stack, "stack", "", "stack NAME from the stacks folder (default: the active stack)")
	_ = cmd.RegisterFlagCompletionFunc("stack", completeStacks(a))
}

// store returns the stacks folder chosen by --stacks / NESTOR_STACKS / ./stacks.
func (a *App) store(g *globals) stacks.Store {
	return stacks.Store{Dir: stacks.Dir(g.stacks, a.Env)}
}

// loadStack loads the topology chosen by sf (see stackFlags).
func (a *App) loadStack(g *globals, sf *stackFlags) (*topology.Topology, error) {
	if sf.file != "" && sf.stack != "" {
		return nil, fmt.Errorf("use either -f FILE or --stack NAME, not both")
	}
	if sf.file != "" {
		a.sel = "-f " + shellQuote("sh", sf.file)
		return topology.Load(sf.file)
	}
	if sf.stack != "" {
		a.sel = "--stack " + sf.stack
	}
	if g.stacks != "" {
		a.sel = strings.TrimSpace(a.sel + " --stacks " + shellQuote("sh", g.stacks))
	}
	st := a.store(g)
	name := sf.stack
	if name == "" {
		n, err := st.Active()
		if err != nil {
			if errors.Is(err, stacks.ErrNoActive) {
				return nil, fmt.Errorf("%w (or pass --stack NAME or -f FILE)", err)
			}
			return nil, err
		}
		name = n
	}
	return st.Load(name)
}

// prodTarget is what the kubeconfig rules resolved for a prod stack.
type prodTarget struct {
	kc probes.Kubeconfig
	// target is nil when there is nothing to read; noTarget then says why
	// and how to declare or fetch it.
	target   *probes.Target
	noTarget string
}

// resolveProd applies DESIGN.md's kubeconfig priority for a prod stack and
// loads the target. No kubeconfig from any rule, or a `kubeconfig:` of the
// topology whose file does not exist yet, is not an error: it is reported
// as "no target". A file named by --kubeconfig or KUBECONFIG that is
// missing, an empty current-context or a broken context are errors.
func (a *App) resolveProd(g *globals, t *topology.Topology) (prodTarget, error) {
	kc, err := probes.ResolveKubeconfig(probes.ResolveOptions{
		Flag: g.kubeconfig, Env: a.Env, Home: a.home(), Topology: t,
	})
	if err != nil {
		return prodTarget{}, err
	}
	for _, w := range kc.Warnings {
		fmt.Fprintf(a.ErrOut, "Warning: %s\n", w)
	}
	if err := a.refuseBenchKubeconfig(g, t, kc); err != nil {
		return prodTarget{}, err
	}
	pt := prodTarget{kc: kc}
	if kc.Source == probes.SourceNone {
		pt.noTarget = fmt.Sprintf("no kubeconfig: not --kubeconfig, not KUBECONFIG, and %s declares no kubeconfig: — "+
			"add `kubeconfig: ~/.kube/%s.config` (`nestor stack select %s` offers it), then fetch it with `%s`",
			t.Path, t.Name, t.Name, a.suggest("discover --cp "+firstControlPlane(t)))
		return pt, nil
	}
	if kc.Source == probes.SourceTopology && len(kc.Paths) == 1 {
		if _, err := os.Stat(kc.Paths[0]); errors.Is(err, fs.ErrNotExist) {
			pt.noTarget = fmt.Sprintf("the kubeconfig %s (kubeconfig: in %s) does not exist yet — fetch it from the control plane with `%s`",
				kc.Paths[0], t.Path, a.suggest("discover --cp "+firstControlPlane(t)))
			return pt, nil
		}
	}
	target, err := probes.LoadTargetWith(kc, probes.LoadOptions{
		Context: g.context, UserAgent: UserAgent(), Interactive: a.interactive(g),
		Kube: probes.KubeOptions{Timeout: g.timeout},
	})
	if err != nil {
		return prodTarget{}, err
	}
	pt.target = target
	return pt, nil
}

// refuseBenchKubeconfig enforces DESIGN.md's "the bench kubeconfig is never
// used for prod": a prod stack whose resolved kubeconfig (typically a
// KUBECONFIG left exported by `eval "$(nestor env)"`) is the bench
// kubeconfig of a lima stack of the stacks folder is refused, naming both.
func (a *App) refuseBenchKubeconfig(g *globals, t *topology.Topology, kc probes.Kubeconfig) error {
	if kc.Source == probes.SourceNone {
		return nil
	}
	entries, err := a.store(g).List()
	if err != nil {
		return nil // no stacks folder: no bench to mistake for this stack
	}
	for _, e := range entries {
		if e.Topology == nil || e.Topology.TargetKind != topology.TargetLima {
			continue
		}
		bench := canonicalPath(e.Topology.BenchKubeconfig(a.home()))
		for _, p := range kc.Paths {
			if canonicalPath(p) == bench {
				return fmt.Errorf("refusing: the kubeconfig %s (from %s) is the bench kubeconfig of lima stack %s; a prod stack is never read through the bench.\n"+
					"Unset KUBECONFIG (it was probably exported by `nestor env`), or pass --kubeconfig with the prod cluster's kubeconfig",
					p, sourceText(kc), e.Name)
			}
		}
	}
	return nil
}

// canonicalPath returns p absolute, cleaned and with symlinks resolved
// where it exists.
func canonicalPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// firstControlPlane names the first declared control-plane node, for the
// commands nestor suggests ("NODE" when none is declared).
func firstControlPlane(t *topology.Topology) string {
	if cps := t.ControlPlanes(); len(cps) > 0 {
		return cps[0].Name
	}
	return "NODE"
}

// endpointCheck compares the target's endpoint with the topology's
// endpoint: ("" when not declared). It needs no network.
type endpointCheck struct {
	declared string
	matches  bool
	err      error
}

func checkEndpoint(t *topology.Topology, target *probes.Target) endpointCheck {
	c := endpointCheck{declared: t.Endpoint}
	if t.Endpoint == "" {
		return c
	}
	c.matches, c.err = probes.SameEndpoint(target.Endpoint, t.Endpoint)
	return c
}

// guarded is what the guard read of the target while confirming it.
type guarded struct {
	version topology.Fact[string]
	nodes   topology.Fact[[]topology.NodeState]
	check   endpointCheck
}

// guard confirms that target is the prod stack t before anything else is
// read (issue 4, DESIGN.md "The target and its confirmation").
//
// Non-interactive: the endpoint must equal t.Endpoint after normalisation —
// checked before any request is sent — else an error naming both; a stack
// without endpoint: is refused with the line to add. Interactive: the target
// (endpoint, context, kubeconfig and its rule, the nodes seen) is shown on
// ErrOut and the operator is asked "Is this the stack NAME?" (default No).
// Either way only the server version and the nodes are read. An endpoint
// that does not answer is an error naming it. No returns an errSilent(1) after
// saying so; Ctrl-C returns errInterrupted. wrote names the file the command
// already wrote before the guard ran (discover --cp), "" for none, so the
// closing line says the truth about it.
func (a *App) guard(ctx context.Context, g *globals, t *topology.Topology, target *probes.Target, wrote string) (guarded, error) {
	gd := guarded{check: checkEndpoint(t, target)}
	interactive := a.interactive(g)
	if !interactive {
		if err := checkTargetOffline(t, target); err != nil {
			return gd, err
		}
	}
	rctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	gd.version, gd.nodes = probes.ReadNodes(rctx, target)
	if ctx.Err() != nil {
		return gd, errInterrupted // Ctrl-C or SIGTERM during the read
	}
	if !gd.version.Known && !gd.nodes.Known {
		return gd, &unreachableError{endpoint: target.Endpoint, context: target.Context,
			kubeconfig: strings.Join(target.Kubeconfig.Paths, ":"), reason: gd.version.Reason}
	}
	if !interactive {
		return gd, nil
	}
	a.printTarget(a.ErrOut, t, target, gd)
	ok, err := a.Prompter.Confirm(fmt.Sprintf("Is this the stack %s?", t.Name), false)
	if err != nil {
		return gd, err
	}
	if !ok {
		if wrote == "" {
			fmt.Fprintf(a.ErrOut, "Not confirmed: stopped before reading anything more of %s; nothing was written.\n", target.Endpoint)
		} else {
			fmt.Fprintf(a.ErrOut, "Not confirmed: stopped before reading anything more of %s; %s stays written, nothing else was.\n", target.Endpoint, wrote)
		}
		return gd, errSilent{code: ExitError}
	}
	return gd, nil
}

// unreachableError is the guard's error when the target answered neither
// the version nor the node list: nothing can be confirmed there.
type unreachableError struct{ endpoint, context, kubeconfig, reason string }

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot read the target %s (context %s, kubeconfig %s): %s",
		e.endpoint, e.context, e.kubeconfig, e.reason)
}

// checkTargetOffline is the non-interactive guard (issue 4): the target's
// endpoint must be the topology's endpoint: after normalisation. It needs no
// network (probes.CheckEndpoint), so a refused target is sent nothing. It
// returns nil, or an error that names both endpoints, or the line to add
// when the topology declares none.
func checkTargetOffline(t *topology.Topology, target *probes.Target) error {
	var missing *probes.MissingEndpointError
	var mismatch *probes.EndpointMismatchError
	switch err := probes.CheckEndpoint(t, target); {
	case errors.As(err, &missing):
		return fmt.Errorf("prod stack %s declares no endpoint:, so a run without a prompt (--no-input, NESTOR_NO_INPUT, -o json, or stdin not a terminal) cannot check its target; "+
			"if %s is this stack's API server, add this line to %s:\n  %s",
			t.Name, target.Endpoint, t.Path, missing.Line)
	case errors.As(err, &mismatch):
		return fmt.Errorf("refusing: the target is not stack %s\n  target endpoint:   %s (context %s, kubeconfig %s, from %s)\n  declared endpoint: %s (%s)\nNothing was sent to the target. Point the kubeconfig at the stack's API server, or fix endpoint: in the topology",
			t.Name, mismatch.Actual, mismatch.Context, strings.Join(mismatch.Kubeconfig.Paths, ":"), sourceText(mismatch.Kubeconfig), mismatch.Declared, mismatch.File)
	case err != nil:
		return fmt.Errorf("%s: endpoint: %w", t.Path, err)
	}
	return nil
}

// sourceText says in words which rule chose the kubeconfig.
func sourceText(kc probes.Kubeconfig) string {
	if kc.Detail != "" {
		return kc.Detail
	}
	return string(kc.Source)
}

// printTarget shows the target the guard is about to confirm.
func (a *App) printTarget(w io.Writer, t *topology.Topology, target *probes.Target, gd guarded) {
	fmt.Fprintf(w, "Target of stack %s (prod):\n", t.Name)
	fmt.Fprintf(w, "  endpoint    %s\n", target.Endpoint)
	switch {
	case gd.check.declared == "":
		fmt.Fprintf(w, "  WARNING     %s declares no endpoint: — nestor cannot check this is the right cluster\n", t.Path)
	case gd.check.err != nil:
		fmt.Fprintf(w, "  WARNING     endpoint: %v\n", gd.check.err)
	case !gd.check.matches:
		fmt.Fprintf(w, "  WARNING     endpoint MISMATCH: %s declares %s\n", t.Path, gd.check.declared)
	default:
		fmt.Fprintf(w, "  matches     endpoint: %s declared in %s\n", gd.check.declared, t.Path)
	}
	fmt.Fprintf(w, "  context     %s\n", target.Context)
	fmt.Fprintf(w, "  kubeconfig  %s (from %s)\n", strings.Join(target.Kubeconfig.Paths, ":"), sourceText(target.Kubeconfig))
	if gd.version.Known {
		fmt.Fprintf(w, "  server      %s\n", gd.version.Value)
	} else {
		fmt.Fprintf(w, "  server      unknown (%s)\n", gd.version.Reason)
	}
	if gd.nodes.Known {
		ready := 0
		names := make([]string, 0, len(gd.nodes.Value))
		for _, n := range gd.nodes.Value {
			if n.Ready {
				ready++
			}
			names = append(names, n.Name)
		}
		fmt.Fprintf(w, "  nodes       %d seen, %d Ready: %s\n", len(names), ready, abbreviate(names, 12))
	} else {
		fmt.Fprintf(w, "  nodes       unknown (%s)\n", gd.nodes.Reason)
	}
}

// abbreviate joins names, keeping the first max and counting the rest.
func abbreviate(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(names[:max], ", "), len(names)-max)
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
