package topology

import (
	"fmt"

	"nestor.dev/nestor/kube"
)

// StepKind is the kind of one plan step (README.md "Reading a preview", PLAN).
type StepKind string

// Step kinds. Undeclared steps are information and never count as changes.
const (
	StepCreateVM       StepKind = "create-vm"
	StepStartVM        StepKind = "start-vm"
	StepBootstrap      StepKind = "bootstrap"
	StepJoinNode       StepKind = "join-node"
	StepRepairNode     StepKind = "repair-node"
	StepUpgrade        StepKind = "upgrade"
	StepUpgradeNode    StepKind = "upgrade-node"
	StepInstall        StepKind = "install"
	StepRepair         StepKind = "repair"
	StepMigrateBackend StepKind = "migrate-backend"
	StepUndeclared     StepKind = "undeclared"
)

// Step is one action that would close part of the gap.
type Step struct {
	Kind StepKind `json:"kind"`
	// Phase is the phase the step belongs to ("up", "k8s", a layer name…).
	Phase string `json:"phase"`
	// Target is what the step acts on: a VM, node or layer name.
	Target string `json:"target"`
	Reason string `json:"reason"`
	// To is the version an upgrade step (upgrade, upgrade-node,
	// upgrade-pool) moves to, canonical ("1.37", "1.35.2"); "" for another
	// kind of step.
	To string `json:"to,omitempty"`
	// Subject is what the step acts on, typed (NewStep sets it).
	Subject Subject `json:"subject"`
	// Needs are the StepRef of the steps that must be done before this
	// one and that the plan puts before it: the kubelet upgrades an API
	// server upgrade waits for, the repair-node an upgrade-node waits
	// for. Empty when only the order of the phases matters.
	Needs []string `json:"needs,omitempty"`
	// Blocked are the subjects that block the step and that no step of
	// the plan can move (the kubelet of a node the topology does not
	// declare); the reason says what the operator must do. Empty when
	// nothing blocks it.
	Blocked []Subject `json:"blocked,omitempty"`
}

// IsChange reports whether the step would change the cluster (every kind but
// undeclared; upgrade and upgrade-node are changes).
func (s Step) IsChange() bool { return s.Kind != StepUndeclared }

// Plan is the ordered list of steps for a stack.
type Plan struct {
	Steps []Step `json:"steps"`
	// Unverified is true when the plan was not built on a read of the target
	// (no target): it assumes an empty cluster.
	Unverified bool `json:"unverified"`
	// Unknowns lists the parts of the actual state that could not be read,
	// each with its reason; the plan proposes nothing for them.
	Unknowns []UnknownPart `json:"unknowns"`
	// Waiting lists the managed objects the provider is moving (creating,
	// updating, upgrading, scaling…): not in sync, not changes, no step
	// (kapsule).
	Waiting []WaitingObject `json:"waiting,omitempty"`
	// Held says why nothing beyond the kind's own judgement is planned:
	// the provider is removing the whole cluster (a managed cluster
	// deleting), so its layers are not judged. "" otherwise.
	Held string `json:"held,omitempty"`
	// Findings are judgements that are not steps (a downgrade asked for,
	// kubelet skew, end of support); never null. They never change the exit
	// codes by themselves (README.md "Exit codes": --fail-on does).
	Findings []Finding `json:"findings"`
	// Headroom is how full a managed cluster is against its offer's
	// limits (the kind's rules judge it); nil for a kind without an offer.
	Headroom *Headroom `json:"headroom,omitempty"`
}

// Severity grades a Finding: info < warning < error.
type Severity string

