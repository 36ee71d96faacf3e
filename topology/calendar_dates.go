package topology

import (
	"fmt"
	"math"
	"time"

	"nestor.dev/nestor/kube"
)

// DateKind is what happens on a stack's dated day (StackDate).
type DateKind string

// The kinds of StackDate. Each is a date nestor reads or holds in its own
// tables, never one it works out from a habit.
const (
	// DateUpstreamMaintenance: a minor in use enters upstream's
	// maintenance mode (the end of its standard support: only critical
	// fixes from then) — kube.UpstreamCalendar's MaintenanceModeStart.
	DateUpstreamMaintenance DateKind = "upstream-maintenance"
	// DateUpstreamEndOfLife: a minor in use reaches its end of life
	// upstream (no more patch releases, security fixes included) —
	// kube.UpstreamCalendar's EndOfLife.
	DateUpstreamEndOfLife DateKind = "upstream-end-of-life"
	// DateProviderDeprecation: the provider deprecates a minor in use —
	// its version list's deprecated_at, "from which this version will no
	// longer be available for provisioning" (scaleway-sdk-go api/k8s/v1
	// Version).
	DateProviderDeprecation DateKind = "provider-deprecation"
	// DateProviderEndOfLife: the provider's end of life of a minor in use,
	// the day it starts its forced upgrade — the version list's
	// end_of_life_at, "from which any remaining clusters on this version
	// will begin to be forcibly upgraded to the next minor version"
	// (scaleway-sdk-go api/k8s/v1 Version; KapsuleObserved.ForcedMove).
	DateProviderEndOfLife DateKind = "provider-end-of-life"
	// DateCommitmentEnd: the end of a dedicated offer's commitment, before
	// which the cluster cannot move to a lower type — the cluster's
	// commitment_ends_at while it binds (KapsuleCluster.CommitmentActive).
	DateCommitmentEnd DateKind = "commitment-end"
)

// StackDate is one dated day of a stack: what happens (Kind), to what
// (Subject: the minor "1.35", or the provider's cluster id for a
// commitment), when (Date, a UTC midnight), who runs the minor, and where
// the date comes from.
type StackDate struct {
	Kind DateKind
	// Subject is what the date is about, stable across reads: the minor
	// ("1.35") for a version's date, the cluster's id for a commitment.
	Subject string
	// Date is the day (UTC midnight).
	Date time.Time
	// Minor is the minor the date concerns ("" for a commitment).
	Minor string
	// Runs are who runs the minor: the API server or the provider's
	// cluster (key kubernetes.version), the nodes whose kubelets run it,
	// the pools that run it — each as its subject, so a view finds the
	// plan's steps that move it by key.
	Runs []Subject
	// Estimated is true when the date is the calendar's estimate
	// (kube.EstimateSupport): upstream has published none.
	Estimated bool
	// Source says where the date was read or which of nestor's tables
	// holds it.
	Source string
	// ForcedTo is, for the provider's end of life of the cluster's own
	// minor, the version the provider moves it to (ForcedMove.To); "" for
	// another date.
	ForcedTo string
	// Type is the cluster's type (its control-plane offer) for a
	// commitment end.
	Type string
}

// UndatedPart is something of a stack's calendar with no date here, and
// why: a part of ACTUAL that is unknown (Unknown: not read, or read but
// not recognised; Why's code is from the closed set), or a minor no
// calendar dates (newer or older than nestor's, not listed by the
// provider, the provider's dates out of order; Why has no code). Nothing
// is dated from it.
type UndatedPart struct {
	What    string
	Why     Why
	Unknown bool
}

// String is "WHAT: WHY".
func (u UndatedPart) String() string { return u.What + ": " + u.Why.Text }

