package scwstub

import "fmt"

// ClusterType is a cluster-type body shaped like the API's ClusterType
// (scaleway-sdk-go v1.39.0 api/k8s/v1: name, availability, max_nodes,
// commitment_delay, sla, resiliency, memory, dedicated,
// audit_logs_supported, max_etcd_size, region). Family and Tier place it:
// the kapsule or multicloud family, tier 0 for the mutualised offer, N for
// FAMILY-dedicated-N.
type ClusterType struct {
	Name         string
	Family       string
	Tier         int
	MaxNodes     int
	MaxEtcdSize  uint64
	Availability string
	// CommitmentDays is the commitment_delay a move to it starts, in days.
	CommitmentDays int
}

// JSON returns the cluster type as the API writes it in region. The figures
// nestor reads (max_nodes, max_etcd_size in decimal bytes, dedicated,
// commitment_delay as a protobuf JSON duration, availability) are the
// provider's "control plane offers" page's; memory, sla and resiliency are
// of the API's shape, not recorded values (nestor reads none of them).
func (c ClusterType) JSON(region string) map[string]any {
	memory, sla, resiliency := uint64(0), 0.0, "standard"
	if c.Tier > 0 {
		memory, sla = uint64(c.Tier)*1_000_000_000, 99.5
	}
	if c.Tier >= 8 {
		resiliency, sla = "high_availability", 99.95
	}
	avail := c.Availability
	if avail == "" {
		avail = "available"
	}
	return map[string]any{
		"name": c.Name, "availability": avail, "max_nodes": c.MaxNodes,
		"commitment_delay": fmt.Sprintf("%ds", c.CommitmentDays*86400), "sla": sla, "resiliency": resiliency,
		"memory": memory, "dedicated": c.Tier > 0, "audit_logs_supported": c.Tier > 0,
		"max_etcd_size": c.MaxEtcdSize, "region": region,
	}
}

// ClusterTypes are the region's control-plane offers as the provider's
// "control plane offers" page lists them: kapsule 150 nodes and 55 MB of
// etcd, kapsule-dedicated-4 250 and 200 MB, -8 and -16 500 and 200 MB; a
// dedicated offer commits the cluster for 30 days. The multicloud (Kosmos)
// family has the same tiers.
func ClusterTypes() []ClusterType {
	var out []ClusterType
	for _, fam := range []string{"kapsule", "multicloud"} {
		out = append(out,
			ClusterType{Name: fam, Family: fam, MaxNodes: 150, MaxEtcdSize: 55_000_000},
			ClusterType{Name: fam + "-dedicated-4", Family: fam, Tier: 4, MaxNodes: 250, MaxEtcdSize: 200_000_000, CommitmentDays: 30},
			ClusterType{Name: fam + "-dedicated-8", Family: fam, Tier: 8, MaxNodes: 500, MaxEtcdSize: 200_000_000, CommitmentDays: 30},
			ClusterType{Name: fam + "-dedicated-16", Family: fam, Tier: 16, MaxNodes: 500, MaxEtcdSize: 200_000_000, CommitmentDays: 30},
		)
	}
	return out
}

// AvailableTypesFor is what GET …/clusters/{id}/available-types answers for
// a cluster of type current, as recorded: a mutualised cluster's list holds
// its own type and every dedicated type of its family; a dedicated one's,
// only the higher tiers of its family; never a type of the other family.
func AvailableTypesFor(current string, all []ClusterType) []ClusterType {
	var cur ClusterType
	for _, t := range all {
		if t.Name == current {
			cur = t
		}
	}
	out := []ClusterType{}
	for _, t := range all {
		switch {
		case t.Family != cur.Family:
		case cur.Tier == 0 && (t.Tier > 0 || t.Name == cur.Name):
			out = append(out, t)
		case cur.Tier > 0 && t.Tier > cur.Tier:
			out = append(out, t)
		}
	}
	return out
}

// TypeItems converts cluster types for the paged cluster-types route's Body.
func TypeItems(region string, ts ...ClusterType) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = t.JSON(region)
	}
	return out
}

// AvailableTypes is the body of the available-types route: its types and
// their total_count (the route is not paged).
func AvailableTypes(region string, ts ...ClusterType) map[string]any {
	return map[string]any{"cluster_types": TypeItems(region, ts...), "total_count": len(ts)}
}
