package health

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

func wl(kind, ns, name string, desired, ready int32) topology.WorkloadState {
	return topology.WorkloadState{Kind: kind, Namespace: ns, Name: name, Desired: desired, Ready: ready}
}

// healthyFacts is a cluster running argocd, cnpg and local-path, healthy.
func healthyFacts() topology.ClusterFacts {
	return topology.ClusterFacts{
		Namespaces: topology.KnownFact([]string{"default", "kube-system", "argocd", "cnpg-system", "local-path-storage"}),
		CRDGroups:  topology.KnownFact([]string{"argoproj.io", "postgresql.cnpg.io"}),
		StorageClasses: topology.KnownFact([]topology.StorageClass{
			{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true},
		}),
		Workloads: topology.KnownFact([]topology.WorkloadState{
			wl(topology.KindDeployment, "argocd", "argocd-server", 1, 1),
			wl(topology.KindDeployment, "argocd", "argocd-repo-server", 1, 1),
			wl(topology.KindStatefulSet, "argocd", "argocd-application-controller", 1, 1),
			wl(topology.KindDeployment, "cnpg-system", "cnpg-controller-manager", 1, 1),
			wl(topology.KindDeployment, "local-path-storage", "local-path-provisioner", 1, 1),
			wl(topology.KindDeployment, "kube-system", "coredns", 2, 2),
		}),
		WorkloadNamespaces: []string{"argocd", "cnpg-system", "kube-system", "local-path-storage", "monitoring", "rook-ceph"},
		// cnpg's own resources read: no database cluster yet, no backup.
		Status: topology.StatusFacts{Lists: map[string]topology.Fact[[]topology.StatusObject]{
			"clusters.postgresql.cnpg.io": topology.KnownFact([]topology.StatusObject{}),
			"backups.postgresql.cnpg.io":  topology.KnownFact([]topology.StatusObject{}),
			"applications.argoproj.io":    topology.KnownFact([]topology.StatusObject{}),
		}},
	}
}

