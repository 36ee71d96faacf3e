package upgrade

import (
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// Finding kinds of the upgrade judgement (JudgeUpgrade, upgrade.go says each
// rule and its source).
const (
	// FindingRemovedAPI: the cluster serves a group version (or kinds of
	// it) that the target minor stops serving (error when clients call it,
	// else warning).
	FindingRemovedAPI topology.FindingKind = "removed-api"
	// FindingDeprecatedCall: the API server recorded requests to a
	// deprecated API that no removed-api finding covers (error when the
	// target minor no longer serves it, else info).
	FindingDeprecatedCall topology.FindingKind = "deprecated-api-call"
	// FindingLayerUnsupported: a declared layer's running release is not
	// supported with the target minor, by its project's own table
	// (warning).
	FindingLayerUnsupported topology.FindingKind = "layer-unsupported"
	// FindingDrainBlocker: a PodDisruptionBudget allows no disruption now,
	// so draining a node that runs its pods waits (warning).
	FindingDrainBlocker topology.FindingKind = "drain-blocker"
	// FindingUpgradeUnknown: a part of the upgrade judgement could not be
	// made (a source not read, beyond the lifecycle table's horizon, a
	// layer's release not in its image, a PodDisruptionBudget's status
	// behind its spec), with why (info).
	FindingUpgradeUnknown topology.FindingKind = "upgrade-unknown"
)

// UpgradeMove is one Kubernetes minor an upgrade report is due for: the
// minor a plan step moves the cluster to, the minor the provider will force
// it to, or the next minor when the running one's upstream end of life is
// near or past.
type UpgradeMove struct {
	// Minor is the minor moved to (Known, "1.35").
	Minor kube.Version `json:"minor"`
	// To is the exact version when the step or the provider names one
	// ("1.35.2"), else the same as Minor.
	To kube.Version `json:"to"`
	// From is the minor the move starts from: the cluster's, or the
	// previous move's when several minors are passed one after another.
	From kube.Version `json:"from"`
	// Why says what makes the report due, one sentence per reason.
	Why []string `json:"why"`
	// Date is the day the move is forced or the running minor's support
	// ends (nil when no date applies: a planned step alone).
	Date *time.Time `json:"date,omitempty"`
	// Forced is true when the provider moves the cluster itself on Date
	// (or has been doing so since).
	Forced bool `json:"forced"`
	// Steps are the StepRef of the plan steps that move to Minor, in plan
	// order; empty for a move no step plans.
	Steps []string `json:"steps"`
}

// UpgradeDue is what MovesDue finds due: the minors to judge and the
// plan steps that drain nodes. Zero (nothing due) means nothing is judged
// and nothing is read.
type UpgradeDue struct {
	// Current is the cluster's version the moves start from (unknown
	// when it was not read: Unknown says so).
	Current kube.Version `json:"current"`
	// Moves are sorted by minor, oldest first.
	Moves []UpgradeMove `json:"targets"`
	// Drains are the StepRef of the plan steps that drain nodes (or delete
	// them), in plan order: each needs the drain-blocker check.
	Drains []string `json:"drains"`
	// DrainNodes are the same steps, in the same order, each with the
	// nodes it drains (DrainedNodes): a drain blocker is placed under the
	// first step that drains a node running its pods.
	DrainNodes []DrainStep `json:"drain_nodes"`
	// Unknown says why whether a report is due could not be decided (the
	// cluster's version was not read); "" when it was decided.
	Unknown string `json:"unknown,omitempty"`
}

// DrainStep is one planned step that drains nodes, and which nodes.
type DrainStep struct {
	// Step is the step's StepRef.
	Step string `json:"step"`
	// Nodes are the names of the nodes it drains, sorted; unknown, with
	// the reason, when what says so was not read.
	Nodes topology.Fact[[]string] `json:"nodes"`
}

// ReadsAPIs reports whether the upgrade judgement needs the served APIs,
// the deprecated-API metrics, the API server identity leases and the
// layers' images: a move to another minor is due (or whether one is is
// unknown).
func (d UpgradeDue) ReadsAPIs() bool { return len(d.Moves) > 0 }

// ReadsPDBs reports whether the judgement needs the PodDisruptionBudgets: a
// planned step drains nodes.
func (d UpgradeDue) ReadsPDBs() bool { return len(d.Drains) > 0 }

// Nothing reports whether nothing is due and nothing unknown: no read, no
// finding.
func (d UpgradeDue) Nothing() bool {
	return len(d.Moves) == 0 && len(d.Drains) == 0 && d.Unknown == ""
}

// UpgradeFacts are the reads the upgrade judgement rests on. Each is a
// Fact: a read that failed is unknown with its reason, and every claim
// that needs it is unknown too.
type UpgradeFacts struct {
	// Served is what the API server's discovery lists now.
	Served topology.Fact[ServedAPIs] `json:"served"`
	// DeprecatedCalls is what its /metrics says of deprecated API use.
	DeprecatedCalls topology.Fact[DeprecatedCalls] `json:"deprecated_calls"`
	// LayerImages are the images of the declared layers' main workloads
	// (LayerSupport.Main), as read.
	LayerImages topology.Fact[[]LayerImage] `json:"layer_images"`
	// PDBs are the cluster's PodDisruptionBudgets, all namespaces.
	PDBs topology.Fact[[]PDBState] `json:"pdbs"`
}

// ServedAPIs is the API server's discovery: the group versions served,
// with their kinds (for APIRemovals), and each resource's kind (to tie a
// request of the deprecated-API metric, which names resources, to a kind).
type ServedAPIs struct {
	GroupVersions []kube.ServedGroupVersion `json:"group_versions"`
	// Resources are the served resources (subresources left out) whose
	// kind discovery gave, sorted by group version then resource.
	Resources []ServedResource `json:"resources"`
}

// ServedResource is one resource a group version serves, and its kind.
type ServedResource struct {
	// GroupVersion is "GROUP/VERSION", "v1" for the core group.
	GroupVersion string `json:"group_version"`
	// Resource is the plural name ("cronjobs").
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
}

// DeprecatedCalls is what one API server instance's
// apiserver_requested_deprecated_apis gauge says: which deprecated APIs
// clients requested since the window's start.
type DeprecatedCalls struct {
	Requests []DeprecatedCall `json:"requests"`
	// Complete is true when Requests is the whole family (the read did not
	// stop at its byte bound first): a request absent from it was not
	// recorded by this instance in the window.
	Complete bool `json:"complete"`
	// Limit is the byte bound the read stopped at when not Complete.
	Limit int64 `json:"limit,omitempty"`
	// WindowStart is the API server's start (process_start_time_seconds),
	// the earliest the gauge remembers; nil when it was not read.
	WindowStart *time.Time `json:"window_start,omitempty"`
	// Instances is how many API server instances the control plane runs
	// (the live identity leases in kube-system): the gauge is the one
	// instance's that answered. Unknown with the reason when not read.
	Instances topology.Fact[int] `json:"instances"`
}

// DeprecatedCall is one series of the gauge: a deprecated API requested.
type DeprecatedCall struct {
	// Group is "" for the core group.
	Group       string `json:"group"`
	Version     string `json:"version"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// RemovedRelease is the first minor that no longer serves it, as the
	// API server states it ("1.38"); "" when none is planned.
	RemovedRelease string `json:"removed_release,omitempty"`
}

// GroupVersion is "GROUP/VERSION", "VERSION" for the core group.
func (c DeprecatedCall) GroupVersion() string { return kube.JoinGroupVersion(c.Group, c.Version) }

// LayerImage is the image of one container of a declared layer's workload.
type LayerImage struct {
	// Layer is the declared layer's name.
	Layer     string `json:"layer"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
	Container string `json:"container"`
	// Image is the container's image reference as the workload's pod
	// template sets it.
	Image string `json:"image"`
}

// PDBState is one PodDisruptionBudget (policy/v1) as far as the drain
// judgement reads it: its status and the generation it was computed for.
type PDBState struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// DisruptionsAllowed, CurrentHealthy, DesiredHealthy and ExpectedPods
	// are status's, as the disruption controller computes them.
	DisruptionsAllowed int32 `json:"disruptions_allowed"`
	CurrentHealthy     int32 `json:"current_healthy"`
	DesiredHealthy     int32 `json:"desired_healthy"`
	ExpectedPods       int32 `json:"expected_pods"`
	// Generation is metadata.generation; ObservedGeneration is
	// status.observedGeneration (0 when not set): the status is of the
	// current spec only when they are equal.
	Generation         int64 `json:"generation"`
	ObservedGeneration int64 `json:"observed_generation"`
	// Selector is spec.selector as a label selector query
	// ("app=rook-ceph-osd"; "" selects every pod of its namespace).
	Selector string `json:"selector"`
	// PodNodes are the nodes the pods it selects run on, sorted: read for a
	// budget that may hold a drain (MayHoldDrain), known and empty for one
	// whose selector selects nothing (spec.selector null), unknown with the
	// reason when the pods were not read (the zero Fact: not asked).
	PodNodes topology.Fact[[]string] `json:"pod_nodes"`
}

