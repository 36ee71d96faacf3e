package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

type previewOptions struct {
	stack    stackFlags
	output   outputFlag
	detailed bool
}

func newPreviewCmd(a *App, g *globals) *cobra.Command {
	o := &previewOptions{output: outputFlag{allowed: []string{"text", "json"}, value: "text"}}
	cmd := &cobra.Command{
		Use:   "preview",
		Short: "Show desired, actual and plan for a stack; never writes",
		Long: `preview reads the stack's actual state now and prints three sections:
DESIRED (from the topology), ACTUAL (read now, not stored) and PLAN (the ordered
steps that would close the gap). It never writes: not the cluster, not the
topology, not a kubeconfig, not a cache.

For a prod stack the target is confirmed first (interactive), or its endpoint
checked against the topology's endpoint: (--no-input, no terminal, -o json).
A part that could not be read is shown as unknown with the reason, never as absent.

Exit codes: 0 report printed (unknowns included), 1 no report (invalid topology,
bad flag, target refused or unreachable). With --detailed-exitcode: 0 in sync,
2 the plan has changes, 1 an error or any part of ACTUAL unknown.`,
		Example: `  nestor preview                         # the active stack
  nestor preview --stack dirqual -o json  # versioned JSON document
  nestor preview -f stacks/examples/dirqual.yaml --no-input --detailed-exitcode`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runPreview(cmd.Context(), g, o)
		},
	}
	addStackFlags(a, cmd, &o.stack)
	o.output.register(cmd)
	cmd.Flags().BoolVar(&o.detailed, "detailed-exitcode", false, "exit 0 in sync, 2 changes, 1 error or unknown")
	return cmd
}

// observation is a stack's read: the target (prod), the observed state and
// the facts layer detection used.
type observation struct {
	target *probes.Target
	check  endpointCheck
	obs    *topology.Observed
	// facts are the raw reads behind obs (prod only; discover reports them).
	facts topology.ClusterFacts
}

// observe reads the actual state of t with the prober its target_kind names
// and nothing else: limactl and the bench kubeconfig for lima; the resolved
// kubeconfig, after the guard, for prod. It returns an error only when no
// report can be made (target refused, unreachable, broken kubeconfig).
func (a *App) observe(ctx context.Context, g *globals, t *topology.Topology) (*observation, error) {
	switch t.TargetKind {
	case topology.TargetLima:
		if g.kubeconfig != "" {
			return nil, fmt.Errorf("--kubeconfig is for prod stacks: stack %s is lima, read only through its bench kubeconfig %s", t.Name, t.BenchKubeconfig(a.home()))
		}
		rctx, cancel := context.WithTimeout(ctx, g.timeout)
		defer cancel()
		obs := probes.ProbeLimaWith(rctx, a.Run, t, a.home(), probes.LoadOptions{
			UserAgent: UserAgent(), Context: g.context, Interactive: a.interactive(g),
			Kube: probes.KubeOptions{Timeout: g.timeout},
		})
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return &observation{obs: obs}, nil
	case topology.TargetProd:
		pt, err := a.resolveProd(g, t)
		if err != nil {
			return nil, err
		}
		if pt.target == nil {
			return &observation{obs: noTargetObserved(pt.noTarget)}, nil
		}
		if !a.interactive(g) {
			// No prompt: the guard is the endpoint check alone, which needs
			// no network, so version, nodes and the rest are then read at
			// once (issue 6).
			if err := checkTargetOffline(t, pt.target); err != nil {
				return nil, err
			}
			rctx, cancel := context.WithTimeout(ctx, g.timeout)
			defer cancel()
			obs, facts := probes.ProbeTarget(rctx, pt.target, t)
			if ctx.Err() != nil {
				return nil, errInterrupted
			}
			if !obs.ServerVersion.Known && !obs.Nodes.Known {
				return nil, &unreachableError{endpoint: pt.target.Endpoint, context: pt.target.Context,
					kubeconfig: strings.Join(pt.target.Kubeconfig.Paths, ":"), reason: obs.ServerVersion.Reason}
			}
			return &observation{target: pt.target, check: checkEndpoint(t, pt.target), obs: obs, facts: facts}, nil
		}
		gd, err := a.guard(ctx, g, t, pt.target, "")
		if err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, g.timeout)
		defer cancel()
		obs, facts := probes.ProbeCluster(rctx, pt.target, t, gd.version, gd.nodes)
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return &observation{target: pt.target, check: gd.check, obs: obs, facts: facts}, nil
	}
	return nil, fmt.Errorf("%s: unknown target_kind %q", t.Path, t.TargetKind)
}