func TestJudgeWorkloads(t *testing.T) {
	argocd, _ := topology.CatalogLayer("argocd")
	cnpg, _ := topology.CatalogLayer("cnpg")
	rook, _ := topology.CatalogLayer("rook-ceph")
	localPath, _ := topology.CatalogLayer("local-path")
	kps, _ := topology.CatalogLayer("kube-prometheus-stack")
	calico, _ := topology.CatalogLayer("calico")
	custom, _ := topology.LayerDefFor(topology.LayerRef{Name: "mlflow", Detect: &topology.Detect{Deployment: "mlflow/mlflow"}})
	nsOnly, _ := topology.LayerDefFor(topology.LayerRef{Name: "team", Detect: &topology.Detect{Namespace: "argocd"}})

	tests := []struct {
		name   string
		def    topology.LayerDef
		facts  func(f *topology.ClusterFacts)
		health topology.Health
		reason string
	}{
		{"healthy", argocd, nil, topology.Healthy,
			"CRD group argoproj.io, argocd/argocd-server 1/1 available, argocd/argocd-repo-server 1/1 available, argocd/argocd-application-controller 1/1 available"},
		{"degraded: not available", argocd, func(f *topology.ClusterFacts) {
			f.Workloads.Value[1].Ready = 0
		}, topology.Degraded, "argocd/argocd-repo-server 0/1 available"},
		{"degraded: scaled to zero", argocd, func(f *topology.ClusterFacts) {
			f.Workloads.Value[0].Desired, f.Workloads.Value[0].Ready = 0, 0
		}, topology.Degraded, "argocd/argocd-server 0/0 available"},
		{"degraded: operator missing but CRDs left", cnpg, func(f *topology.ClusterFacts) {
			f.Workloads.Value = f.Workloads.Value[:3]
		}, topology.Degraded, "Deployment cnpg-controller-manager not found in cnpg-system"},
		{"absent: nothing, everything known", rook, nil, topology.Absent, "none of its CRDs, StorageClasses or workloads found"},
		{"absent: namespace not read but known not to exist", rook, func(f *topology.ClusterFacts) {
			f.WorkloadNamespaces = []string{"argocd"}
		}, topology.Absent, "none of its CRDs, StorageClasses or workloads found"},
		{"unknown: workloads forbidden, nothing else found", rook, func(f *topology.ClusterFacts) {
			f.Workloads = topology.UnknownFact[[]topology.WorkloadState](topology.Because(topology.ReasonFailed, "forbidden: deployments.apps is forbidden"))
		}, topology.Unknown, "workloads: forbidden: deployments.apps is forbidden"},
		{"unknown: CRDs timed out", cnpg, func(f *topology.ClusterFacts) {
			f.CRDGroups = topology.UnknownFact[[]string](topology.Because(topology.ReasonFailed, "timeout after 10s"))
			f.Workloads.Value = nil
		}, topology.Unknown, "CRDs: timeout after 10s"},
		{"unknown: present by CRD, workloads forbidden", argocd, func(f *topology.ClusterFacts) {
			f.Workloads = topology.UnknownFact[[]topology.WorkloadState](topology.Because(topology.ReasonFailed, "forbidden"))
		}, topology.Unknown, "present (CRD group argoproj.io) but workloads: forbidden"},
		{"unknown: namespace not read and exists", kps, func(f *topology.ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "monitoring", "kube-prometheus-stack", "prometheus")
			f.WorkloadNamespaces = []string{"monitoring"}
		}, topology.Unknown, "not checked: Deployment *kube-prometheus*-operator (namespace kube-prometheus-stack, prometheus not read), StatefulSet prometheus-*kube-prometheus*-prometheus (namespace kube-prometheus-stack, prometheus not read)"},
		{"unknown: namespaces unknown and not read", kps, func(f *topology.ClusterFacts) {
			f.Namespaces = topology.UnknownFact[[]string](topology.Because(topology.ReasonFailed, "forbidden"))
			f.WorkloadNamespaces = nil
		}, topology.Unknown, "not checked:"},
		{"unknown: present, its namespace's list failed", argocd, func(f *topology.ClusterFacts) {
			f.WorkloadNamespaces = []string{"cnpg-system", "kube-system", "local-path-storage"}
			f.WorkloadErrors = map[string]topology.Why{"argocd": topology.Because(topology.ReasonForbidden, "deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)")}
		}, topology.Unknown, "present (CRD group argoproj.io) but deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)"},
		{"unknown, not absent: nothing found, its namespace's list failed", rook, func(f *topology.ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "rook-ceph")
			f.WorkloadNamespaces = []string{"argocd"}
			f.WorkloadErrors = map[string]topology.Why{"rook-ceph": topology.Because(topology.ReasonTimedOut, "statefulsets in rook-ceph: timed out after 10s")}
		}, topology.Unknown, "statefulsets in rook-ceph: timed out after 10s"},
		{"degraded, and a namespace failed", calico, func(f *topology.ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "calico-system")
			f.Workloads.Value = append(f.Workloads.Value, wl(topology.KindDaemonSet, "kube-system", "calico-node", 3, 0))
			f.WorkloadErrors = map[string]topology.Why{"calico-system": topology.Because(topology.ReasonForbidden, "deployments in calico-system: forbidden (x)")}
		}, topology.Degraded, "kube-system/calico-node 0/3 available; deployments in calico-system: forbidden (x)"},
		{"unknown: every list failed, its own namespace's error", cnpg, func(f *topology.ClusterFacts) {
			f.Workloads = topology.UnknownFact[[]topology.WorkloadState](topology.Because(topology.ReasonFailed, "forbidden (first: argocd)"))
			f.WorkloadNamespaces = []string{}
			f.WorkloadErrors = map[string]topology.Why{"argocd": topology.Because(topology.ReasonForbidden, "deployments in argocd: forbidden (a)"), "cnpg-system": topology.Because(topology.ReasonForbidden, "deployments in cnpg-system: forbidden (c)")}
		}, topology.Unknown, "present (CRD group postgresql.cnpg.io) but deployments in cnpg-system: forbidden (c)"},
		{"storage by provisioner", localPath, nil, topology.Healthy, "StorageClass local-path (rancher.io/local-path), local-path-storage/local-path-provisioner 1/1 available"},
		{"storage: StorageClasses unknown, workload healthy", localPath, func(f *topology.ClusterFacts) {
			f.StorageClasses = topology.UnknownFact[[]topology.StorageClass](topology.Because(topology.ReasonFailed, "forbidden"))
		}, topology.Healthy, "local-path-storage/local-path-provisioner 1/1 available"},
		{"custom absent", custom, func(f *topology.ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "mlflow")
			f.WorkloadNamespaces = append(f.WorkloadNamespaces, "mlflow")
		}, topology.Absent, "not found: deployment mlflow/mlflow"},
		{"custom unknown: its namespace was not read", custom, func(f *topology.ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "mlflow")
		}, topology.Unknown, "not checked: Deployment mlflow (namespace mlflow not read)"},
		{"custom healthy", custom, func(f *topology.ClusterFacts) {
			f.Workloads.Value = append(f.Workloads.Value, wl(topology.KindDeployment, "mlflow", "mlflow", 2, 2))
			f.WorkloadNamespaces = append(f.WorkloadNamespaces, "mlflow")
		}, topology.Healthy, "mlflow/mlflow 2/2 available"},
		{"namespace-only custom present", nsOnly, nil, topology.Healthy, "namespace argocd"},
		{"namespace-only custom unknown", nsOnly, func(f *topology.ClusterFacts) {
			f.Namespaces = topology.UnknownFact[[]string](topology.Because(topology.ReasonFailed, "forbidden"))
		}, topology.Unknown, "namespaces: forbidden"},
	}
	codes := map[string]topology.ReasonCode{
		"unknown: workloads forbidden, nothing else found":                topology.ReasonFailed,
		"unknown: namespace not read and exists":                          topology.ReasonNotRead,
		"unknown: present, its namespace's list failed":                   topology.ReasonForbidden,
		"unknown, not absent: nothing found, its namespace's list failed": topology.ReasonTimedOut,
		"unknown: every list failed, its own namespace's error":           topology.ReasonForbidden,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyFacts()
			if tc.facts != nil {
				tc.facts(&f)
			}
			got := JudgeWorkloads(tc.def, f, true)
			if got.Health != tc.health || !strings.Contains(got.Reason, tc.reason) || got.Name != tc.def.Name || !got.Declared {
				t.Errorf("JudgeWorkloads = %+v\nwant health %s, reason containing %q", got, tc.health, tc.reason)
			}
			// An unknown layer says why with a code; a known one has none.
			if want, ok := codes[tc.name]; ok && got.Code != want {
				t.Errorf("Code = %q, want %q", got.Code, want)
			}
			if (got.Health == topology.Unknown) != (got.Code != "") {
				t.Errorf("%s layer with Code %q", got.Health, got.Code)
			}
		})
	}
}

