package plan

import (
	"fmt"
	"sort"
	"strings"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// Rules is the pure part of a target kind: the phases it runs before the
// layers, the plan of those phases, and when each of them is done. Each
// target kind implements it in its own package (probes/prod, probes/lima,
// probes/kapsule); Build, Phases and Next call it for the part that
// depends on the kind and judge the layers themselves. Implementations
// are pure: no I/O, no clock (Options.AsOf is the date).
type Rules interface {
	// OwnPhases are the kind's phases before the layers, in order (prod:
	// bootstrap, k8s; lima: up, bootstrap, k8s; kapsule: cluster, pools).
	// They never depend on what was read.
	OwnPhases(t *topology.Topology) []topology.Phase
	// PlanOwn adds to p the steps (each in one of OwnPhases), waiting
	// objects, unknowns and findings of the kind's own phases, judged from
	// obs (obs.NoTarget included: then the plan assumes an empty cluster)
	// at o.AsOf (zero: the calendar is not judged).
	PlanOwn(t *topology.Topology, obs *topology.Observed, o Options, p *topology.Plan)
	// PhaseDone judges one of OwnPhases for Next: done, or unknown (the
	// evidence could not be read, why says what), or not done (why says
	// what is left). Waiting objects are not done, never unknown.
	PhaseDone(t *topology.Topology, obs *topology.Observed, ph topology.Phase) (done, unknown bool, why string)
	// AllDone says what "every phase is done" means for the kind ("nodes
	// and layers match the topology").
	AllDone() string
}

// NodeCluster is the Rules of a kind whose machines are the nodes the
// topology declares (nodes:) and whose cluster is read through a
// kubeconfig: phases bootstrap then k8s. Kinds with more phases embed it
// (lima adds up before them).
type NodeCluster struct{}

// OwnPhases are bootstrap and k8s.
func (NodeCluster) OwnPhases(*topology.Topology) []topology.Phase {
	return []topology.Phase{{Name: topology.PhaseBootstrap, Kind: topology.PhaseKindBootstrap}, {Name: topology.PhaseK8s, Kind: topology.PhaseKindK8s}}
}

// PlanOwn plans the bootstrap and k8s phases:
//
//   - obs.NoTarget (nothing could be read): a bootstrap step (which
//     registers the first control plane) and join-node for every other
//     declared node, all unverified;
//   - otherwise the versions (judgeVersions, on topology.DeriveVersions of
//     obs.ServerVersion and obs.Nodes): when kubernetes.version is declared,
//     upgrade steps one minor at a time for the API server, interleaved
//     with upgrade-node steps for each declared node whose kubelet is
//     behind it (never a node the topology does not declare); findings
//     for a downgrade asked for, kubelet skew and, when o.AsOf is set, the
//     upstream support calendar; server version unknown → Unknowns. Then,
//     when Nodes is known, join-node for a declared node not registered,
//     repair-node for one registered but not Ready (the reason carries the
//     Ready condition's status, reason and message: NodeState.ReadyText) or
//     whose control-plane role (HasControlPlaneRole) differs from the
//     declared role; unknown → Unknowns; a cordoned node is no step; an
//     undeclared step (information) for each registered node the topology
//     does not declare.
//
// The steps are in a dependency order (CheckOrder): repair-node first (a
// node is repaired before it is upgraded), then the version sequence,
// then join-node and the undeclared nodes.
func (NodeCluster) PlanOwn(t *topology.Topology, obs *topology.Observed, o Options, p *topology.Plan) {
	if obs.NoTarget {
		p.Add(topology.StepBootstrap, topology.PhaseBootstrap, t.Name, "unverified: no target was read, so the plan assumes no cluster yet")
		first := ""
		if cps := t.ControlPlanes(); len(cps) > 0 {
			first = cps[0].Name // bootstrap registers it
		}
		for _, n := range t.Nodes {
			if n.Name != first {
				p.Add(topology.StepJoinNode, topology.PhaseK8s, n.Name, "unverified: assumes an empty cluster")
			}
		}
		return
	}
	var nodeSteps []topology.Step
	ns := nodeSet{Declared: make(map[string]bool, len(t.Nodes)), Repair: map[string]string{}}
	for _, n := range t.Nodes {
		ns.Declared[n.Name] = true
	}
	if obs.Nodes.Known {
		nodeSteps = planNodes(t, obs.Nodes.Value)
		for _, s := range nodeSteps {
			if s.Kind == topology.StepRepairNode {
				ns.Repair[s.Target] = topology.StepRef(s)
			}
		}
	}
	j := judgeVersions(t.Kubernetes.Version, topology.DeriveVersions(obs.ServerVersion, obs.Nodes), ns, kube.UpstreamCalendar(), o.AsOf)
	// The order is a dependency order (CheckOrder): a node is repaired
	// before it is upgraded; the version steps interleave the API server
	// and the kubelets (planUpgrades); a node joins the cluster at the
	// version it has reached.
	for _, s := range nodeSteps {
		if s.Kind == topology.StepRepairNode {
			p.Steps = append(p.Steps, s)
		}
	}
	p.Steps = append(p.Steps, j.steps...)
	for _, s := range nodeSteps {
		if s.Kind != topology.StepRepairNode {
			p.Steps = append(p.Steps, s)
		}
	}
	p.Findings = append(p.Findings, j.findings...)
	p.Unknowns = append(p.Unknowns, j.unknowns...)
	if !obs.Nodes.Known {
		p.AddUnknown(topology.NodesSubject(topology.KeyNodes), obs.Nodes.Code, obs.Nodes.Reason)
	}
}

// PhaseDone judges bootstrap by a readable API server (a lima bench
// without its kubeconfig is not bootstrapped, not unknown) and k8s by every
// declared node registered and Ready.
func (NodeCluster) PhaseDone(t *topology.Topology, obs *topology.Observed, ph topology.Phase) (done, unknown bool, why string) {
	switch ph.Kind {
	case topology.PhaseKindBootstrap:
		if obs.ServerVersion.Known {
			return true, false, ""
		}
		if obs.NoBenchCluster {
			return false, false, "no bench cluster was read: " + obs.Nodes.Reason
		}
		return false, true, obs.ServerVersion.Reason
	case topology.PhaseKindK8s:
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
	}
	return false, true, "phase " + ph.Name + " is not one of this kind's"
}

// AllDone: the nodes and the layers match.
func (NodeCluster) AllDone() string { return "nodes and layers match the topology" }

// planNodes returns the steps of the registered nodes against the
// declared ones: join-node, repair-node (NotReady, or the control-plane
// role differs), and undeclared (information) for a node the topology
// does not declare, sorted by name.
func planNodes(t *topology.Topology, observed []topology.NodeState) []topology.Step {
	var steps []topology.Step
	nodes := make(map[string]topology.NodeState, len(observed))
	for _, n := range observed {
		nodes[n.Name] = n
	}
	for _, n := range t.Nodes {
		st, ok := nodes[n.Name]
		switch {
		case !ok:
			steps = append(steps, topology.NewStep(topology.StepJoinNode, topology.PhaseK8s, n.Name, "declared, not registered in the cluster"))
		case !st.Ready:
			steps = append(steps, topology.NewStep(topology.StepRepairNode, topology.PhaseK8s, n.Name, "registered, "+st.ReadyText()))
		case (n.Role == topology.RoleControlPlane) != topology.HasControlPlaneRole(st.Roles):
			roles := strings.Join(st.Roles, ",")
			if roles == "" {
				roles = "<none>"
			}
			steps = append(steps, topology.NewStep(topology.StepRepairNode, topology.PhaseK8s, n.Name, fmt.Sprintf("declared role %s, the cluster's roles: %s", n.Role, roles)))
		}
	}
	declared := make(map[string]bool, len(t.Nodes))
	for _, n := range t.Nodes {
		declared[n.Name] = true
	}
	var extra []string
	for _, n := range observed {
		if !declared[n.Name] {
			extra = append(extra, n.Name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		steps = append(steps, topology.NewStep(topology.StepUndeclared, topology.PhaseK8s, name, "registered in the cluster but not declared in the topology"))
	}
	return steps
}
