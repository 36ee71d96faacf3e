package probes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"nestor.dev/nestor/topology"
)

// This file is the one target pipeline: every command opens the target of
// a stack through Open, and reads it through Opened.Read. The stages, in
// order, for every target kind:
//
//  1. resolve: what the kind reads through (the kubeconfig rules of
//     ResolveKubeconfig, the bench kubeconfig of a lima stack), or "no
//     target" with the reason (NoTarget);
//  2. refusals: a stack other than lima is never read through the bench
//     kubeconfig of a lima stack; --kubeconfig never applies to a lima stack;
//  3. load: LoadTargetWith (explicit files, read-only pinned transport),
//     when a kubeconfig was resolved; it sends nothing;
//  4. guard: a kind whose kubeconfig's server is its identity (guarded)
//     is confirmed interactively (the server version and the nodes are read
//     and shown) or has its endpoint checked offline (CheckEndpoint) before
//     any request; any other kind runs its own guard (kapsule: the
//     provider's API proves the cluster and its cluster_url);
//  5. read: the kind's prober fills a topology.Observed.
//
// Adding a target kind is one value implementing targetKind, registered in
// kindOf, plus its phases in package topology (topology.Phases). A kind
// implements exactly:
//
//   - noTarget(t, kc): given the kubeconfig ResolveKubeconfig chose for the
//     stack (its rules know each kind: the bench for lima), a *NoTarget
//     saying why there is nothing to read, or nil (no target is not an
//     error: preview reports it honestly);
//   - guarded(): whether the kubeconfig's server is the target's identity,
//     confirmed (interactive) or checked against the topology's endpoint:
//     (non-interactive) before anything is read, and a kubeconfig that does
//     not load is Open's error — true for prod; false for nestor's own
//     bench (nothing to confirm) and for kinds whose identity is elsewhere
//     (kapsule), whose load error is kept in Opened.LoadErr;
//   - guard(ctx, op): for a kind that is not guarded(), its own guard, run
//     after the load and before Read: nil to go on, or the refusal (the
//     bench: always nil); it may keep what it read in op for read;
//   - read(ctx, op, scope): the observation of the stack, every part that
//     could not be read unknown with its reason, never absent.

// Bench names the bench kubeconfig of one lima stack of the stacks folder;
// Open refuses to read a prod stack through any of them.
type Bench struct {
	// Stack is the lima stack's name, Kubeconfig its bench kubeconfig path
	// (Topology.BenchKubeconfig).
	Stack, Kubeconfig string
}

// TargetView is what the interactive guard shows the operator before asking
// "Is this the stack NAME?": the stack, its target and what was read of it.
type TargetView struct {
	Topology *topology.Topology
	Target   *Target
	Check    EndpointCheck
	Version  topology.Fact[string]
	Nodes    topology.Fact[[]topology.NodeState]
	// Kapsule is the provider's view of a kapsule stack's cluster (nil for
	// other kinds; Target is then the kubeconfig's, or nil).
	Kapsule *KapsuleView
}

// OpenOptions are the inputs of Open, completed once by the caller before
// any command runs.
type OpenOptions struct {
	// KubeconfigFlag is --kubeconfig ("" when not given).
	KubeconfigFlag string
	// Kubeconfig, when not nil, replaces the resolution rules: the caller
	// names the file to read (discover --cp reads back the file it wrote).
	Kubeconfig *Kubeconfig
	// Context is --context ("" for the kubeconfig's current-context).
	Context string
	// Env looks up KUBECONFIG; Home expands ~.
	Env  Env
	Home string
	// UserAgent is nestor's, "nestor/<version>".
	UserAgent string
	// Timeout bounds each read: the guard's read, then the full read
	// (0: DefaultTimeout).
	Timeout time.Duration
	// Progress is told what is being read (KubeOptions.Progress).
	Progress func(resource string, items int)
	// Interactive says the operator may be asked (a terminal, no
	// --no-input): the guard then confirms through Confirm; otherwise it
	// checks the endpoint strictly, offline.
	Interactive bool
	// Confirm shows the target and asks whether it is the stack; it is
	// called only when Interactive. false ends Open with ErrNotConfirmed.
	Confirm func(TargetView) (bool, error)
	// Benches are the lima stacks' bench kubeconfigs (see Bench).
	Benches []Bench
	// Run runs external programs (limactl for lima stacks).
	Run Runner
	// Fix, when set, says what the operator runs to give a stack with no
	// target one (the command lines depend on how the stack was chosen);
	// its answer is kept in NoTarget.Fix.
	Fix func(*NoTarget) string
}

