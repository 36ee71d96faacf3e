package topology

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// KeyScalewayType is the Positions key of scaleway.type: the control-plane
// offer a kapsule stack declares.
const KeyScalewayType = "scaleway.type"

// The families of the provider's cluster types (scaleway-sdk-go api/k8s/v1
// Cluster.Type: "kapsule" and "multicloud" are the mutualised offers of
// each family, "FAMILY-dedicated-N" its dedicated offers, N the control
// plane's memory tier: 4, 8 and 16 in the provider's "control plane offers"
// page). A cluster never changes family in place.
const (
	TypeFamilyKapsule    = "kapsule"
	TypeFamilyMulticloud = "multicloud"
)

// KnownKapsuleTypes are the cluster types the provider's "control plane
// offers" page names: what a did-you-mean proposes. A name of the same
// shape with another tier (kapsule-dedicated-32) is not refused: the
// provider may offer it, and its /cluster-types list says so.
var KnownKapsuleTypes = []string{"kapsule", "kapsule-dedicated-4", "kapsule-dedicated-8", "kapsule-dedicated-16",
	"multicloud", "multicloud-dedicated-4", "multicloud-dedicated-8", "multicloud-dedicated-16"}

var clusterTypeRE = regexp.MustCompile(`^(kapsule|multicloud)(?:-dedicated-([1-9][0-9]{0,3}))?$`)

// ClusterType is a cluster type's name taken apart: its family (kapsule,
// multicloud) and its tier (0 for the mutualised offer, N for
// FAMILY-dedicated-N). Parsed is false for a name of another shape.
type ClusterType struct {
	Name   string
	Family string
	Tier   int
	Parsed bool
}

// ParseClusterType takes name apart (see ClusterType).
func ParseClusterType(name string) ClusterType {
	m := clusterTypeRE.FindStringSubmatch(name)
	if m == nil {
		return ClusterType{Name: name}
	}
	ct := ClusterType{Name: name, Family: m[1], Parsed: true}
	if m[2] != "" {
		ct.Tier, _ = strconv.Atoi(m[2])
	}
	return ct
}

// Dedicated reports whether the type is a dedicated offer (tier above 0).
func (c ClusterType) Dedicated() bool { return c.Tier > 0 }

// Plane says "mutualised" or "dedicated".
func (c ClusterType) Plane() string {
	if c.Dedicated() {
		return "dedicated"
	}
	return "mutualised"
}

// KapsuleType is one control-plane offer as the provider's API lists it
// (GET /k8s/v1/regions/{region}/cluster-types, scaleway-sdk-go api/k8s/v1
// ClusterType): its node limit, its etcd quota in bytes (decimal: the
// provider's 55 MB is 55000000) and, for a dedicated offer, the commitment
// a move to it starts.
type KapsuleType struct {
	Name string `json:"name"`
	// Availability is the API's word: available, scarce or shortage.
	Availability string `json:"availability"`
	MaxNodes     int    `json:"max_nodes"`
	MaxEtcdSize  uint64 `json:"max_etcd_size"`
	Dedicated    bool   `json:"dedicated"`
	// CommitmentDelaySeconds is how long after a move to this type the
	// cluster cannot move to a lower one (0: none given).
	CommitmentDelaySeconds int64 `json:"commitment_delay_seconds,omitempty"`
}

// CommitmentText says the commitment a move to kt starts, in days when
// whole ("a 30-day commitment"), "" when it carries none.
func (kt KapsuleType) CommitmentText() string {
	s := kt.CommitmentDelaySeconds
	switch {
	case s <= 0:
		return ""
	case s%86400 == 0:
		return fmt.Sprintf("a %d-day commitment", s/86400)
	}
	return fmt.Sprintf("a commitment of %ds", s)
}

// KapsuleOffer is what nestor reads of a kapsule cluster's offer and of how
// full it is: the region's cluster types, the types this cluster may switch
// to now, and the size of its etcd as its API server reports it. It is part
// of KapsuleObserved (its fields are KapsuleObserved's in the document).
type KapsuleOffer struct {
	// Types are the region's cluster types (GET …/cluster-types, every page).
	Types Fact[[]KapsuleType] `json:"cluster_types"`
	// AvailableTypes are the names of the types the cluster may switch to
	// now (GET …/clusters/{id}/available-types). A mutualised cluster's
	// list holds its own type too: being listed is not a move. From a
	// dedicated type the provider lists only higher tiers, and never a type
	// of the other family.
	AvailableTypes Fact[[]string] `json:"available_types"`
	// Etcd is the size of the cluster's etcd as the API server's /metrics
	// reports it (StorageSize): unknown with the reason when /metrics could
	// not be read (no kubeconfig, forbidden…).
	Etcd Fact[StorageSize] `json:"etcd"`
}

// TypeInfo returns the entry of the type called name in the region's list
// (k.Types must be known), and whether it is there.
func (o KapsuleOffer) TypeInfo(name string) (KapsuleType, bool) {
	if !o.Types.Known {
		return KapsuleType{}, false
	}
	for _, kt := range o.Types.Value {
		if kt.Name == name {
			return kt, true
		}
	}
	return KapsuleType{}, false
}

// MovesTo are the types the cluster of type current may switch to now: the
// available-types list without current itself (a mutualised cluster's list
// holds it; being listed is not a move); nil when the list is unknown.
func (o KapsuleOffer) MovesTo(current string) []string {
	if !o.AvailableTypes.Known {
		return nil
	}
	out := []string{}
	for _, n := range o.AvailableTypes.Value {
		if n != current {
			out = append(out, n)
		}
	}
	return out
}

