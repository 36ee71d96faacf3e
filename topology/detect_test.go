package topology

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func wl(kind, ns, name string, desired, ready int32) WorkloadState {
	return WorkloadState{Kind: kind, Namespace: ns, Name: name, Desired: desired, Ready: ready}
}

// healthyFacts is a cluster running argocd, cnpg and local-path, healthy.
func healthyFacts() ClusterFacts {
	return ClusterFacts{
		Namespaces: KnownFact([]string{"default", "kube-system", "argocd", "cnpg-system", "local-path-storage"}),
		CRDGroups:  KnownFact([]string{"argoproj.io", "postgresql.cnpg.io"}),
		StorageClasses: KnownFact([]StorageClass{
			{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true},
		}),
		Workloads: KnownFact([]WorkloadState{
			wl(KindDeployment, "argocd", "argocd-server", 1, 1),
			wl(KindDeployment, "argocd", "argocd-repo-server", 1, 1),
			wl(KindStatefulSet, "argocd", "argocd-application-controller", 1, 1),
			wl(KindDeployment, "cnpg-system", "cnpg-controller-manager", 1, 1),
			wl(KindDeployment, "local-path-storage", "local-path-provisioner", 1, 1),
			wl(KindDeployment, "kube-system", "coredns", 2, 2),
		}),
		WorkloadNamespaces: []string{"argocd", "cnpg-system", "kube-system", "local-path-storage", "monitoring", "rook-ceph"},
		// cnpg's own resources read: no database cluster yet, no backup.
		Status: StatusFacts{Lists: map[string]Fact[[]StatusObject]{
			"clusters.postgresql.cnpg.io": KnownFact([]StatusObject{}),
			"backups.postgresql.cnpg.io":  KnownFact([]StatusObject{}),
			"applications.argoproj.io":    KnownFact([]StatusObject{}),
		}},
	}
}

