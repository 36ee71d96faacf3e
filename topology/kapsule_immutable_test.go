package topology

import (
	"reflect"
	"strings"
	"testing"
)

const immHead = "name: s\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: 6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90\n"

func TestLoadImmutableKeys(t *testing.T) {
	src := immHead + "  cluster_name: Lyneko Apps\n  cni: cilium\n  private_network_id: 5F0C2E61-8F3D-4B7A-9D2C-7E1A4B3C2D10\n  pod_cidr: 100.64.0.0/15\n  service_cidr: 10.32.0.0/20\n" +
		"pools:\n  - {name: p, node_type: PRO2-XXS, size: 3, placement_group_id: 1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f, root_volume_type: sbs_15k, root_volume_size: 50GB, public_ip_disabled: true}\n"
	tp, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Scaleway{Region: "fr-par", ClusterID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90", ClusterName: "Lyneko Apps", CNI: "cilium",
		PrivateNetworkID: "5f0c2e61-8f3d-4b7a-9d2c-7e1a4b3c2d10", PodCIDR: "100.64.0.0/15", ServiceCIDR: "10.32.0.0/20"}
	if !reflect.DeepEqual(*tp.Scaleway, want) {
		t.Errorf("scaleway %+v, want %+v", *tp.Scaleway, want)
	}
	on := true
	wantPool := Pool{Name: "p", NodeType: "PRO2-XXS", Size: 3, PlacementGroupID: "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f", RootVolumeType: "sbs_15k", RootVolumeSize: "50GB", PublicIPDisabled: &on}
	if !reflect.DeepEqual(tp.Pools[0], wantPool) || len(tp.Warnings) != 0 {
		t.Errorf("pool %+v, want %+v; warnings %q", tp.Pools[0], wantPool, tp.Warnings)
	}
	for _, p := range []string{"scaleway.cni", "scaleway.cluster_name", "scaleway.pod_cidr"} {
		if _, ok := tp.PositionOf(p); !ok {
			t.Errorf("no position for %s", p)
		}
	}
	for _, tc := range []struct{ scaleway, pool, want string }{
		{"  cni: Cilium\n", "", `s.yaml:6:8: scaleway.cni: "Cilium" is not a Kapsule CNI (did you mean cilium? use one of cilium, cilium_native, calico, kilo, none)`},
		{"  cni: cilium-native\n", "", "did you mean cilium_native?"},
		{"  private_network_id: pn-1\n", "", `scaleway.private_network_id: "pn-1" is not a UUID`},
		{"  pod_cidr: 100.64.0.1/15\n", "", `s.yaml:6:13: scaleway.pod_cidr: "100.64.0.1/15" has host bits set after /15 (write 100.64.0.0/15 for the network`},
		{"  service_cidr: 10.32.0.10\n", "", `scaleway.service_cidr: "10.32.0.10" is an address, not a range`},
		{"  cluster_name: \"\"\n", "", `scaleway.cluster_name: "" is not a cluster name`},
		{"  cluster_name:\n", "", `scaleway.cluster_name: is empty`},
		{"", ", placement_group_id: pg", `pools[0].placement_group_id: "pg" is not a UUID`},
		{"", ", root_volume_type: SBS-5K", `pools[0].root_volume_type: "SBS-5K" is not a root volume type (did you mean sbs_5k?`},
		{"", ", root_volume_size: 20", `pools[0].root_volume_size: "20" is not a size with a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB) (write a size with its unit, e.g. "20GB"`},
		{"", ", root_volume_size: 20 parsecs", `is not a size with a unit`},
		{"", ", public_ip_disabled: \"yes\"", `pools[0].public_ip_disabled: must be a boolean`},
	} {
		src := immHead + tc.scaleway + "pools:\n  - {name: p, node_type: PRO2-XXS, size: 3" + tc.pool + "}\n"
		_, err := Parse("s.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q%q: error %v, want %q", tc.scaleway, tc.pool, err, tc.want)
		}
	}
}

