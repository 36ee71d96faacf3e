package plan_test

import (
	"math/rand"
	"reflect"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

func TestBuildPlan(t *testing.T) {
	tests := []struct {
		name     string
		topo     func() *topology.Topology
		obs      func() *topology.Observed
		steps    []topology.Step
		unknowns []string
		// codes are the unknowns' ReasonCodes, in order (unchecked when nil).
		codes      []topology.ReasonCode
		unverified bool
	}{
		{
			name:  "prod in sync",
			topo:  fixtures.Dirqual,
			obs:   fixtures.HealthyDirqual,
			steps: []topology.Step{},
		},
		{
			name: "prod: kubernetes version drift is an upgrade step",
			topo: func() *topology.Topology { t := fixtures.Dirqual(); t.Kubernetes.Version = "1.37"; return t },
			obs:  fixtures.HealthyDirqual, // server v1.36.2
			steps: []topology.Step{
				fixtures.Step(topology.StepUpgrade, "k8s", "kubernetes", "API server v1.36.2 → 1.37", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "dirqual1", "kubelet v1.36.2 → 1.37", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "dirqual2", "kubelet v1.36.2 → 1.37", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "dirqual3", "kubelet v1.36.2 → 1.37", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "dirqual4", "kubelet v1.36.2 → 1.37", "1.37"),
			},
		},
		{
			name:  "prod: kubernetes version matches the minor",
			topo:  func() *topology.Topology { t := fixtures.Dirqual(); t.Kubernetes.Version = "1.36"; return t },
			obs:   fixtures.HealthyDirqual,
			steps: []topology.Step{},
		},
		{
			name: "prod: server version unknown is listed, never in sync",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.ServerVersion = topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "timed out after 10s"))
				return o
			},
			steps:    []topology.Step{},
			unknowns: []string{"server version: timed out after 10s"},
		},
		{
			name: "prod: declared control-plane without the role",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Nodes.Value[0].Roles = nil
				return o
			},
			steps: []topology.Step{fixtures.Step(topology.StepRepairNode, "k8s", "dirqual1", "declared role control-plane, the cluster's roles: <none>", "")},
		},
		{
			name: "prod: storage unknown without a declared backend still counts",
			topo: func() *topology.Topology { t := fixtures.Dirqual(); t.Backend = ""; return t },
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Storage = topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "forbidden"))
				return o
			},
			steps:    []topology.Step{},
			unknowns: []string{"default StorageClass: forbidden"},
		},
		{
			name: "prod: cnpg removed, argocd repo-server unavailable",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				fixtures.SetLayer(o, "cnpg", topology.Absent, "none of its CRDs, StorageClasses or workloads found")
				fixtures.SetLayer(o, "argocd", topology.Degraded, "argocd/argocd-repo-server 0/1 available")
				return o
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepInstall, "cnpg", "cnpg", "none of its CRDs, StorageClasses or workloads found", ""),
				fixtures.Step(topology.StepRepair, "argocd", "argocd", "argocd/argocd-repo-server 0/1 available", ""),
			},
		},
		{
			name: "prod: no target assumes an empty cluster, never a VM",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				return &topology.Observed{NoTarget: true, NoTargetReason: "no kubeconfig", VMs: fixtures.VMs("dirqual1", topology.VMStopped)}
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepBootstrap, "bootstrap", "dirqual", "unverified: no target was read, so the plan assumes no cluster yet", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual2", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual3", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual4", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepInstall, "cilium", "cilium", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepInstall, "rook-ceph", "rook-ceph", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepInstall, "cnpg", "cnpg", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepInstall, "argocd", "argocd", "unverified: assumes an empty cluster", ""),
			},
			unknowns:   []string{"the whole cluster: no target was read: no kubeconfig"},
			codes:      []topology.ReasonCode{topology.ReasonNoTarget},
			unverified: true,
		},
		{
			name: "prod: a VM observation is ignored",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.VMs = fixtures.VMs("dirqual2", topology.VMStopped)
				return o
			},
			steps: []topology.Step{},
		},
		{
			name: "prod: nodes missing and NotReady, extra nodes are information",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Nodes = topology.KnownFact([]topology.NodeState{{Name: "dirqual1", Ready: true, Roles: []string{topology.RoleControlPlane}}, {Name: "dirqual2", Ready: false}, {Name: "other", Ready: true}})
				return o
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepRepairNode, "k8s", "dirqual2", "registered, NotReady", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual3", "declared, not registered in the cluster", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual4", "declared, not registered in the cluster", ""),
				fixtures.Step(topology.StepUndeclared, "k8s", "other", "registered in the cluster but not declared in the topology", ""),
			},
		},
		{
			name: "prod: forbidden probes propose nothing",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Nodes = topology.UnknownFact[[]topology.NodeState](topology.Because(topology.ReasonFailed, "forbidden: nodes is forbidden"))
				for i := range o.Layers {
					o.Layers[i].Health, o.Layers[i].Reason, o.Layers[i].Code = topology.Unknown, "workloads: forbidden", topology.ReasonForbidden
				}
				o.Layers[3].Code = "" // a layer unknown without a code is not read
				o.Storage = topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "StorageClasses: forbidden"))
				return o
			},
			steps: []topology.Step{},
			unknowns: []string{
				"nodes: forbidden: nodes is forbidden",
				"layer cilium: workloads: forbidden",
				"layer rook-ceph: workloads: forbidden",
				"default StorageClass: StorageClasses: forbidden",
				"layer cnpg: workloads: forbidden",
				"layer argocd: workloads: forbidden",
			},
			codes: []topology.ReasonCode{topology.ReasonFailed, topology.ReasonForbidden, topology.ReasonForbidden, topology.ReasonFailed, topology.ReasonForbidden, topology.ReasonNotRead},
		},
		{
			name: "prod: a layer missing from the observation is not installed",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Layers = o.Layers[:3]
				return o
			},
			steps:    []topology.Step{},
			unknowns: []string{"layer argocd: not probed"},
			codes:    []topology.ReasonCode{topology.ReasonNotRead},
		},
		{
			name: "backend drift: desired ceph, default local-path",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Storage = topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"})
				return o
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepMigrateBackend, "rook-ceph", "rook-ceph", "desired backend ceph (rook-ceph), cluster default StorageClass local-path (rancher.io/local-path)", ""),
			},
		},
		{
			name: "backend: no default StorageClass",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Storage = topology.KnownFact(topology.StorageState{})
				return o
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepMigrateBackend, "rook-ceph", "rook-ceph", "desired backend ceph (rook-ceph), the cluster has no default StorageClass", ""),
			},
		},
		{
			name: "backend: cephfs class is still ceph",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				o.Storage = topology.KnownFact(topology.StorageState{Class: "cephfs", Provisioner: "rook-ceph.cephfs.csi.ceph.com"})
				return o
			},
			steps: []topology.Step{},
		},
		{
			name: "undeclared layers are information, after the declared ones",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				o := fixtures.HealthyDirqual()
				fixtures.SetLayer(o, "cnpg", topology.Absent, "x")
				o.Layers = append(o.Layers, topology.LayerState{Name: "metrics-server", Health: topology.Healthy, Reason: "kube-system/metrics-server 1/1 available"})
				return o
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepInstall, "cnpg", "cnpg", "x", ""),
				fixtures.Step(topology.StepUndeclared, "metrics-server", "metrics-server", "not declared in the topology, found healthy: kube-system/metrics-server 1/1 available", ""),
			},
		},
		{
			name: "no target, but a layer seen present is never installed",
			topo: fixtures.Dirqual,
			obs: func() *topology.Observed {
				return &topology.Observed{NoTarget: true, Layers: []topology.LayerState{{Name: "cilium", Declared: true, Health: topology.Healthy}, {Name: "cnpg", Declared: true, Health: topology.Unknown, Reason: "timeout"}}}
			},
			steps: []topology.Step{
				fixtures.Step(topology.StepBootstrap, "bootstrap", "dirqual", "unverified: no target was read, so the plan assumes no cluster yet", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual2", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual3", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepJoinNode, "k8s", "dirqual4", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepInstall, "rook-ceph", "rook-ceph", "unverified: assumes an empty cluster", ""),
				fixtures.Step(topology.StepInstall, "argocd", "argocd", "unverified: assumes an empty cluster", ""),
			},
			unknowns:   []string{"the whole cluster: no target was read: not read", "layer cnpg: timeout"},
			codes:      []topology.ReasonCode{topology.ReasonNoTarget, topology.ReasonNotRead},
			unverified: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fixtures.CheckedPlan(t, tc.topo(), tc.obs(), plan.NodeCluster{}, plan.Options{})
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
			if tc.codes != nil {
				codes := make([]topology.ReasonCode, len(got.Unknowns))
				for i, u := range got.Unknowns {
					codes[i] = u.Code
				}
				if !reflect.DeepEqual(codes, tc.codes) {
					t.Errorf("unknowns' codes = %q, want %q", codes, tc.codes)
				}
			}
			for _, u := range got.Unknowns {
				checkUnknownSubject(t, u)
			}
			if got.Unverified != tc.unverified {
				t.Errorf("unverified = %v", got.Unverified)
			}
		})
	}
}

