package topology

// StepKind is the kind of one plan step (issue 3).
type StepKind string

// Step kinds. Undeclared steps are information and never count as changes.
const (
	StepCreateVM       StepKind = "create-vm"
	StepStartVM        StepKind = "start-vm"
	StepBootstrap      StepKind = "bootstrap"
	StepJoinNode       StepKind = "join-node"
	StepRepairNode     StepKind = "repair-node"
	StepUpgrade        StepKind = "upgrade"
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
}

// IsChange reports whether the step would change the cluster (every kind but
// undeclared).
func (s Step) IsChange() bool { return s.Kind != StepUndeclared }

// Plan is the ordered list of steps for a stack.
type Plan struct {
	Steps []Step `json:"steps"`
	// Unverified is true when the plan was not built on a read of the target
	// (no target): it assumes an empty cluster.
	Unverified bool `json:"unverified"`
	// Unknowns lists the parts of the actual state that could not be read,
	// each with its reason; the plan proposes nothing for them.
	Unknowns []string `json:"unknowns"`
	// Waiting lists the managed objects the provider is moving (creating,
	// updating, upgrading, scaling…): not in sync, not changes, no step
	// (kapsule).
	Waiting []string `json:"waiting,omitempty"`
	// Findings are judgements that are not steps (kapsule: versions,
	// calendar, the provider's state); they never change the exit codes.
	Findings []KapsuleFinding `json:"findings,omitempty"`
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
