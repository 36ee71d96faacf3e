package scwstub

import (
	"slices"
	"sort"
	"strings"
)

// aclIP is the ip of an ACLs rule ("" for scaleway_ranges).
func aclIP(rule string) string {
	ip, _, _ := strings.Cut(rule, " ")
	if ip == "scaleway_ranges" {
		return ""
	}
	return ip
}

// World is the data of a typical Kapsule cluster: a cluster, two pools
// (default: 3 fixed nodes; burst: autoscaling 0–5 with one node) and their
// nodes, the region's version list and the cluster's available versions.
type World struct {
	Cluster   Cluster
	Pools     []Pool
	Nodes     []Node
	Versions  []Version
	Available []string
	// ACL are the ACL rules, as ACLs writes them; Serve lists them
	// sorted by ip, as the API does.
	ACL []string
	// Types are the region's cluster types; the available-types route
	// answers AvailableTypesFor the cluster's type among them.
	Types []ClusterType
}

// The IDs of the typical world.
const (
	ClusterID   = "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90"
	ProjectID   = "0b6f1d2e-3c4b-4a59-8e7f-901234567890"
	PoolDefault = "3f1b7c2d-5e6a-4b8c-9d0e-1f2a3b4c5d6e"
	PoolBurst   = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
	// PrivateNetwork is the cluster's Private Network.
	PrivateNetwork = "5f0c2e61-8f3d-4b7a-9d2c-7e1a4b3c2d10"
)

// Typical returns the typical world at version 1.35.3, every object ready,
// its cluster_url url (the test's API server, so a kubeconfig can match it).
func Typical(region, url string) World {
	w := World{
		Cluster: Cluster{ID: ClusterID, Name: "lyneko-apps", Region: region, ProjectID: ProjectID, Status: "ready",
			Version: "1.35.3", CNI: "cilium", URL: url,
			PrivateNetworkID: PrivateNetwork, PodCIDR: "100.64.0.0/15", ServiceCIDR: "10.32.0.0/20"},
		Pools: []Pool{
			{ID: PoolDefault, ClusterID: ClusterID, Name: "default", Status: "ready", Version: "1.35.3", NodeType: "pro2_xxs", Zone: region + "-1", Region: region, Size: 3, Min: 3, Max: 3,
				RootVolumeType: "sbs_5k", RootVolumeSize: 20_000_000_000},
			{ID: PoolBurst, ClusterID: ClusterID, Name: "burst", Status: "ready", Version: "1.35.3", NodeType: "pro2_s", Zone: region + "-1", Region: region, Size: 1, Min: 0, Max: 5, Autoscaling: true, Autohealing: true,
				RootVolumeType: "sbs_5k", RootVolumeSize: 20_000_000_000},
		},
		Versions: []Version{
			{Name: "1.35.3", Released: "2026-05-04", Deprecated: "2027-04-01", EndOfLife: "2027-07-01"},
			{Name: "1.34.6", Released: "2025-12-15", Deprecated: "2026-09-01", EndOfLife: "2026-12-15"},
			{Name: "1.33.9", Released: "2025-08-20", Deprecated: "2026-04-01", EndOfLife: "2026-07-01"},
		},
		Available: []string{},
		ACL:       []string{"0.0.0.0/0"},
		Types:     ClusterTypes(),
	}
	for i, name := range []string{"default-a1", "default-b2", "default-c3"} {
		w.Nodes = append(w.Nodes, Node{ID: "nd-" + string(rune('a'+i)), PoolID: PoolDefault, ClusterID: ClusterID, Name: "scw-lyneko-apps-" + name, Status: "ready", Region: region})
	}
	w.Nodes = append(w.Nodes, Node{ID: "nd-x", PoolID: PoolBurst, ClusterID: ClusterID, Name: "scw-lyneko-apps-burst-x9", Status: "ready", Region: region})
	return w
}

// Serve scripts every route of s with w (one answer each, repeated).
func (s *Stub) Serve(w World) {
	region := w.Cluster.Region
	s.Script("cluster", OK(w.Cluster.JSON()))
	s.Script("pools", OK(Items(w.Pools...)))
	s.Script("nodes", OK(Items(w.Nodes...)))
	s.Script("versions", OK(Versions(region, w.Versions...)))
	avail := make([]Version, len(w.Available))
	for i, a := range w.Available {
		avail[i] = Version{Name: a}
	}
	s.Script("available-versions", OK(Versions(region, avail...)))
	// The API lists the rules sorted by ip (the provider's ranges, which
	// have none, first).
	acl := slices.Clone(w.ACL)
	sort.SliceStable(acl, func(i, j int) bool { return aclIP(acl[i]) < aclIP(acl[j]) })
	s.Script("acls", OK(ACLs(acl...)))
	s.Script("cluster-types", OK(TypeItems(region, w.Types...)))
	typ := w.Cluster.Type
	if typ == "" {
		typ = "kapsule"
	}
	s.Script("available-types", OK(AvailableTypes(region, AvailableTypesFor(typ, w.Types)...)))
	s.Script("clusters", OK(Items(w.Cluster)))
	s.Script("kubeconfig", OK(map[string]any{"name": "kubeconfig", "content_type": "application/octet-stream", "content": "c2VjcmV0IGt1YmVjb25maWc="}))
}
