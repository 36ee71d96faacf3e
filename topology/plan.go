package topology

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// PlanOptions are the inputs of BuildPlan that are not the stack.
type PlanOptions struct {
	// AsOf is the day the support calendar is judged at (the caller passes
	// time.Now(), or --as-of). Zero means "calendar not judged": the
	// findings then say nothing about dates.
	AsOf time.Time
}

// BuildPlan compares what t declares with what obs read and returns the
// ordered steps that would close the gap, and the findings (Plan.Findings)
// that are not steps. It is pure and never fails; it does not modify obs.
//
// Order follows Phases(t): up (lima only), bootstrap, k8s, then one group per
// declared layer, then the undeclared layers.
//
//   - up (lima only; never for prod, enforced): create-vm for a declared
//     node with no VM of the same name (an entry of obs.NotVMs of that name
//     is no VM: the reason says to move it away first), start-vm for a
//     Stopped VM and for a Broken one (the reason carries limactl's errors
//     and its fix: `limactl stop -f NAME`, then start). VMs unknown (or not
//     read) → no VM step, listed in Unknowns. A VM in any other status, or
//     none, is listed in Unknowns.
//   - k8s: first the versions (judgeVersions, on DeriveVersions of
//     obs.ServerVersion and obs.Nodes): when kubernetes.version is declared,
//     upgrade steps one minor at a time for the API server, then
//     upgrade-node steps for each node whose kubelet is behind it; findings
//     for a downgrade asked for, kubelet skew and, when o.AsOf is set, the
//     upstream support calendar; server version unknown → Unknowns. Then,
//     when Nodes is known, join-node for a declared node not registered,
//     repair-node for one registered but not Ready (the reason carries the
//     Ready condition's status, reason and message: NodeState.ReadyText) or
//     whose control-plane role (HasControlPlaneRole) differs from the
//     declared role; unknown → Unknowns; a cordoned node is no step; an
//     undeclared step (information) for each registered node the topology
//     does not declare.
//   - layers, in declaration order: install for an Absent layer, repair for a
//     Degraded one (its reason carried), nothing for a Healthy one, nothing
//     for an Unknown one or one missing from obs.Layers (listed in Unknowns).
//     In the backend layer's group: migrate-backend when obs.Storage is known
//     and the default StorageClass Kubernetes uses (DefaultStorage: the
//     newest of several, never the first by name) has a provisioner that is
//     not the desired backend's, or there is none; Storage unknown →
//     Unknowns.
//   - undeclared (information, not a change): each obs.Layers entry with
//     Declared=false.
//
// A kapsule stack's cluster and pools phases are JudgeKapsule's (its steps,
// waiting objects, unknowns and findings), in place of k8s, and, when
// o.AsOf is set, the provider's calendar judged at that day
// (KapsuleCalendar).
//
// obs.NoTarget (nothing could be read): Unverified=true and the plan assumes
// an empty cluster — a bootstrap step (which registers the first control
// plane), join-node for every other node, install for
// every layer; a lima stack's VMs are still planned from obs.VMs. Whatever
// the case, a plan never installs a layer an observation shows present
// (healthy, degraded or unknown) and a prod plan never holds a VM step.
func BuildPlan(t *Topology, obs *Observed, o PlanOptions) Plan {
	if obs == nil {
		obs = &Observed{NoTarget: true}
	}
	p := Plan{Steps: []Step{}, Unknowns: []string{}, Findings: []Finding{}, Unverified: obs.NoTarget}

	if t.TargetKind == TargetLima {
		p.planVMs(t, obs)
	}

	if obs.NoTarget {
		p.add(StepBootstrap, PhaseBootstrap, t.Name, "unverified: no target was read, so the plan assumes no cluster yet")
		first := ""
		if cps := t.ControlPlanes(); len(cps) > 0 {
			first = cps[0].Name // bootstrap registers it
		}
		for _, n := range t.Nodes {
			if n.Name != first {
				p.add(StepJoinNode, PhaseK8s, n.Name, "unverified: assumes an empty cluster")
			}
		}
		p.Unknowns = append(p.Unknowns, "the whole cluster: no target was read ("+reasonOr(obs.NoTargetReason)+")")
	} else if t.TargetKind == TargetKapsule {
		p.planKapsule(t, obs, o)
	} else {
		p.planVersion(t, obs, o)
		p.planNodes(t, obs)
	}

	states := map[string]LayerState{}
	for _, l := range obs.Layers {
		if !l.Declared {
			continue
		}
		if _, dup := states[l.Name]; !dup {
			states[l.Name] = l
		}
	}
	backendLayer, _ := BackendLayer(t.Backend)
	for _, ref := range t.Layers {
		st, observed := states[ref.Name]
		switch {
		case observed && st.Health == Absent:
			p.add(StepInstall, ref.Name, ref.Name, "not found on the cluster: "+st.Reason)
		case observed && st.Health == Degraded:
			p.add(StepRepair, ref.Name, ref.Name, st.Reason)
		case observed && st.Health == Healthy:
		case observed:
			// Unknown (or a health this version does not know): never
			// proposed for installation.
			p.Unknowns = append(p.Unknowns, "layer "+ref.Name+": "+reasonOr(st.Reason))
		case obs.NoTarget:
			p.add(StepInstall, ref.Name, ref.Name, "unverified: assumes an empty cluster")
		default:
			p.Unknowns = append(p.Unknowns, "layer "+ref.Name+": not probed")
		}
		if ref.Name == backendLayer && backendLayer != "" && !obs.NoTarget {
			p.planBackend(t, obs, backendLayer)
		}
	}

	for _, l := range obs.Layers {
		if l.Declared {
			continue
		}
		reason := "present on the cluster but not declared in the topology"
		if l.Health != "" {
			reason += " (" + string(l.Health)
			if l.Reason != "" {
				reason += ": " + l.Reason
			}
			reason += ")"
		}
		p.add(StepUndeclared, l.Name, l.Name, reason)
	}

	if !obs.NoTarget && !obs.Storage.Known && backendLayer == "" {
		// Not needed by any step, but still a part of ACTUAL that was not
		// read: a plan beside it is never "in sync" (DESIGN.md, exit codes).
		p.Unknowns = append(p.Unknowns, "default StorageClass: "+reasonOr(obs.Storage.Reason))
	}
	if t.TargetKind != TargetLima {
		p.Steps = dropVMSteps(p.Steps)
	}
	return p
}

