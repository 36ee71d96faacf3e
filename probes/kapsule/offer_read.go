package kapsule

import (
	"fmt"
	"sort"

	k8s "github.com/scaleway/scaleway-sdk-go/api/k8s/v1"
	"github.com/scaleway/scaleway-sdk-go/scw"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// types reads the region's cluster types (GET …/regions/{region}/
// cluster-types, every page through allPages: a type listed twice or a
// lying total makes the list unknown).
func (r *kapsuleReader) types() {
	types, err := allPages(r.ctx, "cluster-types", func(page int32) ([]*k8s.ClusterType, uint64, error) {
		size := uint32(providerPageSize)
		res, err := r.api.ListClusterTypes(&k8s.ListClusterTypesRequest{Region: r.region, Page: &page, PageSize: &size}, scw.WithContext(r.ctx))
		if err != nil {
			return nil, 0, err
		}
		return res.ClusterTypes, res.TotalCount, nil
	}, func(t *k8s.ClusterType) string { return t.Name })
	if err != nil {
		r.k.Types = topology.UnknownFact[[]topology.KapsuleType](r.reason("cluster_types", err))
		return
	}
	out := []topology.KapsuleType{}
	for _, t := range types {
		out = append(out, typeOf(t))
	}
	sort.Slice(out, func(i, j int) bool { return typeLess(out[i].Name, out[j].Name) })
	r.k.Types = topology.KnownFact(out)
}

// availableTypes reads the types the cluster may switch to now (GET
// …/clusters/{id}/available-types: one answer, its total_count checked
// against its items, a type listed twice refused, as allPages refuses them).
func (r *kapsuleReader) availableTypes() {
	res, err := r.api.ListClusterAvailableTypes(&k8s.ListClusterAvailableTypesRequest{Region: r.region, ClusterID: r.id}, scw.WithContext(r.ctx))
	if err != nil {
		r.k.AvailableTypes = topology.UnknownFact[[]string](r.reason("available_types", err))
		return
	}
	names := []string{}
	seen := map[string]bool{}
	for _, t := range res.ClusterTypes {
		if t == nil {
			continue
		}
		if seen[t.Name] {
			r.k.AvailableTypes = topology.UnknownFact[[]string](r.reason("available_types", &inconsistentError{"available-types", "it lists " + probes.SanitizeName(t.Name) + " twice"}))
			return
		}
		seen[t.Name] = true
		names = append(names, probes.SanitizeName(t.Name))
	}
	if res.TotalCount != uint64(len(names)) {
		r.k.AvailableTypes = topology.UnknownFact[[]string](r.reason("available_types", &inconsistentError{"available-types", fmt.Sprintf("it holds %d types but says total_count %d", len(names), res.TotalCount)}))
		return
	}
	sort.Slice(names, func(i, j int) bool { return typeLess(names[i], names[j]) })
	r.k.AvailableTypes = topology.KnownFact(names)
}

// typeLess orders type names by family, then tier (kapsule,
// kapsule-dedicated-4, -8, -16), names nestor cannot take apart last, by
// name.
func typeLess(a, b string) bool {
	ta, tb := topology.ParseClusterType(a), topology.ParseClusterType(b)
	switch {
	case ta.Parsed != tb.Parsed:
		return ta.Parsed
	case ta.Parsed && ta.Family != tb.Family:
		return ta.Family < tb.Family
	case ta.Parsed && ta.Tier != tb.Tier:
		return ta.Tier < tb.Tier
	}
	return a < b
}

// typeOf is the provider's cluster type in nestor's model (names
// escaped).
func typeOf(t *k8s.ClusterType) topology.KapsuleType {
	out := topology.KapsuleType{Name: probes.SanitizeName(t.Name), Availability: probes.SanitizeName(t.Availability.String()),
		MaxNodes: int(t.MaxNodes), MaxEtcdSize: uint64(t.MaxEtcdSize), Dedicated: t.Dedicated}
	if d := t.CommitmentDelay.ToTimeDuration(); d != nil && *d > 0 {
		out.CommitmentDelaySeconds = int64(d.Seconds())
	}
	return out
}
