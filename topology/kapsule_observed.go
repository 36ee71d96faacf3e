package topology

import (
	"math"
	"slices"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
)

// KapsuleObserved is what the provider's API (Scaleway k8s/v1) said of a
// kapsule stack's cluster, read now. Each part is a Fact: a part the API
// did not give is unknown with the reason, never empty.
type KapsuleObserved struct {
	Cluster Fact[KapsuleCluster] `json:"cluster"`
	Pools   Fact[[]KapsulePool]  `json:"pools"`
	Nodes   Fact[[]KapsuleNode]  `json:"nodes"`
	// Available are the versions the cluster may upgrade to
	// (GET …/clusters/{id}/available-versions: every greater patch of its
	// minor and the next minor's).
	Available Fact[[]string] `json:"available_versions"`
	// Versions is the provider's version list with its dates
	// (GET …/versions).
	Versions Fact[[]KapsuleVersion] `json:"versions"`
	// ACL are the cluster's API server ACL rules, as "IP" or
	// "scaleway_ranges": ACLRules written as text, kept here as well (the
	// document carried it first).
	ACL Fact[[]string] `json:"acl"`
	// ACLRules are the cluster's API server ACL rules
	// (GET …/clusters/{id}/acls), in the API's order (sorted by ip).
	ACLRules Fact[[]ACLRule] `json:"acl_rules"`
	// KapsuleOffer is the offer's part: the region's cluster types, the
	// types the cluster may switch to, its etcd's size (its fields are
	// written at this level of the document).
	KapsuleOffer
	// Transient maps a part ("cluster", "pools", "nodes") the API answered
	// 409 transient_state for to the object's current state: that part is
	// moving, not unknown.
	Transient map[string]string `json:"transient,omitempty"`
	// Provider lists the provider's objects found inside the cluster
	// (kube-system workloads, the CSI's StorageClasses, the CNI), shown
	// once as "provider's" and never planned.
	Provider []string `json:"provider"`
	// InCluster says why the in-cluster part (layers, StorageClasses,
	// kubelets) was not read, whatever the cause ("" when it was): no
	// kubeconfig declared (then Observed.InClusterUnread says the same), or
	// one that could not be loaded or used.
	InCluster string `json:"in_cluster_unread,omitempty"`
}

// KapsuleCluster is the provider's cluster object, as far as nestor judges it.
type KapsuleCluster struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Region    string `json:"region"`
	ProjectID string `json:"project_id"`
	// Status is the API's (ready, creating, updating, deleting, locked,
	// pool_required, unknown…), as sent.
	Status string `json:"status"`
	// Version is the cluster's Kubernetes version; while updating, the
	// version it is being upgraded to.
	Version          string `json:"version"`
	Type             string `json:"type"`
	CNI              string `json:"cni"`
	URL              string `json:"cluster_url"`
	AutoUpgrade      bool   `json:"auto_upgrade"`
	UpgradeAvailable bool   `json:"upgrade_available"`
	// CreatedAt is when the cluster was created (nil when the API did not say).
	CreatedAt *time.Time `json:"created_at,omitempty"`
	// CommitmentEndsAt is the end of a dedicated offer's commitment: the
	// cluster may not move to a lower type before it. For a mutualised
	// cluster the API returns its creation date, which is no commitment
	// (CommitmentActive says which).
	CommitmentEndsAt *time.Time `json:"commitment_ends_at,omitempty"`
	// PrivateNetworkID is the Private Network the cluster was created in
	// ("": none); PodCIDR and ServiceCIDR its pod and service ranges (""
	// when the API gave none). The provider cannot change them in place.
	PrivateNetworkID string `json:"private_network_id,omitempty"`
	PodCIDR          string `json:"pod_cidr,omitempty"`
	ServiceCIDR      string `json:"service_cidr,omitempty"`
}

// CommitmentActive reports whether c carries a commitment that still binds
// at asOf: a commitment end after both its creation and asOf. The provider
// returns commitment_ends_at equal to created_at for a cluster that never
// had a dedicated offer (scaleway-sdk-go api/k8s/v1 Cluster.CommitmentEndsAt).
func (c KapsuleCluster) CommitmentActive(asOf time.Time) bool {
	if c.CommitmentEndsAt == nil {
		return false
	}
	if c.CreatedAt != nil && !c.CommitmentEndsAt.After(*c.CreatedAt) {
		return false
	}
	return c.CommitmentEndsAt.After(asOf)
}