// A node type the provider excludes is a load warning in every spelling,
// saying both sources; other types are not.
func TestLoadExcludedNodeTypeWarns(t *testing.T) {
	for _, tc := range []struct {
		nodeType string
		warn     bool
	}{
		{"DEV1-S", true}, {"dev1-s", true}, {"dev1_s", true}, {"Dev1-S", true}, {"DEV1_S", true},
		{"PLAY2-PICO", true}, {"play2_pico", true}, {"STARDUST1-S", true}, {"stardust1_s", true},
		{"DEV1-M", false}, {"PRO2-XXS", false}, {"PLAY2-NANO", false}, {"DEV1-XL", false},
	} {
		src := immHead + "pools:\n  - {name: p, node_type: " + tc.nodeType + ", size: 1}\n"
		tp, err := Parse("s.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.nodeType, err)
		}
		if got := len(tp.Warnings) == 1; got != tc.warn {
			t.Errorf("%s: warnings %q, want a warning: %v", tc.nodeType, tp.Warnings, tc.warn)
			continue
		}
		if tc.warn {
			w := tp.Warnings[0]
			if !strings.HasPrefix(w, "s.yaml:7:26: pools[0].node_type: "+tc.nodeType+" cannot run a Kapsule pool") ||
				!strings.Contains(w, "DEV1-S, PLAY2-PICO and STARDUST") || !strings.Contains(w, "less than 4 GB") || !strings.Contains(w, "(choose a type with 4 GB") {
				t.Errorf("%s: warning %q", tc.nodeType, w)
			}
		}
	}
}

// A placement group the declared pools would fill beyond 20 instances is a
// load warning: one pool's size or autoscaling max, or pools sharing it.
func TestLoadPlacementGroupWarns(t *testing.T) {
	const pgA, pgB = "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "2d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	for _, tc := range []struct {
		pools, want string
	}{
		{"  - {name: a, node_type: PRO2-XXS, size: 20, placement_group_id: " + pgA + "}\n", ""},
		{"  - {name: a, node_type: PRO2-XXS, size: 21, placement_group_id: " + pgA + "}\n",
			"s.yaml:7:66: pools[0].placement_group_id: placement group " + pgA + " would hold up to 21 instances (pool a: size 21): a placement group holds 20 at most"},
		{"  - {name: a, node_type: PRO2-XXS, autoscaling: {min: 1, max: 25}, placement_group_id: " + pgA + "}\n", "(pool a: autoscaling max 25)"},
		{"  - {name: a, node_type: PRO2-XXS, size: 12, placement_group_id: " + pgA + "}\n  - {name: b, node_type: PRO2-XXS, autoscaling: {min: 0, max: 10}, placement_group_id: " + strings.ToUpper(pgA) + "}\n",
			"would hold up to 22 instances (pool a: size 12, pool b: autoscaling max 10)"},
		{"  - {name: a, node_type: PRO2-XXS, size: 12, placement_group_id: " + pgA + "}\n  - {name: b, node_type: PRO2-XXS, size: 12, placement_group_id: " + pgB + "}\n", ""},
		{"  - {name: a, node_type: PRO2-XXS, size: 30}\n", ""},
	} {
		tp, err := Parse("s.yaml", []byte(immHead+"pools:\n"+tc.pools))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && len(tp.Warnings) != 0:
			t.Errorf("%s: warnings %q", tc.pools, tp.Warnings)
		case tc.want != "" && (len(tp.Warnings) != 1 || !strings.Contains(tp.Warnings[0], tc.want)):
			t.Errorf("%s: warnings %q, want %q", tc.pools, tp.Warnings, tc.want)
		}
	}
}

func TestVolumeSizeBytes(t *testing.T) {
	for in, want := range map[string]uint64{"20GB": 20e9, "20 GB": 20e9, "20gb": 20e9, "1TB": 1e12, "20GiB": 20 << 30, "20gib": 20 << 30, "500MB": 500e6} {
		if got, err := VolumeSizeBytes(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"20", "20G", "GB", "-1GB", "1.5GB", "99999999999999999999GB", "20000000TB"} {
		if _, err := VolumeSizeBytes(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	if VolumeSizeText(20e9) != "20 GB" || VolumeSizeText(20<<30) != "21474836480 bytes" {
		t.Error("VolumeSizeText")
	}
}