// StorageSize is the size of the cluster's storage (etcd) as the API
// server reports it in /metrics: apiserver_storage_size_bytes (Kubernetes
// 1.28 and later, one series per storage cluster, label
// storage_cluster_id), else apiserver_storage_db_total_size_in_bytes (before
// 1.28, one series per etcd endpoint). Both are the database file as
// allocated, which compaction does not shrink (a defragmentation does): an
// upper bound of the data etcd holds.
type StorageSize struct {
	Bytes uint64 `json:"bytes"`
	// Metric is the family read.
	Metric string `json:"metric"`
	// Series is how many series the family had; Bytes is the largest.
	Series int `json:"series"`
}

// Headroom is how full a managed cluster is against its offer's limits:
// the nodes now, at the pools' autoscaling maxima as the provider has
// them, at the declared pools' maxima, against the type's max_nodes; etcd
// against its max_etcd_size. Each figure is a Fact: unknown with the
// reason, never a guess.
type Headroom struct {
	// Type is the cluster's type whose limits the figures are judged
	// against ("" when the cluster was not read).
	Type string `json:"type"`
	// WarnPercent is the share of a limit from which a warning is given.
	WarnPercent int               `json:"warn_percent"`
	Measures    []HeadroomMeasure `json:"measures"`
}

// The measures of a Headroom (HeadroomMeasure.Name).
const (
	MeasureNodes         = "nodes"
	MeasureNodesPoolsMax = "nodes_at_pools_max"
	MeasureNodesDeclared = "nodes_at_declared_max"
	MeasureEtcd          = "etcd"
)

// HeadroomMeasure is one figure against its limit: Used of Limit, in Unit
// ("nodes" or "bytes"). Percent is set when both are known. UpperBound
// says Used may be above what it measures (etcd's file as allocated).
type HeadroomMeasure struct {
	Name string `json:"name"`
	// Text names it for a person ("nodes at the declared maxima").
	Text       string       `json:"text"`
	Unit       string       `json:"unit"`
	Used       Fact[uint64] `json:"used"`
	Limit      Fact[uint64] `json:"limit"`
	LimitOf    string       `json:"limit_of,omitempty"`
	Percent    *int         `json:"percent,omitempty"`
	UpperBound bool         `json:"upper_bound,omitempty"`
}

// Measure returns the measure called name, and whether h has it.
func (h *Headroom) Measure(name string) (HeadroomMeasure, bool) {
	if h == nil {
		return HeadroomMeasure{}, false
	}
	for _, m := range h.Measures {
		if m.Name == name {
			return m, true
		}
	}
	return HeadroomMeasure{}, false
}

// NewMeasure returns the measure name of used against limit (the limit of
// type limitOf), its Percent set when both are known (rounded up: 149 of
// 150 is 100%, never "99% and fine" when one more would be the last).
func NewMeasure(name, text, unit string, used, limit Fact[uint64], limitOf string) HeadroomMeasure {
	m := HeadroomMeasure{Name: name, Text: text, Unit: unit, Used: used, Limit: limit, LimitOf: limitOf}
	if used.Known && limit.Known && limit.Value > 0 {
		p := int((used.Value*100 + limit.Value - 1) / limit.Value)
		m.Percent = &p
	}
	return m
}

// AmountText writes v in the measure's unit: a count of nodes, or bytes in
// the provider's decimal megabytes ("12.3 MB", "55 MB").
func (m HeadroomMeasure) AmountText(v uint64) string {
	if m.Unit != "bytes" {
		return strconv.FormatUint(v, 10)
	}
	return DecimalMB(v)
}

// DecimalMB writes b bytes in decimal megabytes (1 MB = 1,000,000 bytes,
// the provider's unit): "55 MB", "12.3 MB".
func DecimalMB(b uint64) string {
	if b%1_000_000 == 0 {
		return fmt.Sprintf("%d MB", b/1_000_000)
	}
	s := strconv.FormatFloat(float64(b)/1e6, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + " MB"
}

// OfferSubject is a claim about the cluster's offer (its type, its limits,
// a set-type step), at scaleway.type, named text.
func OfferSubject(text string) Subject {
	return Subject{Kind: SubjectSetting, Name: text, Key: KeyScalewayType, Text: text}
}

// The offer's step kind.
const (
	// StepSetType: the cluster's type (its control-plane offer) is changed
	// in place (kapsule).
	StepSetType StepKind = "set-type"
)

// Finding kinds of the offer and its limits (probes/kapsule/offer.go says
// each rule and its source).
const (
	// FindingOffer: a declared type the provider cannot move the cluster
	// to in place (another family), or does not offer.
	FindingOffer FindingKind = "offer"
	// FindingHeadroom: the nodes or etcd near or over the offer's limits.
	FindingHeadroom FindingKind = "headroom"
)

// clusterType reads scaleway.type (val, written at at; key is its key): a
// name of the provider's type naming (ParseClusterType: kapsule or
// multicloud, optionally -dedicated-N) is accepted, a tier nestor does not
// know included (the provider may offer it; the plan checks the region's
// /cluster-types); any other name is an error with a did-you-mean among
// KnownKapsuleTypes (case is not ignored: the API's names are lowercase).
func (p *parser) clusterType(t *Topology, s *Scaleway, key, at *yaml.Node, val string) {
	if !ParseClusterType(val).Parsed {
		fix := "use one of " + strings.Join(KnownKapsuleTypes, ", ")
		if c := closest(strings.ToLower(val), KnownKapsuleTypes); len(c) > 0 {
			fix = "did you mean " + c[0] + "? " + fix
		}
		p.add(at, "scaleway.type", fix, "%q is not a cluster type (kapsule, multicloud, or either followed by -dedicated-N)", val)
		return
	}
	s.Type = val
	t.setPosition(KeyScalewayType, key)
}
