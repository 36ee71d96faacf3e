package lima

import (
	"reflect"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// The lima plan: the up phase from limactl's VMs, before the node
// cluster's phases and the layers.
func TestBuildPlanLima(t *testing.T) {
	tests := []struct {
		name     string
		topo     func() *topology.Topology
		obs      func() *topology.Observed
		steps    []topology.Step
		unknowns []string
		// codes and keys are the unknowns' ReasonCodes and topology keys,
		// in order (unchecked when nil).
		codes      []topology.ReasonCode
		keys       []string
		unverified bool
	}{
		{
			name: "lima: node2 stopped, no bench kubeconfig",
			topo: fixtures.Bench,
			obs: func() *topology.Observed {
				return &topology.Observed{
					VMs:           fixtures.VMs("lima-node1", topology.VMRunning, "lima-node2", topology.VMStopped),
					ServerVersion: topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "no bench kubeconfig at /s/.work/bench/kubeconfig")),
					Nodes:         topology.UnknownFact[[]topology.NodeState](topology.Because(topology.ReasonFailed, "no bench kubeconfig at /s/.work/bench/kubeconfig")),
					Layers:        []topology.LayerState{{Name: "flannel", Declared: true, Health: topology.Unknown, Reason: "no bench kubeconfig"}, {Name: "local-path", Declared: true, Health: topology.Unknown, Reason: "no bench kubeconfig"}},
					Storage:       topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "no bench kubeconfig")),
				}
			},
			steps: []topology.Step{topology.NewStep(topology.StepStartVM, "up", "lima-node2", "VM is Stopped")},
			unknowns: []string{
				"server version: no bench kubeconfig at /s/.work/bench/kubeconfig",
				"nodes: no bench kubeconfig at /s/.work/bench/kubeconfig",
				"layer flannel: no bench kubeconfig",
				"layer local-path: no bench kubeconfig",
				"default StorageClass: no bench kubeconfig",
			},
		},
		{
			name: "lima: VMs missing, broken, odd status",
			topo: func() *topology.Topology {
				b := fixtures.Bench()
				b.Nodes = append(b.Nodes, topology.Node{Name: "lima-node3", Role: topology.RoleWorker}, topology.Node{Name: "lima-node4", Role: topology.RoleWorker})
				return b
			},
			obs: func() *topology.Observed {
				o := &topology.Observed{
					VMs:           fixtures.VMs("lima-node2", topology.VMBroken, "lima-node3", "Starting", "lima-node4", topology.VMRunning),
					ServerVersion: topology.KnownFact("v1.37.2"),
					Nodes:         fixtures.ReadyNodes("lima-node1", "lima-node2", "lima-node3", "lima-node4"),
					Storage:       topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path"}),
				}
				o.Layers = fixtures.HealthyLayers(fixtures.Bench())
				return o
			},
			steps: []topology.Step{
				topology.NewStep(topology.StepCreateVM, "up", "lima-node1", "declared node has no Lima VM"),
				topology.NewStep(topology.StepStartVM, "up", "lima-node2", "VM is Broken (limactl gives no error): stop it with `limactl stop -f lima-node2`, then start it; if it still fails, delete and recreate it"),
			},
			unknowns: []string{`VM lima-node3: status "Starting"`},
			codes:    []topology.ReasonCode{topology.ReasonUnrecognised},
			keys:     []string{"nodes/lima-node3"},
		},
		{
			name: "lima: limactl missing",
			topo: fixtures.Bench,
			obs: func() *topology.Observed {
				f := topology.UnknownFact[[]topology.VM](topology.Because(topology.ReasonNotInstalled, `exec: "limactl": executable file not found in $PATH`))
				o := &topology.Observed{VMs: &f, ServerVersion: topology.KnownFact("v1.37.2"), Nodes: fixtures.ReadyNodes("lima-node1", "lima-node2"), Storage: topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path"})}
				o.Layers = fixtures.HealthyLayers(fixtures.Bench())
				return o
			},
			steps:    []topology.Step{},
			unknowns: []string{`VMs: exec: "limactl": executable file not found in $PATH`},
			codes:    []topology.ReasonCode{topology.ReasonNotInstalled},
			keys:     []string{"nodes"},
		},
		{
			name: "lima: VMs not read at all",
			topo: fixtures.Bench,
			obs: func() *topology.Observed {
				o := &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2"), Nodes: fixtures.ReadyNodes("lima-node1", "lima-node2"), Storage: topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path"})}
				o.Layers = fixtures.HealthyLayers(fixtures.Bench())
				return o
			},
			steps:    []topology.Step{},
			unknowns: []string{"VMs: not read"},
			codes:    []topology.ReasonCode{topology.ReasonNotRead},
			keys:     []string{"nodes"},
		},
		{
			name: "lima: no target, VMs still count",
			topo: fixtures.Bench,
			obs: func() *topology.Observed {
				return &topology.Observed{NoTarget: true, VMs: fixtures.VMs("lima-node1", topology.VMRunning)}
			},
			steps: []topology.Step{
				topology.NewStep(topology.StepCreateVM, "up", "lima-node2", "declared node has no Lima VM"),
				topology.NewStep(topology.StepBootstrap, "bootstrap", "bench", "unverified: no target was read, so the plan assumes no cluster yet"),
				topology.NewStep(topology.StepJoinNode, "k8s", "lima-node2", "unverified: assumes an empty cluster"),
				topology.NewStep(topology.StepInstall, "flannel", "flannel", "unverified: assumes an empty cluster"),
				topology.NewStep(topology.StepInstall, "local-path", "local-path", "unverified: assumes an empty cluster"),
			},
			unknowns:   []string{"the whole cluster: no target was read: not read"},
			codes:      []topology.ReasonCode{topology.ReasonNoTarget},
			keys:       []string{"kubeconfig"},
			unverified: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := tc.obs()
			got := plan.Build(tc.topo(), obs, Rules{}, plan.Options{})
			if err := plan.CheckOrder(got, topology.DeriveVersions(obs.ServerVersion, obs.Nodes)); err != nil {
				t.Errorf("not a valid order:\n%v", err)
			}
			if !reflect.DeepEqual(got.Steps, tc.steps) {
				t.Errorf("steps:\n%s\nwant:\n%s", fixtures.StepsText(got.Steps), fixtures.StepsText(tc.steps))
			}
			want := tc.unknowns
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(topology.Texts(got.Unknowns), want) {
				t.Errorf("unknowns = %q, want %q", got.Unknowns, want)
			}
			var codes []topology.ReasonCode
			var keys []string
			for _, u := range got.Unknowns {
				codes, keys = append(codes, u.Code), append(keys, u.Subject.Key)
			}
			if tc.codes != nil && !reflect.DeepEqual(codes, tc.codes) {
				t.Errorf("unknowns' codes = %q, want %q", codes, tc.codes)
			}
			if tc.keys != nil && !reflect.DeepEqual(keys, tc.keys) {
				t.Errorf("unknowns' keys = %q, want %q", keys, tc.keys)
			}
			if got.Unverified != tc.unverified {
				t.Errorf("unverified = %v", got.Unverified)
			}
		})
	}
}