// planVersion applies the version rules (judgeVersions) to the versions
// derived from obs, with the upstream calendar at o.AsOf: the control-plane
// upgrade steps, then the node upgrade steps, into the k8s phase.
func (p *Plan) planVersion(t *Topology, obs *Observed, o PlanOptions) {
	j := judgeVersions(t.Kubernetes.Version, DeriveVersions(obs.ServerVersion, obs.Nodes), UpstreamCalendar(), o.AsOf)
	p.Steps = append(p.Steps, j.cpSteps...)
	p.Steps = append(p.Steps, j.nodeSteps...)
	p.Findings = append(p.Findings, j.findings...)
	p.Unknowns = append(p.Unknowns, j.unknowns...)
}

func (p *Plan) add(kind StepKind, phase, target, reason string) {
	p.Steps = append(p.Steps, Step{Kind: kind, Phase: phase, Target: target, Reason: reason})
}

// dropVMSteps removes every VM step: the guard that keeps a prod plan from
// ever proposing to create or start a VM, whatever the observation holds.
func dropVMSteps(steps []Step) []Step {
	out := steps[:0]
	for _, s := range steps {
		if s.Kind == StepCreateVM || s.Kind == StepStartVM {
			continue
		}
		out = append(out, s)
	}
	return out
}

func (p *Plan) planVMs(t *Topology, obs *Observed) {
	if obs.VMs == nil {
		p.Unknowns = append(p.Unknowns, "VMs: not read")
		return
	}
	if !obs.VMs.Known {
		p.Unknowns = append(p.Unknowns, "VMs: "+reasonOr(obs.VMs.Reason))
		return
	}
	vms := make(map[string]VM, len(obs.VMs.Value))
	for _, vm := range obs.VMs.Value {
		vms[vm.Name] = vm
	}
	stray := make(map[string]NotVM, len(obs.NotVMs))
	for _, e := range obs.NotVMs {
		stray[e.Name] = e
	}
	for _, n := range t.Nodes {
		vm, ok := vms[n.Name]
		switch {
		case !ok:
			reason := "declared node has no Lima VM"
			if e, isStray := stray[n.Name]; isStray {
				reason += "; limactl lists an entry of that name that is not a VM (" + limaErrors(e.Errors) + "): move it out of the Lima folder first"
			}
			p.add(StepCreateVM, PhaseUp, n.Name, reason)
		case vm.Status == VMRunning:
		case vm.Status == VMStopped:
			p.add(StepStartVM, PhaseUp, n.Name, "VM is Stopped")
		case vm.Status == VMBroken:
			p.add(StepStartVM, PhaseUp, n.Name, fmt.Sprintf("VM is Broken (%s): stop it with `limactl stop -f %s`, then start it; if it still fails, delete and recreate it", limaErrors(vm.Errors), n.Name))
		case vm.Status == "":
			p.Unknowns = append(p.Unknowns, fmt.Sprintf("VM %s: limactl gives no status (%s)", n.Name, limaErrors(vm.Errors)))
		default:
			p.Unknowns = append(p.Unknowns, fmt.Sprintf("VM %s: status \"%s\"", n.Name, vm.Status))
		}
	}
}