// Finding severities.
const (
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// ParseSeverity returns the Severity named s ("info", "warning" or
// "error"), or an error that lists them.
func ParseSeverity(s string) (Severity, error) {
	switch sv := Severity(s); sv {
	case SeverityInfo, SeverityWarning, SeverityError:
		return sv, nil
	}
	return "", fmt.Errorf("%q is not a severity (info, warning or error)", s)
}

// AtLeast reports whether s is min or worse (an unknown severity is below
// info).
func (s Severity) AtLeast(min Severity) bool { return s.rank() >= min.rank() && s.rank() > 0 }

func (s Severity) rank() int {
	switch s {
	case SeverityInfo:
		return 1
	case SeverityWarning:
		return 2
	case SeverityError:
		return 3
	}
	return 0
}

// FindingKind says what a Finding is about.
type FindingKind string

// Finding kinds. Each is produced by one rule of plan/versions.go or
// plan/support.go, whose doc comment gives the rule and its source.
const (
	// FindingDowngrade: kubernetes.version is below what runs (error).
	FindingDowngrade FindingKind = "downgrade"
	// FindingKubeletNewer: a kubelet newer than the API server (error).
	FindingKubeletNewer FindingKind = "kubelet-newer"
	// FindingKubeletSkew: a kubelet as far behind the API server as the skew
	// policy allows, or farther (error).
	FindingKubeletSkew FindingKind = "kubelet-skew"
	// FindingKubeletUnknown: a node whose kubelet version is not reported or
	// does not parse, when nothing planned depends on it (info).
	FindingKubeletUnknown FindingKind = "kubelet-version-unknown"
	// FindingKubeletBehind: a kubelet behind the API server within the
	// allowed skew, with no upgrade planned for it (info).
	FindingKubeletBehind FindingKind = "kubelet-behind"
	// FindingEndOfLife: a minor in use is past its end of life (warning).
	FindingEndOfLife FindingKind = "end-of-life"
	// FindingEndOfLifeSoon: a minor in use reaches its end of life within
	// EndOfLifeNotice (info).
	FindingEndOfLifeSoon FindingKind = "end-of-life-soon"
	// FindingCalendarUnknown: a minor in use that the calendar does not
	// hold (info).
	FindingCalendarUnknown FindingKind = "calendar-unknown"
)

// Finding is one judgement about the stack that is not a step.
type Finding struct {
	Severity Severity    `json:"severity"`
	Kind     FindingKind `json:"kind"`
	// Subject is what the finding is about, typed: the API server's
	// version ("api-server"), a kubelet's ("kubelet v1.34.1"), a minor
	// ("1.34"), an operator's object, an API group version, a PDB…
	Subject Subject `json:"subject"`
	Message string  `json:"message"`
	// Source names what the claim was read from or rests on ("k8s.io/api
	// v0.37.2 lifecycle", "apiserver_requested_deprecated_apis (/metrics)");
	// "" for the findings that predate it.
	Source string `json:"source,omitempty"`
	// Reach says how far the claim holds ("this API server's discovery",
	// "one API server instance of 3", "the whole cluster (nestor does not
	// read pods)"); "" for the findings that predate it.
	Reach string `json:"reach,omitempty"`
	// Step is the StepRef of the plan step the finding concerns, "" when
	// none: a view shows the finding under the step whose StepRef it is.
	Step string `json:"step,omitempty"`
	// Minor is the Kubernetes minor the finding judges a move to ("1.35"),
	// "" when it judges no move.
	Minor string `json:"minor,omitempty"`
}

// FindingsAtLeast counts the findings of severity min or worse (what
// --fail-on compares with).
func (p Plan) FindingsAtLeast(min Severity) int {
	n := 0
	for _, f := range p.Findings {
		if f.Severity.AtLeast(min) {
			n++
		}
	}
	return n
}

// Changes counts the steps that would change the cluster.
func (p Plan) Changes() int {
	n := 0
	for _, s := range p.Steps {
		if s.IsChange() {
			n++
		}
	}
	return n
}

// Outcome is the one word nestor says of a stack's plan: what preview's
// summary line, --detailed-exitcode, fleet's STATUS column and fleet's exit
// code all say, decided once (Plan.Outcome).
type Outcome string

// The outcomes of a plan.
const (
	// OutcomeInSync: every input of the judgement was read, and nothing is
	// to change or moving.
	OutcomeInSync Outcome = "in sync"
	// OutcomeChanges: the plan has steps that would change the cluster.
	OutcomeChanges Outcome = "changes"
	// OutcomeWaiting: nothing to change, but the provider is moving objects
	// of the stack (creating, updating, deleting…).
	OutcomeWaiting Outcome = "waiting"
	// OutcomeUnknown: a part of ACTUAL the judgement needs could not be
	// read.
	OutcomeUnknown Outcome = "unknown"
	// OutcomeNoTarget: nothing was read; the plan is unverified.
	OutcomeNoTarget Outcome = "no target"
)

// Outcome decides p's outcome, in this order: no target (the plan is
// unverified), unknown (any part of ACTUAL not read: a plan built on an
// unknown is never in sync), changes, waiting (anything the provider is
// moving is never in sync), in sync. Findings never change it.
func (p Plan) Outcome() Outcome {
	switch {
	case p.Unverified:
		return OutcomeNoTarget
	case len(p.Unknowns) > 0:
		return OutcomeUnknown
	case p.Changes() > 0:
		return OutcomeChanges
	case len(p.Waiting) > 0:
		return OutcomeWaiting
	}
	return OutcomeInSync
}

// StepRef names plan step s for the findings that concern it
// (Finding.Step): "KIND TARGET", then " → VERSION" when the step moves to a
// version (StepTo) — "upgrade kubernetes → 1.35", "upgrade-node node-a →
// 1.35", "replace-pool default". The plan rules give each step a distinct
// ref: a target is upgraded to a version once.
func StepRef(s Step) string {
	ref := string(s.Kind) + " " + s.Target
	if to, ok := StepTo(s); ok {
		ref += " → " + to.Canonical()
	}
	return ref
}

// StepTo returns the version an upgrade step (upgrade, upgrade-node,
// upgrade-pool) moves to, as the rule that planned it set it (Step.To).
// False for another kind of step or a step with no version to move to.
func StepTo(s Step) (kube.Version, bool) {
	switch s.Kind {
	case StepUpgrade, StepUpgradeNode, StepUpgradePool:
	default:
		return kube.Version{}, false
	}
	v := kube.ParseVersion(s.To)
	return v, v.Known
}
