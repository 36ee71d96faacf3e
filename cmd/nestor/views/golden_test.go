package views

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/probes/prod"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"

	"nestor.dev/nestor/tests/golden"
)

// goldenDir holds the human views drawn from fixed observations (states a
// test cluster cannot be put in cheaply); the commands themselves are
// golden-tested through app.Run (cmd/nestor/app).
const goldenDir = "../../../tests/testdata/golden/render"

func goldenTopology() *topology.Topology {
	return &topology.Topology{
		Path: "/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Kubeconfig: "~/.kube/dirqual.config", Endpoint: "https://10.67.2.11:6443",
		Kubernetes: topology.Kubernetes{Version: "1.37"},
		Nodes: []topology.Node{
			{Name: "dirqual1", Role: topology.RoleControlPlane, Address: "10.67.2.11"},
			{Name: "dirqual2", Role: topology.RoleWorker},
		},
		Backend: "ceph",
		Layers:  []topology.LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}, {Name: "cnpg"}, {Name: "argocd"}},
	}
}

// TestGoldenPreview draws the human view of fixed observations and compares
// it byte for byte with tests/testdata/golden/render/<case>/stdout.golden.
func TestGoldenPreview(t *testing.T) {
	yes := true
	cases := []struct {
		name   string
		obs    *topology.Observed
		target bool
	}{
		{name: "no-target", obs: probes.NoTargetObservation("the kubeconfig /home/op/.kube/dirqual.config (kubeconfig: in /stacks/dirqual.yaml) does not exist yet — fetch it from the control plane with `nestor discover --cp dirqual1`")},
		{name: "drift", target: true, obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"),
			Nodes: topology.KnownFact([]topology.NodeState{
				{Name: "dirqual1", Ready: true, Roles: []string{"control-plane"}, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.11"},
				{Name: "dirqual2", Ready: false, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.12"},
				{Name: "dirqual9", Ready: true, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.19"},
			}),
			Layers: []topology.LayerState{
				{Name: "cilium", Declared: true, Health: topology.Healthy, Reason: "kube-system/cilium 3/3 available"},
				{Name: "rook-ceph", Declared: true, Health: topology.Healthy, Reason: "rook-ceph/rook-ceph-operator 1/1 available"},
				{Name: "cnpg", Declared: true, Health: topology.Absent, Reason: "none of its CRDs, StorageClasses or workloads found"},
				{Name: "argocd", Declared: true, Health: topology.Degraded, Reason: "argocd/argocd-repo-server 0/1 available"},
				{Name: "metrics-server", Health: topology.Healthy, Reason: "kube-system/metrics-server 1/1 available"},
			},
			Storage: topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"}),
		}},
		{name: "forbidden", target: true, obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"),
			Nodes:         topology.UnknownFact[[]topology.NodeState](topology.Because(topology.ReasonFailed, "forbidden (user nestor-test-noaccess cannot list nodes)")),
			Layers: []topology.LayerState{
				{Name: "cilium", Declared: true, Health: topology.Unknown, Reason: "CRDs: forbidden"},
				{Name: "rook-ceph", Declared: true, Health: topology.Unknown, Reason: "CRDs: forbidden"},
				{Name: "cnpg", Declared: true, Health: topology.Unknown, Reason: "CRDs: forbidden"},
				{Name: "argocd", Declared: true, Health: topology.Unknown, Reason: "CRDs: forbidden"},
			},
			Storage: topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "forbidden (user nestor-test-noaccess cannot list storageclasses.storage.k8s.io)")),
		}},
		// An operator told to leave its object alone: the layer is
		// suspended, neither healthy nor repaired, and the plan says why.
		{name: "suspended", target: true, obs: &topology.Observed{
			ServerVersion: topology.KnownFact("v1.37.2"),
			Nodes: topology.KnownFact([]topology.NodeState{
				{Name: "dirqual1", Ready: true, Roles: []string{"control-plane"}, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.11"},
				{Name: "dirqual2", Ready: true, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.12"},
			}),
			Layers: []topology.LayerState{
				{Name: "cilium", Declared: true, Health: topology.Healthy, Reason: "kube-system/cilium 2/2 available"},
				{Name: "rook-ceph", Declared: true, Health: topology.Healthy, Reason: "Ceph HEALTH_OK, 8 workloads available"},
				{Name: "cnpg", Declared: true, Health: topology.Suspended, Reason: `Cluster db/pg: reconciliation disabled (cnpg.io/reconciliationLoop: disabled): no self-healing, no failover; its status is frozen (last phase "Cluster in healthy state")`},
				{Name: "argocd", Declared: true, Health: topology.Healthy, Reason: "argocd/argocd-server 1/1 available"},
			},
			Storage: topology.KnownFact(topology.StorageState{Class: "ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Backend: "rook-ceph"}),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.obs.DeriveVersions() // as the pipeline's Read does
			r := action.NewReport(prod.Kind{}, &probes.Opened{Topology: goldenTopology()}, c.obs, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
			if c.target {
				r.Target = &action.TargetInfo{Endpoint: "https://10.67.2.11:6443", Context: "admin@dirqual",
					Kubeconfig: []string{"/home/op/.kube/dirqual.config"}, Source: "topology",
					SourceDetail: "kubeconfig: in /stacks/dirqual.yaml", DeclaredEndpoint: "https://10.67.2.11:6443", EndpointMatches: &yes}
			}
			var got bytes.Buffer
			renderPreview(&got, r, newPalette(false), false, func(s string) string { return "nestor " + s })
			golden.Check(t, filepath.Join(goldenDir, c.name, "stdout.golden"), got.Bytes())
		})
	}
}