// NoTargetKind says why a stack has nothing to read.
type NoTargetKind string

// The reasons a stack has no target.
const (
	// NoKubeconfig: no rule gave a kubeconfig (prod: no --kubeconfig, no
	// KUBECONFIG, no kubeconfig: in the topology).
	NoKubeconfig NoTargetKind = "no-kubeconfig"
	// KubeconfigMissing: the topology's kubeconfig: names a file that does
	// not exist yet (it is fetched with discover --cp).
	KubeconfigMissing NoTargetKind = "kubeconfig-missing"
	// NoBenchKubeconfig: a lima stack's bench kubeconfig does not exist (the
	// bench cluster has not been bootstrapped).
	NoBenchKubeconfig NoTargetKind = "no-bench-kubeconfig"
)

// NoTarget says why a stack has nothing to read, and where nestor looked.
type NoTarget struct {
	Kind NoTargetKind
	// Stack and File name the topology.
	Stack, File string
	// Path is the kubeconfig that is missing (KubeconfigMissing,
	// NoBenchKubeconfig).
	Path string
	// Fix is what the operator runs to get a target ("" when unknown).
	Fix string
}

// Error says what is missing, in words, then Fix when there is one.
func (n *NoTarget) Error() string {
	if n.Fix != "" {
		return n.what() + " — " + n.Fix
	}
	return n.what()
}

func (n *NoTarget) what() string {
	switch n.Kind {
	case NoKubeconfig:
		return fmt.Sprintf("no kubeconfig: not --kubeconfig, not KUBECONFIG, and %s declares no kubeconfig:", n.File)
	case KubeconfigMissing:
		return fmt.Sprintf("the kubeconfig %s (kubeconfig: in %s) does not exist yet", n.Path, n.File)
	case NoBenchKubeconfig:
		return fmt.Sprintf("no bench kubeconfig at %s (the bench cluster has not been bootstrapped, or lima.kubeconfig: names another file)", n.Path)
	}
	return "no target"
}

// ErrNotConfirmed is Open's error when the operator answered No to "Is this
// the stack NAME?": nothing more was read.
var ErrNotConfirmed = errors.New("target not confirmed")

// UnreachableError: the target answered neither its version nor its node
// list, so nothing can be confirmed or reported there.
type UnreachableError struct {
	Endpoint, Context, Kubeconfig, Reason string
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot read the target %s (context %s, kubeconfig %s): %s",
		e.Endpoint, e.Context, e.Kubeconfig, e.Reason)
}

// BenchKubeconfigError: a prod stack's resolved kubeconfig is the bench
// kubeconfig of a lima stack (typically a KUBECONFIG left exported by
// `eval "$(nestor env)"`); DESIGN.md: the bench is never used for prod.
type BenchKubeconfigError struct {
	Path, Source, BenchStack string
}

func (e *BenchKubeconfigError) Error() string {
	return fmt.Sprintf("refusing: the kubeconfig %s (from %s) is the bench kubeconfig of lima stack %s; a prod stack is never read through the bench.\n"+
		"Unset KUBECONFIG (it was probably exported by `nestor env`), or pass --kubeconfig with the prod cluster's kubeconfig",
		e.Path, e.Source, e.BenchStack)
}

// EndpointCheck is the result of CheckEndpoint kept for the report: the
// declared endpoint ("" when none), whether the target matches it, and a
// normalisation error when either side is not a valid URL.
type EndpointCheck struct {
	Declared string
	Matches  bool
	Err      error
}

// CompareEndpoint runs CheckEndpoint and keeps its outcome as an
// EndpointCheck (Matches true only when both are valid and equal).
func CompareEndpoint(t *topology.Topology, target *Target) EndpointCheck {
	c := EndpointCheck{Declared: t.Endpoint}
	if t.Endpoint == "" {
		return c
	}
	var mismatch *EndpointMismatchError
	switch err := CheckEndpoint(t, target); {
	case err == nil:
		c.Matches = true
	case errors.As(err, &mismatch):
	default:
		c.Err = err
	}
	return c
}

