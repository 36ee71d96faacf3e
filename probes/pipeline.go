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
// order, for every target kind (Kind, kind.go):
//
//  1. resolve: what the kind reads through (Kind.Resolve: the kubeconfig
//     rules of ResolveKubeconfig, or the kind's own file — the bench of a
//     lima stack), or "no target" with the reason (Kind.NoTarget);
//  2. refusals: a stack is never read through the bench kubeconfig of a
//     lima stack unless that bench is its own (Source SourceBench);
//  3. load: LoadTargetWith (explicit files, read-only pinned transport),
//     when a kubeconfig was resolved; it sends nothing;
//  4. guard: a kind whose kubeconfig's server is its identity
//     (Kind.Guarded) is confirmed interactively (the server version and the
//     nodes are read and shown) or has its endpoint checked offline
//     (CheckEndpoint) before any request; any other kind runs its own
//     guard (Kind.Guard: kapsule proves the cluster and its cluster_url
//     through the provider's API); the operator confirms once, here
//     (Opened.Confirm); in a terminal, a guarded target whose endpoint is
//     not the topology's is shown and asked about before its first request
//     and before the deadline starts (askContact, OpenOptions.Contact);
//  5. read: the kind's prober fills a topology.Observed (Kind.Read).
//
// Adding a target kind is its package implementing Kind, one line in the
// one registry (cmd/nestor/action/kinds.go), and its enum value and block
// grammar in package topology; nothing else names a kind.

// Bench names the bench kubeconfig of one lima stack of the stacks folder;
// Open refuses to read a prod stack through any of them.
type Bench struct {
	// Stack is the lima stack's name, Kubeconfig its bench kubeconfig path
	// (Topology.BenchKubeconfig).
	Stack, Kubeconfig string
}

// GuardView is what the interactive guard shows the operator before asking
// "Is this the stack NAME?": the stack, its target and what was read of it.
type GuardView struct {
	Topology *topology.Topology
	Target   *Target
	Check    EndpointCheck
	Version  topology.Fact[string]
	Nodes    topology.Fact[[]topology.NodeState]
	// Provider is the provider's view of a managed stack's cluster (nil
	// for the kinds read through a kubeconfig alone; Target is then the
	// kubeconfig's, or nil).
	Provider *ProviderView
}

// OpenOptions are the inputs of Open, completed once by the caller before
// any command runs.
type OpenOptions struct {
	// KubeconfigFlag is --kubeconfig ("" when not given).
	KubeconfigFlag string
	// OwnKubeconfigOnly says the caller reads each stack through its own
	// kubeconfig: only (fleet: no --kubeconfig, no KUBECONFIG), so a
	// missing target is not explained by those.
	OwnKubeconfigOnly bool
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
	// Timeout is the one deadline of the whole read of a stack, shared by
	// its stages — the guard's reads, then the full read; the time spent at
	// a prompt is not counted (0: DefaultTimeout).
	Timeout time.Duration
	// Progress is told what is being read (KubeOptions.Progress).
	Progress func(resource string, items int)
	// Interactive says the operator may be asked (a terminal, no
	// --no-input): the guard then confirms through Confirm; otherwise it
	// checks the endpoint strictly, offline.
	Interactive bool
	// Confirm shows the target and asks whether it is the stack; it is
	// called only when Interactive. false ends Open with ErrNotConfirmed.
	Confirm func(GuardView) (bool, error)
	// Show, when set, is called by the interactive guard of a kind whose
	// kubeconfig's server is its identity (GuardEndpoint) before its first
	// request, with what needs no network: the target and how its endpoint
	// compares with the topology's (no version, no nodes yet). So a
	// mismatch is on the screen before a target that does not answer
	// ends Open.
	Show func(GuardView)
	// Contact asks, in a terminal, whether to send the first request to a
	// target whose endpoint is not the topology's endpoint: (or cannot be
	// compared with it), after Show and before any request: the comparison
	// is offline, so the operator is warned before anything reaches
	// another cluster. false ends Open with ErrNotConfirmed, nothing sent;
	// nil refuses such a target as the offline check does. The time spent
	// answering is not counted in Timeout.
	Contact func(GuardView) (bool, error)
	// Benches lists the lima stacks' bench kubeconfigs (see Bench); it is
	// called only when a stack is about to be read through a kubeconfig
	// that is not its own bench (nil: none).
	Benches func() []Bench
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
	// NoCredentials: a managed kind's credentials are set nowhere (the
	// kind's guard refused with a NothingToRead error, whose words are
	// Detail).
	NoCredentials NoTargetKind = "no-credentials"
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
	// OwnOnly says only the topology's own kubeconfig: was looked for
	// (OpenOptions.OwnKubeconfigOnly).
	OwnOnly bool
	// Detail is what the kind said was missing (NoCredentials).
	Detail string
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
		if n.OwnOnly {
			return fmt.Sprintf("no kubeconfig: %s declares no kubeconfig: (each stack is read through its own)", n.File)
		}
		return fmt.Sprintf("no kubeconfig: not --kubeconfig, not KUBECONFIG, and %s declares no kubeconfig:", n.File)
	case KubeconfigMissing:
		return fmt.Sprintf("the kubeconfig %s (kubeconfig: in %s) does not exist yet", n.Path, n.File)
	case NoCredentials:
		return n.Detail
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
	// Source says where the kubeconfig came from (SourceText: "KUBECONFIG
	// in the environment", "kubeconfig: in FILE"…; "" when unknown).
	Source string
	// Declared is the topology's endpoint: when the target's endpoint is
	// not it ("" when it is, or none is declared), and File the topology.
	Declared, File string
}

