package topology

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func dirqual() *Topology {
	return &Topology{
		Path: "/s/stacks/dirqual.yaml", Name: "dirqual", TargetKind: TargetProd,
		Nodes: []Node{
			{Name: "dirqual1", Role: RoleControlPlane}, {Name: "dirqual2", Role: RoleWorker},
			{Name: "dirqual3", Role: RoleWorker}, {Name: "dirqual4", Role: RoleWorker},
		},
		Backend: "ceph",
		Layers:  []LayerRef{{Name: "cilium"}, {Name: "rook-ceph"}, {Name: "cnpg"}, {Name: "argocd"}},
	}
}

func bench() *Topology {
	return &Topology{
		Path: "/s/stacks/bench.yaml", Name: "bench", TargetKind: TargetLima,
		Nodes:   []Node{{Name: "lima-node1", Role: RoleControlPlane}, {Name: "lima-node2", Role: RoleWorker}},
		Backend: "local-path",
		Layers:  []LayerRef{{Name: "flannel"}, {Name: "local-path"}},
		Lima:    &Lima{},
	}
}

func readyNodes(names ...string) Fact[[]NodeState] {
	var ns []NodeState
	for _, n := range names {
		st := NodeState{Name: n, Ready: true, KubeletVersion: "v1.36.2"}
		if strings.HasSuffix(n, "1") { // dirqual1 and lima-node1 are the control planes
			st.Roles = []string{RoleControlPlane}
		}
		ns = append(ns, st)
	}
	return KnownFact(ns)
}

func healthyLayers(t *Topology) []LayerState {
	var out []LayerState
	for _, l := range t.Layers {
		out = append(out, LayerState{Name: l.Name, Declared: true, Health: Healthy})
	}
	return out
}