// KapsulePool is one of the cluster's pools.
type KapsulePool struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Version  string `json:"version"`
	NodeType string `json:"node_type"`
	Zone     string `json:"zone"`
	// Size is the pool's node count (the autoscaler's current one with
	// Autoscaling).
	Size         int    `json:"size"`
	MinSize      int    `json:"min_size"`
	MaxSize      int    `json:"max_size"`
	Autoscaling  bool   `json:"autoscaling"`
	Autohealing  bool   `json:"autohealing"`
	ErrorMessage string `json:"error_message,omitempty"`
	// PlacementGroupID is the pool's placement group ("": none),
	// RootVolumeType its nodes' root volume type (as the API writes it,
	// "default_volume_type" included), RootVolumeSize its size in bytes (0:
	// the API gave none), PublicIPDisabled whether its nodes have no public
	// IP. The provider cannot change them in place.
	PlacementGroupID string `json:"placement_group_id,omitempty"`
	RootVolumeType   string `json:"root_volume_type,omitempty"`
	RootVolumeSize   uint64 `json:"root_volume_size,omitempty"`
	PublicIPDisabled bool   `json:"public_ip_disabled"`
}

// KapsuleNode is one node as the provider lists it.
type KapsuleNode struct {
	Name         string `json:"name"`
	PoolID       string `json:"pool_id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"error_message,omitempty"`
}

// KapsuleVersion is one entry of the provider's version list; a date the
// API does not give is nil.
type KapsuleVersion struct {
	Name         string     `json:"name"`
	ReleasedAt   *time.Time `json:"released_at,omitempty"`
	DeprecatedAt *time.Time `json:"deprecated_at,omitempty"`
	EndOfLifeAt  *time.Time `json:"end_of_life_at,omitempty"`
}

// Kapsule plan step kinds: a pool is created, updated in place (size,
// autoscaling), replaced (node type, zone, placement group, root volume and
// public IP cannot change in place) or upgraded; a node is replaced; the
// cluster's settings are updated, its ACL set, or it is renamed.
const (
	StepCreatePool    StepKind = "create-pool"
	StepUpdatePool    StepKind = "update-pool"
	StepReplacePool   StepKind = "replace-pool"
	StepUpgradePool   StepKind = "upgrade-pool"
	StepReplaceNode   StepKind = "replace-node"
	StepUpdateCluster StepKind = "update-cluster"
	StepSetACL        StepKind = "set-acl"
	StepRenameCluster StepKind = "rename-cluster"
)

// Finding kinds of the kapsule rules (kapsule_judge.go says each rule and
// its source).
const (
	// FindingLocked: the provider locked the cluster or a pool (error).
	FindingLocked FindingKind = "locked"
	// FindingDegraded: a pool or node the provider reports degraded.
	FindingDegraded FindingKind = "degraded"
	// FindingProviderVersions: what the provider offers or applies (patches
	// by auto-upgrade, the next minor, upgrade_available disagreeing).
	FindingProviderVersions FindingKind = "provider-versions"
	// FindingProviderCalendar: the provider's dates for a minor in use
	// (deprecated, end of life, not listed, inconsistent).
	FindingProviderCalendar FindingKind = "provider-calendar"
	// FindingACLOpen: the API server's ACL admits every address (warning).
	FindingACLOpen FindingKind = "acl-open"
	// FindingNotInPlace: a declared value of the cluster the provider
	// cannot change in place: the cluster must be recreated (error).
	FindingNotInPlace FindingKind = "not-in-place"
	// FindingRename: what renaming the cluster does (warning, under the
	// rename-cluster step).
	FindingRename FindingKind = "rename"
)

// UpdatingText says what an updating cluster is doing, as the provider's
// objects show it: "updating to X (pools at Y)" when the control plane's
// version is ahead of a pool's — the provider moved the version first, the
// pools follow —, else "updating" (most updates change settings — ACLs, a
// type, autoscaler options — and leave the version as it is; the cluster
// object carries no "from" version to tell otherwise).
func (k *KapsuleObserved) UpdatingText() string {
	if k == nil || !k.Cluster.Known {
		return "updating"
	}
	c := kube.ParseVersion(k.Cluster.Value.Version)
	if !c.Known || !k.Pools.Known {
		return "updating"
	}
	var behind []string
	for _, p := range k.Pools.Value {
		if pv := kube.ParseVersion(p.Version); pv.Known && kube.CompareVersions(pv, c) < 0 && !slices.Contains(behind, p.Version) {
			behind = append(behind, p.Version)
		}
	}
	if len(behind) == 0 {
		return "updating"
	}
	return "updating to " + k.Cluster.Value.Version + " (pools at " + strings.Join(behind, ", ") + ")"
}