// limaErrors joins limactl's errors of an instance for a reason, or says
// it gave none.
func limaErrors(errs []string) string {
	if len(errs) == 0 {
		return "limactl gives no error"
	}
	return "limactl: " + strings.Join(errs, "; ")
}

func (p *Plan) planNodes(t *Topology, obs *Observed) {
	if !obs.Nodes.Known {
		p.Unknowns = append(p.Unknowns, "nodes: "+reasonOr(obs.Nodes.Reason))
		return
	}
	nodes := make(map[string]NodeState, len(obs.Nodes.Value))
	for _, n := range obs.Nodes.Value {
		nodes[n.Name] = n
	}
	for _, n := range t.Nodes {
		st, ok := nodes[n.Name]
		switch {
		case !ok:
			p.add(StepJoinNode, PhaseK8s, n.Name, "declared, not registered in the cluster")
		case !st.Ready:
			p.add(StepRepairNode, PhaseK8s, n.Name, "registered but "+st.ReadyText())
		case (n.Role == RoleControlPlane) != HasControlPlaneRole(st.Roles):
			roles := strings.Join(st.Roles, ",")
			if roles == "" {
				roles = "<none>"
			}
			p.add(StepRepairNode, PhaseK8s, n.Name, fmt.Sprintf("declared role %s, the cluster's roles: %s", n.Role, roles))
		}
	}
	declared := make(map[string]bool, len(t.Nodes))
	for _, n := range t.Nodes {
		declared[n.Name] = true
	}
	var extra []string
	for _, n := range obs.Nodes.Value {
		if !declared[n.Name] {
			extra = append(extra, n.Name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		p.add(StepUndeclared, PhaseK8s, name, "registered in the cluster but not declared in the topology")
	}
}

func (p *Plan) planBackend(t *Topology, obs *Observed, layer string) {
	if !obs.Storage.Known {
		p.Unknowns = append(p.Unknowns, "default StorageClass: "+reasonOr(obs.Storage.Reason))
		return
	}
	desired := "desired backend " + t.Backend
	if t.Backend != layer {
		desired += " (" + layer + ")"
	}
	s := obs.Storage.Value
	if s.Class == "" {
		reason := desired + ", the cluster has no default StorageClass"
		if s.Warning != "" {
			reason = desired + ", the cluster has no default StorageClass that works: " + s.Warning
		}
		p.add(StepMigrateBackend, layer, layer, reason)
		return
	}
	def, _ := CatalogLayer(layer)
	for _, prov := range def.Provisioners {
		if s.Provisioner == prov {
			return
		}
	}
	reason := fmt.Sprintf("%s, cluster default StorageClass %s (%s)", desired, s.Class, s.Provisioner)
	if len(s.OtherDefaults) > 0 {
		reason += fmt.Sprintf(", the one Kubernetes uses of the %d marked default (also: %s)", len(s.OtherDefaults)+1, strings.Join(s.OtherDefaults, ", "))
	}
	p.add(StepMigrateBackend, layer, layer, reason)
}