func TestEvaluate(t *testing.T) {
	argocd, _ := CatalogLayer("argocd")
	cnpg, _ := CatalogLayer("cnpg")
	rook, _ := CatalogLayer("rook-ceph")
	localPath, _ := CatalogLayer("local-path")
	kps, _ := CatalogLayer("kube-prometheus-stack")
	calico, _ := CatalogLayer("calico")
	custom, _ := LayerDefFor(LayerRef{Name: "mlflow", Detect: &Detect{Deployment: "mlflow/mlflow"}})
	nsOnly, _ := LayerDefFor(LayerRef{Name: "team", Detect: &Detect{Namespace: "argocd"}})

	tests := []struct {
		name   string
		def    LayerDef
		facts  func(f *ClusterFacts)
		health Health
		reason string
	}{
		{"healthy", argocd, nil, Healthy,
			"CRD group argoproj.io, argocd/argocd-server 1/1 available, argocd/argocd-repo-server 1/1 available, argocd/argocd-application-controller 1/1 available"},
		{"degraded: not available", argocd, func(f *ClusterFacts) {
			f.Workloads.Value[1].Ready = 0
		}, Degraded, "argocd/argocd-repo-server 0/1 available"},
		{"degraded: scaled to zero", argocd, func(f *ClusterFacts) {
			f.Workloads.Value[0].Desired, f.Workloads.Value[0].Ready = 0, 0
		}, Degraded, "argocd/argocd-server 0/0 available"},
		{"degraded: operator missing but CRDs left", cnpg, func(f *ClusterFacts) {
			f.Workloads.Value = f.Workloads.Value[:3]
		}, Degraded, "Deployment cnpg-controller-manager not found in cnpg-system"},
		{"absent: nothing, everything known", rook, nil, Absent, "none of its CRDs, StorageClasses or workloads found"},
		{"absent: namespace not read but known not to exist", rook, func(f *ClusterFacts) {
			f.WorkloadNamespaces = []string{"argocd"}
		}, Absent, "none of its CRDs, StorageClasses or workloads found"},
		{"unknown: workloads forbidden, nothing else found", rook, func(f *ClusterFacts) {
			f.Workloads = UnknownFact[[]WorkloadState](Because(ReasonFailed, "forbidden: deployments.apps is forbidden"))
		}, Unknown, "workloads: forbidden: deployments.apps is forbidden"},
		{"unknown: CRDs timed out", cnpg, func(f *ClusterFacts) {
			f.CRDGroups = UnknownFact[[]string](Because(ReasonFailed, "timeout after 10s"))
			f.Workloads.Value = nil
		}, Unknown, "CRDs: timeout after 10s"},
		{"unknown: present by CRD, workloads forbidden", argocd, func(f *ClusterFacts) {
			f.Workloads = UnknownFact[[]WorkloadState](Because(ReasonFailed, "forbidden"))
		}, Unknown, "present (CRD group argoproj.io) but workloads: forbidden"},
		{"unknown: namespace not read and exists", kps, func(f *ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "monitoring", "kube-prometheus-stack", "prometheus")
			f.WorkloadNamespaces = []string{"monitoring"}
		}, Unknown, "not checked: Deployment *kube-prometheus*-operator (namespace kube-prometheus-stack, prometheus not read), StatefulSet prometheus-*kube-prometheus*-prometheus (namespace kube-prometheus-stack, prometheus not read)"},
		{"unknown: namespaces unknown and not read", kps, func(f *ClusterFacts) {
			f.Namespaces = UnknownFact[[]string](Because(ReasonFailed, "forbidden"))
			f.WorkloadNamespaces = nil
		}, Unknown, "not checked:"},
		{"unknown: present, its namespace's list failed", argocd, func(f *ClusterFacts) {
			f.WorkloadNamespaces = []string{"cnpg-system", "kube-system", "local-path-storage"}
			f.WorkloadErrors = map[string]Why{"argocd": Because(ReasonForbidden, "deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)")}
		}, Unknown, "present (CRD group argoproj.io) but deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)"},
		{"unknown, not absent: nothing found, its namespace's list failed", rook, func(f *ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "rook-ceph")
			f.WorkloadNamespaces = []string{"argocd"}
			f.WorkloadErrors = map[string]Why{"rook-ceph": Because(ReasonTimedOut, "statefulsets in rook-ceph: timed out after 10s")}
		}, Unknown, "statefulsets in rook-ceph: timed out after 10s"},
		{"degraded, and a namespace failed", calico, func(f *ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "calico-system")
			f.Workloads.Value = append(f.Workloads.Value, wl(KindDaemonSet, "kube-system", "calico-node", 3, 0))
			f.WorkloadErrors = map[string]Why{"calico-system": Because(ReasonForbidden, "deployments in calico-system: forbidden (x)")}
		}, Degraded, "kube-system/calico-node 0/3 available; deployments in calico-system: forbidden (x)"},
		{"unknown: every list failed, its own namespace's error", cnpg, func(f *ClusterFacts) {
			f.Workloads = UnknownFact[[]WorkloadState](Because(ReasonFailed, "forbidden (first: argocd)"))
			f.WorkloadNamespaces = []string{}
			f.WorkloadErrors = map[string]Why{"argocd": Because(ReasonForbidden, "deployments in argocd: forbidden (a)"), "cnpg-system": Because(ReasonForbidden, "deployments in cnpg-system: forbidden (c)")}
		}, Unknown, "present (CRD group postgresql.cnpg.io) but deployments in cnpg-system: forbidden (c)"},
		{"storage by provisioner", localPath, nil, Healthy, "StorageClass local-path (rancher.io/local-path), local-path-storage/local-path-provisioner 1/1 available"},
		{"storage: StorageClasses unknown, workload healthy", localPath, func(f *ClusterFacts) {
			f.StorageClasses = UnknownFact[[]StorageClass](Because(ReasonFailed, "forbidden"))
		}, Healthy, "local-path-storage/local-path-provisioner 1/1 available"},
		{"custom absent", custom, func(f *ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "mlflow")
			f.WorkloadNamespaces = append(f.WorkloadNamespaces, "mlflow")
		}, Absent, "not found: deployment mlflow/mlflow"},
		{"custom unknown: its namespace was not read", custom, func(f *ClusterFacts) {
			f.Namespaces.Value = append(f.Namespaces.Value, "mlflow")
		}, Unknown, "not checked: Deployment mlflow (namespace mlflow not read)"},
		{"custom healthy", custom, func(f *ClusterFacts) {
			f.Workloads.Value = append(f.Workloads.Value, wl(KindDeployment, "mlflow", "mlflow", 2, 2))
			f.WorkloadNamespaces = append(f.WorkloadNamespaces, "mlflow")
		}, Healthy, "mlflow/mlflow 2/2 available"},
		{"namespace-only custom present", nsOnly, nil, Healthy, "namespace argocd"},
		{"namespace-only custom unknown", nsOnly, func(f *ClusterFacts) {
			f.Namespaces = UnknownFact[[]string](Because(ReasonFailed, "forbidden"))
		}, Unknown, "namespaces: forbidden"},
	}
	codes := map[string]ReasonCode{
		"unknown: workloads forbidden, nothing else found":                ReasonFailed,
		"unknown: namespace not read and exists":                          ReasonNotRead,
		"unknown: present, its namespace's list failed":                   ReasonForbidden,
		"unknown, not absent: nothing found, its namespace's list failed": ReasonTimedOut,
		"unknown: every list failed, its own namespace's error":           ReasonForbidden,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyFacts()
			if tc.facts != nil {
				tc.facts(&f)
			}
			got := Evaluate(tc.def, f, true)
			if got.Health != tc.health || !strings.Contains(got.Reason, tc.reason) || got.Name != tc.def.Name || !got.Declared {
				t.Errorf("Evaluate = %+v\nwant health %s, reason containing %q", got, tc.health, tc.reason)
			}
			// An unknown layer says why with a code; a known one has none.
			if want, ok := codes[tc.name]; ok && got.Code != want {
				t.Errorf("Code = %q, want %q", got.Code, want)
			}
			if (got.Health == Unknown) != (got.Code != "") {
				t.Errorf("%s layer with Code %q", got.Health, got.Code)
			}
		})
	}
}