// VersionEntry returns the provider's version-list entry for v (k.Versions
// must be known): the entry of the exact version, else the latest patch of
// v's minor; false when the list carries no version of that minor.
func (k *KapsuleObserved) VersionEntry(v kube.Version) (KapsuleVersion, bool) {
	if k == nil || !k.Versions.Known {
		return KapsuleVersion{}, false
	}
	var best KapsuleVersion
	var bestV kube.Version
	for _, e := range k.Versions.Value {
		ev := kube.ParseVersion(e.Name)
		if !ev.Known || kube.CompareMinor(ev, v) != 0 {
			continue
		}
		if v.HasPatch && ev.HasPatch && ev.Patch == v.Patch {
			return e, true
		}
		if !bestV.Known || kube.CompareVersions(ev, bestV) > 0 {
			best, bestV = e, ev
		}
	}
	return best, bestV.Known
}

// MinorsInUse are the minors the cluster and its pools run, in that order
// (the cluster's first), each with who runs it ("the cluster", "pool
// default"); versions that do not parse are left out.
func (k *KapsuleObserved) MinorsInUse() []MinorUse {
	if k == nil {
		return nil
	}
	var out []MinorUse
	add := func(raw, who string) {
		v := kube.ParseVersion(raw)
		if !v.Known {
			return
		}
		for i := range out {
			if kube.CompareMinor(out[i].Version, v) == 0 {
				out[i].Users = append(out[i].Users, who)
				return
			}
		}
		out = append(out, MinorUse{Version: v, Users: []string{who}})
	}
	if k.Cluster.Known {
		add(k.Cluster.Value.Version, "the cluster")
	}
	if k.Pools.Known {
		for _, p := range k.Pools.Value {
			add(p.Version, "pool "+p.Name)
		}
	}
	return out
}

// MinorUse is one minor in use on a managed cluster: the first version of
// it seen (the cluster's when it runs it) and who runs it.
type MinorUse struct {
	Version kube.Version
	Users   []string
}

// ForcedMove is the provider's own move of a managed cluster to the next
// minor, when its minor's end of life comes.
type ForcedMove struct {
	// To is the next minor's latest patch the provider lists (its version
	// list, then the cluster's available versions), or the next minor alone
	// when it lists none.
	To kube.Version
	// EndOfLife is the provider's end of life of the running minor: the
	// day the move starts.
	EndOfLife time.Time
	// Past is true when EndOfLife is the judged day or before.
	Past bool
	// Days is from the judged day to EndOfLife, rounded up (0 or less once
	// past).
	Days int
}

// ForcedMove returns the provider's forced move of cluster version current
// at asOf, when its minor's end of life (the version list's end_of_life_at,
// "from which any remaining clusters on this version will begin to be
// forcibly upgraded to the next minor version" — scaleway-sdk-go api/k8s/v1
// Version) is past or within warnDays days (the callers pass
// ProviderEndOfLifeNoticeDays, the window the provider calendar warns in).
// None (false) when the list is not read, carries no end of life for the minor, or
// gives one before its deprecation (an inconsistent calendar, which the
// provider calendar reports without a countdown).
func (k *KapsuleObserved) ForcedMove(current kube.Version, warnDays int, asOf time.Time) (ForcedMove, bool) {
	if k == nil || !current.Known || asOf.IsZero() {
		return ForcedMove{}, false
	}
	e, ok := k.VersionEntry(current)
	if !ok || e.EndOfLifeAt == nil || e.DeprecatedAt != nil && e.EndOfLifeAt.Before(*e.DeprecatedAt) {
		return ForcedMove{}, false
	}
	eol := *e.EndOfLifeAt
	days := int(math.Ceil(eol.Sub(asOf).Hours() / 24))
	past := !asOf.Before(eol)
	if !past && days > warnDays {
		return ForcedMove{}, false
	}
	next := kube.Version{Known: true, Major: current.Major, Minor: current.Minor + 1}
	to := next
	var names []string
	if k.Versions.Known {
		for _, v := range k.Versions.Value {
			names = append(names, v.Name)
		}
	}
	if k.Available.Known {
		names = append(names, k.Available.Value...)
	}
	for _, n := range names {
		v := kube.ParseVersion(n)
		if v.Known && v.HasPatch && v.Pre == "" && kube.CompareMinor(v, next) == 0 && (!to.HasPatch || kube.CompareVersions(v, to) > 0) {
			to = kube.Version{Known: true, Major: v.Major, Minor: v.Minor, Patch: v.Patch, HasPatch: true}
		}
	}
	return ForcedMove{To: to, EndOfLife: eol, Past: past, Days: days}, true
}
