package kapsule

import (
	"reflect"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/scwstub"
	"nestor.dev/nestor/topology"
)

// The ACL rules are read typed, in the API's order, each rule's ip or
// scaleway_ranges and description; a rule holding both contradicts the
// API's contract and leaves the ACL unknown; the cluster's and pools'
// values fixed at creation are read into the model.
func TestKapsuleReadACLAndImmutables(t *testing.T) {
	s := startStub(t)
	w := scwstub.Typical("fr-par", "https://"+scwstub.ClusterID+".api.k8s.fr-par.scw.cloud:6443")
	w.ACL = []string{"scaleway_ranges", "203.0.113.0/24 office", "2001:db8::/32"}
	w.Pools[0].PlacementGroupID, w.Pools[0].PublicIPDisabled = "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f", true
	s.Serve(w)
	env := kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey)
	obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), env, 0)
	if err != nil {
		t.Fatal(err)
	}
	k := obs.Kapsule
	want := []topology.ACLRule{{ScalewayRanges: true}, {IP: "2001:db8::/32"}, {IP: "203.0.113.0/24", Description: "office"}}
	if !k.ACLRules.Known || !reflect.DeepEqual(k.ACLRules.Value, want) {
		t.Errorf("acl_rules = %+v, want %+v", k.ACLRules, want)
	}
	if !reflect.DeepEqual(k.ACL.Value, []string{"scaleway_ranges", "2001:db8::/32", "203.0.113.0/24"}) {
		t.Errorf("acl = %+v", k.ACL)
	}
	c := k.Cluster.Value
	if c.PrivateNetworkID != scwstub.PrivateNetwork || c.PodCIDR != "100.64.0.0/15" || c.ServiceCIDR != "10.32.0.0/20" {
		t.Errorf("cluster = %+v", c)
	}
	var def, burst topology.KapsulePool
	for _, p := range k.Pools.Value {
		if p.Name == "default" {
			def = p
		} else {
			burst = p
		}
	}
	if def.PlacementGroupID != "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f" || !def.PublicIPDisabled || def.RootVolumeType != "sbs_5k" || def.RootVolumeSize != 20e9 ||
		burst.PlacementGroupID != "" || burst.PublicIPDisabled {
		t.Errorf("pools = %+v", k.Pools.Value)
	}

	// What the API gives no value for stays empty, never a guess.
	w.Cluster.PrivateNetworkID, w.Cluster.PodCIDR = "", ""
	w.Pools[0].RootVolumeType, w.Pools[0].RootVolumeSize = "", 0
	s.Serve(w)
	s.Script("acls", scwstub.OK([]any{map[string]any{"id": "acl-0", "ip": "0.0.0.0/0", "scaleway_ranges": true, "description": ""}}))
	obs, err = openKapsule(t, kapsuleStack(t, s.URL, ""), env, 0)
	if err != nil {
		t.Fatal(err)
	}
	k = obs.Kapsule
	if c := k.Cluster.Value; c.PrivateNetworkID != "" || c.PodCIDR != "" || c.ServiceCIDR != "10.32.0.0/20" {
		t.Errorf("cluster = %+v", c)
	}
	for _, p := range k.Pools.Value {
		if p.Name == "default" && (p.RootVolumeType != "default_volume_type" || p.RootVolumeSize != 0) {
			t.Errorf("pool = %+v", p)
		}
	}
	if k.ACLRules.Known || k.ACLRules.Code != topology.ReasonAnswerRefused || k.ACL.Known || !strings.Contains(k.ACLRules.Reason, "both an ip and scaleway_ranges") {
		t.Errorf("acl_rules = %+v, acl %+v", k.ACLRules, k.ACL)
	}

	// A rule with neither contradicts the contract as much: the list is
	// refused, not taken as complete without it.
	s.Script("acls", scwstub.OK([]any{map[string]any{"id": "acl-0", "ip": "203.0.113.0/24", "description": ""}, map[string]any{"id": "acl-1", "description": "empty"}}))
	obs, err = openKapsule(t, kapsuleStack(t, s.URL, ""), env, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := obs.Kapsule.ACLRules; r.Known || r.Code != topology.ReasonAnswerRefused || !strings.Contains(r.Reason, "neither an ip nor scaleway_ranges") {
		t.Errorf("a rule with neither: acl_rules = %+v", r)
	}
}
