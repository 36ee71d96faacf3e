package kapsule

import (
	"slices"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/scwstub"
	"nestor.dev/nestor/topology"
)

// The offer read through the real SDK against the stand-in: the region's
// cluster types, every page (page size 2: four pages), their limits in
// decimal bytes and their commitment; the mutualised cluster's
// available-types with its own type; etcd unknown without a kubeconfig,
// with the in-cluster part's reason.
func TestKapsuleReadOffer(t *testing.T) {
	defer func(n int) { providerPageSize = n }(providerPageSize)
	providerPageSize = 2
	s := startStub(t)
	obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey), 0)
	if err != nil {
		t.Fatal(err)
	}
	k := obs.Kapsule
	if !k.Types.Known || len(k.Types.Value) != 8 {
		t.Fatalf("cluster types = %+v", k.Types)
	}
	want := map[string]topology.KapsuleType{
		"kapsule":              {Name: "kapsule", Availability: "available", MaxNodes: 150, MaxEtcdSize: 55_000_000},
		"kapsule-dedicated-4":  {Name: "kapsule-dedicated-4", Availability: "available", MaxNodes: 250, MaxEtcdSize: 200_000_000, Dedicated: true, CommitmentDelaySeconds: 30 * 86400},
		"kapsule-dedicated-16": {Name: "kapsule-dedicated-16", Availability: "available", MaxNodes: 500, MaxEtcdSize: 200_000_000, Dedicated: true, CommitmentDelaySeconds: 30 * 86400},
	}
	for name, w := range want {
		if got, ok := k.TypeInfo(name); !ok || got != w {
			t.Errorf("%s = %+v, want %+v", name, got, w)
		}
	}
	pages := 0
	for _, r := range s.Log() {
		if strings.HasSuffix(r.Path, "/cluster-types") {
			pages++
		}
	}
	if pages != 4 {
		t.Errorf("cluster types read in %d pages, want 4 (8 types, page size 2)", pages)
	}
	if got := k.AvailableTypes; !got.Known || !slices.Equal(got.Value, []string{"kapsule", "kapsule-dedicated-4", "kapsule-dedicated-8", "kapsule-dedicated-16"}) {
		t.Errorf("available types = %+v", got)
	}
	if got := k.MovesTo("kapsule"); !slices.Equal(got, []string{"kapsule-dedicated-4", "kapsule-dedicated-8", "kapsule-dedicated-16"}) {
		t.Errorf("moves to %v: the cluster's own type is listed, not a move", got)
	}
	if k.Etcd.Known || k.Etcd.Code != topology.ReasonNoTarget || !strings.Contains(k.Etcd.Reason, "/metrics was not read, as the in-cluster part is not") {
		t.Errorf("etcd = %+v", k.Etcd)
	}
}

// Every failure of the offer's reads is the part's own unknown, with its
// reason: a type listed twice over the pages, a lying total, a type
// listed twice in available-types or a total it does not hold, a 403.
func TestKapsuleReadOfferErrors(t *testing.T) {
	defer func(n int) { providerPageSize = n }(providerPageSize)
	providerPageSize = 2
	types := scwstub.ClusterTypes()
	for _, tc := range []struct {
		name              string
		script            func(s *scwstub.Stub)
		types, available  string
		typesKnown, avail bool
	}{
		{name: "a type twice across pages", script: func(s *scwstub.Stub) {
			s.Script("cluster-types", scwstub.OK(scwstub.TypeItems("fr-par", types[0], types[1], types[1], types[2])))
		}, types: "the provider's list of cluster-types is inconsistent: it lists kapsule-dedicated-4 twice (page 2)", avail: true},
		{name: "a lying total", script: func(s *scwstub.Stub) {
			s.Script("cluster-types", scwstub.Answer{Body: scwstub.TypeItems("fr-par", types[:3]...), Total: 9})
		}, types: "its pages end at 3 items, short of its total of 9", avail: true},
		{name: "cluster types forbidden", script: func(s *scwstub.Stub) {
			s.Script("cluster-types", scwstub.PermissionsDenied())
		}, types: "forbidden: the credentials may not read it (403 permissions_denied)", avail: true},
		{name: "available types twice", script: func(s *scwstub.Stub) {
			s.Script("available-types", scwstub.OK(scwstub.AvailableTypes("fr-par", types[1], types[1])))
		}, typesKnown: true, available: "the provider's list of available-types is inconsistent: it lists kapsule-dedicated-4 twice"},
		{name: "available types short of their total", script: func(s *scwstub.Stub) {
			body := scwstub.AvailableTypes("fr-par", types[1])
			body["total_count"] = 3
			s.Script("available-types", scwstub.OK(body))
		}, typesKnown: true, available: "it holds 1 types but says total_count 3"},
		{name: "available types not found", script: func(s *scwstub.Stub) {
			s.Script("available-types", scwstub.NotFound("k8s_cluster", scwstub.ClusterID))
		}, typesKnown: true, available: "not found (404 not_found)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startStub(t)
			tc.script(s)
			obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey), 0)
			if err != nil {
				t.Fatal(err)
			}
			k := obs.Kapsule
			if k.Types.Known != tc.typesKnown || (tc.types != "" && !strings.Contains(k.Types.Reason, tc.types)) || (!k.Types.Known && k.Types.Code == "") {
				t.Errorf("cluster types = %+v, want known %v or %q", k.Types, tc.typesKnown, tc.types)
			}
			if k.AvailableTypes.Known != tc.avail || (tc.available != "" && !strings.Contains(k.AvailableTypes.Reason, tc.available)) {
				t.Errorf("available types = %+v, want known %v or %q", k.AvailableTypes, tc.avail, tc.available)
			}
			if !k.Cluster.Known || !k.Pools.Known {
				t.Errorf("the other parts are taken with it: cluster %+v pools %+v", k.Cluster, k.Pools)
			}
		})
	}
}
