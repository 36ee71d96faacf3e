package upgrade

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
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
func DrainsNodes(s topology.Step) bool {
	switch s.Kind {
	case topology.StepUpgradeNode, topology.StepRepairNode, topology.StepUpgradePool, topology.StepReplacePool, topology.StepReplaceNode:
		return true
	case topology.StepUpgrade:
		return s.Phase == topology.PhaseK8s
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
func DrainedNodes(s topology.Step, obs *topology.Observed) topology.Fact[[]string] {
	if !DrainsNodes(s) {
		return topology.KnownFact([]string{})
	}
	switch s.Kind {
	case topology.StepUpgradeNode, topology.StepRepairNode, topology.StepReplaceNode:
		return topology.KnownFact([]string{s.Target})
	case topology.StepUpgrade:
		if obs == nil || !obs.Nodes.Known {
			why := "nothing was read"
			if obs != nil {
				why = topology.OrNotRead(obs.Nodes.Reason)
			}
			return topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "which nodes are the control plane is not known: the nodes were not read ("+why+")"))
		}
		var out []string
		for _, n := range obs.Nodes.Value {
			if topology.HasControlPlaneRole(n.Roles) {
				out = append(out, n.Name)
			}
		}
		if len(out) == 0 {
			// A node cluster has a control plane: no node showing its
			// role means the role labels are not there, not that the
			// upgrade drains nothing.
			return topology.UnknownFact[[]string](topology.Because(topology.ReasonUnrecognised, "which nodes are the control plane is not known: no node carries a control-plane role label"))
		}
		sort.Strings(out)
		return topology.KnownFact(append([]string{}, out...))
	}
	// upgrade-pool, replace-pool: the provider's nodes of the pool.
	if obs == nil || obs.Kapsule == nil {
		return topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "the provider's pools were not read"))
	}
	k := obs.Kapsule
	switch {
	case !k.Pools.Known:
		return topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "the provider's pools were not read ("+topology.OrNotRead(k.Pools.Reason)+")"))
	case !k.Nodes.Known:
		return topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "the provider's nodes were not read ("+topology.OrNotRead(k.Nodes.Reason)+")"))
	}
	var id string
	for _, p := range k.Pools.Value {
		if p.Name == s.Target {
			id = p.ID
		}
	}
	if id == "" {
		return topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "the provider lists no pool "+s.Target+": which nodes the step drains is not known"))
	}
	var out []string
	for _, n := range k.Nodes.Value {
		if n.PoolID == id {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return topology.KnownFact(append([]string{}, out...))
}

// MovesDue says which upgrade reports are due for a stack whose plan
// is p, read as obs, judged at asOf — the reader calls it before reading
// what the judgement needs (UpgradeDue.ReadsAPIs, ReadsPDBs) and reads
// nothing when nothing is due. providerWarnDays is a managed kind's window
// for its provider's end of life (ProviderEndOfLifeNoticeDays;
// ignored without obs.Kapsule).
//
// A move due is to a minor above the cluster's (topology.Observed.ClusterVersion) that
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
// Moves to one minor are merged (their reasons, steps and the forced
// date kept), sorted, each From the previous one (a path through several
// minors is judged one move at a time). A patch move is none. Drains
// are the steps that drain nodes (DrainsNodes), whatever the versions.
// Nothing is due for a plan built on no read (unverified); when the
// cluster's version is unknown, Unknown says why and only Drains are
// given; DrainNodes says which nodes each of those drains (DrainedNodes). A
// zero asOf judges no calendar.
func MovesDue(p topology.Plan, obs *topology.Observed, providerWarnDays int, asOf time.Time) UpgradeDue {
	d := UpgradeDue{Moves: []UpgradeMove{}, Drains: []string{}, DrainNodes: []DrainStep{}}
	if p.Unverified || obs == nil || obs.NoTarget {
		return d
	}
	for _, s := range p.Steps {
		if DrainsNodes(s) {
			d.Drains = append(d.Drains, topology.StepRef(s))
			d.DrainNodes = append(d.DrainNodes, DrainStep{Step: topology.StepRef(s), Nodes: DrainedNodes(s, obs)})
		}
	}
	cur := obs.ClusterVersion()
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
		if to, ok := topology.StepTo(s); ok {
			ref := topology.StepRef(s)
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
		d.Moves = append(d.Moves, *t)
	}
	sort.Slice(d.Moves, func(i, j int) bool { return kube.CompareMinor(d.Moves[i].Minor, d.Moves[j].Minor) < 0 })
	from := kube.Version{Known: true, Major: cur.Major, Minor: cur.Minor}
	for i := range d.Moves {
		d.Moves[i].From = from
		from = d.Moves[i].Minor
	}
	return d
}
