package plan_test

import (
	"reflect"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// TestPlanNodeRolesAcrossDistributions feeds the plan the roles the API
// server's node printer derives from each distribution's labels (every
// node-role.kubernetes.io/<role> label whatever its value, and the value of
// kubernetes.io/role), and checks that a node declared as it really is gets
// no repair-node step, and one declared otherwise gets one.
func TestPlanNodeRolesAcrossDistributions(t *testing.T) {
	tests := []struct {
		name     string
		roles    []string // as the Roles column gives them: sorted
		declared string
	}{
		{"kubeadm control-plane=\"\"", []string{"control-plane"}, topology.RoleControlPlane},
		{"kubeadm before 1.20: master=\"\"", []string{"master"}, topology.RoleControlPlane},
		{"kubeadm 1.20-1.23: both", []string{"control-plane", "master"}, topology.RoleControlPlane},
		{"RKE1 all roles, controlplane=true", []string{"controlplane", "etcd", "worker"}, topology.RoleControlPlane},
		{"RKE1 controlplane only", []string{"controlplane"}, topology.RoleControlPlane},
		{"RKE1 etcd-only node", []string{"etcd"}, topology.RoleWorker},
		{"RKE1 worker=true", []string{"worker"}, topology.RoleWorker},
		{"k3s/RKE2 server: control-plane, etcd, master =true", []string{"control-plane", "etcd", "master"}, topology.RoleControlPlane},
		{"k3s server without etcd", []string{"control-plane", "master"}, topology.RoleControlPlane},
		{"RKE2 etcd-only server", []string{"etcd"}, topology.RoleWorker},
		{"k3s agent: no role label", nil, topology.RoleWorker},
		{"kops: kubernetes.io/role=master", []string{"master"}, topology.RoleControlPlane},
		{"kops: kubernetes.io/role=node", []string{"node"}, topology.RoleWorker},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := &topology.Topology{Name: "x", TargetKind: topology.TargetProd, Nodes: []topology.Node{{Name: "n1", Role: tc.declared}}}
			obs := &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2"), Storage: topology.KnownFact(topology.StorageState{}),
				Nodes: topology.KnownFact([]topology.NodeState{{Name: "n1", Ready: true, ReadyStatus: topology.ConditionTrue, Roles: tc.roles}})}
			if p := fixtures.CheckedPlan(t, topo, obs, plan.NodeCluster{}, plan.Options{}); len(p.Steps) != 0 {
				t.Errorf("declared %s, roles %v: steps %s", tc.declared, tc.roles, fixtures.StepsText(p.Steps))
			}
			other := topology.RoleWorker
			if tc.declared == topology.RoleWorker {
				other = topology.RoleControlPlane
			}
			topo.Nodes[0].Role = other
			p := fixtures.CheckedPlan(t, topo, obs, plan.NodeCluster{}, plan.Options{})
			if len(p.Steps) != 1 || p.Steps[0].Kind != topology.StepRepairNode {
				t.Errorf("declared %s, roles %v: steps %s, want one repair-node", other, tc.roles, fixtures.StepsText(p.Steps))
			}
		})
	}
}

func TestPlanNodeNotReadyCarriesTheClusterReason(t *testing.T) {
	topo := &topology.Topology{Name: "legacy", TargetKind: topology.TargetProd, Nodes: []topology.Node{
		{Name: "legacy-cp1", Role: topology.RoleControlPlane}, {Name: "legacy-w1", Role: topology.RoleWorker},
		{Name: "legacy-w2", Role: topology.RoleWorker}, {Name: "legacy-w3", Role: topology.RoleWorker}, {Name: "legacy-w4", Role: topology.RoleWorker},
	}}
	obs := &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2"), Storage: topology.KnownFact(topology.StorageState{}), Nodes: topology.KnownFact([]topology.NodeState{
		{Name: "legacy-cp1", Ready: true, ReadyStatus: topology.ConditionTrue, Roles: []string{"master"}},
		{Name: "legacy-w1", ReadyStatus: topology.ConditionUnknown, ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status."},
		// cordoned, Ready: no step (a cordon is the operator's decision)
		{Name: "legacy-w2", Ready: true, ReadyStatus: topology.ConditionTrue, Unschedulable: true},
		{Name: "legacy-w3", ReadyStatus: topology.ConditionFalse, ReadyReason: "KubeletNotReady", ReadyMessage: "container runtime network not ready: NetworkReady=false", Unschedulable: true},
		{Name: "legacy-w4", ReadyMessage: "the node has no Ready condition (its kubelet has not posted a status)"},
	})}
	want := []topology.Step{
		fixtures.Step(topology.StepRepairNode, topology.PhaseK8s, "legacy-w1", "registered, Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status.", ""),
		fixtures.Step(topology.StepRepairNode, topology.PhaseK8s, "legacy-w3", "registered, Ready=False, KubeletNotReady: container runtime network not ready: NetworkReady=false", ""),
		fixtures.Step(topology.StepRepairNode, topology.PhaseK8s, "legacy-w4", "registered, NotReady, the node has no Ready condition (its kubelet has not posted a status)", ""),
	}
	if got := fixtures.CheckedPlan(t, topo, obs, plan.NodeCluster{}, plan.Options{}).Steps; !reflect.DeepEqual(got, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", fixtures.StepsText(got), fixtures.StepsText(want))
	}
}
