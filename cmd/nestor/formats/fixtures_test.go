package formats

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// fixtureAsOf is the day the fixtures' calendars are judged at.
var fixtureAsOf = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// fixtureReadAt is the time the fixtures were "read".
var fixtureReadAt = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// fixtureProd builds, through action.NewReport, the report of the prod stack
// dirqual (prodTopologyText, written to dir) over an observation with a bit
// of everything: a NotReady node whose kubelet is three minors behind (an
// error finding and three upgrade-node steps), an undeclared node, a
// degraded layer, a layer that could not be read, an undeclared layer.
func fixtureProd(t *testing.T, dir string) *action.Report {
	t.Helper()
	tp := parsedTopology(t, dir, "dirqual", prodTopologyText)
	obs := &topology.Observed{
		ServerVersion: topology.KnownFact("v1.37.2"),
		Nodes: topology.KnownFact([]topology.NodeState{
			{Name: "dirqual1", Ready: true, ReadyStatus: "True", Roles: []string{"control-plane"}, KubeletVersion: "v1.37.2", InternalIP: "10.67.2.11"},
			{Name: "dirqual2", ReadyStatus: "Unknown", ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status.", Roles: []string{}, KubeletVersion: "v1.34.6"},
			{Name: "dirqual9", Ready: true, ReadyStatus: "True", Roles: []string{}, KubeletVersion: "v1.37.2"},
		}),
		Layers: []topology.LayerState{
			{Name: "cilium", Declared: true, Health: topology.Healthy, Reason: "kube-system/cilium 3/3 available"},
			{Name: "rook-ceph", Declared: true, Health: topology.Degraded, Reason: "rook-ceph/rook-ceph-osd-1 0/1 available"},
			{Name: "cnpg", Declared: true, Health: topology.Unknown, Code: topology.ReasonForbidden, Reason: "forbidden (user nestor cannot list customresourcedefinitions.apiextensions.k8s.io)"},
			{Name: "cert-manager", Health: topology.Healthy, Reason: "CRD group cert-manager.io"},
		},
		Storage: topology.KnownFact(topology.StorageState{Class: "rook-ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Backend: "rook-ceph"}),
	}
	obs.DeriveVersions()
	r := action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, fixtureAsOf)
	yes := true
	r.Target = &action.TargetInfo{Endpoint: "https://10.67.2.11:6443", Context: "admin@dirqual", Kubeconfig: []string{"/home/op/.kube/dirqual.config"},
		Source: "topology", SourceDetail: "kubeconfig: in " + tp.Path, DeclaredEndpoint: "https://10.67.2.11:6443", EndpointMatches: &yes}
	return r
}

// fixtureKapsule builds the report of the kapsule stack apps
// (kapsuleTopologyText): the cluster ready at 1.35.3, pool default in sync,
// pool burst scaling (waiting), the provider's end of life for 1.35 in 15
// days (a warning finding), a node of default not ready with autohealing
// off (replace-node).
func fixtureKapsule(t *testing.T, dir string) *action.Report {
	t.Helper()
	tp := parsedTopology(t, dir, "apps", kapsuleTopologyText)
	eol := time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)
	dep := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	obs := &topology.Observed{
		Kapsule: &topology.KapsuleObserved{
			Cluster: topology.KnownFact(topology.KapsuleCluster{ID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90", Name: "apps", Region: "fr-par", Status: "ready", Version: "1.35.3"}),
			Pools: topology.KnownFact([]topology.KapsulePool{
				{ID: "p1", Name: "default", Status: "ready", Version: "1.35.3", NodeType: "pro2_xxs", Size: 3},
				{ID: "p2", Name: "burst", Status: "scaling", Version: "1.35.3", NodeType: "pro2_s", Autoscaling: true, MinSize: 0, MaxSize: 5},
			}),
			Nodes: topology.KnownFact([]topology.KapsuleNode{
				{Name: "scw-apps-default-1", PoolID: "p1", Status: "ready"},
				{Name: "scw-apps-default-2", PoolID: "p1", Status: "not_ready", ErrorMessage: "kubelet down"},
				{Name: "scw-apps-default-3", PoolID: "p1", Status: "ready"},
			}),
			Available: topology.KnownFact([]string{"1.35.3", "1.36.1"}),
			Versions:  topology.KnownFact([]topology.KapsuleVersion{{Name: "1.35.3", DeprecatedAt: &dep, EndOfLifeAt: &eol}}),
			ACL:       topology.KnownFact([]string{"scaleway_ranges"}),
			Provider:  []string{},
			InCluster: "no kubeconfig: declared",
		},
		Layers: []topology.LayerState{{Name: "argocd", Declared: true, Health: topology.Healthy, Reason: "argocd/argocd-server 1/1 available"}},
	}
	return action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, fixtureAsOf)
}

// fixtureFleet is a mixed fleet: dirqual (changes), apps (kapsule,
// waiting), edge (refused: its endpoint is another), broken (an invalid
// topology).
func fixtureFleet(t *testing.T, dir string) *action.FleetReport {
	t.Helper()
	prod, kap := fixtureProd(t, dir), fixtureKapsule(t, dir)
	edge := parsedTopology(t, dir, "edge", "name: edge\ntarget_kind: prod\nendpoint: https://10.9.0.1:6443\nnodes:\n  - {name: edge1, role: control-plane}\n")
	refusal := &probes.EndpointMismatchError{Stack: "edge", File: edge.Path, Declared: "https://10.9.0.1:6443", Actual: "https://10.9.0.2:6443",
		Context: "admin@other", Kubeconfig: probes.Kubeconfig{Paths: []string{"/home/op/.kube/other.config"}, Detail: "KUBECONFIG in the environment"}}
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("name: broken\ntarget_kind: prod\nnodes:\n  - {name: Bad_Node, role: control-plane}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, loadErr := stacks.Load(broken)
	if loadErr == nil {
		t.Fatal("broken.yaml loads")
	}
	return &action.FleetReport{FormatVersion: action.FleetFormatVersion, AsOf: fixtureAsOf.Format(time.DateOnly), Stacks: []action.FleetStack{
		{Name: "apps", File: kap.Stack.File, TargetKind: topology.TargetKapsule, Outcome: kap.Outcome(), Report: kap},
		{Name: "broken", File: broken, Outcome: action.OutcomeInvalid, Reason: loadErr.Error(), Err: loadErr},
		{Name: "dirqual", File: prod.Stack.File, TargetKind: topology.TargetProd, Outcome: prod.Outcome(), Report: prod},
		{Name: "edge", File: edge.Path, TargetKind: topology.TargetProd, Outcome: action.OutcomeRefused, Reason: refusal.Error(), Err: refusal, Topology: edge},
	}}
}

// kindOf is the registered kind of tp, for the reports built here.
func kindOf(tp *topology.Topology) probes.Kind {
	k, err := action.KindOf(tp)
	if err != nil {
		panic(err)
	}
	return k
}