func TestJudgeUndeclared(t *testing.T) {
	tp := &topology.Topology{Layers: []topology.LayerRef{{Name: "argocd"}}}
	f := healthyFacts()
	f.Workloads.Value = append(f.Workloads.Value, wl(topology.KindDeployment, "kube-system", "metrics-server", 1, 0))
	got := undeclared(tp, f)
	var names []string
	for _, s := range got {
		if s.Declared {
			t.Errorf("%s marked declared", s.Name)
		}
		names = append(names, s.Name+":"+string(s.Health))
	}
	want := []string{"local-path:healthy", "cnpg:healthy", "metrics-server:degraded"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("undeclared = %v, want %v", names, want)
	}

	// Nothing readable: nothing is reported (never a guess).
	unknown := topology.ClusterFacts{
		Namespaces:     topology.UnknownFact[[]string](topology.Because(topology.ReasonFailed, "forbidden")),
		CRDGroups:      topology.UnknownFact[[]string](topology.Because(topology.ReasonFailed, "forbidden")),
		StorageClasses: topology.UnknownFact[[]topology.StorageClass](topology.Because(topology.ReasonFailed, "forbidden")),
		Workloads:      topology.UnknownFact[[]topology.WorkloadState](topology.Because(topology.ReasonFailed, "forbidden")),
	}
	if got := undeclared(tp, unknown); len(got) != 0 {
		t.Errorf("Undeclared on unknown facts = %+v", got)
	}
	// A namespace alone is no sign.
	onlyNS := topology.ClusterFacts{Namespaces: topology.KnownFact([]string{"cnpg-system", "argocd", "monitoring"}),
		CRDGroups: topology.KnownFact([]string{}), StorageClasses: topology.KnownFact([]topology.StorageClass{}), Workloads: topology.KnownFact([]topology.WorkloadState{})}
	if got := undeclared(&topology.Topology{}, onlyNS); len(got) != 0 {
		t.Errorf("Undeclared on namespaces only = %+v", got)
	}
}