// Opened is a stack's target after resolve → refusals → load → guard: what
// every command reads through. Target is nil when there is nothing to read
// (NoTarget says why).
type Opened struct {
	Topology   *topology.Topology
	Kubeconfig Kubeconfig
	Target     *Target
	NoTarget   *NoTarget
	// Check is the endpoint check of a guarded target.
	Check EndpointCheck
	// Guard is what the interactive guard read (version, nodes); nil when
	// the guard did not read (non-interactive, unguarded kind, no target).
	Guard *TargetView
	// LoadErr is why the kubeconfig of an unguarded kind (the bench) could
	// not be loaded: its cluster is then read as unknown with this reason.
	// A guarded kind's load error is Open's error instead.
	LoadErr error

	kind targetKind
	opts OpenOptions
	// kapsule is what the kapsule guard read, for its read.
	kapsule *kapsuleState
}

// Scope chooses what Read reads.
type Scope int

const (
	// ReadAll reads everything the kind observes (lima: the VMs too).
	ReadAll Scope = iota
	// ReadCluster reads the Kubernetes cluster only (discover: the
	// cluster, not the machines).
	ReadCluster
)

// targetKind is one target kind's part of the pipeline (see the top of
// this file for what each method must do).
type targetKind interface {
	noTarget(t *topology.Topology, kc Kubeconfig) *NoTarget
	guarded() bool
	guard(ctx context.Context, op *Opened) error
	read(ctx context.Context, op *Opened, scope Scope) (*topology.Observed, topology.ClusterFacts)
}

// kindOf returns the pipeline part of target kind k.
func kindOf(k topology.TargetKind) (targetKind, bool) {
	switch k {
	case topology.TargetLima:
		return limaKind{}, true
	case topology.TargetProd:
		return prodKind{}, true
	case topology.TargetKapsule:
		return kapsuleKind{}, true
	}
	return nil, false
}

// Open runs the pipeline's first four stages for stack t (see the top of
// this file) and returns the opened target. It returns an error when no
// report can be made: a kubeconfig rule that fails, a refusal (bench
// kubeconfig for prod or kapsule, --kubeconfig on lima, *MissingEndpointError and
// *EndpointMismatchError of the offline check; kapsule: a
// *ScalewayCredentialsError, a *KapsuleMismatchError), a kubeconfig that does not
// load (prod), an *UnreachableError from the interactive guard's read (kapsule:
// *KapsuleUnreadError),
// ErrNotConfirmed, or ctx's error (wrapped) when ctx ended during a read.
// With an error of the guard's read (*UnreachableError, ctx's) the Opened is
// returned too: what was resolved and loaded, for the caller to name it.
// No target at all is not an error: Opened.NoTarget says why.
func Open(ctx context.Context, t *topology.Topology, o OpenOptions) (*Opened, error) {
	k, ok := kindOf(t.TargetKind)
	if !ok {
		return nil, fmt.Errorf("%s: unknown target_kind %q", t.Path, t.TargetKind)
	}
	op := &Opened{Topology: t, kind: k, opts: o}
	kc, none, err := resolve(k, t, o)
	if err != nil {
		return nil, err
	}
	op.Kubeconfig = kc
	if none != nil {
		op.NoTarget = none
		return op, nil
	}
	if t.TargetKind != topology.TargetLima {
		if err := refuseBench(kc, o.Benches); err != nil {
			return nil, err
		}
	}
	var target *Target
	if !kc.None() {
		target, err = LoadTargetWith(kc, LoadOptions{
			Context: o.Context, UserAgent: o.UserAgent, Interactive: o.Interactive,
			Kube: KubeOptions{Timeout: o.Timeout, Progress: o.Progress},
		})
	}
	switch {
	case err != nil && !k.guarded():
		op.LoadErr = err
	case err != nil:
		return nil, err
	default:
		op.Target = target
	}
	if !k.guarded() {
		if err := k.guard(ctx, op); err != nil {
			return nil, err
		}
		return op, nil
	}
	op.Check = CompareEndpoint(t, target)
	if !o.Interactive {
		// The endpoint check needs no network: a refused target is sent
		// nothing, and an accepted one is read all at once by Read.
		if err := CheckEndpoint(t, target); err != nil {
			return nil, err
		}
		return op, nil
	}
	view, err := op.guardRead(ctx)
	if err != nil {
		return op, err
	}
	op.Guard = view
	if o.Confirm == nil {
		return nil, errors.New("the target must be confirmed, and no prompt is available")
	}
	yes, err := o.Confirm(*view)
	if err != nil {
		return nil, err
	}
	if !yes {
		return nil, ErrNotConfirmed
	}
	return op, nil
}

