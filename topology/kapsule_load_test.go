package topology

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadKapsule(t *testing.T) {
	tp, err := load(filepath.Join("testdata", "valid-kapsule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Scaleway{Region: "fr-par", ClusterID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90", ProjectID: "0b6f1d2e-3c4b-4a59-8e7f-901234567890", Profile: "lyneko"}
	if !reflect.DeepEqual(tp.Scaleway, want) {
		t.Errorf("scaleway = %+v, want %+v", tp.Scaleway, want)
	}
	wantPools := []Pool{
		{Name: "default", NodeType: "PRO2-XXS", Size: 3, Zone: "fr-par-1"},
		{Name: "burst", NodeType: "PRO2-S", Autoscaling: &Autoscaling{Min: 0, Max: 5}},
	}
	if !reflect.DeepEqual(tp.Pools, wantPools) {
		t.Errorf("pools = %+v, want %+v", tp.Pools, wantPools)
	}
	if tp.Kubernetes.AutoUpgrade == nil || !*tp.Kubernetes.AutoUpgrade || len(tp.Warnings) != 0 {
		t.Errorf("kubernetes = %+v, warnings %v", tp.Kubernetes, tp.Warnings)
	}
}

// With auto_upgrade: true the provider moves the patch: pinning x.y.z is a
// warning (the file still loads), in every spelling of the version.
func TestLoadKapsulePatchWithAutoUpgradeWarns(t *testing.T) {
	for _, tc := range []struct {
		version, auto string
		warn          bool
	}{
		{`"1.35.3"`, "true", true},
		{`1.35.3`, "true", true},
		{`"v1.35.3"`, "True", true},
		{`"1.35"`, "true", false},
		{`"1.35.3"`, "false", false},
	} {
		src := "name: s\ntarget_kind: kapsule\nscaleway: {region: nl-ams, cluster_id: 6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90}\n" +
			"kubernetes:\n  version: " + tc.version + "\n  auto_upgrade: " + tc.auto + "\npools: [{name: p, node_type: DEV1-M, size: 1}]\n"
		tp, err := Parse("s.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.version, tc.auto, err)
		}
		if got := len(tp.Warnings) == 1; got != tc.warn {
			t.Errorf("%s/%s: warnings %v, want warning %v", tc.version, tc.auto, tp.Warnings, tc.warn)
		}
		if tc.warn && !strings.HasPrefix(tp.Warnings[0], "s.yaml:5:12: kubernetes.version:") {
			t.Errorf("warning %q does not name file:line:col and field", tp.Warnings[0])
		}
	}
}

func TestLoadKapsuleInvalid(t *testing.T) {
	tests := map[string][]string{
		"invalid-kapsule.yaml": {
			"testdata/invalid-kapsule.yaml:4:11: scaleway.region: \"fr-paris\" is not a Kapsule region (did you mean fr-par? use one of fr-par, nl-ams, pl-waw, it-mil)",
			"testdata/invalid-kapsule.yaml:5:15: scaleway.cluster_id: \"not-a-uuid\" is not a UUID (copy the UUID from the console or `scw k8s cluster list`)",
			"testdata/invalid-kapsule.yaml:6:12: scaleway.api_url: \"http://api.example.com\": plain http is accepted only on a loopback address; use https (write the provider's API URL, e.g. https://api.scaleway.com)",
			"testdata/invalid-kapsule.yaml:7:1: nodes: a kapsule cluster's nodes are the provider's; nodes: are not declared (declare pools: instead, e.g. - {name: default, node_type: PRO2-XXS, size: 3})",
			"testdata/invalid-kapsule.yaml:9:1: inventory: inventory: is not used on a kapsule stack (remove it: nestor never connects to a managed node)",
			"testdata/invalid-kapsule.yaml:11:17: kubernetes.auto_upgrade: must be a boolean, found the string \"yes please\" (write true or false)",
			"testdata/invalid-kapsule.yaml:13:42: pools[0].size: size: and autoscaling: cannot both be declared (keep autoscaling: {min, max} and remove size: (the autoscaler sets it))",
			"testdata/invalid-kapsule.yaml:14:5: pools[1]: a pool needs a size or an autoscaling range (add size: N, or autoscaling: {min: N, max: M})",
			"testdata/invalid-kapsule.yaml:15:12: pools[2].name: duplicate pool \"default\" (first declared at line 13) (remove one of them or rename it)",
			"testdata/invalid-kapsule.yaml:15:49: pools[2].zonee: unknown key \"zonee\" in pools[2] (did you mean zone? allowed keys: name, node_type, size, zone, autoscaling, placement_group_id, root_volume_type, root_volume_size, public_ip_disabled)",
			"testdata/invalid-kapsule.yaml:16:64: pools[3].autoscaling.max: max 1 is below min 3 or zero (use at least 1 and at least min)",
			"testdata/invalid-kapsule.yaml:18:5: layers[0]: \"cilium\" is the provider's on a kapsule stack (the CNI (cluster.cni)), not a layer to declare (remove it: the provider installs and upgrades the CNI (cluster.cni) of a Kapsule cluster)",
			"testdata/invalid-kapsule.yaml:19:5: layers[1]: \"coredns\" is the provider's on a kapsule stack (CoreDNS), not a layer to declare (remove it: the provider installs and upgrades CoreDNS of a Kapsule cluster)",
			"testdata/invalid-kapsule.yaml:20:12: layers[2]: \"konnectivity\" is the provider's on a kapsule stack (konnectivity), not a layer to declare (remove it: the provider installs and upgrades konnectivity of a Kapsule cluster)",
			"testdata/invalid-kapsule.yaml:22:1: lima: lima: is only for target_kind: lima (remove the lima: section and declare pools:)",
		},
		"invalid-kapsule-keys-elsewhere.yaml": {
			"testdata/invalid-kapsule-keys-elsewhere.yaml:3:1: scaleway: scaleway: is only for target_kind: kapsule (remove it, or set target_kind: kapsule)",
			"testdata/invalid-kapsule-keys-elsewhere.yaml:4:31: kubernetes.auto_upgrade: auto_upgrade is only for target_kind: kapsule (remove it: only a managed cluster upgrades itself)",
			"testdata/invalid-kapsule-keys-elsewhere.yaml:5:1: pools: pools: are only for target_kind: kapsule (declare nodes: instead, or set target_kind: kapsule)",
			"testdata/invalid-kapsule-keys-elsewhere.yaml:9:18: layers[1]: \"coredns\" is not in the layer catalog and has no detect: (catalog layers: cilium, calico, flannel, rook-ceph, local-path, longhorn, cnpg, kube-prometheus-stack, argocd, flux, cert-manager, ingress-nginx, traefik, metallb, external-secrets, metrics-server, registry, harbor; or declare a custom layer: {name: coredns, detect: {deployment: NAMESPACE/NAME}})",
		},
		"invalid-kapsule-missing.yaml": {
			"testdata/invalid-kapsule-missing.yaml:1:1: scaleway: is required for target_kind: kapsule (add scaleway: {region: fr-par, cluster_id: UUID})",
			"testdata/invalid-kapsule-missing.yaml:1:1: pools: a kapsule stack declares at least one pool (add pools: - {name: default, node_type: PRO2-XXS, size: 3})",
			"testdata/invalid-kapsule-missing.yaml:3:10: layers[0]: \"pools\" is not in the layer catalog and has no detect: (catalog layers: cilium, calico, flannel, rook-ceph, local-path, longhorn, cnpg, kube-prometheus-stack, argocd, flux, cert-manager, ingress-nginx, traefik, metallb, external-secrets, metrics-server, registry, harbor; or declare a custom layer: {name: pools, detect: {deployment: NAMESPACE/NAME}})",
			"testdata/invalid-kapsule-missing.yaml:3:10: layers: \"pools\" is the name of a kapsule phase and cannot name a layer (rename the layer)",
		},
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			_, err := load(filepath.Join("testdata", file))
			var got []string
			for _, e := range AsErrors(err) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// The provider's layers are refused on a kapsule stack only; on a prod
// stack a catalog CNI stays a layer to declare.
func TestKapsuleProviderLayer(t *testing.T) {
	for _, name := range []string{"cilium", "calico", "flannel", "coredns", "kube-proxy", "konnectivity", "cluster-autoscaler", "scaleway-csi", "cloud-controller-manager"} {
		if _, ok := KapsuleProviderLayer(name); !ok {
			t.Errorf("%s is not the provider's", name)
		}
	}
	for _, name := range []string{"traefik", "argocd", "external-secrets", "longhorn"} {
		if what, ok := KapsuleProviderLayer(name); ok {
			t.Errorf("%s is the provider's (%s)", name, what)
		}
	}
	prod := "name: s\ntarget_kind: prod\nnodes: [{name: a, role: control-plane}]\nlayers: [cilium]\n"
	if _, err := Parse("s.yaml", []byte(prod)); err != nil {
		t.Errorf("prod with cilium: %v", err)
	}
}

// The shipped example loads.
func TestKapsuleExample(t *testing.T) {
	tp, err := load(filepath.Join("..", "stacks", "examples", "lyneko-apps.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if tp.TargetKind != TargetKapsule || len(tp.Pools) != 2 || len(tp.Warnings) != 0 {
		t.Errorf("%+v", tp)
	}
}

// TestKapsuleEmptyPools: a kapsule stack with no pool is refused however
// the absence is spelled (no key, an empty value, null, ~, [], an alias of
// an empty list), at the pools: key when there is one.
func TestKapsuleEmptyPools(t *testing.T) {
	head := "name: fuzz\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: 00000000-0000-0000-0000-000000000000\n"
	for _, tc := range []struct{ tail, at string }{
		{"", "stacks/fuzz.yaml:1:1: pools: a kapsule stack declares at least one pool"},
		{"pools:\n", "stacks/fuzz.yaml:6:1: pools: a kapsule stack declares at least one pool, and pools: is empty"},
		{"pools: null\n", "stacks/fuzz.yaml:6:1: pools: a kapsule stack declares at least one pool, and pools: is empty"},
		{"pools: ~\n", "stacks/fuzz.yaml:6:1: pools: a kapsule stack declares at least one pool, and pools: is empty"},
		{"pools: []\n", "stacks/fuzz.yaml:6:1: pools: a kapsule stack declares at least one pool, and pools: is empty"},
		{"kubeconfig: &none []\npools: *none\n", "stacks/fuzz.yaml:7:1: pools: a kapsule stack declares at least one pool, and pools: is empty"},
	} {
		_, err := Parse("stacks/fuzz.yaml", []byte(head+tc.tail))
		if err == nil || !strings.Contains(err.Error(), tc.at) {
			t.Errorf("%q: %v, want %q", tc.tail, err, tc.at)
		}
	}
}

// TestKapsuleEmptyAutoscaling: a pool's autoscaling: with no range is
// refused however the absence is spelled (no value, ~, null, a flow
// mapping's bare key, an alias of null), never read as a range of 0 to 0.
func TestKapsuleEmptyAutoscaling(t *testing.T) {
	head := "name: fuzz\ntarget_kind: kapsule\nkubeconfig: &nothing\nscaleway:\n  region: fr-par\n  cluster_id: 00000000-0000-0000-0000-000000000000\npools:\n"
	for _, pool := range []string{
		"- name: p\n  node_type: PRO2-XXS\n  autoscaling:\n",
		"- {name: p, node_type: PRO2-XXS, autoscaling: ~}\n",
		"- {name: p, node_type: PRO2-XXS, autoscaling: null}\n",
		"- {name: p, node_type: PRO2-XXS, autoscaling}\n",
		"- {name: p, node_type: PRO2-XXS, autoscaling: *nothing}\n",
	} {
		_, err := Parse("stacks/fuzz.yaml", []byte(head+pool))
		if err == nil || !strings.Contains(err.Error(), "pools[0].autoscaling: autoscaling needs min and max") {
			t.Errorf("%q: %v, want autoscaling needs min and max", pool, err)
		}
	}
}
