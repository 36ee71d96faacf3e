package action

import (
	"strings"
	"testing"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

func TestShellQuote(t *testing.T) {
	if got := ShellQuote("sh", "/a b/it's"); got != `'/a b/it'\''s'` {
		t.Fatalf("sh: %s", got)
	}
	if got := ShellQuote("fish", `/a\b/it's`); got != `'/a\\b/it\'s'` {
		t.Fatalf("fish: %s", got)
	}
}

func TestNewNextStep(t *testing.T) {
	prod := &topology.Topology{Name: "p", TargetKind: topology.TargetProd,
		Nodes:  []topology.Node{{Name: "n1", Role: topology.RoleControlPlane}},
		Layers: []topology.LayerRef{{Name: "cilium"}, {Name: "cnpg"}}}
	prodDeclared := &topology.Topology{Name: "p", TargetKind: topology.TargetProd, Kubeconfig: "~/.kube/p.config", Inventory: "hosts.ini",
		Nodes: prod.Nodes, Layers: prod.Layers}
	lima := &topology.Topology{Name: "b", TargetKind: topology.TargetLima,
		Nodes: []topology.Node{{Name: "lima-node1", Role: topology.RoleControlPlane}, {Name: "lima-node2", Role: topology.RoleWorker}}}
	readyNode := topology.KnownFact([]topology.NodeState{{Name: "n1", Ready: true, Roles: []string{topology.RoleControlPlane}}})
	cases := []struct {
		name        string
		t           *topology.Topology
		obs         *topology.Observed
		none        probes.NoTargetKind
		phase       string
		unknown     bool
		done        bool
		mustNotSay  string
		mustSayWhy  string
		mustSayNext string
	}{
		{name: "prod no target", t: prod, obs: probes.NoTargetObservation("no kubeconfig"), none: probes.NoKubeconfig, unknown: true,
			mustNotSay: "VM", mustSayNext: "give the stack a target first: add `kubeconfig: ~/.kube/p.config` (`nestor stack select p` offers it), then fetch it with `nestor discover --cp n1`"},
		{name: "prod kubeconfig declared, not fetched", t: prodDeclared, obs: probes.NoTargetObservation("the kubeconfig does not exist yet"), none: probes.KubeconfigMissing, unknown: true,
			mustNotSay: "stack select", mustSayNext: "give the stack a target first: fetch it from the control plane with `nestor discover --cp n1`"},
		{name: "kapsule without credentials", t: &topology.Topology{Name: "k", TargetKind: topology.TargetKapsule}, obs: probes.NoTargetObservation("no Scaleway credentials"), none: probes.NoCredentials, unknown: true,
			mustNotSay: "discover", mustSayNext: "give the stack a target first (see the reason), then run `nestor next` again"},
		{name: "prod cnpg missing", t: prod, obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"), Nodes: readyNode,
			Layers: []topology.LayerState{{Name: "cilium", Declared: true, Health: topology.Healthy}, {Name: "cnpg", Declared: true, Health: topology.Absent}},
		}, phase: "cnpg", mustNotSay: "VM"},
		{name: "prod layer unknown stops the walk", t: prod, obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"), Nodes: readyNode,
			Layers: []topology.LayerState{{Name: "cilium", Declared: true, Health: topology.Unknown, Reason: "forbidden"}, {Name: "cnpg", Declared: true, Health: topology.Absent}},
		}, unknown: true, mustSayWhy: "forbidden"},
		{name: "prod all done", t: prod, obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"), Nodes: readyNode,
			Layers:  []topology.LayerState{{Name: "cilium", Declared: true, Health: topology.Healthy}, {Name: "cnpg", Declared: true, Health: topology.Healthy}},
			Storage: topology.KnownFact(topology.StorageState{}),
		}, done: true},
		{name: "prod version drift is next, as preview plans it", t: func() *topology.Topology { c := *prod; c.Kubernetes.Version = "1.38"; return &c }(), obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"), Nodes: readyNode,
			Layers:  []topology.LayerState{{Name: "cilium", Declared: true, Health: topology.Healthy}, {Name: "cnpg", Declared: true, Health: topology.Healthy}},
			Storage: topology.KnownFact(topology.StorageState{}),
		}, phase: "k8s", mustSayWhy: "upgrade kubernetes: API server v1.37.2 → 1.38"},
		{name: "lima VM stopped", t: lima, obs: &topology.Observed{
			VMs: &topology.VMsObserved{Known: true, Value: []topology.VM{{Name: "lima-node1", Status: "Running"}, {Name: "lima-node2", Status: "Stopped"}}},
		}, phase: "up", mustSayWhy: "lima-node2 (Stopped)"},
		{name: "lima limactl missing", t: lima, obs: &topology.Observed{
			VMs: &topology.VMsObserved{Reason: "limactl is not installed"},
		}, unknown: true, mustSayWhy: "limactl is not installed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, err := KindOf(c.t)
			if err != nil {
				t.Fatal(err)
			}
			s := &Stack{Topology: c.t, Kind: k}
			var none *probes.NoTarget
			if c.none != "" {
				// As Open sets it: the kind of what is missing, and its fix.
				none = &probes.NoTarget{Kind: c.none}
				none.Fix = noTargetFix(s, none)
			}
			n := NewNextStep(s, c.obs, none)
			if n.Phase != c.phase || n.Unknown != c.unknown || n.Done != c.done {
				t.Fatalf("got %+v", n)
			}
			all := n.Phase + " " + n.Why + " " + n.Run
			if c.mustNotSay != "" && strings.Contains(all, c.mustNotSay) {
				t.Fatalf("says %q: %s", c.mustNotSay, all)
			}
			if !strings.Contains(n.Why, c.mustSayWhy) {
				t.Fatalf("why %q lacks %q", n.Why, c.mustSayWhy)
			}
			if !strings.Contains(n.Run, c.mustSayNext) {
				t.Fatalf("run %q lacks %q", n.Run, c.mustSayNext)
			}
		})
	}
}