// Server is the endpoint that did not answer (ServerError).
func (e *UnreachableError) Server() string { return e.Endpoint }

func (e *UnreachableError) Error() string {
	src := ""
	if e.Source != "" {
		src = ", from " + e.Source
	}
	s := fmt.Sprintf("cannot read the target %s (context %s, kubeconfig %s%s): %s",
		e.Endpoint, e.Context, e.Kubeconfig, src, e.Reason)
	if e.Declared != "" {
		s += fmt.Sprintf("; and that is not the stack's API server: %s declares endpoint: %s", e.File, e.Declared)
	}
	return s
}

// BenchKubeconfigError: a prod stack's resolved kubeconfig is the bench
// kubeconfig of a lima stack (typically a KUBECONFIG left exported by
// `eval "$(nestor env)"`); ARCHITECTURE.md "Kubeconfig resolution": the bench is never used for another stack.
type BenchKubeconfigError struct {
	Path, Source, BenchStack string
}

// Refusal marks the error as a refusal: the target is not the stack's, or
// may not be read for it; nothing was sent.
func (e *BenchKubeconfigError) Refusal() {}

// TopologyKey is the topology key the refusal concerns (the kubeconfig).
func (e *BenchKubeconfigError) TopologyKey() string { return topology.KeyKubeconfig }

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
	Guard *GuardView
	// LoadErr is why the kubeconfig of an unguarded kind (the bench) could
	// not be loaded: its cluster is then read as unknown with this reason.
	// A guarded kind's load error is Open's error instead.
	LoadErr error

	// Provider is where a managed kind's cluster is read (the provider's
	// API, the credentials' source, the access key masked), set by its
	// guard; nil for the other kinds.
	Provider *Provider
	// State is what the kind's own guard read and decided, for its Read
	// (each kind its own type; nil for none).
	State any

	kind Kind
	opts OpenOptions
	// deadline is the one deadline of the stack's read (Open sets it).
	deadline time.Time
	// shown is true once Show was called (the offline view is on screen).
	shown bool
}

// Kind returns the target kind the stack was opened with.
func (op *Opened) Kind() Kind { return op.kind }

// Close ends the connections the stack's reads opened to its API server
// (Target.Close), once the stack has been read: a fleet then holds the
// connections of the stacks being read, not of every stack read so far.
// Safe on nil and more than once.
func (op *Opened) Close() {
	if op != nil {
		op.Target.Close()
	}
}

