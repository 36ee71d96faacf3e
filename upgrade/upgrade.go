package upgrade

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// Sources and reaches the upgrade findings name.
const (
	srcDeprecatedMetric = "apiserver_requested_deprecated_apis (/metrics)"
	srcPDBStatus        = "policy/v1 PodDisruptionBudget status (disruptionsAllowed), which the Eviction API enforces (kubernetes.io \"API-initiated Eviction\")"
	reachDiscovery      = "this API server's discovery (/api, /apis)"
	reachWholeCluster   = "the whole cluster (nestor does not read pods)"
	// metricsPermission is what reading /metrics takes (RUNBOOK.md §8,
	// "Before an upgrade").
	metricsPermission = `reading it needs a ClusterRole rule nonResourceURLs: ["/metrics"], verbs: ["get"] (RUNBOOK.md §8, "Before an upgrade")`
)

// JudgeUpgrade judges what breaks when the cluster of topology t makes the
// moves due (MovesDue) and what holds up the steps that drain nodes,
// from facts, and returns the findings (never nil), each with its Source,
// its Reach, the Minor it judges and the Step it concerns (StepRef of the
// target's first step; for a drain blocker, of the first step that drains
// a node running its pods; "" for a move no step plans, such as the
// provider's forced move, which the message dates, and for a blocker whose
// pods' nodes were not read).
// Per target, each move judged from the previous minor (a removal is said
// once, at the move that makes it):
//
//   - removed APIs (APIRemovals on Served, the k8s.io/api lifecycle
//     table): a served group version, or kinds of it, that the target
//     stops serving; beyond the table's horizon what is listed is a floor,
//     said as unknown;
//   - deprecated calls (DeprecatedCalls, the API server's
//     apiserver_requested_deprecated_apis gauge): a request to a removed
//     kind makes its removed-api finding an error; a request no removed-api
//     finding covers is a deprecated-api-call finding at the first target
//     its removed_release reaches, else (still served) at the last target;
//     the gauge is one API server instance's since its start, and the reach
//     says of how many;
//   - layers (JudgeLayerSupport on the release ReleaseFromImage reads from
//     each declared layer's main workload image, LayerSupport.Main);
//   - drain blockers, for Drains: a PodDisruptionBudget whose
//     disruptionsAllowed is 0 and that expects pods (an eviction it does
//     not allow is refused, and kubectl drain and the provider retry until
//     it allows one), placed under the first planned step that drains a
//     node running its pods (PDBState.PodNodes, UpgradeDue.DrainNodes); one
//     whose pods run on no drained node holds nothing; one whose status is
//     of an older generation than its spec, or whose pods' nodes were not
//     read, is unknown.
//
// Severity: a removed API served and called → error; served, no call
// recorded (or calls unread) → warning; a call to an API the target no
// longer serves → error, to one it still serves → info; a layer outside its
// supported range → warning; a drain blocker → warning; anything not known
// (a source unread, beyond the horizon, a release not in its image, a
// stale PDB status) → info, with why.
func JudgeUpgrade(t *topology.Topology, due UpgradeDue, f UpgradeFacts) []topology.Finding {
	out := []topology.Finding{}
	if due.Unknown != "" {
		out = append(out, topology.Finding{Severity: topology.SeverityInfo, Kind: FindingUpgradeUnknown, Subject: topology.VersionSubject("upgrade"), Message: due.Unknown, Reach: "the cluster's version"})
	}
	if len(due.Moves) > 0 {
		out = append(out, judgeAPIs(due.Moves, f.Served, f.DeprecatedCalls)...)
		out = append(out, judgeLayers(t, due.Moves, f.LayerImages)...)
	}
	if len(due.Drains) > 0 {
		out = append(out, judgeDrains(due, f.PDBs)...)
	}
	return out
}

