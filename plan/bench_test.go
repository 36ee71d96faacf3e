package plan_test

import (
	"fmt"
	"testing"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// benchInputs builds a prod topology of 50 nodes and 15 catalog layers, and
// an observation of 500 registered nodes (every declared one Ready but the
// 7th, which is NotReady, and the 13th missing), mixed layer healths and
// three undeclared layers.
func benchInputs() (*topology.Topology, *topology.Observed) {
	t := &topology.Topology{Path: "/s/stacks/big.yaml", Name: "big", TargetKind: topology.TargetProd, Backend: "ceph"}
	for i := 0; i < 50; i++ {
		role := topology.RoleWorker
		if i < 3 {
			role = topology.RoleControlPlane
		}
		t.Nodes = append(t.Nodes, topology.Node{Name: fmt.Sprintf("node%03d", i), Role: role})
	}
	names := topology.CatalogNames()
	for _, n := range names {
		if n == "calico" || n == "flannel" || n == "traefik" {
			continue
		}
		if len(t.Layers) == 15 {
			break
		}
		t.Layers = append(t.Layers, topology.LayerRef{Name: n})
	}
	o := &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2")}
	var nodes []topology.NodeState
	for i := 0; i < 500; i++ {
		if i == 13 {
			continue
		}
		nodes = append(nodes, topology.NodeState{Name: fmt.Sprintf("node%03d", i), Ready: i != 7, Roles: roles(i), KubeletVersion: "v1.37.2"})
	}
	o.Nodes = topology.KnownFact(nodes)
	healths := []topology.Health{topology.Healthy, topology.Healthy, topology.Degraded, topology.Absent, topology.Unknown}
	for i, l := range t.Layers {
		o.Layers = append(o.Layers, topology.LayerState{Name: l.Name, Declared: true, Health: healths[i%len(healths)], Reason: "why"})
	}
	for _, n := range []string{"calico", "flannel", "traefik"} {
		o.Layers = append(o.Layers, topology.LayerState{Name: n, Health: topology.Healthy})
	}
	o.Storage = topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"})
	return t, o
}

func BenchmarkBuildPlan(b *testing.B) {
	t, o := benchInputs()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p := plan.Build(t, o, plan.NodeCluster{}, plan.Options{})
		if len(p.Steps) == 0 {
			b.Fatal("empty plan")
		}
	}
}

func TestBenchInputsPlan(t *testing.T) {
	tp, o := benchInputs()
	p := plan.Build(tp, o, plan.NodeCluster{}, plan.Options{})
	counts := map[topology.StepKind]int{}
	for _, s := range p.Steps {
		counts[s.Kind]++
	}
	want := map[topology.StepKind]int{topology.StepJoinNode: 1, topology.StepRepairNode: 1, topology.StepInstall: 3, topology.StepRepair: 3, topology.StepMigrateBackend: 1, topology.StepUndeclared: 3 + 450} // 3 layers, and 450 of the 500 observed nodes are not declared
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d steps, want %d (%v)", k, counts[k], n, counts)
		}
	}
	if len(p.Unknowns) != 3 {
		t.Errorf("unknowns = %v", p.Unknowns)
	}
}

// roles gives the observed node i the roles benchInputs declares for it.
func roles(i int) []string {
	if i < 3 {
		return []string{topology.RoleControlPlane}
	}
	return []string{"worker"}
}
