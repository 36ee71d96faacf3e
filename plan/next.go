package plan

import (
	"fmt"

	"nestor.dev/nestor/topology"
)

// NextPhase is the answer to "what comes next for this stack": the first
// phase of Phases(t, rules) that the observation does not show done.
type NextPhase struct {
	// Phase is the first phase not done ("" when every phase is done, or
	// when Unknown is true).
	Phase topology.Phase
	// Done: every phase is done. Unknown: the walk stopped at a phase whose
	// evidence could not be read (Phase is then that phase).
	Done, Unknown bool
	// Why says why the phase is not done, or why it could not be judged.
	Why string
}

// Next walks the phases of t in order and returns the first one obs does
// not show done, with the plan's word on it: a phase whose own evidence
// looks done but that plan has a change step for (a backend to migrate, an
// upgrade, a role to fix) is not done, so next and preview never disagree.
// A phase whose evidence is unknown stops the walk with Unknown: nestor does
// not guess past what it could not read. obs with NoTarget is Unknown at the
// first phase. rules judges the kind's own phases (Rules.PhaseDone); a
// layer phase is done when the layer is healthy.
func Next(t *topology.Topology, obs *topology.Observed, plan topology.Plan, rules Rules) NextPhase {
	phases := Phases(t, rules)
	if obs.NoTarget {
		return NextPhase{Phase: phases[0], Unknown: true, Why: "nothing was read: " + obs.NoTargetReason}
	}
	layers := map[string]topology.LayerState{}
	for _, l := range obs.Layers {
		if l.Declared {
			layers[l.Name] = l
		}
	}
	stepOf := map[string]topology.Step{}
	for _, s := range plan.Steps {
		if _, seen := stepOf[s.Phase]; !seen && s.IsChange() {
			stepOf[s.Phase] = s
		}
	}
	for _, p := range phases {
		var done, unknown bool
		var why string
		if p.Kind == topology.PhaseKindLayer {
			done, unknown, why = layerPhaseDone(p, layers)
		} else {
			done, unknown, why = rules.PhaseDone(t, obs, p)
		}
		if s, ok := stepOf[p.Name]; done && ok {
			done, why = false, fmt.Sprintf("%s %s: %s", s.Kind, s.Target, s.Reason)
		}
		if unknown {
			return NextPhase{Phase: p, Unknown: true, Why: fmt.Sprintf("cannot tell whether phase %s is done: %s", p.Name, why)}
		}
		if !done {
			return NextPhase{Phase: p, Why: why}
		}
	}
	return NextPhase{Done: true, Why: rules.AllDone()}
}

// layerPhaseDone judges a layer phase by the layer's health.
func layerPhaseDone(p topology.Phase, layers map[string]topology.LayerState) (done, unknown bool, why string) {
	l, ok := layers[p.Layer]
	if !ok {
		return false, true, "layer " + p.Layer + " was not probed"
	}
	switch l.Health {
	case topology.Healthy:
		return true, false, ""
	case topology.Unknown:
		return false, true, l.Reason
	case topology.Degraded:
		return false, false, "layer " + l.Name + " is degraded: " + l.Reason
	case topology.Suspended:
		return false, true, "layer " + l.Name + " is suspended: " + l.Reason
	default:
		return false, false, "layer " + l.Name + " is not installed"
	}
}