// Resolve is the pipeline's first stage alone, for commands that only say
// which kubeconfig a stack is read through (env): the Kubeconfig, or a
// *NoTarget (with o.Fix's answer) when there is nothing to read. Errors: as
// Open's first stage (an unknown target_kind, a kubeconfig rule that fails).
func Resolve(t *topology.Topology, o OpenOptions) (Kubeconfig, *NoTarget, error) {
	k, ok := kindOf(t.TargetKind)
	if !ok {
		return Kubeconfig{}, nil, fmt.Errorf("%s: unknown target_kind %q", t.Path, t.TargetKind)
	}
	return resolve(k, t, o)
}

func resolve(k targetKind, t *topology.Topology, o OpenOptions) (Kubeconfig, *NoTarget, error) {
	if o.Kubeconfig != nil {
		return *o.Kubeconfig, nil, nil
	}
	kc, err := ResolveKubeconfig(ResolveOptions{Flag: o.KubeconfigFlag, Env: o.Env, Home: o.Home, Topology: t})
	if err != nil {
		return kc, nil, err
	}
	none := k.noTarget(t, kc)
	if none != nil && o.Fix != nil {
		none.Fix = o.Fix(none)
	}
	return kc, none, nil
}

// guardRead reads the server version and the nodes for the interactive
// guard, bounded by the timeout; neither known is an *UnreachableError.
func (op *Opened) guardRead(ctx context.Context) (*TargetView, error) {
	version, nodes := ReadNodes(ctx, op.Target) // bounded by the target's timeout
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", op.Target.Endpoint, err)
	}
	if !version.Known && !nodes.Known {
		return nil, op.unreachable(version.Reason)
	}
	return &TargetView{Topology: op.Topology, Target: op.Target, Check: op.Check, Version: version, Nodes: nodes}, nil
}

// View returns what the guard read of the target (the server version and
// the nodes), reading them now, bounded by the timeout, when the guard did
// not (non-interactive: the offline check sends nothing). Errors: no
// target; *UnreachableError; ctx's error, wrapped.
func (op *Opened) View(ctx context.Context) (*TargetView, error) {
	if op.Guard != nil {
		return op.Guard, nil
	}
	if op.Target == nil {
		return nil, fmt.Errorf("stack %s has no target to read", op.Topology.Name)
	}
	return op.guardRead(ctx)
}

func (op *Opened) unreachable(reason string) *UnreachableError {
	return &UnreachableError{Endpoint: op.Target.Endpoint, Context: op.Target.Context,
		Kubeconfig: strings.Join(op.Target.Kubeconfig.Paths, ":"), Reason: reason}
}

func (op *Opened) timeout() time.Duration {
	if op.opts.Timeout > 0 {
		return op.opts.Timeout
	}
	return DefaultTimeout
}

// Read is the pipeline's last stage: the kind's prober reads the stack,
// each read bounded by the timeout (the kube reads by the Target's own
// bound, limactl by one of the same length). It returns the observation and the raw facts
// behind it (cluster kinds; discover reports them). Errors: ctx ended
// (wrapped ctx.Err()), or, for a guarded target, an *UnreachableError when
// neither the version nor the nodes could be read (no report can be made
// of a target that does not answer). A stack with no target is read as the
// kind says (lima: the VMs and "no bench cluster"; prod: every part unknown
// with the reason).
func (op *Opened) Read(ctx context.Context, scope Scope) (*topology.Observed, topology.ClusterFacts, error) {
	obs, facts := op.kind.read(ctx, op, scope)
	obs.DeriveVersions() // the versions part of ACTUAL, from what was read
	if err := ctx.Err(); err != nil {
		return nil, facts, fmt.Errorf("reading stack %s: %w", op.Topology.Name, err)
	}
	if op.Target != nil && op.kind.guarded() && !obs.ServerVersion.Known && !obs.Nodes.Known {
		return nil, facts, op.unreachable(obs.ServerVersion.Reason)
	}
	return obs, facts, nil
}

