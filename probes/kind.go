package probes

import (
	"context"
	"fmt"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// Kind is one target kind: everything that differs from one kind to
// another, and nothing else. Each kind is a package of its own
// (probes/prod, probes/lima, probes/kapsule) implementing it; the pipeline
// (Open, Opened.Read) and the commands call it, and never ask which kind a
// stack is. The one registry that names every kind is in
// cmd/nestor/action (kinds.go).
type Kind interface {
	// Rules are the kind's pure part: its own phases before the layers,
	// their plan, and when each is done (plan.Rules).
	plan.Rules
	// Words are the kind's sentences for the commands that describe a
	// stack without reading it (next, env, discover --cp, stack select).
	Words

	// Name is the target_kind value the kind implements.
	Name() topology.TargetKind
	// Resolve says which kubeconfig a stack of this kind is read through:
	// ResolveKubeconfig's rules (--kubeconfig, KUBECONFIG, the topology's
	// kubeconfig:), or the kind's own file (lima: the bench's, Source
	// SourceBench). A kubeconfig with Source SourceNone is no kubeconfig.
	// Errors: the rules' (a ~ that cannot be expanded), or the kind's own
	// refusal (--kubeconfig on a lima stack).
	Resolve(o ResolveOptions) (Kubeconfig, error)
	// NoTarget says, given the kubeconfig Resolve chose, why there is
	// nothing to read (a *NoTarget), or nil. No target is not an error:
	// preview reports it honestly.
	NoTarget(t *topology.Topology, kc Kubeconfig) *NoTarget
	// Guarded reports whether the kubeconfig's server is the target's
	// identity: a kubeconfig that does not load is then Open's error, and
	// a target that answers neither its version nor its nodes is
	// unreachable. Otherwise a load error is kept in Opened.LoadErr and the
	// in-cluster part is read as unknown with it.
	Guarded() bool
	// Guard runs the kind's identity check after the load and before any
	// read (GuardEndpoint for a kind whose identity is the kubeconfig's
	// server; the bench has nothing to check; kapsule proves the cluster
	// through the provider's API). It returns the view the operator
	// confirms when the pipeline may ask (Interactive; nil: nothing to
	// confirm), or the refusal. It may keep what it read in op.State and
	// op.Provider for Read.
	Guard(ctx context.Context, op *Opened) (*GuardView, error)
	// Read is the observation of the stack, every part that could not be
	// read unknown with its reason, never absent, and the raw facts of the
	// kube read behind it (discover reports them). It reads and does not
	// judge: the layers and the storage are left nil for the caller to
	// judge from the facts (health.Judge), unless nothing of the cluster
	// could be read (UnknownObservation, NoTargetObservation set them).
	Read(ctx context.Context, op *Opened, scope Scope) (*topology.Observed, topology.ClusterFacts)
}

// Words are a kind's sentences for the commands that describe a stack.
// suggest turns a nestor subcommand ("next", "discover --cp NODE") into the
// command line that acts on the same stack.
type Words interface {
	// Runbook says what runs ph, one of the kind's own phases, for stack
	// t (RUNBOOK.md's phase table).
	Runbook(t *topology.Topology, ph topology.Phase, suggest func(string) string) string
	// Env says what `nestor env` exports for t — the variables, in order,
	// and the notes for stderr — given the kubeconfig resolved and, when
	// there is none, why. Errors: nothing can be exported (a bench not
	// bootstrapped yet).
	Env(t *topology.Topology, kc Kubeconfig, none *NoTarget, suggest func(string) string) ([]EnvVar, []string, error)
	// Fetch returns nil when `discover --cp NODE` may copy t's kubeconfig
	// from a control-plane node over ssh, else why not and what to do
	// instead.
	Fetch(t *topology.Topology, home string) error
	// Selected is what `stack select` says once t is the active stack and
	// nothing more is to be done for it ("" when the kind's target is
	// checked and completed by select itself: a guarded kind).
	Selected(t *topology.Topology, home string, suggest func(string) string) string
}

// EnvVar is one variable `nestor env` exports.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ClusterLister is what a managed kind may add to discover: the other
// clusters of the stack's project, beside the declared one (GET only,
// bounded by the timeout; unknown with the reason when the list fails).
type ClusterLister interface {
	Clusters(ctx context.Context, op *Opened) topology.Fact[[]topology.KapsuleCluster]
}

// Provider is where a managed kind's cluster is read: the provider's API,
// the cluster's id and region, and where the credentials came from (the
// access key masked; the secret key is never kept here).
type Provider struct {
	ClusterID   string `json:"cluster_id"`
	Region      string `json:"region"`
	APIURL      string `json:"api_url"`
	Credentials string `json:"credentials"`
	AccessKey   string `json:"access_key"`
}

// ProviderView is what the guard of a managed kind shows before asking
// "Is this the stack NAME?": the cluster, its pools and nodes as the
// provider's API describes them, and where they were read.
type ProviderView struct {
	Provider
	Cluster topology.Fact[topology.KapsuleCluster] `json:"cluster"`
	Pools   topology.Fact[[]topology.KapsulePool]  `json:"pools"`
	Nodes   topology.Fact[[]topology.KapsuleNode]  `json:"nodes"`
	// Waiting is the cluster's transient state, when the API answered one.
	Waiting string `json:"waiting,omitempty"`
}

// K8sRunbook is what runs the k8s phase of a node cluster (prod, lima).
const K8sRunbook = "RUNBOOK.md § k8s: join the missing nodes (kubeadm join), fix NotReady kubelets and node roles, upgrade to kubernetes.version (kubeadm upgrade), then `nestor preview`"

// FetchCommand is the hint that fetches t's kubeconfig with the system ssh
// from its first control plane: the command `discover --cp NODE` (written
// by suggest) in backquotes, when ssh has somewhere to connect — the node
// declares address:, or the topology an inventory: whose ansible_host may
// give it (ssh.SSHArgs refuses a node with neither). Otherwise the command
// is followed by what to declare first in t's file: never a command that
// can only fail. It reads after "fetch it with" as well as alone.
func FetchCommand(t *topology.Topology, suggest func(string) string) string {
	node := FirstControlPlane(t)
	cmd := "`" + suggest("discover --cp "+node) + "`"
	if t.Inventory != "" {
		return cmd
	}
	for _, n := range t.Nodes {
		if n.Name == node {
			if n.Address != "" {
				return cmd
			}
			return fmt.Sprintf("%s, once node %s has an address: in %s (ssh connects to it; or declare an inventory:)", cmd, node, t.Path)
		}
	}
	return fmt.Sprintf("%s, once %s declares the control-plane node with its address:", cmd, t.Path)
}

// FirstControlPlane names the first control-plane node t declares, for the
// commands nestor suggests ("NODE" when none is declared).
func FirstControlPlane(t *topology.Topology) string {
	if cps := t.ControlPlanes(); len(cps) > 0 {
		return cps[0].Name
	}
	return "NODE"
}

// Refusal is implemented by the errors that refuse a target before
// anything is sent to it (an endpoint that is not the stack's, a stack with
// no endpoint to check, another stack's bench kubeconfig, a managed
// cluster whose identity is another's): fleet says "refused" for them.
type Refusal interface {
	error
	Refusal()
}

// ServerError is implemented by the errors that name the API server a
// stack would have been read from (the one that did not answer, the one
// the endpoint check refused): fleet shows it as the stack's TARGET.
type ServerError interface {
	error
	Server() string
}

// NothingToRead is implemented by the errors that say a stack of a kind
// has nothing to read with, the topology being fine (a managed kind
// without credentials anywhere): NothingToRead is true for those, and Open
// makes such a refusal of the guard the stack's NoTarget (NoCredentials),
// as a stack without a kubeconfig has — every command then treats both
// alike.
type NothingToRead interface {
	error
	NothingToRead() bool
}

// ProviderLayers is implemented by a managed kind whose provider installs
// components of its own inside the cluster: ProviderLayer says whether l,
// an undeclared layer the judgement found, is the provider's (shown in the
// provider's part, never planned) rather than the stack's. facts are the
// read's.
type ProviderLayers interface {
	ProviderLayer(l topology.LayerState, facts topology.ClusterFacts) bool
}

// BenchOwner is implemented by a kind whose stacks are read through a
// kubeconfig nestor itself writes (a bench it bootstrapped): no other
// stack may be read through that file (the pipeline's refusals stage,
// Bench). BenchKubeconfig returns its path for stack t, home being the
// user's home folder.
type BenchOwner interface {
	Kind
	BenchKubeconfig(t *topology.Topology, home string) string
}
