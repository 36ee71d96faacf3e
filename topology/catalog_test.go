package topology

import (
	"path"
	"reflect"
	"slices"
	"testing"
)

func TestCatalogShape(t *testing.T) {
	required := []string{"cilium", "calico", "flannel", "rook-ceph", "local-path", "longhorn", "cnpg",
		"kube-prometheus-stack", "argocd", "flux", "cert-manager", "ingress-nginx", "traefik", "metallb",
		"external-secrets", "metrics-server", "registry", "harbor"}
	names := CatalogNames()
	for _, r := range required {
		if !slices.Contains(names, r) {
			t.Errorf("catalog lacks %s", r)
		}
	}
	seen := map[string]bool{}
	for _, d := range Catalog() {
		if seen[d.Name] {
			t.Errorf("duplicate catalog entry %s", d.Name)
		}
		seen[d.Name] = true
		if d.Source == "" || d.Category == "" || len(d.Namespaces) == 0 {
			t.Errorf("%s: Source, Category and Namespaces are required: %+v", d.Name, d)
		}
		if len(d.Workloads) == 0 {
			t.Errorf("%s: no workload makes it healthy", d.Name)
		}
		if d.Category == CategoryStorage && len(d.Provisioners) == 0 {
			t.Errorf("%s: a storage layer needs its provisioners", d.Name)
		}
		for _, w := range d.Workloads {
			if w.Kind != KindDeployment && w.Kind != KindDaemonSet && w.Kind != KindStatefulSet {
				t.Errorf("%s: bad kind %q", d.Name, w.Kind)
			}
			for _, p := range append([]string{w.Name}, w.AltNames...) {
				if _, err := path.Match(p, "x"); err != nil {
					t.Errorf("%s: bad pattern %q: %v", d.Name, p, err)
				}
			}
		}
	}
}

func TestCatalogNamespacesAndProvisioners(t *testing.T) {
	tests := []struct {
		layer      string
		namespaces []string
		provs      []string
	}{
		{"cilium", []string{"kube-system", "cilium"}, nil},
		{"rook-ceph", []string{"rook-ceph"}, []string{"rook-ceph.rbd.csi.ceph.com", "rook-ceph.cephfs.csi.ceph.com"}},
		{"cnpg", []string{"cnpg-system"}, nil},
		{"kube-prometheus-stack", []string{"monitoring", "kube-prometheus-stack", "prometheus"}, nil},
		{"argocd", []string{"argocd"}, nil},
		{"flux", []string{"flux-system"}, nil},
		{"flannel", []string{"kube-flannel", "kube-system"}, nil},
		{"local-path", []string{"local-path-storage", "kube-system"}, []string{"rancher.io/local-path"}},
		{"longhorn", []string{"longhorn-system"}, []string{"driver.longhorn.io"}},
		{"registry", []string{"registry"}, nil},
	}
	for _, tc := range tests {
		d, ok := CatalogLayer(tc.layer)
		if !ok {
			t.Fatalf("no %s", tc.layer)
		}
		if !reflect.DeepEqual(d.Namespaces, tc.namespaces) {
			t.Errorf("%s namespaces = %v, want %v", tc.layer, d.Namespaces, tc.namespaces)
		}
		if !reflect.DeepEqual(d.Provisioners, tc.provs) {
			t.Errorf("%s provisioners = %v, want %v", tc.layer, d.Provisioners, tc.provs)
		}
	}
}

func TestCatalogIsACopy(t *testing.T) {
	c := Catalog()
	c[0].Namespaces[0] = "changed"
	c[0].Workloads[0].Name = "changed"
	d, _ := CatalogLayer(c[0].Name)
	if d.Namespaces[0] == "changed" || d.Workloads[0].Name == "changed" {
		t.Error("Catalog() shares memory with the catalog")
	}
}

func TestBackendLayer(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"ceph", "rook-ceph", true},
		{"rook", "rook-ceph", true},
		{"rook-ceph", "rook-ceph", true},
		{"local-path", "local-path", true},
		{"local-path-provisioner", "local-path", true},
		{"longhorn", "longhorn", true},
		{"cnpg", "", false},
		{"nfs", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, ok := BackendLayer(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("BackendLayer(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if got := BackendForProvisioner("rancher.io/local-path"); got != "local-path" {
		t.Errorf("BackendForProvisioner = %q", got)
	}
	if got := BackendForProvisioner("rook-ceph.cephfs.csi.ceph.com"); got != "rook-ceph" {
		t.Errorf("BackendForProvisioner = %q", got)
	}
	if got := BackendForProvisioner("example.com/nfs"); got != "" {
		t.Errorf("BackendForProvisioner = %q", got)
	}
}

func TestLayerDefFor(t *testing.T) {
	d, ok := LayerDefFor(LayerRef{Name: "mlflow", Detect: &Detect{Deployment: "mlflow/mlflow", StatefulSet: "db/pg", CRDGroup: "ml.example.com", Namespace: "mlflow"}})
	want := LayerDef{
		Name: "mlflow", Category: CategoryCustom, Source: "topology detect:",
		CRDGroups:  []string{"ml.example.com"},
		Namespaces: []string{"mlflow"},
		Workloads: []Workload{
			{Kind: KindDeployment, Name: "mlflow", Namespace: "mlflow"},
			{Kind: KindStatefulSet, Name: "pg", Namespace: "db"},
		},
	}
	if !ok || !reflect.DeepEqual(d, want) {
		t.Errorf("LayerDefFor = %+v, %v\nwant %+v", d, ok, want)
	}
	if d, ok := LayerDefFor(LayerRef{Name: "cilium"}); !ok || d.Category != CategoryCNI {
		t.Errorf("catalog ref: %+v %v", d, ok)
	}
	if _, ok := LayerDefFor(LayerRef{Name: "nope"}); ok {
		t.Error("unknown ref found")
	}
}