// StackDates returns the dated days of a stack read as obs, judged at asOf
// (a zero asOf judges nothing: no dates), and what could not be dated:
//
//   - for each minor in use (ObservedMinors): upstream's maintenance-mode
//     start and end of life (kube.UpstreamCalendar: published, or estimated and
//     marked so); a minor the calendar does not hold is undated;
//   - for a managed cluster, from its provider's version list
//     (KapsuleObserved.VersionEntry): each minor's deprecation and end of
//     life (the cluster's own: with the version the provider then moves
//     it to); a minor the list does not carry, or whose end of life comes
//     before its deprecation, has no provider date;
//   - a dedicated offer's commitment end while it binds
//     (KapsuleCluster.CommitmentActive): a mutualised cluster's
//     commitment_ends_at equals its creation and is no commitment.
//
// Only what was read dates anything: the provider's version list not read,
// the cluster or its pools not read, the versions not read — each is an
// UndatedPart with its reason, and no date rests on it. Past dates are
// kept: a minor past its end of life still runs. The dates are in the
// order above, minor by minor.
func StackDates(obs *Observed, asOf time.Time) ([]StackDate, []UndatedPart) {
	if obs == nil || asOf.IsZero() {
		return nil, nil
	}
	if obs.NoTarget {
		return nil, []UndatedPart{{What: "the whole cluster", Why: Because(ReasonNoTarget, OrNotRead(obs.NoTargetReason)), Unknown: true}}
	}
	minors, undated := ObservedMinors(obs)
	var dates []StackDate
	cal := kube.UpstreamCalendar()
	for _, m := range minors {
		minor := m.Version.MinorString()
		e, ok := cal.Lookup(m.Version)
		if !ok {
			undated = append(undated, UndatedPart{What: minor + " upstream", Why: Because("", fmt.Sprintf("not in this nestor's %s calendar (as of %s, %s to %s): its dates are not known here",
				cal.Name, cal.AsOf.Format(time.DateOnly), cal.Entries[0].Minor, cal.Entries[len(cal.Entries)-1].Minor))})
			continue
		}
		src := "nestor's embedded " + cal.Name + " calendar (as of " + cal.AsOf.Format(time.DateOnly) + "): " + e.Source
		if !e.MaintenanceModeStart.IsZero() {
			dates = append(dates, StackDate{Kind: DateUpstreamMaintenance, Subject: minor, Date: kube.DateOf(e.MaintenanceModeStart), Minor: minor, Runs: m.Runs, Estimated: e.Estimated, Source: src})
		}
		if !e.EndOfLife.IsZero() {
			dates = append(dates, StackDate{Kind: DateUpstreamEndOfLife, Subject: minor, Date: kube.DateOf(e.EndOfLife), Minor: minor, Runs: m.Runs, Estimated: e.Estimated, Source: src})
		}
	}
	if k := obs.Kapsule; k != nil {
		pd, pu := providerDates(k, minors, asOf)
		dates, undated = append(dates, pd...), append(undated, pu...)
	}
	return dates, undated
}

// providerDates are the provider's dates of the minors in use and the
// cluster's commitment (StackDates).
func providerDates(k *KapsuleObserved, minors []MinorRun, asOf time.Time) ([]StackDate, []UndatedPart) {
	var dates []StackDate
	var undated []UndatedPart
	region := "REGION"
	if k.Cluster.Known && k.Cluster.Value.Region != "" {
		region = k.Cluster.Value.Region
	}
	src := "the provider's version list (GET /k8s/v1/regions/" + region + "/versions)"
	if !k.Versions.Known {
		undated = append(undated, UndatedPart{What: "the provider's dates (its version list)", Why: k.Versions.Why(), Unknown: true})
	}
	cluster := kube.Version{}
	if k.Cluster.Known {
		cluster = kube.ParseVersion(k.Cluster.Value.Version)
	}
	for _, m := range minors {
		if !k.Versions.Known {
			break
		}
		minor := m.Version.MinorString()
		e, ok := k.VersionEntry(m.Version)
		if !ok {
			undated = append(undated, UndatedPart{What: minor + " at the provider", Why: Because("", "not listed by the provider: no dates")})
			continue
		}
		dep, eol := e.DeprecatedAt, e.EndOfLifeAt
		if dep != nil && eol != nil && eol.Before(*dep) {
			undated = append(undated, UndatedPart{What: minor + " at the provider", Why: Because("", fmt.Sprintf("the provider's calendar is inconsistent: end of life %s before deprecation %s; no date taken from it",
				kube.DateOf(eol.UTC()).Format(time.DateOnly), kube.DateOf(dep.UTC()).Format(time.DateOnly)))})
			continue
		}
		if dep != nil {
			dates = append(dates, StackDate{Kind: DateProviderDeprecation, Subject: minor, Date: kube.DateOf(dep.UTC()), Minor: minor, Runs: m.Runs, Source: src + ": " + e.Name + " deprecated_at"})
		}
		if eol != nil {
			d := StackDate{Kind: DateProviderEndOfLife, Subject: minor, Date: kube.DateOf(eol.UTC()), Minor: minor, Runs: m.Runs, Source: src + ": " + e.Name + " end_of_life_at"}
			if cluster.Known && kube.CompareMinor(cluster, m.Version) == 0 {
				if mv, ok := k.ForcedMove(cluster, math.MaxInt32, asOf); ok {
					d.ForcedTo = mv.To.Canonical()
				}
			}
			dates = append(dates, d)
		}
	}
	if k.Cluster.Known {
		c := k.Cluster.Value
		if c.CommitmentActive(asOf) {
			dates = append(dates, StackDate{Kind: DateCommitmentEnd, Subject: c.ID, Date: kube.DateOf(c.CommitmentEndsAt.UTC()), Type: c.Type,
				Source: "the provider's cluster object (GET /k8s/v1/regions/" + region + "/clusters/" + c.ID + "): commitment_ends_at"})
		}
	}
	return dates, undated
}

