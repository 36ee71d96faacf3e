package topology

import (
	"fmt"
	"strings"
)

// NextPhase is the answer to "what comes next for this stack": the first
// phase of Phases(t) that the observation does not show done.
type NextPhase struct {
	// Phase is the first phase not done ("" when every phase is done, or
	// when Unknown is true).
	Phase Phase
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
// first phase.
func Next(t *Topology, obs *Observed, plan Plan) NextPhase {
	phases := Phases(t)
	if obs.NoTarget {
		return NextPhase{Phase: phases[0], Unknown: true, Why: "nothing was read: " + obs.NoTargetReason}
	}
	layers := map[string]LayerState{}
	for _, l := range obs.Layers {
		if l.Declared {
			layers[l.Name] = l
		}
	}
	stepOf := map[string]Step{}
	for _, s := range plan.Steps {
		if _, seen := stepOf[s.Phase]; !seen && s.IsChange() {
			stepOf[s.Phase] = s
		}
	}
	for _, p := range phases {
		done, unknown, why := phaseDone(t, obs, p, layers)
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
	why := "VMs, nodes and layers match the topology"
	if t.TargetKind == TargetKapsule {
		why = "the cluster, its pools and the layers match the topology"
	} else if t.TargetKind != TargetLima {
		why = "nodes and layers match the topology"
	}
	return NextPhase{Done: true, Why: why}
}

// phaseDone judges one phase from the observation: up by the VMs' status,
// bootstrap by a readable API server, k8s by every declared node registered
// and Ready, a layer phase by the layer's health.
func phaseDone(t *Topology, obs *Observed, p Phase, layers map[string]LayerState) (done, unknown bool, why string) {
	switch p.Kind {
	case PhaseKindCluster, PhaseKindPools:
		return kapsulePhaseDone(obs.Kapsule, p)
	case PhaseKindUp:
		if obs.VMs == nil || !obs.VMs.Known {
			reason := "limactl was not read"
			if obs.VMs != nil {
				reason = obs.VMs.Reason
			}
			return false, true, reason
		}
		status := map[string]string{}
		for _, vm := range obs.VMs.Value {
			status[vm.Name] = vm.Status
		}
		var missing []string
		for _, node := range t.Nodes {
			switch st, ok := status[node.Name]; {
			case !ok:
				missing = append(missing, node.Name+" (no VM)")
			case st != VMRunning:
				missing = append(missing, node.Name+" ("+st+")")
			}
		}
		if len(missing) > 0 {
			return false, false, "VMs not running: " + strings.Join(missing, ", ")
		}
		return true, false, ""
	case PhaseKindBootstrap:
		if obs.ServerVersion.Known {
			return true, false, ""
		}
		if obs.NoBenchCluster {
			return false, false, "no bench cluster was read: " + obs.Nodes.Reason
		}
		return false, true, obs.ServerVersion.Reason
	case PhaseKindK8s:
		if !obs.Nodes.Known {
			return false, true, obs.Nodes.Reason
		}
		ready := map[string]bool{}
		for _, n := range obs.Nodes.Value {
			ready[n.Name] = n.Ready
		}
		var missing []string
		for _, node := range t.Nodes {
			r, ok := ready[node.Name]
			switch {
			case !ok:
				missing = append(missing, node.Name+" not registered")
			case !r:
				missing = append(missing, node.Name+" NotReady")
			}
		}
		if len(missing) > 0 {
			return false, false, strings.Join(missing, ", ")
		}
		return true, false, ""
	default:
		l, ok := layers[p.Layer]
		if !ok {
			return false, true, "layer " + p.Layer + " was not probed"
		}
		switch l.Health {
		case Healthy:
			return true, false, ""
		case Unknown:
			return false, true, l.Reason
		case Degraded:
			return false, false, "layer " + l.Name + " is degraded: " + l.Reason
		default:
			return false, false, "layer " + l.Name + " is not installed"
		}
	}
}