// label is how a finding names the move it judges: "upgrade to 1.35", "the
// provider's move to 1.35.2 on 2027-01-05", "the move to 1.35 (1.34 reaches
// end of life upstream on 2027-02-28)".
func (t UpgradeMove) label() string {
	to := t.To.Canonical()
	switch {
	case t.Forced && t.Date != nil:
		if len(t.Steps) > 0 {
			return fmt.Sprintf("upgrade to %s (the provider forces it on %s)", t.Minor.MinorString(), kube.DateText(*t.Date))
		}
		return fmt.Sprintf("the provider's move to %s on %s", to, kube.DateText(*t.Date))
	case len(t.Steps) > 0:
		return "upgrade to " + t.Minor.MinorString()
	case len(t.Why) > 0:
		return fmt.Sprintf("the move to %s (%s)", to, t.Why[0])
	}
	return "the move to " + to
}

func (t UpgradeMove) step() string {
	if len(t.Steps) == 0 {
		return ""
	}
	return t.Steps[0]
}

// minorsText is "1.35" or "1.35, 1.36".
func minorsText(ts []UpgradeMove) string {
	ms := make([]string, len(ts))
	for i, t := range ts {
		ms[i] = t.Minor.MinorString()
	}
	return strings.Join(ms, ", ")
}

// upgradeUnknown is an info finding of kind upgrade-unknown.
func upgradeUnknown(subject topology.Subject, msg, source, reach, step, minor string) topology.Finding {
	return topology.Finding{Severity: topology.SeverityInfo, Kind: FindingUpgradeUnknown, Subject: subject, Message: msg, Source: source, Reach: reach, Step: step, Minor: minor}
}

// callWords says where and since when the calls were recorded: "this API
// server since 2026-11-28 10:02 UTC" and the reach, "one API server
// instance of 3" (or "of an unknown number (REASON)").
func callWords(c DeprecatedCalls) (since, reach string) {
	since = "since an unknown time (process_start_time_seconds was not read)"
	if c.WindowStart != nil {
		since = "since " + c.WindowStart.UTC().Format("2006-01-02 15:04") + " UTC (its start)"
	}
	reach = "one API server instance of an unknown number"
	switch {
	case c.Instances.Known && c.Instances.Value == 1:
		reach = "one API server instance of 1: the whole control plane"
	case c.Instances.Known:
		reach = fmt.Sprintf("one API server instance of %d", c.Instances.Value)
	case c.Instances.Reason != "":
		reach += " (" + c.Instances.Reason + ")"
	}
	return since, reach
}

func (c DeprecatedCall) what() string {
	r := c.Resource
	if c.Subresource != "" {
		r += "/" + c.Subresource
	}
	return c.GroupVersion() + " " + r
}

// judgeAPIs applies the removed-API and deprecated-call rules of
// JudgeUpgrade: what the calls' read leaves unknown, the removals of the
// served group versions (each matched with the calls it covers), the calls
// no removal covers, and the reach of a read that found nothing to say.
func judgeAPIs(targets []UpgradeMove, served topology.Fact[ServedAPIs], calls topology.Fact[DeprecatedCalls]) []topology.Finding {
	module, _ := kube.APILifecycleSource()
	j := apiJudge{targets: targets, calls: calls, module: module, lifecycle: module + " lifecycle"}
	j.since, j.callReach = callWords(calls.Value)
	if calls.Known {
		j.reqs = calls.Value.Requests
	}
	j.matched = make([]bool, len(j.reqs))
	out := j.callsUnread()
	out = append(out, j.servedRemovals(served)...)
	out = append(out, j.unmatchedCalls()...)
	return append(out, j.instancesUnread(out)...)
}

// apiJudge is what judgeAPIs' parts share: the targets, the calls read
// (reqs, and which of them a removal finding has covered), the words of the
// calls' window and reach, and the lifecycle table's name.
type apiJudge struct {
	targets           []UpgradeMove
	calls             topology.Fact[DeprecatedCalls]
	reqs              []DeprecatedCall
	matched           []bool
	since, callReach  string
	module, lifecycle string
}

func (j *apiJudge) first() UpgradeMove { return j.targets[0] }

func (j *apiJudge) unknown(subject topology.Subject, msg, source, reach string, tg UpgradeMove) topology.Finding {
	return upgradeUnknown(subject, msg, source, reach, tg.step(), tg.Minor.MinorString())
}