// MinorRun is one minor in use and who runs it, typed (StackDate.Runs).
type MinorRun struct {
	// Version is the first version of the minor seen (the API server's or
	// the provider's cluster's when it runs it).
	Version kube.Version
	Runs    []Subject
}

// The subjects of who runs a minor: the API server of a node cluster, the
// provider's cluster of a managed one. Both are the version the plan's
// upgrade step moves (its key is kubernetes.version).
var (
	apiServerRun       = Subject{Kind: SubjectVersion, Name: "api-server", Key: KeyVersion, Text: "the API server"}
	providerClusterRun = Subject{Kind: SubjectVersion, Name: "cluster", Key: KeyVersion, Text: "the cluster"}
)

// ObservedMinors returns the minors a stack read as obs runs, each once, in
// the order first seen, with who runs it — the same users the calendar
// findings judge: a managed cluster's own version then each pool's (as its
// provider reports them, KapsuleObserved.MinorsInUse), else the API
// server's then each kubelet version's (Observed.Versions, as
// plan.Build judges them) — and the parts that could not be read or do
// not parse, as UndatedParts: none of their minors is known.
func ObservedMinors(obs *Observed) ([]MinorRun, []UndatedPart) {
	var out []MinorRun
	var undated []UndatedPart
	add := func(v kube.Version, who Subject) {
		for i := range out {
			if kube.CompareMinor(out[i].Version, v) == 0 {
				out[i].Runs = append(out[i].Runs, who)
				return
			}
		}
		out = append(out, MinorRun{Version: v, Runs: []Subject{who}})
	}
	unparsed := func(what, raw, reason string) {
		undated = append(undated, UndatedPart{What: what, Why: Because(ReasonUnrecognised, fmt.Sprintf("version %q: %s", raw, reason)), Unknown: true})
	}
	if k := obs.Kapsule; k != nil {
		switch {
		case !k.Cluster.Known:
			undated = append(undated, UndatedPart{What: "the provider's cluster (its version and commitment)", Why: k.Cluster.Why(), Unknown: true})
		default:
			if v := kube.ParseVersion(k.Cluster.Value.Version); v.Known {
				add(v, providerClusterRun)
			} else {
				unparsed("the cluster's version", k.Cluster.Value.Version, v.Reason)
			}
		}
		if !k.Pools.Known {
			undated = append(undated, UndatedPart{What: "the pools' versions", Why: k.Pools.Why(), Unknown: true})
			return out, undated
		}
		for _, p := range k.Pools.Value {
			if v := kube.ParseVersion(p.Version); v.Known {
				add(v, PoolSubject(p.Name))
			} else {
				unparsed("pool "+p.Name+"'s version", p.Version, v.Reason)
			}
		}
		return out, undated
	}
	if !obs.Versions.Known {
		return nil, append(undated, UndatedPart{What: "the API server's version", Why: obs.Versions.Why(), Unknown: true})
	}
	add(obs.Versions.Value.APIServer, apiServerRun)
	kubelets := obs.Versions.Value.Kubelets
	if !kubelets.Known {
		return out, append(undated, UndatedPart{What: "the kubelets' versions", Why: kubelets.Why(), Unknown: true})
	}
	for _, g := range kubelets.Value {
		if !g.Version.Known {
			unparsed("the kubelet "+g.OnNodes(), g.Version.Raw, g.Version.Reason)
			continue
		}
		for _, n := range g.Nodes {
			add(g.Version, NodeSubject(n))
		}
	}
	return out, undated
}