// Options returns the options the stack was opened with (a kind's guard
// and read take their environment, runner, timeout and prompt from them).
func (op *Opened) Options() OpenOptions { return op.opts }

// Scope chooses what Read reads.
type Scope int

const (
	// ReadAll reads everything the kind observes (lima: the VMs too).
	ReadAll Scope = iota
	// ReadCluster reads the Kubernetes cluster only (discover: the
	// cluster, not the machines).
	ReadCluster
)

// Open runs the pipeline's first four stages for stack t, of target kind k
// (see the top of this file), and returns the opened target. It returns an
// error when no report can be made: a kubeconfig rule that fails (or the
// kind's own refusal: --kubeconfig on lima), the bench kubeconfig of
// another stack (*BenchKubeconfigError), a kubeconfig that does not load
// (a guarded kind), the guard's refusal (*MissingEndpointError and
// *EndpointMismatchError of the offline check; a kind's own: kapsule's
// credentials and identity checks), an *UnreachableError from the
// interactive guard's read (or the kind's: kapsule's unread cluster),
// ErrNotConfirmed, or ctx's error (wrapped) when ctx ended during a read.
// With an error of the guard's read (*UnreachableError, ctx's) the Opened
// is returned too: what was resolved and loaded, for the caller to name
// it. No target at all is not an error: Opened.NoTarget says why (no
// kubeconfig, or a guard that refused with a NothingToRead error: a
// managed kind's credentials set nowhere).
func Open(ctx context.Context, k Kind, t *topology.Topology, o OpenOptions) (*Opened, error) {
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
	if kc.Source != SourceBench && o.Benches != nil {
		if err := refuseBench(kc, o.Benches()); err != nil {
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
	var le *TargetLoadError
	switch {
	case err != nil && errors.As(err, &le) && k.Guarded():
		// The identity first: a kubeconfig of another cluster is refused
		// as such, whatever else is wrong with it.
		// A server that is not even a URL is the load error's to explain.
		var missing *MissingEndpointError
		var mismatch *EndpointMismatchError
		switch cerr := checkEndpoint(t, le.Endpoint, le.Context, kc); {
		case errors.As(cerr, &mismatch), errors.As(cerr, &missing) && !o.Interactive:
			return nil, cerr
		}
		return nil, err
	case err != nil && !k.Guarded():
		op.LoadErr = err
	case err != nil:
		return nil, err
	default:
		op.Target = target
	}
	if err := op.askContact(); err != nil {
		return nil, err
	}
	// One deadline for the whole read of the stack, shared by its stages:
	// the guard's reads, then Read's (the time the operator takes to
	// answer the prompt is given back).
	op.deadline = time.Now().Add(op.Timeout())
	gctx, cancel := context.WithDeadline(ctx, op.deadline)
	defer cancel()
	view, err := k.Guard(gctx, op)
	var nothing NothingToRead
	if errors.As(err, &nothing) && nothing.NothingToRead() {
		// Nothing to read it with, the topology being fine: no target, as
		// a stack without a kubeconfig has (the guard read nothing).
		op.NoTarget = &NoTarget{Kind: NoCredentials, Stack: t.Name, File: t.Path, Detail: err.Error(), OwnOnly: o.OwnKubeconfigOnly}
		if o.Fix != nil {
			op.NoTarget.Fix = o.Fix(op.NoTarget)
		}
		return op, nil
	}
	if err != nil {
		var unreachable *UnreachableError
		if errors.As(err, &unreachable) || gctx.Err() != nil {
			return op, err
		}
		op.Close() // the guard's reads may have connected: no Opened is returned to close them
		return nil, err
	}
	if view == nil || !o.Interactive {
		return op, nil
	}
	op.Guard = view
	refuse := func(err error) (*Opened, error) {
		op.Close()
		return nil, err
	}
	if o.Confirm == nil {
		return refuse(errors.New("the target must be confirmed, and no prompt is available"))
	}
	asked := time.Now()
	yes, err := o.Confirm(*view)
	op.deadline = op.deadline.Add(time.Since(asked))
	if err != nil {
		return refuse(err)
	}
	if !yes {
		return refuse(ErrNotConfirmed)
	}
	return op, nil
}

// GuardEndpoint is the guard of a kind whose kubeconfig's server is the
// target's identity (Kind.Guarded): the endpoint is compared with the
// topology's endpoint: (op.Check); without a prompt (not Interactive) it
// must match (CheckEndpoint: no network, so a refused target is sent
// nothing, and an accepted one is read all at once by Read); with one, the
// server version and the nodes are read and returned for the operator to
// confirm. No target (nothing loaded) has nothing to guard. Errors:
// CheckEndpoint's; the read's (*UnreachableError, ctx's, wrapped).
func GuardEndpoint(ctx context.Context, op *Opened) (*GuardView, error) {
	if op.Target == nil {
		return nil, nil
	}
	op.Check = CompareEndpoint(op.Topology, op.Target)
	if !op.opts.Interactive {
		return nil, CheckEndpoint(op.Topology, op.Target)
	}
	if op.opts.Show != nil && !op.shown {
		op.opts.Show(GuardView{Topology: op.Topology, Target: op.Target, Check: op.Check})
		op.shown = true
	}
	return op.guardRead(ctx)
}

// askContact is the offline part of the interactive guard of a kind whose
// kubeconfig's server is its identity, before the first request and before
// the stack's deadline starts: a target whose endpoint is not the
// topology's endpoint: (or cannot be compared with it) is shown (Show) and
// the operator asked whether to contact it at all (Contact). No is
// ErrNotConfirmed with nothing sent; no Contact refuses it as the offline
// check does. Any other target, or a run without a prompt, goes on.
func (op *Opened) askContact() error {
	if !op.opts.Interactive || !op.kind.Guarded() || op.Target == nil {
		return nil
	}
	check := CompareEndpoint(op.Topology, op.Target)
	if check.Declared == "" || check.Matches {
		return nil
	}
	op.Check = check
	view := GuardView{Topology: op.Topology, Target: op.Target, Check: check}
	if op.opts.Show != nil {
		op.opts.Show(view)
		op.shown = true
	}
	if op.opts.Contact == nil {
		return CheckEndpoint(op.Topology, op.Target)
	}
	yes, err := op.opts.Contact(view)
	if err != nil {
		return err
	}
	if !yes {
		return ErrNotConfirmed
	}
	return nil
}

// Resolve is the pipeline's first stage alone, for commands that only say
// which kubeconfig a stack of kind k is read through (env): the
// Kubeconfig, or a *NoTarget (with o.Fix's answer) when there is nothing
// to read. Errors: as Open's first stage (a kubeconfig rule that fails).
func Resolve(k Kind, t *topology.Topology, o OpenOptions) (Kubeconfig, *NoTarget, error) {
	return resolve(k, t, o)
}

func resolve(k Kind, t *topology.Topology, o OpenOptions) (Kubeconfig, *NoTarget, error) {
	if o.Kubeconfig != nil {
		return *o.Kubeconfig, nil, nil
	}
	kc, err := k.Resolve(ResolveOptions{Flag: o.KubeconfigFlag, Env: o.Env, Home: o.Home, Topology: t})
	if err != nil {
		return kc, nil, err
	}
	none := k.NoTarget(t, kc)
	if none != nil {
		none.OwnOnly = o.OwnKubeconfigOnly
	}
	if none != nil && o.Fix != nil {
		none.Fix = o.Fix(none)
	}
	return kc, none, nil
}

// guardRead reads the server version and the nodes for the interactive
// guard, bounded by the timeout; neither known is an *UnreachableError.
func (op *Opened) guardRead(ctx context.Context) (*GuardView, error) {
	version, nodes := ReadNodes(ctx, op.Target) // bounded by the target's timeout
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", op.Target.Endpoint, Stopped(err))
	}
	if !version.Known && !nodes.Known {
		return nil, op.unreachable(version.Reason)
	}
	return &GuardView{Topology: op.Topology, Target: op.Target, Check: op.Check, Version: version, Nodes: nodes}, nil
}

// View returns what the guard read of the target (the server version and
// the nodes), reading them now, bounded by the timeout, when the guard did
// not (non-interactive: the offline check sends nothing). Errors: no
// target; *UnreachableError; ctx's error, wrapped.
func (op *Opened) View(ctx context.Context) (*GuardView, error) {
	if op.Guard != nil {
		return op.Guard, nil
	}
	if op.Target == nil {
		return nil, fmt.Errorf("stack %s has no target to read", op.Topology.Name)
	}
	return op.guardRead(ctx)
}

func (op *Opened) unreachable(reason string) *UnreachableError {
	e := &UnreachableError{Endpoint: op.Target.Endpoint, Context: op.Target.Context,
		Kubeconfig: strings.Join(op.Target.Kubeconfig.Paths, ":"), Reason: reason,
		Source: SourceText(op.Target.Kubeconfig), File: op.Topology.Path}
	if op.kind.Guarded() && op.Check.Declared != "" && !op.Check.Matches && op.Check.Err == nil {
		e.Declared = op.Check.Declared
	}
	return e
}

func (op *Opened) Timeout() time.Duration {
	if op.opts.Timeout > 0 {
		return op.opts.Timeout
	}
	return DefaultTimeout
}

// Read is the pipeline's last stage: the kind's prober reads the stack,
// within what is left of the stack's one deadline (set by Open: the
// guard's reads count against it). It returns the observation and the raw facts
// behind it (cluster kinds; discover reports them). Errors: ctx ended
// (wrapped ctx.Err()), or, for a guarded target, an *UnreachableError when
// neither the version nor the nodes could be read (no report can be made
// of a target that does not answer). A stack with no target is read as the
// kind says (lima: the VMs and "no bench cluster"; prod: every part unknown
// with the reason).
func (op *Opened) Read(ctx context.Context, scope Scope) (*topology.Observed, topology.ClusterFacts, error) {
	if op.deadline.IsZero() {
		op.deadline = time.Now().Add(op.Timeout()) // no target: nothing was guarded
	}
	rctx, cancel := context.WithDeadline(ctx, op.deadline)
	defer cancel()
	obs, facts := op.kind.Read(rctx, op, scope)
	obs.DeriveVersions() // the versions part of ACTUAL, from what was read
	if err := ctx.Err(); err != nil {
		return nil, facts, fmt.Errorf("reading stack %s: %w", op.Topology.Name, Stopped(err))
	}
	if op.Target != nil && op.kind.Guarded() && !obs.ServerVersion.Known && !obs.Nodes.Known {
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

// FileExists reports whether p exists; an error other than "does not
// exist" is returned as is.
func FileExists(p string) (bool, error) {
	_, err := os.Stat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// NoTargetObservation is the observation of a stack with nothing to read:
// NoTarget with reason, every part unknown ("no target"), no layer state.
func NoTargetObservation(reason string) *topology.Observed {
	r := topology.Because(topology.ReasonNoTarget, "no target")
	return &topology.Observed{
		NoTarget: true, NoTargetReason: reason,
		ServerVersion: topology.UnknownFact[string](r),
		Nodes:         topology.UnknownFact[[]topology.NodeState](r),
		Layers:        []topology.LayerState{},
		Storage:       topology.UnknownFact[topology.StorageState](r),
	}
}

// Server is the server URL and context of the kubeconfig the stack is read
// through — loaded (Target) or not (a *TargetLoadError in LoadErr, whose
// server is still known) — and false when there is none to tell.
func (op *Opened) Server() (endpoint, context string, ok bool) {
	if op.Target != nil {
		return op.Target.Endpoint, op.Target.Context, true
	}
	var le *TargetLoadError
	if errors.As(op.LoadErr, &le) {
		return le.Endpoint, le.Context, true
	}
	return "", "", false
}