// checkUnknownSubject checks what an unknown of Build is about: a
// code, and the key of its kind (a layer's, the kubeconfig for the whole
// cluster, the nodes, the default StorageClass's backend).
func checkUnknownSubject(t *testing.T, u topology.UnknownPart) {
	t.Helper()
	if u.Code == "" {
		t.Errorf("unknown %q has no reason code", u)
	}
	want := map[topology.SubjectKind]string{topology.SubjectCluster: topology.KeyKubeconfig, topology.SubjectNodes: topology.KeyNodes, topology.SubjectStorage: topology.KeyBackend, topology.SubjectLayers: topology.KeyLayers, topology.SubjectVersion: topology.KeyVersion}[u.Subject.Kind]
	if u.Subject.Kind == topology.SubjectLayer {
		want = "layers/" + u.Subject.Name
	}
	if want == "" || u.Subject.Key != want {
		t.Errorf("unknown %q: subject %+v, want key %q", u, u.Subject, want)
	}
	if u.Subject.Kind == topology.SubjectCluster && u.Code != topology.ReasonNoTarget {
		t.Errorf("the whole cluster unknown %q: reason %q, want %q", u, u.Code, topology.ReasonNoTarget)
	}
}

func TestPlanChangesExcludeUndeclared(t *testing.T) {
	p := topology.Plan{Steps: []topology.Step{{Kind: topology.StepInstall}, {Kind: topology.StepUndeclared}, {Kind: topology.StepRepair}}}
	if p.Changes() != 2 {
		t.Errorf("Changes = %d", p.Changes())
	}
}