// refuseBench returns a *BenchKubeconfigError when one of kc's files is the
// bench kubeconfig of a lima stack (paths compared absolute, cleaned and
// with symlinks resolved).
func refuseBench(kc Kubeconfig, benches []Bench) error {
	for _, b := range benches {
		bench := canonicalPath(b.Kubeconfig)
		for _, p := range kc.Paths {
			if canonicalPath(p) == bench {
				src := kc.Detail
				if src == "" {
					src = string(kc.Source)
				}
				return &BenchKubeconfigError{Path: p, Source: src, BenchStack: b.Stack}
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

// fileExists reports whether p exists; an error other than "does not
// exist" is returned as is.
func fileExists(p string) (bool, error) {
	_, err := os.Stat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// prodKind is target_kind prod: an existing cluster read through the
// kubeconfig the rules resolve, always guarded.
type prodKind struct{}

func (prodKind) guarded() bool { return true }

// guard: prod is guarded by its endpoint (Open), nothing more.
func (prodKind) guard(context.Context, *Opened) error { return nil }

func (prodKind) noTarget(t *topology.Topology, kc Kubeconfig) *NoTarget {
	if kc.None() {
		return &NoTarget{Kind: NoKubeconfig, Stack: t.Name, File: t.Path}
	}
	if kc.Source == SourceTopology && len(kc.Paths) == 1 {
		if ok, err := fileExists(kc.Paths[0]); err == nil && !ok {
			return &NoTarget{Kind: KubeconfigMissing, Stack: t.Name, File: t.Path, Path: kc.Paths[0]}
		}
	}
	return nil
}

func (prodKind) read(ctx context.Context, op *Opened, _ Scope) (*topology.Observed, topology.ClusterFacts) {
	if op.Target == nil {
		return NoTargetObservation(op.NoTarget.Error()), topology.ClusterFacts{}
	}
	if op.Guard != nil {
		return ProbeCluster(ctx, op.Target, op.Topology, op.Guard.Version, op.Guard.Nodes)
	}
	return ProbeTarget(ctx, op.Target, op.Topology)
}

// NoTargetObservation is the observation of a stack with nothing to read:
// NoTarget with reason, every part unknown ("no target"), no layer state.
func NoTargetObservation(reason string) *topology.Observed {
	const r = "no target"
	return &topology.Observed{
		NoTarget: true, NoTargetReason: reason,
		ServerVersion: topology.UnknownFact[string](r),
		Nodes:         topology.UnknownFact[[]topology.NodeState](r),
		Layers:        []topology.LayerState{},
		Storage:       topology.UnknownFact[topology.StorageState](r),
	}
}

// limaKind is target_kind lima: nestor's own bench, its VMs read with
// limactl and its cluster through its own bench kubeconfig only; it needs
// no confirmation.
type limaKind struct{}

func (limaKind) guarded() bool { return false }

// guard: the bench is nestor's own, nothing to confirm.
func (limaKind) guard(context.Context, *Opened) error { return nil }

func (limaKind) noTarget(t *topology.Topology, kc Kubeconfig) *NoTarget {
	// A bench kubeconfig that cannot be stat'ed is left to the load, whose
	// error makes the cluster unknown (LoadErr) with the reason.
	if ok, err := fileExists(kc.Paths[0]); err == nil && !ok {
		return &NoTarget{Kind: NoBenchKubeconfig, Stack: t.Name, File: t.Path, Path: kc.Paths[0]}
	}
	return nil
}

func (limaKind) read(ctx context.Context, op *Opened, scope Scope) (*topology.Observed, topology.ClusterFacts) {
	var obs *topology.Observed
	var facts topology.ClusterFacts
	switch {
	case op.LoadErr != nil:
		obs = unknownObservation(op.Topology, op.LoadErr.Error())
	case op.Target == nil:
		obs = unknownObservation(op.Topology, op.NoTarget.Error())
		obs.NoBenchCluster = true
	default:
		obs, facts = ProbeTarget(ctx, op.Target, op.Topology)
	}
	if scope == ReadAll {
		run := op.opts.Run
		if run == nil {
			run = ExecRunner
		}
		vctx, cancel := context.WithTimeout(ctx, op.timeout())
		defer cancel()
		vms, notVMs := readVMs(vctx, run)
		obs.VMs, obs.NotVMs = &vms, notVMs
	}
	return obs, facts
}