// callsUnread is the unknown of a /metrics read that failed or stopped at
// its bound before the deprecated-API gauge ended.
func (j *apiJudge) callsUnread() []topology.Finding {
	calls := j.calls
	switch {
	case !calls.Known:
		msg := fmt.Sprintf("the API server's calls to deprecated APIs were not read (%s): which clients break on %s is not known", topology.OrNotRead(calls.Reason), minorsText(j.targets))
		if calls.Code == topology.ReasonForbidden {
			msg += "; " + metricsPermission
		}
		return []topology.Finding{j.unknown(topology.APISubject("/metrics"), msg, srcDeprecatedMetric, "the API server", j.first())}
	case !calls.Value.Complete:
		return []topology.Finding{j.unknown(topology.APISubject("/metrics"), fmt.Sprintf("the read of /metrics stopped at its bound of %d bytes before the deprecated-API gauge ended: calls beyond what was read are not known", calls.Value.Limit),
			srcDeprecatedMetric, j.callReach, j.first())}
	}
	return nil
}

// servedRemovals is, per target, a finding per served group version the
// target stops serving (APIRemovals), the unknown of a target beyond the
// lifecycle table's horizon, and, once, the served group versions the table
// does not hold or does not cover. An unread discovery is one unknown.
func (j *apiJudge) servedRemovals(served topology.Fact[ServedAPIs]) []topology.Finding {
	if !served.Known {
		return []topology.Finding{j.unknown(topology.APISubject("served APIs"), fmt.Sprintf("the API server's discovery was not read (%s): what %s stops serving is not known", topology.OrNotRead(served.Reason), minorsText(j.targets)),
			j.lifecycle, reachDiscovery, j.first())}
	}
	var out []topology.Finding
	kindOf := map[string]string{}
	for _, r := range served.Value.Resources {
		kindOf[r.GroupVersion+" "+r.Resource] = r.Kind
	}
	unknownGV := map[string]string{}
	var notCovered []string
	for i, tg := range j.targets {
		rep, err := kube.APIRemovals(served.Value.GroupVersions, tg.Minor)
		if err != nil {
			out = append(out, j.unknown(topology.APISubject("served APIs"), err.Error(), j.lifecycle, reachDiscovery, tg))
			continue
		}
		for _, r := range rep.Removals {
			if f, ok := removalFinding(tg, r, j.reqs, j.matched, kindOf, j.calls, j.since, j.callReach, j.lifecycle); ok {
				out = append(out, f)
			}
		}
		if rep.Beyond {
			out = append(out, j.unknown(topology.VersionSubject(tg.Minor.MinorString()), fmt.Sprintf("%s: %s is beyond the lifecycle table's horizon (%s knows the removals of %s and older, and those it plans): what %s itself stops serving is not known here; the removals said for it are a floor",
				tg.label(), tg.Minor.MinorString(), j.module, rep.Horizon, tg.Minor.MinorString()), j.lifecycle, reachDiscovery, tg))
		}
		for _, u := range rep.Unknown {
			key := u.GroupVersion
			if u.Kind != "" {
				key += " " + u.Kind
			}
			if _, seen := unknownGV[key]; !seen {
				unknownGV[key] = u.Reason
			}
		}
		if i == 0 {
			notCovered = rep.NotCovered
		}
	}
	if len(unknownGV) > 0 {
		keys := make([]string, 0, len(unknownGV))
		for k := range unknownGV {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out = append(out, j.unknown(topology.APISubject("served APIs"), fmt.Sprintf("the cluster serves %s, which %s does not hold: whether %s serves %s is not known here",
			strings.Join(keys, ", "), j.module, minorsText(j.targets), pronoun(len(keys))), j.lifecycle, reachDiscovery, j.first()))
	}
	if len(notCovered) > 0 {
		shown, more := notCovered, ""
		if len(shown) > 5 {
			shown, more = shown[:5], fmt.Sprintf(" and %d more", len(notCovered)-5)
		}
		out = append(out, j.unknown(topology.APISubject("served APIs"), fmt.Sprintf("%s not in %s (%s%s): CustomResourceDefinitions, aggregated APIs, or Kubernetes groups kept in other modules (apiextensions.k8s.io, apiregistration.k8s.io); its lifecycle table says nothing of them, so whether %s serves them is not judged",
			servedCount(len(notCovered)), j.module, strings.Join(shown, ", "), more, minorsText(j.targets)), j.lifecycle, reachDiscovery, j.first()))
	}
	return out
}

// unmatchedCalls is a finding per recorded call no removal finding covers:
// an error when a target stops serving it (by the API server's own
// removed_release), else information (deprecated, still served).
func (j *apiJudge) unmatchedCalls() []topology.Finding {
	var out []topology.Finding
	last := j.targets[len(j.targets)-1]
	for i, c := range j.reqs {
		if j.matched[i] {
			continue
		}
		rr := kube.ParseVersion(c.RemovedRelease)
		tg, removed := last, false
		for _, t := range j.targets {
			if rr.Known && kube.CompareMinor(rr, t.Minor) <= 0 {
				tg, removed = t, true
				break
			}
		}
		f := topology.Finding{Kind: FindingDeprecatedCall, Subject: topology.APISubject(c.GroupVersion()), Source: srcDeprecatedMetric, Reach: j.callReach, Step: tg.step(), Minor: tg.Minor.MinorString()}
		head := fmt.Sprintf("%s: requests to %s recorded by this API server %s", tg.label(), c.what(), j.since)
		switch {
		case removed:
			f.Severity = topology.SeverityError
			f.Message = fmt.Sprintf("%s; %s stops serving it (by the API server's own removed_release %s): those clients break", head, tg.Minor.MinorString(), c.RemovedRelease)
		case rr.Known:
			f.Severity = topology.SeverityInfo
			f.Message = fmt.Sprintf("%s; deprecated, still served by %s (the API server plans its removal for %s)", head, tg.Minor.MinorString(), c.RemovedRelease)
		default:
			f.Severity = topology.SeverityInfo
			f.Message = fmt.Sprintf("%s; deprecated, still served by %s (the API server plans no removal)", head, tg.Minor.MinorString())
		}
		out = append(out, f)
	}
	return out
}

// instancesUnread is the unknown of the other API servers' calls when the
// calls were read but how many API servers run is not known and no finding
// in out already says so in its reach: the calls not recorded are one API
// server's word.
func (j *apiJudge) instancesUnread(out []topology.Finding) []topology.Finding {
	calls := j.calls
	if !calls.Known || calls.Value.Instances.Known || slices.ContainsFunc(out, func(f topology.Finding) bool { return strings.Contains(f.Reach, j.callReach) }) {
		return nil
	}
	return []topology.Finding{j.unknown(topology.APISubject("/metrics"), fmt.Sprintf("the API server that answered /metrics recorded no deprecated-API call to say; how many API servers the control plane runs is not known (%s), so calls recorded by the others are not known",
		topology.OrNotRead(calls.Value.Instances.Reason)), srcDeprecatedMetric, j.callReach, j.first())}
}

// servedCount is "1 served group version is" or "N served group versions
// are".
func servedCount(n int) string {
	if n == 1 {
		return "1 served group version is"
	}
	return fmt.Sprintf("%d served group versions are", n)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// removalFinding is the removed-api finding of r for target tg, keeping
// only the kinds the move from tg.From removes (an earlier target said the
// others); false when none is left. The calls it covers are marked in
// matched: a call to the group version whose resource discovery ties to a
// removed kind, or, when discovery does not tie it, whose removed_release
// the target reaches.
func removalFinding(tg UpgradeMove, r kube.APIRemoval, reqs []DeprecatedCall, matched []bool, kindOf map[string]string, calls topology.Fact[DeprecatedCalls], since, callReach, lifecycle string) (topology.Finding, bool) {
	var kinds []kube.RemovedKind
	for _, k := range r.Kinds {
		if kube.CompareMinor(kube.ParseVersion(k.Removed), tg.From) > 0 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return topology.Finding{}, false
	}
	r.Whole = r.Whole && len(kinds) == len(r.Kinds)
	r.Kinds = kinds
	removed := map[string]bool{}
	for _, k := range kinds {
		removed[k.Kind] = true
	}
	var called []string
	for i, c := range reqs {
		if c.GroupVersion() != r.GroupVersion {
			continue
		}
		kind, tied := kindOf[c.GroupVersion()+" "+c.Resource]
		rr := kube.ParseVersion(c.RemovedRelease)
		if tied && removed[kind] || !tied && rr.Known && kube.CompareMinor(rr, tg.Minor) <= 0 {
			matched[i] = true
			called = append(called, c.what())
		}
	}
	f := topology.Finding{Kind: FindingRemovedAPI, Subject: topology.APISubject(r.GroupVersion), Source: lifecycle, Reach: reachDiscovery, Step: tg.step(), Minor: tg.Minor.MinorString()}
	msg := tg.label() + ": " + r.Message()
	switch {
	case len(called) > 0:
		f.Severity = topology.SeverityError
		f.Source += "; " + srcDeprecatedMetric
		f.Reach += "; calls: " + callReach
		msg += fmt.Sprintf("; requests to %s recorded by this API server %s: those clients break", strings.Join(called, ", "), since)
	case !calls.Known:
		f.Severity = topology.SeverityWarning
		msg += "; whether clients call it is not known (/metrics not read)"
	case !calls.Value.Complete:
		f.Severity = topology.SeverityWarning
		f.Reach += "; calls: " + callReach
		msg += "; no request to it in the part of /metrics read: whether clients call it is not known"
	default:
		f.Severity = topology.SeverityWarning
		f.Source += "; " + srcDeprecatedMetric
		f.Reach += "; calls: " + callReach
		msg += fmt.Sprintf("; no request to it recorded by this API server %s", since)
	}
	f.Message = msg
	return f, true
}

// judgeLayers applies the layer rule of JudgeUpgrade to t's declared
// layers.
func judgeLayers(t *topology.Topology, targets []UpgradeMove, images topology.Fact[[]LayerImage]) []topology.Finding {
	var out []topology.Finding
	if t == nil || len(t.Layers) == 0 {
		return out
	}
	first := targets[0]
	ms := minorsText(targets)
	tableSrc := "nestor's layer support table (as of " + kube.DateText(layerSupportAsOf) + ")"
	if !images.Known {
		return append(out, upgradeUnknown(topology.Subject{Kind: topology.SubjectLayers, Key: topology.KeyLayers, Text: "layers"}, fmt.Sprintf("the declared layers' images were not read (%s): their support of %s is not judged", topology.OrNotRead(images.Reason), ms),
			tableSrc, "the declared layers", first.step(), first.Minor.MinorString()))
	}
	for _, l := range t.Layers {
		subject := topology.LayerSubject(l.Name)
		unknown := func(msg, reach string) {
			out = append(out, upgradeUnknown(subject, msg, tableSrc, reach, first.step(), first.Minor.MinorString()))
		}
		entry, ok := LookupLayerSupport(l.Name)
		switch {
		case !ok:
			unknown(fmt.Sprintf("this nestor holds no Kubernetes support table for %s: whether it supports %s is not known", l.Name, ms), "layer "+l.Name)
			continue
		case len(entry.Releases) == 0:
			unknown(fmt.Sprintf("no Kubernetes support table of %s was read (%s): whether it supports %s is not known", l.Name, entry.Note, ms), "layer "+l.Name)
			continue
		case !entry.Main.ImageIsRelease:
			unknown(fmt.Sprintf("%s's release cannot be read from its image (%s): whether it supports %s is not known", l.Name, entry.Main.ImageNote, ms), "layer "+l.Name)
			continue
		}
		var imgs []LayerImage
		for _, im := range images.Value {
			if im.Layer == l.Name && im.Container == entry.Main.Container {
				imgs = append(imgs, im)
			}
		}
		if len(imgs) == 0 {
			unknown(fmt.Sprintf("the image of %s's main workload (%s %s, container %s) was not among the workloads read: whether it supports %s is not known",
				l.Name, entry.Main.Kind, entry.Main.Name, entry.Main.Container, ms), "layer "+l.Name)
			continue
		}
		for _, im := range imgs {
			reach := fmt.Sprintf("the image of %s %s/%s, container %s", im.Kind, im.Namespace, im.Workload, im.Container)
			rel := ReleaseFromImage(im.Image)
			if !rel.Known {
				unknown(fmt.Sprintf("%s: %s: whether it supports %s is not known", l.Name, rel.Reason, ms), reach)
				continue
			}
			for _, tg := range targets {
				v := JudgeLayerSupport(l.Name, rel, tg.Minor)
				src := v.Source
				if src == "" {
					src = tableSrc
				}
				f := topology.Finding{Kind: FindingUpgradeUnknown, Severity: topology.SeverityInfo, Subject: subject, Message: tg.label() + ": " + v.Message,
					Source: src, Reach: reach, Step: tg.step(), Minor: tg.Minor.MinorString()}
				switch v.Status {
				case LayerSupported:
					continue
				case LayerNotSupported:
					f.Kind, f.Severity = FindingLayerUnsupported, topology.SeverityWarning
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// judgeDrains applies the drain-blocker rule of JudgeUpgrade. A budget that
// may hold a drain (PDBState.MayHoldDrain) concerns the planned steps that
// drain a node running its pods (PDBState.PodNodes against due.DrainNodes):
// its finding is placed under the first of them, and names the nodes and
// how many steps it holds. A budget whose pods run on no node a step drains
// holds nothing. When its pods' nodes were not read, which step it holds is
// not known: an unknown placed under no step; when a step's nodes were not
// read, whether it holds that step is not known, and said so.
func judgeDrains(due UpgradeDue, pdbs topology.Fact[[]PDBState]) []topology.Finding {
	var out []topology.Finding
	drains := due.Drains
	first := drains[0]
	which := "the planned step " + first + " drains nodes"
	if len(drains) > 1 {
		which = fmt.Sprintf("%d planned steps drain nodes, the first %s", len(drains), first)
	}
	if !pdbs.Known {
		return append(out, topology.Finding{Severity: topology.SeverityInfo, Kind: FindingUpgradeUnknown, Subject: topology.PDBSubject(""),
			Message: fmt.Sprintf("the PodDisruptionBudgets were not read (%s): what holds up draining nodes is not known (%s)", topology.OrNotRead(pdbs.Reason), which),
			Source:  srcPDBStatus, Reach: "the whole cluster", Step: first})
	}
	steps := drainSteps(due)
	list := append([]PDBState(nil), pdbs.Value...)
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	for _, p := range list {
		if !p.MayHoldDrain() {
			continue // it allows one now, or selects no pod: it holds nothing up
		}
		name := p.Namespace + "/" + p.Name
		subject := topology.PDBSubject(name)
		stale := p.ObservedGeneration < p.Generation
		var what string
		if stale {
			what = fmt.Sprintf("the status of PodDisruptionBudget %s is of generation %d, its spec is at %d (the disruption controller has not caught up): whether it allows a disruption is not known", name, p.ObservedGeneration, p.Generation)
		} else {
			what = fmt.Sprintf("PodDisruptionBudget %s allows no disruption now (disruptionsAllowed 0: %d of %d pods healthy, %d required)", name, p.CurrentHealthy, p.ExpectedPods, p.DesiredHealthy)
			if p.DesiredHealthy >= p.ExpectedPods {
				what += "; as configured it requires every pod healthy, so it never allows one until it is changed"
			}
		}
		if !p.PodNodes.Known {
			out = append(out, topology.Finding{Severity: topology.SeverityInfo, Kind: FindingUpgradeUnknown, Subject: subject,
				Message: fmt.Sprintf("%s; which nodes run its pods is not known (%s), so which planned step it holds up is not known (%s)", what, topology.OrNotRead(p.PodNodes.Reason), which),
				Source:  srcPDBStatus, Reach: reachWholeCluster})
			continue
		}
		held, unsure, nodes := steps.holding(p.PodNodes.Value)
		reach := fmt.Sprintf("the pods it selects in namespace %s (%s), read now, and the nodes they run on", p.Namespace, selectorWords(p.Selector))
		switch {
		case len(held) > 0:
			// It hangs under the first step it may hold: a step before the
			// first it holds whose nodes were not read may be held too.
			under := held[0]
			if len(unsure) > 0 && steps.before(unsure[0].Step, held[0]) {
				under = unsure[0].Step
			}
			f := topology.Finding{Severity: topology.SeverityWarning, Kind: FindingDrainBlocker, Subject: subject, Source: srcPDBStatus, Reach: reach, Step: under}
			f.Message = fmt.Sprintf("%s: draining %s, which %s its pods, waits until it allows one (%s)%s",
				what, kube.JoinOr(nodes), runVerb(len(nodes)), heldWords(held, len(nodes)), unsureWords(unsure))
			if stale {
				f.Severity, f.Kind = topology.SeverityInfo, FindingUpgradeUnknown
				f.Message = fmt.Sprintf("%s, so whether draining %s, which %s its pods, waits is not known (%s)%s",
					what, kube.JoinOr(nodes), runVerb(len(nodes)), heldWords(held, len(nodes)), unsureWords(unsure))
			}
			out = append(out, f)
		case len(unsure) > 0:
			out = append(out, topology.Finding{Severity: topology.SeverityInfo, Kind: FindingUpgradeUnknown, Subject: subject, Source: srcPDBStatus, Reach: reach, Step: unsure[0].Step,
				Message: fmt.Sprintf("%s; its pods run on %s, and which nodes the planned step %s drains is not known (%s): whether it waits is not known",
					what, kube.JoinAnd(p.PodNodes.Value), unsure[0].Step, topology.OrNotRead(unsure[0].Nodes.Reason))})
		}
	}
	return out
}

// drainPlan is the planned steps that drain nodes, in plan order, each with
// its nodes.
type drainPlan []DrainStep

// drainSteps returns due's draining steps with their nodes; a step of
// Drains that DrainNodes does not describe has its nodes unknown.
func drainSteps(due UpgradeDue) drainPlan {
	byRef := map[string]DrainStep{}
	for _, d := range due.DrainNodes {
		byRef[d.Step] = d
	}
	out := make(drainPlan, len(due.Drains))
	for i, ref := range due.Drains {
		d, ok := byRef[ref]
		if !ok {
			d = DrainStep{Step: ref, Nodes: topology.UnknownFact[[]string](topology.Because(topology.ReasonNotRead, "which nodes it drains was not given"))}
		}
		out[i] = d
	}
	return out
}

// holding returns the StepRef of the steps that drain one of nodes, in
// plan order; the steps whose nodes are unknown; and the nodes among nodes
// that some step drains, sorted.
// before reports whether step a comes before step b in dp (plan order).
func (dp drainPlan) before(a, b string) bool {
	for _, d := range dp {
		switch d.Step {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

func (dp drainPlan) holding(nodes []string) (held []string, unsure []DrainStep, drained []string) {
	seen := map[string]bool{}
	for _, d := range dp {
		if !d.Nodes.Known {
			unsure = append(unsure, d)
			continue
		}
		hit := false
		for _, n := range d.Nodes.Value {
			if slices.Contains(nodes, n) {
				hit = true
				if !seen[n] {
					seen[n] = true
					drained = append(drained, n)
				}
			}
		}
		if hit {
			held = append(held, d.Step)
		}
	}
	sort.Strings(drained)
	return held, unsure, drained
}

// heldWords says which planned steps a budget holds, that drain its nodes
// nodes: "the planned step upgrade-node b → 1.37 drains it", "3 planned
// steps drain them, the first upgrade-node b → 1.37".
func heldWords(held []string, nodes int) string {
	it := pronoun(nodes)
	if len(held) == 1 {
		return "the planned step " + held[0] + " drains " + it
	}
	return fmt.Sprintf("%d planned steps drain %s, the first %s", len(held), it, held[0])
}

// unsureWords adds, when some draining steps' nodes were not read, that
// whether they are held is not known; "" otherwise.
func unsureWords(unsure []DrainStep) string {
	if len(unsure) == 0 {
		return ""
	}
	return fmt.Sprintf("; which nodes %s drains is not known (%s), so whether it waits too is not known",
		kube.Plural(len(unsure), "other planned step"), topology.OrNotRead(unsure[0].Nodes.Reason))
}

// joinOr is "a", "a or b", "a, b or c".
func runVerb(n int) string {
	if n == 1 {
		return "runs"
	}
	return "run"
}

// selectorWords names a label selector query: "selector app=x", or "all
// its pods" for the empty one.
func selectorWords(sel string) string {
	if sel == "" {
		return "every pod of the namespace"
	}
	return "selector " + sel
}

// NextHardDate returns the next hard date of a stack read as obs, judged at
// asOf: the earliest of its running minor's upstream end of life
// (UpstreamCalendar) and, for a managed cluster, its provider's end of life
// — the day the provider moves it (KapsuleObserved.VersionEntry) —, past
// dates included (Days is then negative); the provider's wins a tie. Its
// Blockers count the findings (JudgeUpgrade's) for the move it forces, the
// next minor, of severity warning or worse and of the kinds removed-api,
// deprecated-api-call and layer-unsupported, and its Unknowns the
// upgrade-unknown findings for that move; Judged says whether due held
// that move (else the report was not made and the count says nothing).
// False when the cluster's version is unknown or no date is known (a minor
// newer or older than the calendar, none from the provider).
func NextHardDate(obs *topology.Observed, due UpgradeDue, findings []topology.Finding, asOf time.Time) (HardDate, bool) {
	cur := obs.ClusterVersion()
	if !cur.Known || asOf.IsZero() {
		return HardDate{}, false
	}
	next := fmt.Sprintf("%d.%d", cur.Major, cur.Minor+1)
	var hd HardDate
	found := false
	if e, ok := kube.UpstreamCalendar().Lookup(cur); ok && !e.EndOfLife.IsZero() {
		hd = HardDate{Date: kube.DateOf(e.EndOfLife), What: "upstream end of life of " + cur.MinorString(), Estimated: e.Estimated}
		found = true
	}
	if obs != nil && obs.Kapsule != nil {
		if e, ok := obs.Kapsule.VersionEntry(cur); ok && e.EndOfLifeAt != nil {
			d := e.EndOfLifeAt.UTC()
			if !found || !kube.DateOf(d).After(hd.Date) {
				hd = HardDate{Date: kube.DateOf(d), What: fmt.Sprintf("provider end of life of %s: the provider moves the cluster to %s", cur.MinorString(), next), Forced: true}
				found = true
			}
		}
	}
	if !found {
		return HardDate{}, false
	}
	hd.Minor = next
	hd.Days = int(hd.Date.Sub(kube.DateOf(asOf)).Hours() / 24)
	for _, t := range due.Moves {
		if t.Minor.MinorString() == next {
			hd.Judged = true
		}
	}
	if hd.Judged {
		for _, f := range findings {
			switch {
			case f.Minor != next:
			case f.Kind == FindingUpgradeUnknown:
				hd.Unknowns++
			case f.Severity.AtLeast(topology.SeverityWarning) &&
				(f.Kind == FindingRemovedAPI || f.Kind == FindingDeprecatedCall || f.Kind == FindingLayerUnsupported):
				hd.Blockers++
			}
		}
	}
	return hd, true
}

// CompareHardDates orders two stacks' next hard dates for a fleet sorted by
// deadline: the earlier date first, then more blockers first; a stack
// without one (nil) last. It returns -1, 0 or 1.
func CompareHardDates(a, b *HardDate) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case !a.Date.Equal(b.Date):
		return a.Date.Compare(b.Date)
	case a.Blockers != b.Blockers:
		return cmp.Compare(b.Blockers, a.Blockers)
	}
	return 0
}
