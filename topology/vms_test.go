package topology

import (
	"reflect"
	"testing"
)

func TestPlanVMsWithLimaErrors(t *testing.T) {
	topo := func() *Topology {
		b := bench()
		b.Nodes = append(b.Nodes, Node{Name: "lima-node3", Role: RoleWorker}, Node{Name: "lima-node4", Role: RoleWorker})
		return b
	}
	vmsOf := func(v ...VM) *VMsObserved { f := KnownFact(v); return &f }
	obs := &Observed{
		VMs: vmsOf(
			VM{Name: "lima-node1", Status: VMRunning, Dir: "/h/.lima/lima-node1"},
			VM{Name: "lima-node2", Status: VMBroken, Dir: "/h/.lima/lima-node2", Errors: []string{
				`failed to connect to "/h/.lima/lima-node2/ha.sock": stat /h/.lima/lima-node2/ha.sock: no such file or directory`}},
			VM{Name: "lima-node3", Status: "", Dir: "/h/.lima/lima-node3", Errors: []string{"cannot read lima.yaml"}},
		),
		NotVMs: []NotVM{
			{Name: "docker.yaml", Errors: []string{"open /h/.lima/docker.yaml/lima.yaml: not a directory"}},
			{Name: "lima-node4", Errors: []string{"open /h/.lima/lima-node4/lima.yaml: not a directory"}},
		},
		ServerVersion: KnownFact("v1.37.2"),
		Nodes:         readyNodes("lima-node1", "lima-node2", "lima-node3", "lima-node4"),
		Storage:       KnownFact(StorageState{Class: "local-path", Provisioner: "rancher.io/local-path"}),
		Layers:        healthyLayers(bench()),
	}
	p := BuildPlan(topo(), obs, PlanOptions{})
	want := []Step{
		{StepStartVM, PhaseUp, "lima-node2", "VM is Broken (limactl: failed to connect to \"/h/.lima/lima-node2/ha.sock\": stat /h/.lima/lima-node2/ha.sock: no such file or directory): stop it with `limactl stop -f lima-node2`, then start it; if it still fails, delete and recreate it"},
		{StepCreateVM, PhaseUp, "lima-node4", "declared node has no Lima VM; limactl lists an entry of that name that is not a VM (limactl: open /h/.lima/lima-node4/lima.yaml: not a directory): move it out of the Lima folder first"},
	}
	if !reflect.DeepEqual(p.Steps, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", fmtSteps(p.Steps), fmtSteps(want))
	}
	wantUnknowns := []string{"VM lima-node3: limactl gives no status (limactl: cannot read lima.yaml)"}
	if !reflect.DeepEqual(p.Unknowns, wantUnknowns) {
		t.Errorf("unknowns = %q, want %q", p.Unknowns, wantUnknowns)
	}
	// A stray file never counts as a VM: docker.yaml is nowhere in the plan,
	// and a prod plan ignores all of it.
	for _, s := range p.Steps {
		if s.Target == "docker.yaml" {
			t.Errorf("a stray file in the plan: %+v", s)
		}
	}
	prod := dirqual()
	prodObs := healthyDirqual()
	prodObs.VMs, prodObs.NotVMs = obs.VMs, obs.NotVMs
	if p := BuildPlan(prod, prodObs, PlanOptions{}); len(p.Steps) != 0 {
		t.Errorf("prod plan with lima entries: %s", fmtSteps(p.Steps))
	}
}