// The phases of a lima stack: up first, then the node cluster's, then the
// layers.
func TestPhases(t *testing.T) {
	layers := []topology.LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}}
	want := []topology.Phase{
		{Name: "up", Kind: "up"}, {Name: "bootstrap", Kind: "bootstrap"}, {Name: "k8s", Kind: "k8s"},
		{Name: "cilium", Kind: "layer", Layer: "cilium"}, {Name: "rook-ceph", Kind: "layer", Layer: "rook-ceph"},
	}
	if got := plan.Phases(&topology.Topology{TargetKind: topology.TargetLima, Layers: layers}, Rules{}); !reflect.DeepEqual(got, want) {
		t.Errorf("Phases = %+v, want %+v", got, want)
	}
}

func TestPlanVMsWithLimaErrors(t *testing.T) {
	topo := func() *topology.Topology {
		b := fixtures.Bench()
		b.Nodes = append(b.Nodes, topology.Node{Name: "lima-node3", Role: topology.RoleWorker}, topology.Node{Name: "lima-node4", Role: topology.RoleWorker})
		return b
	}
	vmsOf := func(v ...topology.VM) *topology.VMsObserved { f := topology.KnownFact(v); return &f }
	obs := &topology.Observed{
		VMs: vmsOf(
			topology.VM{Name: "lima-node1", Status: topology.VMRunning, Dir: "/h/.lima/lima-node1"},
			topology.VM{Name: "lima-node2", Status: topology.VMBroken, Dir: "/h/.lima/lima-node2", Errors: []string{
				`failed to connect to "/h/.lima/lima-node2/ha.sock": stat /h/.lima/lima-node2/ha.sock: no such file or directory`}},
			topology.VM{Name: "lima-node3", Status: "", Dir: "/h/.lima/lima-node3", Errors: []string{"cannot read lima.yaml"}},
		),
		NotVMs: []topology.NotVM{
			{Name: "docker.yaml", Errors: []string{"open /h/.lima/docker.yaml/lima.yaml: not a directory"}},
			{Name: "lima-node4", Errors: []string{"open /h/.lima/lima-node4/lima.yaml: not a directory"}},
		},
		ServerVersion: topology.KnownFact("v1.37.2"),
		Nodes:         fixtures.ReadyNodes("lima-node1", "lima-node2", "lima-node3", "lima-node4"),
		Storage:       topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path"}),
		Layers:        fixtures.HealthyLayers(fixtures.Bench()),
	}
	p := plan.Build(topo(), obs, Rules{}, plan.Options{})
	want := []topology.Step{
		topology.NewStep(topology.StepStartVM, topology.PhaseUp, "lima-node2", "VM is Broken (limactl: failed to connect to \"/h/.lima/lima-node2/ha.sock\": stat /h/.lima/lima-node2/ha.sock: no such file or directory): stop it with `limactl stop -f lima-node2`, then start it; if it still fails, delete and recreate it"),
		topology.NewStep(topology.StepCreateVM, topology.PhaseUp, "lima-node4", "declared node has no Lima VM; limactl lists an entry of that name that is not a VM (limactl: open /h/.lima/lima-node4/lima.yaml: not a directory): move it out of the Lima folder first"),
	}
	if !reflect.DeepEqual(p.Steps, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", fixtures.StepsText(p.Steps), fixtures.StepsText(want))
	}
	wantUnknowns := []string{"VM lima-node3: limactl gives no status (limactl: cannot read lima.yaml)"}
	if !reflect.DeepEqual(topology.Texts(p.Unknowns), wantUnknowns) {
		t.Errorf("unknowns = %q, want %q", p.Unknowns, wantUnknowns)
	}
	if len(p.Unknowns) == 1 && (p.Unknowns[0].Subject != topology.VMSubject("lima-node3") || p.Unknowns[0].Code != topology.ReasonNotReported) {
		t.Errorf("unknown %+v, want VM lima-node3, %s", p.Unknowns[0], topology.ReasonNotReported)
	}
	// A stray file never counts as a VM: docker.yaml is nowhere in the plan,
	// and a prod plan ignores all of it.
	for _, s := range p.Steps {
		if s.Target == "docker.yaml" {
			t.Errorf("a stray file in the plan: %+v", s)
		}
	}
}