func healthyDirqual() *Observed {
	t := dirqual()
	return &Observed{
		ServerVersion: KnownFact("v1.36.2"),
		Nodes:         readyNodes("dirqual1", "dirqual2", "dirqual3", "dirqual4"),
		Layers:        healthyLayers(t),
		Storage:       KnownFact(StorageState{Class: "ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Backend: "rook-ceph"}),
	}
}

func setLayer(o *Observed, name string, h Health, reason string) {
	for i := range o.Layers {
		if o.Layers[i].Name == name {
			o.Layers[i].Health, o.Layers[i].Reason = h, reason
		}
	}
}

func vms(pairs ...string) *VMsObserved {
	var v []VM
	for i := 0; i+1 < len(pairs); i += 2 {
		v = append(v, VM{Name: pairs[i], Status: pairs[i+1]})
	}
	f := KnownFact(v)
	return &f
}

func TestBuildPlan(t *testing.T) {
	tests := []struct {
		name     string
		topo     func() *Topology
		obs      func() *Observed
		steps    []Step
		unknowns []string
		// codes are the unknowns' ReasonCodes, in order (unchecked when nil).
		codes      []ReasonCode
		unverified bool
	}{
		{
			name:  "prod in sync",
			topo:  dirqual,
			obs:   healthyDirqual,
			steps: []Step{},
		},
		{
			name: "prod: kubernetes version drift is an upgrade step",
			topo: func() *Topology { t := dirqual(); t.Kubernetes.Version = "1.37"; return t },
			obs:  healthyDirqual, // server v1.36.2
			steps: []Step{
				mkStep(StepUpgrade, "k8s", "kubernetes", "API server v1.36.2 → 1.37", "1.37"),
				mkStep(StepUpgradeNode, "k8s", "dirqual1", "kubelet v1.36.2 → 1.37", "1.37"),
				mkStep(StepUpgradeNode, "k8s", "dirqual2", "kubelet v1.36.2 → 1.37", "1.37"),
				mkStep(StepUpgradeNode, "k8s", "dirqual3", "kubelet v1.36.2 → 1.37", "1.37"),
				mkStep(StepUpgradeNode, "k8s", "dirqual4", "kubelet v1.36.2 → 1.37", "1.37"),
			},
		},
		{
			name:  "prod: kubernetes version matches the minor",
			topo:  func() *Topology { t := dirqual(); t.Kubernetes.Version = "1.36"; return t },
			obs:   healthyDirqual,
			steps: []Step{},
		},
		{
			name: "prod: server version unknown is listed, never in sync",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.ServerVersion = UnknownFact[string](Because(ReasonFailed, "timed out after 10s"))
				return o
			},
			steps:    []Step{},
			unknowns: []string{"server version: timed out after 10s"},
		},
		{
			name: "prod: declared control-plane without the role",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Nodes.Value[0].Roles = nil
				return o
			},
			steps: []Step{mkStep(StepRepairNode, "k8s", "dirqual1", "declared role control-plane, the cluster's roles: <none>", "")},
		},
		{
			name: "prod: storage unknown without a declared backend still counts",
			topo: func() *Topology { t := dirqual(); t.Backend = ""; return t },
			obs: func() *Observed {
				o := healthyDirqual()
				o.Storage = UnknownFact[StorageState](Because(ReasonFailed, "forbidden"))
				return o
			},
			steps:    []Step{},
			unknowns: []string{"default StorageClass: forbidden"},
		},
		{
			name: "prod: cnpg removed, argocd repo-server unavailable",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				setLayer(o, "cnpg", Absent, "none of its CRDs, StorageClasses or workloads found")
				setLayer(o, "argocd", Degraded, "argocd/argocd-repo-server 0/1 available")
				return o
			},
			steps: []Step{
				mkStep(StepInstall, "cnpg", "cnpg", "none of its CRDs, StorageClasses or workloads found", ""),
				mkStep(StepRepair, "argocd", "argocd", "argocd/argocd-repo-server 0/1 available", ""),
			},
		},
		{
			name: "prod: no target assumes an empty cluster, never a VM",
			topo: dirqual,
			obs: func() *Observed {
				return &Observed{NoTarget: true, NoTargetReason: "no kubeconfig", VMs: vms("dirqual1", VMStopped)}
			},
			steps: []Step{
				mkStep(StepBootstrap, "bootstrap", "dirqual", "unverified: no target was read, so the plan assumes no cluster yet", ""),
				mkStep(StepJoinNode, "k8s", "dirqual2", "unverified: assumes an empty cluster", ""),
				mkStep(StepJoinNode, "k8s", "dirqual3", "unverified: assumes an empty cluster", ""),
				mkStep(StepJoinNode, "k8s", "dirqual4", "unverified: assumes an empty cluster", ""),
				mkStep(StepInstall, "cilium", "cilium", "unverified: assumes an empty cluster", ""),
				mkStep(StepInstall, "rook-ceph", "rook-ceph", "unverified: assumes an empty cluster", ""),
				mkStep(StepInstall, "cnpg", "cnpg", "unverified: assumes an empty cluster", ""),
				mkStep(StepInstall, "argocd", "argocd", "unverified: assumes an empty cluster", ""),
			},
			unknowns:   []string{"the whole cluster: no target was read: no kubeconfig"},
			codes:      []ReasonCode{ReasonNoTarget},
			unverified: true,
		},
		{
			name: "prod: a VM observation is ignored",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.VMs = vms("dirqual2", VMStopped)
				return o
			},
			steps: []Step{},
		},
		{
			name: "prod: nodes missing and NotReady, extra nodes are information",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Nodes = KnownFact([]NodeState{{Name: "dirqual1", Ready: true, Roles: []string{RoleControlPlane}}, {Name: "dirqual2", Ready: false}, {Name: "other", Ready: true}})
				return o
			},
			steps: []Step{
				mkStep(StepRepairNode, "k8s", "dirqual2", "registered, NotReady", ""),
				mkStep(StepJoinNode, "k8s", "dirqual3", "declared, not registered in the cluster", ""),
				mkStep(StepJoinNode, "k8s", "dirqual4", "declared, not registered in the cluster", ""),
				mkStep(StepUndeclared, "k8s", "other", "registered in the cluster but not declared in the topology", ""),
			},
		},
		{
			name: "prod: forbidden probes propose nothing",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Nodes = UnknownFact[[]NodeState](Because(ReasonFailed, "forbidden: nodes is forbidden"))
				for i := range o.Layers {
					o.Layers[i].Health, o.Layers[i].Reason, o.Layers[i].Code = Unknown, "workloads: forbidden", ReasonForbidden
				}
				o.Layers[3].Code = "" // a layer unknown without a code is not read
				o.Storage = UnknownFact[StorageState](Because(ReasonFailed, "StorageClasses: forbidden"))
				return o
			},
			steps: []Step{},
			unknowns: []string{
				"nodes: forbidden: nodes is forbidden",
				"layer cilium: workloads: forbidden",
				"layer rook-ceph: workloads: forbidden",
				"default StorageClass: StorageClasses: forbidden",
				"layer cnpg: workloads: forbidden",
				"layer argocd: workloads: forbidden",
			},
			codes: []ReasonCode{ReasonFailed, ReasonForbidden, ReasonForbidden, ReasonFailed, ReasonForbidden, ReasonNotRead},
		},
		{
			name: "prod: a layer missing from the observation is not installed",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Layers = o.Layers[:3]
				return o
			},
			steps:    []Step{},
			unknowns: []string{"layer argocd: not probed"},
			codes:    []ReasonCode{ReasonNotRead},
		},
		{
			name: "backend drift: desired ceph, default local-path",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Storage = KnownFact(StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"})
				return o
			},
			steps: []Step{
				mkStep(StepMigrateBackend, "rook-ceph", "rook-ceph", "desired backend ceph (rook-ceph), cluster default StorageClass local-path (rancher.io/local-path)", ""),
			},
		},
		{
			name: "backend: no default StorageClass",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Storage = KnownFact(StorageState{})
				return o
			},
			steps: []Step{
				mkStep(StepMigrateBackend, "rook-ceph", "rook-ceph", "desired backend ceph (rook-ceph), the cluster has no default StorageClass", ""),
			},
		},
		{
			name: "backend: cephfs class is still ceph",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				o.Storage = KnownFact(StorageState{Class: "cephfs", Provisioner: "rook-ceph.cephfs.csi.ceph.com"})
				return o
			},
			steps: []Step{},
		},
		{
			name: "undeclared layers are information, after the declared ones",
			topo: dirqual,
			obs: func() *Observed {
				o := healthyDirqual()
				setLayer(o, "cnpg", Absent, "x")
				o.Layers = append(o.Layers, LayerState{Name: "metrics-server", Health: Healthy, Reason: "kube-system/metrics-server 1/1 available"})
				return o
			},
			steps: []Step{
				mkStep(StepInstall, "cnpg", "cnpg", "x", ""),
				mkStep(StepUndeclared, "metrics-server", "metrics-server", "not declared in the topology, found healthy: kube-system/metrics-server 1/1 available", ""),
			},
		},
		{
			name: "no target, but a layer seen present is never installed",
			topo: dirqual,
			obs: func() *Observed {
				return &Observed{NoTarget: true, Layers: []LayerState{{Name: "cilium", Declared: true, Health: Healthy}, {Name: "cnpg", Declared: true, Health: Unknown, Reason: "timeout"}}}
			},
			steps: []Step{
				mkStep(StepBootstrap, "bootstrap", "dirqual", "unverified: no target was read, so the plan assumes no cluster yet", ""),
				mkStep(StepJoinNode, "k8s", "dirqual2", "unverified: assumes an empty cluster", ""),
				mkStep(StepJoinNode, "k8s", "dirqual3", "unverified: assumes an empty cluster", ""),
				mkStep(StepJoinNode, "k8s", "dirqual4", "unverified: assumes an empty cluster", ""),
				mkStep(StepInstall, "rook-ceph", "rook-ceph", "unverified: assumes an empty cluster", ""),
				mkStep(StepInstall, "argocd", "argocd", "unverified: assumes an empty cluster", ""),
			},
			unknowns:   []string{"the whole cluster: no target was read: not read", "layer cnpg: timeout"},
			codes:      []ReasonCode{ReasonNoTarget, ReasonNotRead},
			unverified: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := BuildPlan(tc.topo(), tc.obs(), NodeCluster{}, PlanOptions{})
			if !reflect.DeepEqual(got.Steps, tc.steps) {
				t.Errorf("steps:\n%s\nwant:\n%s", fmtSteps(got.Steps), fmtSteps(tc.steps))
			}
			want := tc.unknowns
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(Texts(got.Unknowns), want) {
				t.Errorf("unknowns = %q, want %q", got.Unknowns, want)
			}
			if tc.codes != nil {
				codes := make([]ReasonCode, len(got.Unknowns))
				for i, u := range got.Unknowns {
					codes[i] = u.Reason
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

func fmtSteps(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "  %s [%s] %s: %s", s.Kind, s.Phase, s.Target, s.Reason)
		if s.To != "" {
			fmt.Fprintf(&b, " (to %s)", s.To)
		}
		fmt.Fprintf(&b, " {%s %q key %q}\n", s.Subject.Kind, s.Subject.Text, s.Subject.Key)
	}
	return b.String()
}

// checkUnknownSubject checks what an unknown of BuildPlan is about: a
// code, and the key of its kind (a layer's, the kubeconfig for the whole
// cluster, the nodes, the default StorageClass's backend).
func checkUnknownSubject(t *testing.T, u UnknownPart) {
	t.Helper()
	if u.Reason == "" {
		t.Errorf("unknown %q has no reason code", u)
	}
	want := map[SubjectKind]string{SubjectCluster: KeyKubeconfig, SubjectNodes: KeyNodes, SubjectStorage: KeyBackend, SubjectLayers: KeyLayers, SubjectVersion: KeyVersion}[u.Subject.Kind]
	if u.Subject.Kind == SubjectLayer {
		want = "layers/" + u.Subject.Name
	}
	if want == "" || u.Subject.Key != want {
		t.Errorf("unknown %q: subject %+v, want key %q", u, u.Subject, want)
	}
	if u.Subject.Kind == SubjectCluster && u.Reason != ReasonNoTarget {
		t.Errorf("the whole cluster unknown %q: reason %q, want %q", u, u.Reason, ReasonNoTarget)
	}
}

// mkStep is the step of kind in phase acting on target, as NewStep builds
// it (its subject included), moving to to ("" when it is no upgrade).
func mkStep(kind StepKind, phase, target, reason, to string) Step {
	s := NewStep(kind, phase, target, reason)
	s.To = to
	return s
}

func TestPlanChangesExcludeUndeclared(t *testing.T) {
	p := Plan{Steps: []Step{{Kind: StepInstall}, {Kind: StepUndeclared}, {Kind: StepRepair}}}
	if p.Changes() != 2 {
		t.Errorf("Changes = %d", p.Changes())
	}
}

// TestPlanInvariants checks, over random observations, the two promises:
// a prod plan never holds a VM step, and no plan installs a layer the
// observation shows present (or could not see).
func TestPlanInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	healths := []Health{Healthy, Degraded, Absent, Unknown}
	statuses := []string{VMRunning, VMStopped, VMBroken, "Starting"}
	for i := 0; i < 2000; i++ {
		tp := dirqual()
		if r.Intn(2) == 0 {
			tp = bench()
		}
		o := &Observed{NoTarget: r.Intn(4) == 0}
		if r.Intn(3) > 0 {
			var v []VM
			for _, n := range tp.Nodes {
				if r.Intn(3) > 0 {
					v = append(v, VM{Name: n.Name, Status: statuses[r.Intn(len(statuses))]})
				}
			}
			f := KnownFact(v)
			o.VMs = &f
		}
		if r.Intn(2) == 0 {
			o.Nodes = readyNodes(tp.Nodes[0].Name)
		}
		for _, l := range tp.Layers {
			if r.Intn(4) > 0 {
				o.Layers = append(o.Layers, LayerState{Name: l.Name, Declared: true, Health: healths[r.Intn(len(healths))]})
			}
		}
		p := BuildPlan(tp, o, NodeCluster{}, PlanOptions{})
		seen := map[string]Health{}
		for _, l := range o.Layers {
			seen[l.Name] = l.Health
		}
		for _, s := range p.Steps {
			if tp.TargetKind == TargetProd && (s.Kind == StepCreateVM || s.Kind == StepStartVM) {
				t.Fatalf("prod plan with a VM step: %+v", s)
			}
			if s.Kind == StepInstall {
				if h, ok := seen[s.Target]; ok && h != Absent {
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
	p := BuildPlan(dirqual(), nil, NodeCluster{}, PlanOptions{})
	if !p.Unverified || p.Changes() == 0 {
		t.Errorf("nil observation: %+v", p)
	}
}