// TestPlanInvariants checks, over random observations, the two promises:
// a prod plan never holds a VM step, and no plan installs a layer the
// observation shows present (or could not see).
func TestPlanInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	healths := []topology.Health{topology.Healthy, topology.Degraded, topology.Absent, topology.Unknown}
	statuses := []string{topology.VMRunning, topology.VMStopped, topology.VMBroken, "Starting"}
	for i := 0; i < 2000; i++ {
		tp := fixtures.Dirqual()
		if r.Intn(2) == 0 {
			tp = fixtures.Bench()
		}
		o := &topology.Observed{NoTarget: r.Intn(4) == 0}
		if r.Intn(3) > 0 {
			var v []topology.VM
			for _, n := range tp.Nodes {
				if r.Intn(3) > 0 {
					v = append(v, topology.VM{Name: n.Name, Status: statuses[r.Intn(len(statuses))]})
				}
			}
			f := topology.KnownFact(v)
			o.VMs = &f
		}
		if r.Intn(2) == 0 {
			o.Nodes = fixtures.ReadyNodes(tp.Nodes[0].Name)
		}
		for _, l := range tp.Layers {
			if r.Intn(4) > 0 {
				o.Layers = append(o.Layers, topology.LayerState{Name: l.Name, Declared: true, Health: healths[r.Intn(len(healths))]})
			}
		}
		p := fixtures.CheckedPlan(t, tp, o, plan.NodeCluster{}, plan.Options{})
		seen := map[string]topology.Health{}
		for _, l := range o.Layers {
			seen[l.Name] = l.Health
		}
		for _, s := range p.Steps {
			if tp.TargetKind == topology.TargetProd && (s.Kind == topology.StepCreateVM || s.Kind == topology.StepStartVM) {
				t.Fatalf("prod plan with a VM step: %+v", s)
			}
			if s.Kind == topology.StepInstall {
				if h, ok := seen[s.Target]; ok && h != topology.Absent {
					t.Fatalf("install of %s observed %s", s.Target, h)
				}
				if _, ok := seen[s.Target]; !ok && !o.NoTarget {
					t.Fatalf("install of unobserved %s with a target", s.Target)
				}
			}
		}
		if p.Unverified != o.NoTarget {
			t.Fatalf("unverified = %v, NoTarget = %v", p.Unverified, o.NoTarget)
		}
	}
}

func TestBuildPlanNilObservation(t *testing.T) {
	p := fixtures.CheckedPlan(t, fixtures.Dirqual(), nil, plan.NodeCluster{}, plan.Options{})
	if !p.Unverified || p.Changes() == 0 {
		t.Errorf("nil observation: %+v", p)
	}
}