func TestDefaultStorage(t *testing.T) {
	tests := []struct {
		name string
		scs  topology.Fact[[]topology.StorageClass]
		want topology.Fact[topology.StorageState]
	}{
		{"unknown", topology.UnknownFact[[]topology.StorageClass](topology.Because(topology.ReasonFailed, "forbidden")), topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "StorageClasses: forbidden"))},
		{"none", topology.KnownFact([]topology.StorageClass{{Name: "slow", Provisioner: "x"}}), topology.KnownFact(topology.StorageState{})},
		{"local-path", topology.KnownFact([]topology.StorageClass{{Name: "ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com"}, {Name: "local-path", Provisioner: "rancher.io/local-path", Default: true}}),
			topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"})},
		{"not in catalog", topology.KnownFact([]topology.StorageClass{{Name: "nfs", Provisioner: "nfs.csi.k8s.io", Default: true}}),
			topology.KnownFact(topology.StorageState{Class: "nfs", Provisioner: "nfs.csi.k8s.io"})},
	}
	for _, tc := range tests {
		got := DefaultStorage(topology.ClusterFacts{StorageClasses: tc.scs}, topology.KnownFact("v1.37.2"))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: DefaultStorage = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestJudgeLayers(t *testing.T) {
	tp := &topology.Topology{Layers: []topology.LayerRef{{Name: "argocd"}, {Name: "rook-ceph"}, {Name: "mystery"}}}
	got, _ := judgeLayers(tp, healthyFacts())
	var names []string
	for _, s := range got {
		names = append(names, fmt.Sprintf("%s:%v:%s", s.Name, s.Declared, s.Health))
	}
	want := []string{"argocd:true:healthy", "rook-ceph:true:absent", "mystery:true:unknown", "local-path:false:healthy", "cnpg:false:healthy"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("judgeLayers = %v, want %v", names, want)
	}
}

// TestJudgeWorkloadsNamespaceErrorOnce: the error of a namespace whose lists
// failed is the reason, once, however many workloads live there.
func TestJudgeWorkloadsNamespaceErrorOnce(t *testing.T) {
	argocd, _ := topology.CatalogLayer("argocd")
	f := healthyFacts()
	f.WorkloadNamespaces = []string{"cnpg-system", "kube-system"}
	f.WorkloadErrors = map[string]topology.Why{"argocd": topology.Because(topology.ReasonForbidden, "deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)")}
	got := JudgeWorkloads(argocd, f, true)
	want := "present (CRD group argoproj.io) but deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)"
	if got.Health != topology.Unknown || got.Reason != want || got.Code != topology.ReasonForbidden {
		t.Errorf("JudgeWorkloads = %+v, want unknown %q", got, want)
	}
}
