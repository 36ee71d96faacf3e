package lima

import (
	"fmt"
	"strings"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// Rules are the lima kind's own phases and plan: up (the VMs exist and
// run), then the node cluster's bootstrap and k8s (plan.NodeCluster).
type Rules struct{ plan.NodeCluster }

// OwnPhases are up, bootstrap and k8s.
func (r Rules) OwnPhases(t *topology.Topology) []topology.Phase {
	return append([]topology.Phase{{Name: topology.PhaseUp, Kind: topology.PhaseKindUp}}, r.NodeCluster.OwnPhases(t)...)
}

// PlanOwn plans the VMs (planVMs), then the node cluster's phases.
func (r Rules) PlanOwn(t *topology.Topology, obs *topology.Observed, o plan.Options, p *topology.Plan) {
	planVMs(t, obs, p)
	r.NodeCluster.PlanOwn(t, obs, o, p)
}

// PhaseDone judges up by the VMs' status (every declared node's VM
// Running), the other phases as plan.NodeCluster does.
func (r Rules) PhaseDone(t *topology.Topology, obs *topology.Observed, ph topology.Phase) (done, unknown bool, why string) {
	if ph.Kind != topology.PhaseKindUp {
		return r.NodeCluster.PhaseDone(t, obs, ph)
	}
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
		case st != topology.VMRunning:
			missing = append(missing, node.Name+" ("+st+")")
		}
	}
	if len(missing) > 0 {
		return false, false, "VMs not running: " + strings.Join(missing, ", ")
	}
	return true, false, ""
}

// AllDone: the VMs, the nodes and the layers match.
func (Rules) AllDone() string { return "VMs, nodes and layers match the topology" }

// planVMs plans the up phase from obs.VMs: create-vm for a declared node
// with no VM of the same name (an entry of obs.NotVMs of that name is no
// VM: the reason says to move it away first), start-vm for a Stopped VM and
// for a Broken one (the reason carries limactl's errors and its fix:
// `limactl stop -f NAME`, then start). VMs unknown (or not read) → no VM
// step, listed in Unknowns. A VM in any other status, or none, is listed in
// Unknowns. A stack with no bench cluster still gets its VMs planned.
func planVMs(t *topology.Topology, obs *topology.Observed, p *topology.Plan) {
	if obs.VMs == nil {
		p.AddUnknown(topology.VMsSubject(), topology.ReasonNotRead, "not read")
		return
	}
	if !obs.VMs.Known {
		p.AddUnknown(topology.VMsSubject(), obs.VMs.Code, obs.VMs.Reason)
		return
	}
	vms := make(map[string]topology.VM, len(obs.VMs.Value))
	for _, vm := range obs.VMs.Value {
		vms[vm.Name] = vm
	}
	stray := make(map[string]topology.NotVM, len(obs.NotVMs))
	for _, e := range obs.NotVMs {
		stray[e.Name] = e
	}
	for _, n := range t.Nodes {
		vm, ok := vms[n.Name]
		switch {
		case !ok:
			reason := "declared node has no Lima VM"
			if e, isStray := stray[n.Name]; isStray {
				reason += "; limactl lists an entry of that name that is not a VM (" + errorsText(e.Errors) + "): move it out of the Lima folder first"
			}
			p.Add(topology.StepCreateVM, topology.PhaseUp, n.Name, reason)
		case vm.Status == topology.VMRunning:
		case vm.Status == topology.VMStopped:
			p.Add(topology.StepStartVM, topology.PhaseUp, n.Name, "VM is Stopped")
		case vm.Status == topology.VMBroken:
			p.Add(topology.StepStartVM, topology.PhaseUp, n.Name, fmt.Sprintf("VM is Broken (%s): stop it with `limactl stop -f %s`, then start it; if it still fails, delete and recreate it", errorsText(vm.Errors), n.Name))
		case vm.Status == "":
			p.AddUnknown(topology.VMSubject(n.Name), topology.ReasonNotReported, fmt.Sprintf("limactl gives no status (%s)", errorsText(vm.Errors)))
		default:
			p.AddUnknown(topology.VMSubject(n.Name), topology.ReasonUnrecognised, fmt.Sprintf("status \"%s\"", vm.Status))
		}
	}
}

// errorsText joins limactl's errors of an instance for a reason, or says
// it gave none.
func errorsText(errs []string) string {
	if len(errs) == 0 {
		return "limactl gives no error"
	}
	return "limactl: " + strings.Join(errs, "; ")
}