// MayHoldDrain reports whether the budget may hold up a drain, so that
// which nodes run its pods matters: its status is of an older generation
// than its spec (whether it allows a disruption is not known), or it
// allows none and expects pods (policy/v1 status; an eviction it does not
// allow is refused, kubernetes.io "API-initiated Eviction").
func (p PDBState) MayHoldDrain() bool {
	return p.ObservedGeneration < p.Generation || p.DisruptionsAllowed == 0 && p.ExpectedPods > 0
}

// HardDate is a stack's next hard date: the earliest day its Kubernetes
// minor loses support (upstream or at the provider) or the provider moves
// it, and how many blockers of the move stand before it.
type HardDate struct {
	// Date is the day (UTC midnight).
	Date time.Time `json:"date"`
	// What says what happens that day: "upstream end of life of 1.34",
	// "provider end of life of 1.34: the provider moves the cluster to 1.35".
	What string `json:"what"`
	// Minor is the minor the date forces a move to ("1.35").
	Minor string `json:"minor"`
	// Days is from the judged day to Date, negative once past.
	Days int `json:"days"`
	// Estimated is true when the date is the calendar's estimate.
	Estimated bool `json:"estimated"`
	// Forced is true when the provider moves the cluster that day.
	Forced bool `json:"forced"`
	// Judged is true when the upgrade report for Minor was made (its
	// findings counted in Blockers); false when it was not due yet or not
	// read, and Blockers is then 0 and says nothing.
	Judged bool `json:"judged"`
	// Blockers counts the upgrade findings for Minor of severity warning or
	// worse (removed APIs served, deprecated calls, unsupported layers).
	Blockers int `json:"blockers"`
	// Unknowns counts the parts of that judgement that could not be made
	// (upgrade-unknown findings for Minor): when it is not 0, Blockers is
	// a floor, not the count.
	Unknowns int `json:"unknowns"`
}