// noTargetObserved is the observation of a prod stack with nothing to read:
// every part unknown for that one reason, no layer state.
func noTargetObserved(reason string) *topology.Observed {
	const r = "no target"
	return &topology.Observed{
		NoTarget: true, NoTargetReason: reason,
		ServerVersion: topology.UnknownFact[string](r),
		Nodes:         topology.UnknownFact[[]topology.NodeState](r),
		Layers:        []topology.LayerState{},
		Storage:       topology.UnknownFact[topology.StorageState](r),
	}
}

func (a *App) runPreview(ctx context.Context, g *globals, o *previewOptions) error {
	if o.output.value == "json" {
		g.noInput = true // JSON output implies no prompt (issue 4)
	}
	t, err := a.loadStack(g, &o.stack)
	if err != nil {
		return err
	}
	ob, err := a.observe(ctx, g, t)
	if err != nil {
		return err
	}
	r := newReport(t, ob, a.home())
	switch o.output.value {
	case "json":
		enc := json.NewEncoder(a.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	default:
		renderPreview(a.Out, r, newPalette(a.color()), a.suggest)
	}
	if !o.detailed {
		return nil
	}
	switch {
	case r.Summary.Unknown > 0 || r.Plan.Unverified:
		return errSilent{code: ExitError}
	case r.Summary.Changes > 0:
		return errSilent{code: ExitChanges}
	}
	return nil
}

// ReportFormatVersion is the version of preview's JSON document; it is
// bumped when a field changes meaning or is removed.
const ReportFormatVersion = 1

// Report is preview's model: the JSON document and the source of the human
// view, so the two never disagree. README.md documents its fields.
type Report struct {
	FormatVersion int                `json:"format_version"`
	Stack         StackInfo          `json:"stack"`
	Target        *TargetInfo        `json:"target"`
	Desired       Desired            `json:"desired"`
	Actual        *topology.Observed `json:"actual"`
	Plan          topology.Plan      `json:"plan"`
	Summary       Summary            `json:"summary"`
}

// StackInfo names the stack and its file.
type StackInfo struct {
	Name       string              `json:"name"`
	File       string              `json:"file"`
	TargetKind topology.TargetKind `json:"target_kind"`
}

// TargetInfo is where ACTUAL was read: endpoint, context, kubeconfig files
// and the rule that chose them. For a lima stack it is the bench kubeconfig.
type TargetInfo struct {
	Endpoint         string   `json:"endpoint,omitempty"`
	Context          string   `json:"context,omitempty"`
	Kubeconfig       []string `json:"kubeconfig"`
	Source           string   `json:"source"`
	SourceDetail     string   `json:"source_detail,omitempty"`
	DeclaredEndpoint string   `json:"declared_endpoint,omitempty"`
	EndpointMatches  *bool    `json:"endpoint_matches,omitempty"`
}

// Desired is the topology's declaration.
type Desired struct {
	TargetKind   topology.TargetKind `json:"target_kind"`
	Kubernetes   string              `json:"kubernetes_version,omitempty"`
	Nodes        []topology.Node     `json:"nodes"`
	Phases       []string            `json:"phases"`
	Layers       []string            `json:"layers"`
	Backend      string              `json:"backend,omitempty"`
	BackendLayer string              `json:"backend_layer,omitempty"`
}

// Summary counts the plan: Changes are steps that would change the cluster;
// Undeclared are information; Unknown counts the parts of ACTUAL not read.
type Summary struct {
	Changes    int            `json:"changes"`
	ByKind     map[string]int `json:"by_kind"`
	Undeclared int            `json:"undeclared"`
	Unknown    int            `json:"unknown"`
	InSync     bool           `json:"in_sync"`
}

func newReport(t *topology.Topology, ob *observation, home string) *Report {
	if ob.obs.Layers == nil {
		ob.obs.Layers = []topology.LayerState{}
	}
	r := &Report{
		FormatVersion: ReportFormatVersion,
		Stack:         StackInfo{Name: t.Name, File: t.Path, TargetKind: t.TargetKind},
		Actual:        ob.obs,
	}
	if ob.target != nil {
		ti := &TargetInfo{
			Endpoint: ob.target.Endpoint, Context: ob.target.Context,
			Kubeconfig: ob.target.Kubeconfig.Paths, Source: string(ob.target.Kubeconfig.Source),
			SourceDetail: ob.target.Kubeconfig.Detail, DeclaredEndpoint: t.Endpoint,
		}
		if t.Endpoint != "" && ob.check.err == nil {
			m := ob.check.matches
			ti.EndpointMatches = &m
		}
		r.Target = ti
	} else if t.TargetKind == topology.TargetLima {
		r.Target = &TargetInfo{Kubeconfig: []string{t.BenchKubeconfig(home)}, Source: "bench"}
	}
	r.Desired = Desired{TargetKind: t.TargetKind, Kubernetes: t.Kubernetes.Version, Nodes: t.Nodes, Backend: t.Backend}
	if r.Desired.Nodes == nil {
		r.Desired.Nodes = []topology.Node{}
	}
	if bl, ok := topology.BackendLayer(t.Backend); ok {
		r.Desired.BackendLayer = bl
	}
	for _, p := range topology.Phases(t) {
		r.Desired.Phases = append(r.Desired.Phases, p.Name)
	}
	r.Desired.Layers = []string{}
	for _, l := range t.Layers {
		r.Desired.Layers = append(r.Desired.Layers, l.Name)
	}
	r.Plan = topology.BuildPlan(t, ob.obs, topology.PlanOptions{AsOf: time.Now()})
	if r.Plan.Steps == nil {
		r.Plan.Steps = []topology.Step{}
	}
	if r.Plan.Unknowns == nil {
		r.Plan.Unknowns = []string{}
	}
	s := Summary{ByKind: map[string]int{}, Changes: r.Plan.Changes()}
	for _, st := range r.Plan.Steps {
		if st.IsChange() {
			s.ByKind[string(st.Kind)]++
		} else {
			s.Undeclared++
		}
	}
	s.Unknown = len(r.Plan.Unknowns)
	s.InSync = s.Changes == 0 && s.Unknown == 0 && !r.Plan.Unverified
	r.Summary = s
	return r
}

// outputFlag is -o/--output, rejected at parse time when not allowed.
type outputFlag struct {
	allowed []string
	value   string
	// typ names the value in --help ("format" when empty).
	typ string
}

func (f *outputFlag) String() string { return f.value }
func (f *outputFlag) Type() string {
	if f.typ == "" {
		return "format"
	}
	return f.typ
}

func (f *outputFlag) Set(v string) error {
	for _, a := range f.allowed {
		if v == a {
			f.value = v
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q (one of: %s)", f.Type(), v, strings.Join(f.allowed, ", "))
}

func (f *outputFlag) register(cmd *cobra.Command) {
	cmd.Flags().VarP(f, "output", "o", "output format: "+strings.Join(f.allowed, "|"))
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return f.allowed, cobra.ShellCompDirectiveNoFileComp
	})
}