func TestUndeclared(t *testing.T) {
	tp := &Topology{Layers: []LayerRef{{Name: "argocd"}}}
	f := healthyFacts()
	f.Workloads.Value = append(f.Workloads.Value, wl(KindDeployment, "kube-system", "metrics-server", 1, 0))
	got := Undeclared(tp, f)
	var names []string
	for _, s := range got {
		if s.Declared {
			t.Errorf("%s marked declared", s.Name)
		}
		names = append(names, s.Name+":"+string(s.Health))
	}
	want := []string{"local-path:healthy", "cnpg:healthy", "metrics-server:degraded"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Undeclared = %v, want %v", names, want)
	}

	// Nothing readable: nothing is reported (never a guess).
	unknown := ClusterFacts{
		Namespaces:     UnknownFact[[]string](Because(ReasonFailed, "forbidden")),
		CRDGroups:      UnknownFact[[]string](Because(ReasonFailed, "forbidden")),
		StorageClasses: UnknownFact[[]StorageClass](Because(ReasonFailed, "forbidden")),
		Workloads:      UnknownFact[[]WorkloadState](Because(ReasonFailed, "forbidden")),
	}
	if got := Undeclared(tp, unknown); len(got) != 0 {
		t.Errorf("Undeclared on unknown facts = %+v", got)
	}
	// A namespace alone is no sign.
	onlyNS := ClusterFacts{Namespaces: KnownFact([]string{"cnpg-system", "argocd", "monitoring"}),
		CRDGroups: KnownFact([]string{}), StorageClasses: KnownFact([]StorageClass{}), Workloads: KnownFact([]WorkloadState{})}
	if got := Undeclared(&Topology{}, onlyNS); len(got) != 0 {
		t.Errorf("Undeclared on namespaces only = %+v", got)
	}
}

func TestDefaultStorage(t *testing.T) {
	tests := []struct {
		name string
		scs  Fact[[]StorageClass]
		want Fact[StorageState]
	}{
		{"unknown", UnknownFact[[]StorageClass](Because(ReasonFailed, "forbidden")), UnknownFact[StorageState](Because(ReasonFailed, "StorageClasses: forbidden"))},
		{"none", KnownFact([]StorageClass{{Name: "slow", Provisioner: "x"}}), KnownFact(StorageState{})},
		{"local-path", KnownFact([]StorageClass{{Name: "ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com"}, {Name: "local-path", Provisioner: "rancher.io/local-path", Default: true}}),
			KnownFact(StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"})},
		{"not in catalog", KnownFact([]StorageClass{{Name: "nfs", Provisioner: "nfs.csi.k8s.io", Default: true}}),
			KnownFact(StorageState{Class: "nfs", Provisioner: "nfs.csi.k8s.io"})},
	}
	for _, tc := range tests {
		got := DefaultStorage(ClusterFacts{StorageClasses: tc.scs}, KnownFact("v1.37.2"))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: DefaultStorage = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestObserveLayers(t *testing.T) {
	tp := &Topology{Layers: []LayerRef{{Name: "argocd"}, {Name: "rook-ceph"}, {Name: "mystery"}}}
	got, _ := ObserveLayers(tp, healthyFacts())
	var names []string
	for _, s := range got {
		names = append(names, fmt.Sprintf("%s:%v:%s", s.Name, s.Declared, s.Health))
	}
	want := []string{"argocd:true:healthy", "rook-ceph:true:absent", "mystery:true:unknown", "local-path:false:healthy", "cnpg:false:healthy"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("ObserveLayers = %v, want %v", names, want)
	}
}

// TestEvaluateNamespaceErrorOnce: the error of a namespace whose lists
// failed is the reason, once, however many workloads live there.
func TestEvaluateNamespaceErrorOnce(t *testing.T) {
	argocd, _ := CatalogLayer("argocd")
	f := healthyFacts()
	f.WorkloadNamespaces = []string{"cnpg-system", "kube-system"}
	f.WorkloadErrors = map[string]Why{"argocd": Because(ReasonForbidden, "deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)")}
	got := Evaluate(argocd, f, true)
	want := "present (CRD group argoproj.io) but deployments in argocd: forbidden (user bob cannot list deployments.apps in namespace argocd)"
	if got.Health != Unknown || got.Reason != want || got.Code != ReasonForbidden {
		t.Errorf("Evaluate = %+v, want unknown %q", got, want)
	}
}
