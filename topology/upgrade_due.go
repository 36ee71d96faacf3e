package topology

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"nestor.dev/nestor/kube"
)

// DrainsNodes reports whether step s drains (or deletes) nodes, which a
// PodDisruptionBudget can hold up: upgrade-node and repair-node (kubeadm
// drains a node before its kubelet is upgraded or it is worked on:
// kubernetes.io "Upgrading kubeadm clusters", "Drain the node"), upgrade
// on a node cluster (phase k8s: each control-plane node is drained the same
// way), upgrade-pool, replace-pool and replace-node (the provider drains a
// pool's nodes to replace them: Scaleway Kapsule's pool upgrade and
// deletion). A managed cluster's own upgrade (phase cluster) moves the
// control plane only.
func DrainsNodes(s Step) bool {
	switch s.Kind {
	case StepUpgradeNode, StepRepairNode, StepUpgradePool, StepReplacePool, StepReplaceNode:
		return true
	case StepUpgrade:
		return s.Phase == PhaseK8s
	}
	return false
}

// DrainedNodes returns the names of the nodes step s drains (DrainsNodes),
// sorted, as obs read them: the node an upgrade-node, repair-node or
// replace-node step names (its Target); for a node cluster's upgrade, the
// nodes whose roles are a control-plane role (NodeState.Roles,
// HasControlPlaneRole: kubeadm drains each control-plane node as it
// upgrades it, kubernetes.io "Upgrading kubeadm clusters"); for
// upgrade-pool and replace-pool, the nodes the provider lists in the pool
// (KapsuleObserved.Pools and Nodes; a Kapsule node's name is its
// Kubernetes node's). Unknown, with the reason, when those were not read,
// when no node carries a control-plane role, or when the provider lists
// no such pool; known and empty for a step that drains no node.
func DrainedNodes(s Step, obs *Observed) Fact[[]string] {
	if !DrainsNodes(s) {
		return KnownFact([]string{})
	}
	switch s.Kind {
	case StepUpgradeNode, StepRepairNode, StepReplaceNode:
		return KnownFact([]string{s.Target})
	case StepUpgrade:
		if obs == nil || !obs.Nodes.Known {
			why := "nothing was read"
			if obs != nil {
				why = OrNotRead(obs.Nodes.Reason)
			}
			return UnknownFact[[]string](Because(ReasonNotRead, "which nodes are the control plane is not known: the nodes were not read ("+why+")"))
		}
		var out []string
		for _, n := range obs.Nodes.Value {
			if HasControlPlaneRole(n.Roles) {
				out = append(out, n.Name)
			}
		}
		if len(out) == 0 {
			// A node cluster has a control plane: no node showing its
			// role means the role labels are not there, not that the
			// upgrade drains nothing.
			return UnknownFact[[]string](Because(ReasonUnrecognised, "which nodes are the control plane is not known: no node carries a control-plane role label"))
		}
		sort.Strings(out)
		return KnownFact(append([]string{}, out...))
	}
	// upgrade-pool, replace-pool: the provider's nodes of the pool.
	if obs == nil || obs.Kapsule == nil {
		return UnknownFact[[]string](Because(ReasonNotRead, "the provider's pools were not read"))
	}
	k := obs.Kapsule
	switch {
	case !k.Pools.Known:
		return UnknownFact[[]string](Because(ReasonNotRead, "the provider's pools were not read ("+OrNotRead(k.Pools.Reason)+")"))
	case !k.Nodes.Known:
		return UnknownFact[[]string](Because(ReasonNotRead, "the provider's nodes were not read ("+OrNotRead(k.Nodes.Reason)+")"))
	}
	var id string
	for _, p := range k.Pools.Value {
		if p.Name == s.Target {
			id = p.ID
		}
	}
	if id == "" {
		return UnknownFact[[]string](Because(ReasonNotRead, "the provider lists no pool "+s.Target+": which nodes the step drains is not known"))
	}
	var out []string
	for _, n := range k.Nodes.Value {
		if n.PoolID == id {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return KnownFact(append([]string{}, out...))
}

// ClusterVersion returns the version the cluster runs as obs read it: a
// managed cluster's as its provider reports it (obs.Kapsule), else the API
// server's (obs.Versions, else obs.ServerVersion). Unknown, with the
// reason, when none was read or it does not parse.
func ClusterVersion(obs *Observed) kube.Version {
	if obs == nil {
		return kube.Version{Reason: "nothing was read"}
	}
	if k := obs.Kapsule; k != nil {
		if !k.Cluster.Known {
			return kube.Version{Reason: "the provider's cluster: " + OrNotRead(k.Cluster.Reason)}
		}
		return kube.ParseVersion(k.Cluster.Value.Version)
	}
	if obs.Versions.Known {
		return obs.Versions.Value.APIServer
	}
	if !obs.ServerVersion.Known {
		return kube.Version{Reason: "server version: " + OrNotRead(obs.ServerVersion.Reason)}
	}
	return kube.ParseVersion(obs.ServerVersion.Value)
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

// UpgradeTargets says which upgrade reports are due for a stack whose plan
// is p, read as obs, judged at asOf — the reader calls it before reading
// what the judgement needs (UpgradeDue.ReadsAPIs, ReadsPDBs) and reads
// nothing when nothing is due. providerWarnDays is a managed kind's window
// for its provider's end of life (ProviderEndOfLifeNoticeDays;
// ignored without obs.Kapsule).
//
// A target is a minor above the cluster's (ClusterVersion) that
//
//   - an upgrade, upgrade-node or upgrade-pool step moves to (StepTo);
//   - the provider forces, its end of life of the running minor being
//     past or within providerWarnDays (KapsuleObserved.ForcedMove): the
//     next minor's latest patch, on that date (Forced);
//   - comes next when the running minor's upstream end of life is within
//     EndOfLifeNotice or past, or the minor is older than the calendar
//     (UpstreamCalendar, Calendar.Standing): the next minor, with that
//     date.
//
// Targets of one minor are merged (their reasons, steps and the forced
// date kept), sorted, each From the previous one (a path through several
// minors is judged one move at a time). A patch move is no target. Drains
// are the steps that drain nodes (DrainsNodes), whatever the versions.
// Nothing is due for a plan built on no read (unverified); when the
// cluster's version is unknown, Unknown says why and only Drains are
// given; DrainNodes says which nodes each of those drains (DrainedNodes). A
// zero asOf judges no calendar.
func UpgradeTargets(p Plan, obs *Observed, providerWarnDays int, asOf time.Time) UpgradeDue {
	d := UpgradeDue{Targets: []UpgradeMove{}, Drains: []string{}, DrainNodes: []DrainStep{}}
	if p.Unverified || obs == nil || obs.NoTarget {
		return d
	}
	for _, s := range p.Steps {
		if DrainsNodes(s) {
			d.Drains = append(d.Drains, StepRef(s))
			d.DrainNodes = append(d.DrainNodes, DrainStep{Step: StepRef(s), Nodes: DrainedNodes(s, obs)})
		}
	}
	cur := ClusterVersion(obs)
	d.Current = cur
	if !cur.Known {
		d.Unknown = "whether a move to another minor is due is not known: the cluster's version was not read (the plan's unknowns say why)"
		return d
	}
	byMinor := map[string]*UpgradeMove{}
	add := func(to kube.Version, why string, date *time.Time, forced bool, step string) {
		if !to.Known || to.Major != cur.Major || kube.CompareMinor(to, cur) <= 0 {
			return
		}
		m := to.MinorString()
		t, ok := byMinor[m]
		if !ok {
			minor := kube.Version{Known: true, Major: to.Major, Minor: to.Minor}
			t = &UpgradeMove{Minor: minor, To: minor, Steps: []string{}}
			byMinor[m] = t
		}
		if to.HasPatch && !t.To.HasPatch {
			t.To = kube.Version{Known: true, Major: to.Major, Minor: to.Minor, Patch: to.Patch, HasPatch: true}
		}
		if !slices.Contains(t.Why, why) {
			t.Why = append(t.Why, why)
		}
		// The first date wins: the provider's forced move is added before
		// the upstream calendar's.
		if date != nil && t.Date == nil {
			t.Date = date
		}
		t.Forced = t.Forced || forced
		if step != "" && !slices.Contains(t.Steps, step) {
			t.Steps = append(t.Steps, step)
		}
	}
	for _, s := range p.Steps {
		if to, ok := StepTo(s); ok {
			ref := StepRef(s)
			add(to, "planned: "+ref, nil, false, ref)
		}
	}
	next := kube.Version{Known: true, Major: cur.Major, Minor: cur.Minor + 1}
	if fm, ok := obs.Kapsule.ForcedMove(cur, providerWarnDays, asOf); ok {
		eol := fm.EndOfLife
		var why string
		if fm.Past {
			why = fmt.Sprintf("the provider's end of life of %s was on %s: the provider upgrades the cluster to the next minor's latest patch (%s)", cur.MinorString(), kube.DateText(eol), fm.To.Canonical())
		} else {
			why = fmt.Sprintf("the provider's end of life of %s is on %s, in %s: the provider then upgrades the cluster to the next minor's latest patch (%s)", cur.MinorString(), kube.DateText(eol), kube.Plural(fm.Days, "day"), fm.To.Canonical())
		}
		if !fm.To.HasPatch {
			why += ", which its version list does not name yet"
		}
		add(fm.To, why, &eol, true, "")
	}
	if !asOf.IsZero() {
		cal := kube.UpstreamCalendar()
		st, e, days := cal.Standing(cur, asOf)
		eol := e.EndOfLife
		est := ""
		if e.Estimated {
			est = " (estimated)"
		}
		switch st {
		case kube.StandingEndingSoon:
			add(next, fmt.Sprintf("%s reaches end of life upstream on %s%s, in %s", cur.MinorString(), kube.DateText(eol), est, kube.Plural(days, "day")), &eol, false, "")
		case kube.StandingEnded:
			add(next, fmt.Sprintf("%s reached end of life upstream on %s%s", cur.MinorString(), kube.DateText(eol), est), &eol, false, "")
		case kube.StandingOlder:
			add(next, fmt.Sprintf("%s is older than every minor of this nestor's upstream calendar: past its end of life", cur.MinorString()), nil, false, "")
		}
	}
	for _, t := range byMinor {
		d.Targets = append(d.Targets, *t)
	}
	sort.Slice(d.Targets, func(i, j int) bool { return kube.CompareMinor(d.Targets[i].Minor, d.Targets[j].Minor) < 0 })
	from := kube.Version{Known: true, Major: cur.Major, Minor: cur.Minor}
	for i := range d.Targets {
		d.Targets[i].From = from
		from = d.Targets[i].Minor
	}
	return d
}
