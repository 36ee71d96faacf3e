package bench

import (
	"path"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

func TestGenerateShapes(t *testing.T) {
	f := Generate(Spec{Nodes: 2000, Seed: 1})
	if len(f.Nodes) != 2000 {
		t.Fatalf("nodes = %d, want 2000", len(f.Nodes))
	}
	// 500 tenant namespaces at 2,000 nodes, plus the layers' own.
	if got := len(f.Namespaces) - len(layerNamespaces()); got != 500 {
		t.Errorf("tenant namespaces = %d, want 500", got)
	}
	if len(f.CRDs) != 150 {
		t.Errorf("CRDs = %d, want 150", len(f.CRDs))
	}
	if len(f.Layers) != 15 {
		t.Errorf("layers = %d (%v), want 15", len(f.Layers), f.Layers)
	}
	cps := 0
	names := map[string]bool{}
	for _, n := range f.Nodes {
		if names[n.Name] {
			t.Fatalf("duplicate node %s", n.Name)
		}
		names[n.Name] = true
		if n.Labels["kubernetes.io/hostname"] != n.Name || n.Labels["topology.kubernetes.io/zone"] == "" ||
			n.Labels["topology.kubernetes.io/region"] == "" || n.Labels["node.kubernetes.io/instance-type"] == "" {
			t.Fatalf("node %s lacks a hostname/zone/region/instance-type label: %v", n.Name, n.Labels)
		}
		if _, ok := n.Labels["node-role.kubernetes.io/control-plane"]; ok {
			cps++
		} else if _, ok := n.Labels["node-role.kubernetes.io/worker"]; !ok {
			t.Fatalf("node %s has no role label", n.Name)
		}
		if len(n.Status.Conditions) != 5 || len(n.Status.Images) != 40 || len(n.Status.Addresses) != 2 {
			t.Fatalf("node %s: %d conditions, %d images, %d addresses; want 5, 40, 2", n.Name,
				len(n.Status.Conditions), len(n.Status.Images), len(n.Status.Addresses))
		}
		info := n.Status.NodeInfo
		if info.MachineID == "" || info.SystemUUID == "" || info.BootID == "" || info.KubeletVersion != KubeletVersion || info.ContainerRuntimeVersion == "" {
			t.Fatalf("node %s: incomplete nodeInfo %+v", n.Name, info)
		}
		for _, r := range []string{"cpu", "memory", "pods", "ephemeral-storage"} {
			if _, ok := n.Status.Capacity[corev1.ResourceName(r)]; !ok {
				t.Fatalf("node %s: no capacity %s", n.Name, r)
			}
			if _, ok := n.Status.Allocatable[corev1.ResourceName(r)]; !ok {
				t.Fatalf("node %s: no allocatable %s", n.Name, r)
			}
		}
	}
	if cps != len(f.ControlPlanes) || cps != 5 {
		t.Errorf("control planes = %d (listed %d), want 5", cps, len(f.ControlPlanes))
	}
	groups := map[string]bool{}
	for _, c := range f.CRDs {
		group, _, _ := unstructured.NestedString(c.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(c.Object, "spec", "names", "plural")
		if c.GetName() != plural+"."+group {
			t.Errorf("CRD %s: name is not plural.group (%s.%s)", c.GetName(), plural, group)
		}
		vs, _, _ := unstructured.NestedSlice(c.Object, "spec", "versions")
		spec, _, _ := unstructured.NestedMap(vs[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties")
		if len(spec) < 15 {
			t.Errorf("CRD %s: %d spec properties, want at least 15", c.GetName(), len(spec))
		}
		groups[group] = true
	}
	if len(groups) < 15 {
		t.Errorf("CRD groups = %d, want many (>= 15)", len(groups))
	}
	if again := Generate(Spec{Nodes: 2000, Seed: 1}); again.Nodes[1999].Status.NodeInfo.BootID != f.Nodes[1999].Status.NodeInfo.BootID {
		t.Error("Generate is not deterministic for the same seed")
	}
}

// TestLayersMatchCatalog checks that every installed layer is what nestor's
// catalog recognises as healthy: each catalog workload of the layer is
// present (by name or alternative name) in one of its namespaces, available,
// and its CRD groups and provisioners exist.
func TestLayersMatchCatalog(t *testing.T) {
	f := Generate(Spec{Nodes: 10, Seed: 1})
	type wl struct{ kind, ns, name string }
	have := map[wl]bool{}
	for _, d := range f.Deployments {
		have[wl{"Deployment", d.Namespace, d.Name}] = d.Status.AvailableReplicas == *d.Spec.Replicas && *d.Spec.Replicas > 0
	}
	for _, d := range f.DaemonSets {
		have[wl{"DaemonSet", d.Namespace, d.Name}] = d.Status.NumberAvailable == d.Status.DesiredNumberScheduled && d.Status.DesiredNumberScheduled == 10
	}
	for _, s := range f.StatefulSets {
		have[wl{"StatefulSet", s.Namespace, s.Name}] = s.Status.AvailableReplicas == *s.Spec.Replicas && *s.Spec.Replicas > 0
	}
	groups := map[string]bool{}
	for _, c := range f.CRDs {
		_, g, _ := strings.Cut(c.GetName(), ".")
		groups[g] = true
	}
	provs := map[string]bool{}
	for _, sc := range f.StorageClasses {
		provs[sc.Provisioner] = true
	}
	for _, layer := range f.Layers {
		def, ok := topology.CatalogLayer(layer)
		if !ok {
			t.Errorf("layer %s is not in the catalog", layer)
			continue
		}
		for _, w := range def.Workloads {
			nss := def.Namespaces
			if w.Namespace != "" {
				nss = []string{w.Namespace}
			}
			found := false
			for k, avail := range have {
				if k.kind != w.Kind || !contains(nss, k.ns) {
					continue
				}
				for _, pat := range append([]string{w.Name}, w.AltNames...) {
					if m, _ := path.Match(pat, k.name); m {
						found = true
						if !avail {
							t.Errorf("layer %s: %s %s/%s is not available", layer, k.kind, k.ns, k.name)
						}
					}
				}
			}
			if !found {
				t.Errorf("layer %s: no %s matching %q in %v", layer, w.Kind, w.Name, nss)
			}
		}
		for _, g := range def.CRDGroups {
			if !groups[g] {
				t.Errorf("layer %s: no CRD in group %s", layer, g)
			}
		}
		if len(def.Provisioners) > 0 {
			ok := false
			for _, p := range def.Provisioners {
				ok = ok || provs[p]
			}
			if !ok {
				t.Errorf("layer %s: no StorageClass with provisioner %v", layer, def.Provisioners)
			}
		}
	}
}

func TestTopologyYAMLLoads(t *testing.T) {
	f := Generate(Spec{Nodes: 50, Seed: 1})
	for _, all := range []bool{true, false} {
		dir := t.TempDir()
		p, err := WriteTopology(dir, f, "/tmp/kc", "https://127.0.0.1:6443", all)
		if err != nil {
			t.Fatal(err)
		}
		topo, err := stacks.Load(p)
		if err != nil {
			t.Fatalf("stacks.Load: %v", err)
		}
		want := len(f.ControlPlanes)
		if all {
			want = 50
		}
		if len(topo.Nodes) != want || len(topo.Layers) != 15 || topo.TargetKind != topology.TargetProd {
			t.Errorf("loaded %d nodes, %d layers, kind %s; want %d, 15, prod", len(topo.Nodes), len(topo.Layers), topo.TargetKind, want)
		}
	}
}

func layerNamespaces() map[string]bool {
	out := map[string]bool{}
	for _, in := range Installs() {
		out[in.Namespace] = true
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
