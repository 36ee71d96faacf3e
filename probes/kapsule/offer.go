package kapsule

import (
	"fmt"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// HeadroomWarnPercent is the share of an offer's limit from which the
// headroom is a warning. Two things fill a limit faster than a preview
// sees: the autoscaler adds nodes up to the pools' maxima and a pool's
// upgrade surges extra nodes (its upgrade_policy.max_surge), and etcd's
// file grows with every write until compacted and defragmented; when a
// Kapsule cluster reaches its max_nodes the provider creates no more nodes,
// and an etcd at its quota refuses writes (etcd's "space quota": the
// NOSPACE alarm, after which only reads and deletes are served). At 80%
// there is time to move the offer up (a set-type) before that.
const HeadroomWarnPercent = 80

// judgeOffer adds the offer's steps, unknowns and findings to j: the
// declared type (judgeType) on a ready cluster, and the headroom's
// findings (headroomFindings) whenever the cluster was read; nothing while
// the whole plan is held. asOf is the plan's date (plan.Options.AsOf): a
// commitment is judged at it.
func (j *KapsuleJudgement) judgeOffer(t *topology.Topology, k *topology.KapsuleObserved, h *topology.Headroom, asOf time.Time) {
	if k == nil || j.Held != "" || k.Transient["cluster"] != "" || !k.Cluster.Known {
		return
	}
	if k.Cluster.Value.Status == "ready" {
		j.judgeType(t, k, asOf)
	}
	j.Findings = append(j.Findings, headroomFindings(h)...)
}

// typeSubject is the subject of the claims about the cluster's type (the
// set-type step's, NewStep's).
func typeSubject() topology.Subject { return topology.OfferSubject("cluster type") }

// judgeType compares the declared scaleway.type with the ready cluster's
// type (the provider's "control plane offers" page; scaleway-sdk-go
// api/k8s/v1 SetClusterType, ListClusterAvailableTypes, ClusterType,
// Cluster.CommitmentEndsAt):
//
//   - not declared, or the cluster's: nothing.
//   - a name that is not the provider's naming, or a cluster type that is
//     not: unknown (unrecognised).
//   - another family (kapsule ↔ multicloud): not a step. The provider
//     moves a cluster within its family only (its available-types never
//     lists the other family); it is a new cluster, which nestor does not
//     plan: an error finding.
//   - a type the region's /cluster-types does not list (when read): unknown,
//     not offered.
//   - a higher tier (up): a set-type step when the cluster's available-types
//     lists it, saying the commitment it starts (the type's
//     commitment_delay: 30 days for a dedicated offer), during which the
//     cluster cannot move down; unknown when not listed (not offered now),
//     or when the list was not read.
//   - a lower tier (down): available-types is not asked (from a dedicated
//     type it lists higher tiers only). A set-type step, blocked while the
//     cluster's commitment binds at asOf (KapsuleCluster.CommitmentActive:
//     "moving down is refused during it", until commitment_ends_at); to the
//     mutualised plane it also needs etcd under that type's max_etcd_size
//     ("you can not downgrade … to a mutualized control plane when your
//     etcd quota exceeds the mutualized storage allowance"): measured under
//     it, the reason says so; over it, the step is blocked (the figure is an
//     upper bound: compact and defragment, then preview again); not
//     measured, the step carries an unknown (never "fine"). A zero asOf
//     leaves the commitment unknown.
func (j *KapsuleJudgement) judgeType(t *topology.Topology, k *topology.KapsuleObserved, asOf time.Time) {
	if t.Scaleway == nil || t.Scaleway.Type == "" || t.Scaleway.Type == k.Cluster.Value.Type {
		return
	}
	c := k.Cluster.Value
	want, have := topology.ParseClusterType(t.Scaleway.Type), topology.ParseClusterType(c.Type)
	subject := typeSubject()
	switch {
	case !want.Parsed:
		j.unknown(subject, topology.ReasonUnrecognised, fmt.Sprintf("scaleway.type %q is not a cluster type nestor can compare", want.Name))
		return
	case !have.Parsed:
		j.unknown(subject, topology.ReasonUnrecognised, fmt.Sprintf("the cluster's type %q, which nestor does not know: scaleway.type %s cannot be compared with it", c.Type, want.Name))
		return
	case want.Family != have.Family:
		j.finding(topology.SeverityError, topology.FindingOffer, subject,
			"scaleway.type %s is of the %s family, the cluster is %s (%s): the provider does not move a cluster across families in place (its available-types never lists one); it is a new cluster, which nestor does not plan — declare %s, or create the %s cluster and move the workloads",
			want.Name, want.Family, have.Name, have.Family, have.Name, want.Family)
		return
	}
	var target topology.KapsuleType
	if k.Types.Known {
		kt, ok := k.TypeInfo(want.Name)
		if !ok {
			j.unknown(subject, topology.ReasonNotOffered, fmt.Sprintf("scaleway.type %s is not among the region's cluster types (%s)", want.Name, typeNames(k.Types.Value)))
			return
		}
		target = kt
	}
	move := have.Name + " → " + want.Name
	if want.Tier > have.Tier {
		j.typeUp(k, move, want, target)
		return
	}
	j.typeDown(k, c, move, want, target, asOf)
}

// typeUp plans a move to a higher tier (judgeType).
func (j *KapsuleJudgement) typeUp(k *topology.KapsuleObserved, move string, want topology.ClusterType, target topology.KapsuleType) {
	subject := typeSubject()
	switch {
	case !k.AvailableTypes.Known:
		j.unknown(subject, k.AvailableTypes.Code, "whether the provider offers "+want.Name+" to this cluster now: "+topology.OrNotRead(k.AvailableTypes.Reason))
		return
	case !containsString(k.AvailableTypes.Value, want.Name):
		j.unknown(subject, topology.ReasonNotOffered, fmt.Sprintf("the provider does not offer %s to this cluster now (its available-types: %s)", want.Name, orText(strings.Join(k.MovesTo(k.Cluster.Value.Type), ", "), "none")))
		return
	}
	commitment := "the commitment it starts is not known: " + topology.OrNotRead(k.Types.Reason)
	if k.Types.Known {
		commitment = "no commitment"
		if ct := target.CommitmentText(); ct != "" {
			commitment = "starts " + ct + ", during which the cluster cannot move to a lower type"
		}
	}
	reason := fmt.Sprintf("%s (offered to this cluster; %s)", move, commitment)
	if k.Types.Known && target.Availability != "" && target.Availability != "available" {
		reason += fmt.Sprintf("; the provider says its availability is %s", target.Availability)
	}
	j.addTypeStep(reason, nil)
}

// typeDown plans a move to a lower tier (judgeType).
func (j *KapsuleJudgement) typeDown(k *topology.KapsuleObserved, c topology.KapsuleCluster, move string, want topology.ClusterType, target topology.KapsuleType, asOf time.Time) {
	subject := typeSubject()
	var blocked []string
	var blockers []topology.Subject
	var notes []string
	switch {
	case asOf.IsZero():
		j.unknown(subject, topology.ReasonNotRead, "whether the commitment still binds: the plan has no date")
	case c.CommitmentActive(asOf):
		end := kube.DateText(*c.CommitmentEndsAt)
		blocked = append(blocked, fmt.Sprintf("the commitment of %s runs until %s (commitment_ends_at): the provider refuses a lower type before then; preview again after %s", c.Type, end, end))
		blockers = append(blockers, topology.Subject{Kind: topology.SubjectCluster, Name: c.Name, Key: topology.KeyScalewayType, Text: "the commitment of " + c.Type + " until " + end})
	case c.CommitmentEndsAt == nil:
		notes = append(notes, "the cluster gives no commitment_ends_at")
	default:
		notes = append(notes, "no commitment binds it")
	}
	if !want.Dedicated() {
		quota, known := target.MaxEtcdSize, k.Types.Known && target.MaxEtcdSize > 0
		e := k.Etcd
		switch {
		case !known:
			j.unknown(subject, topology.ReasonNotRead, fmt.Sprintf("whether etcd fits the mutualised quota of %s: the quota is not known (%s)", want.Name, topology.OrNotRead(k.Types.Reason)))
		case !e.Known:
			j.unknown(subject, e.Code, fmt.Sprintf("whether etcd fits %s's quota of %s, which the move to the mutualised plane needs: etcd's size was not measured (%s)", want.Name, topology.DecimalMB(quota), topology.OrNotRead(e.Reason)))
			notes = append(notes, "needs etcd under "+topology.DecimalMB(quota)+": not measured")
		case e.Value.Bytes > quota:
			blocked = append(blocked, fmt.Sprintf("etcd's database file is %s, over %s's quota of %s, and the provider refuses a move to the mutualised plane when etcd exceeds its allowance; the figure is an upper bound (the file as allocated, which compaction does not shrink): compact and defragment etcd, then preview again", topology.DecimalMB(e.Value.Bytes), want.Name, topology.DecimalMB(quota)))
			blockers = append(blockers, topology.Subject{Kind: topology.SubjectCluster, Name: c.Name, Key: topology.KeyScalewayType, Text: "etcd of " + c.Name})
		default:
			notes = append(notes, fmt.Sprintf("etcd %s, under %s's quota of %s", topology.DecimalMB(e.Value.Bytes), want.Name, topology.DecimalMB(quota)))
		}
	}
	reason := move + " (a lower type"
	if len(notes) > 0 {
		reason += "; " + strings.Join(notes, "; ")
	}
	reason += ")"
	if len(blocked) > 0 {
		reason += "; blocked: " + strings.Join(blocked, "; ")
	}
	j.addTypeStep(reason, blockers)
}

// addTypeStep adds the set-type step (phase cluster), before the pools'
// steps.
func (j *KapsuleJudgement) addTypeStep(reason string, blocked []topology.Subject) {
	st := topology.NewStep(topology.StepSetType, topology.PhaseCluster, "cluster", reason)
	st.Blocked = blocked
	at := len(j.Steps)
	for i, s := range j.Steps {
		if s.Phase != topology.PhaseCluster {
			at = i
			break
		}
	}
	j.Steps = append(j.Steps[:at], append([]topology.Step{st}, j.Steps[at:]...)...)
}

// KapsuleHeadroom is how full the cluster k describes is against its
// type's limits (the region's /cluster-types entry of the cluster's type:
// max_nodes, max_etcd_size): the provider's nodes now, the pools'
// maxima as the provider has them (max_size with autoscaling, else size),
// the declared pools' maxima (autoscaling.max, else size; judged against
// the declared scaleway.type's max_nodes when it declares another type,
// which the plan's set-type moves to), and etcd's size (StorageSize, an
// upper bound). Each figure and each limit is unknown with its reason when
// its read failed; when the cluster itself was not read (or is moving:
// 409), every figure is, with the cluster's reason (its type is not
// known). Nil when the provider's API was not read at all (k nil).
func KapsuleHeadroom(t *topology.Topology, k *topology.KapsuleObserved) *topology.Headroom {
	if k == nil {
		return nil
	}
	if !k.Cluster.Known {
		why := topology.Because(k.Cluster.Code, "the cluster was not read: "+topology.OrNotRead(k.Cluster.Reason))
		if st := k.Transient["cluster"]; st != "" {
			why = topology.Because(topology.ReasonNotRead, "the cluster is "+st+" (the provider's API answered transient_state)")
		}
		h := &topology.Headroom{WarnPercent: HeadroomWarnPercent}
		for _, m := range []struct{ name, text, unit string }{{topology.MeasureNodes, "nodes", "nodes"}, {topology.MeasureNodesPoolsMax, "nodes at the pools' maxima", "nodes"},
			{topology.MeasureNodesDeclared, "nodes at the declared maxima", "nodes"}, {topology.MeasureEtcd, "etcd", "bytes"}} {
			h.Measures = append(h.Measures, topology.NewMeasure(m.name, m.text, m.unit, topology.UnknownFact[uint64](why), topology.UnknownFact[uint64](why), ""))
		}
		return h
	}
	c := k.Cluster.Value
	h := &topology.Headroom{Type: c.Type, WarnPercent: HeadroomWarnPercent, Measures: []topology.HeadroomMeasure{}}
	nodesLimit, etcdLimit := typeLimits(k, c.Type)
	var now, poolsMax topology.Fact[uint64]
	switch {
	case k.Nodes.Known:
		now = topology.KnownFact(uint64(len(k.Nodes.Value)))
	default:
		now = topology.UnknownFact[uint64](whyOf(k.Nodes.Code, k.Nodes.Reason, k.Transient["nodes"]))
	}
	switch {
	case k.Pools.Known:
		var n uint64
		for _, p := range k.Pools.Value {
			n += uint64(poolMax(p.Autoscaling, p.MaxSize, p.Size))
		}
		poolsMax = topology.KnownFact(n)
	default:
		poolsMax = topology.UnknownFact[uint64](whyOf(k.Pools.Code, k.Pools.Reason, k.Transient["pools"]))
	}
	h.Measures = append(h.Measures,
		topology.NewMeasure(topology.MeasureNodes, "nodes", "nodes", now, nodesLimit, c.Type),
		topology.NewMeasure(topology.MeasureNodesPoolsMax, "nodes at the pools' maxima", "nodes", poolsMax, nodesLimit, c.Type))
	if t != nil && len(t.Pools) > 0 {
		var n uint64
		for _, p := range t.Pools {
			if p.Autoscaling != nil {
				n += uint64(max(p.Autoscaling.Max, 0))
			} else {
				n += uint64(max(p.Size, 0))
			}
		}
		limit, of := nodesLimit, c.Type
		if t.Scaleway != nil && t.Scaleway.Type != "" && t.Scaleway.Type != c.Type {
			limit, _ = typeLimits(k, t.Scaleway.Type)
			of = t.Scaleway.Type
		}
		h.Measures = append(h.Measures, topology.NewMeasure(topology.MeasureNodesDeclared, "nodes at the declared maxima", "nodes", topology.KnownFact(n), limit, of))
	}
	var etcd topology.Fact[uint64]
	if k.Etcd.Known {
		etcd = topology.KnownFact(k.Etcd.Value.Bytes)
	} else {
		etcd = topology.UnknownFact[uint64](topology.Because(k.Etcd.Code, topology.OrNotRead(k.Etcd.Reason)))
	}
	m := topology.NewMeasure(topology.MeasureEtcd, "etcd", "bytes", etcd, etcdLimit, c.Type)
	m.UpperBound = true
	h.Measures = append(h.Measures, m)
	return h
}

// typeLimits are the max_nodes and max_etcd_size of the type called name
// in the region's list: unknown with the list's reason when it was not
// read, unrecognised when it does not hold the type.
func typeLimits(k *topology.KapsuleObserved, name string) (nodes, etcd topology.Fact[uint64]) {
	if !k.Types.Known {
		why := topology.Because(k.Types.Code, "the cluster types were not read: "+topology.OrNotRead(k.Types.Reason))
		return topology.UnknownFact[uint64](why), topology.UnknownFact[uint64](why)
	}
	kt, ok := k.TypeInfo(name)
	if !ok {
		why := topology.Because(topology.ReasonUnrecognised, fmt.Sprintf("the type %q is not among the region's cluster types (%s)", name, typeNames(k.Types.Value)))
		return topology.UnknownFact[uint64](why), topology.UnknownFact[uint64](why)
	}
	return topology.KnownFact(uint64(kt.MaxNodes)), topology.KnownFact(kt.MaxEtcdSize)
}

// whyOf is the reason of an unread part (its transient state when the
// provider answered 409 for it).
func whyOf(code topology.ReasonCode, reason, transient string) topology.Why {
	if transient != "" {
		return topology.Because(topology.ReasonNotRead, "waiting: the provider answered transient_state (current state "+transient+")")
	}
	return topology.Because(code, topology.OrNotRead(reason))
}

// poolMax is the most nodes a pool may have: its autoscaler's maximum, else
// its size.
func poolMax(autoscaling bool, maxSize, size int) int {
	if autoscaling {
		return maxSize
	}
	return size
}

// headroomFindings judges h: the declared pools' maxima above the type's
// max_nodes is an error (the autoscaler could never reach them: the
// provider creates no node beyond the offer's limit); any known figure at
// or above HeadroomWarnPercent of its limit is a warning that says the
// threshold and why. Unknown figures are no finding: the headroom says them.
func headroomFindings(h *topology.Headroom) []topology.Finding {
	if h == nil {
		return nil
	}
	var out []topology.Finding
	for _, m := range h.Measures {
		if m.Percent == nil {
			continue
		}
		used, limit := m.AmountText(m.Used.Value), m.AmountText(m.Limit.Value)
		subject := topology.PoolsSubject()
		if m.Name == topology.MeasureEtcd {
			subject = topology.OfferSubject("etcd")
		}
		switch {
		case m.Name == topology.MeasureNodesDeclared && m.Used.Value > m.Limit.Value:
			out = append(out, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingHeadroom, Subject: subject,
				Message: fmt.Sprintf("the declared pools' maxima add up to %s nodes, above %s's max_nodes of %s: the provider creates no node beyond its offer's limit; lower the pools' maxima or declare a larger scaleway.type", used, m.LimitOf, limit)})
		case *m.Percent >= h.WarnPercent:
			what := m.Text + " " + used
			if m.UpperBound {
				what += " (an upper bound: etcd's file as allocated, which compaction does not shrink)"
			}
			out = append(out, topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingHeadroom, Subject: subject,
				Message: fmt.Sprintf("%s is %d%% of %s's limit of %s (nestor warns from %d%%: %s)", what, *m.Percent, m.LimitOf, limit, h.WarnPercent, headroomWhy(m.Name))})
		}
	}
	return out
}

// headroomWhy says why a figure near its limit matters.
func headroomWhy(measure string) string {
	if measure == topology.MeasureEtcd {
		return "at its quota etcd refuses writes; move the offer up, or compact and defragment, before that"
	}
	return "the autoscaler and a pool upgrade's surge add nodes, and the provider creates none beyond the limit; move the offer up before that"
}

// typeNames lists the types' names.
func typeNames(ts []topology.KapsuleType) string {
	if len(ts) == 0 {
		return "none"
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
