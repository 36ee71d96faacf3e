package kapsule

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// KapsuleJudgement is what JudgeKapsule makes of a kapsule stack: steps
// (phases cluster and pools), objects waiting on the provider (not in sync,
// not changes), parts that could not be judged, and findings.
type KapsuleJudgement struct {
	Steps    []topology.Step
	Waiting  []topology.WaitingObject
	Unknowns []topology.UnknownPart
	Findings []topology.Finding
	// Held says why nothing else is planned for the stack (the cluster is
	// being deleted); "" otherwise.
	Held string
}

// Status words of the provider's API (scaleway-sdk-go api/k8s/v1:
// ClusterStatus, PoolStatus, NodeStatus). A status the SDK does not list
// (or "unknown") is judged unknown, never ready or absent.
var (
	// Cluster: creating, updating ("updating its own configuration, it can
	// be a version upgrade too") and deleting are moving.
	clusterMoving = map[string]bool{"creating": true, "updating": true, "deleting": true, "deleted": true}
	// topology.Pool: scaling, upgrading and deleting are moving.
	poolMoving = map[string]bool{"scaling": true, "upgrading": true, "deleting": true, "deleted": true}
	// Node: creating, starting, registering, rebooting, upgrading and
	// deleting are moving.
	nodeMoving = map[string]bool{"creating": true, "starting": true, "registering": true, "rebooting": true, "upgrading": true, "deleting": true, "deleted": true}
)

// JudgeKapsule compares a kapsule topology t with what the provider's API
// said (k) and returns the steps, the waiting objects, the unknowns and the
// findings. It is pure and takes no date (KapsuleCalendar judges the
// dates). The rules, each from the provider's API reference (Scaleway
// Kubernetes API v1, scaleway-sdk-go api/k8s/v1):
//
//   - cluster status ready: judged; creating, updating (or a 409
//     transient_state answer): waiting, no step for the cluster and none
//     for its pools until it can take one ("updating to X" only when the
//     version moves: KapsuleObserved.UpdatingText); deleting: waiting, and
//     the whole plan is held (Held); pool_required: no pool, each declared
//     pool is created; locked: an error finding ("locked by the provider"),
//     nothing planned; unknown or a status the SDK does not know: unknown,
//     no pool step.
//   - kubernetes.version (cluster ready): a minor above the cluster's gives
//     one upgrade step to the next minor, to the version the cluster's
//     available-versions list offers (the declared patch when offered,
//     else the latest offered patch); nothing offered is unknown, never a
//     guessed step; a minor below is an error finding (no downgrade); the
//     same minor with a patch: above the cluster's, an upgrade step to it
//     when offered — information instead when auto-upgrade is on (the
//     provider applies patches in its maintenance window); below it,
//     information (the provider moved the patch). A newer patch offered for
//     the cluster's minor is information.
//   - upgrade_available is checked against the available-versions list;
//     when they disagree, a warning shows both.
//   - kubernetes.auto_upgrade declared and different: update-cluster.
//   - the cluster's own values the provider cannot change in place
//     (region, project, CNI, Private Network, pod and service ranges),
//     declared and different: an error finding, never a step; a declared
//     scaleway.cluster_name that differs: rename-cluster with its warning
//     (judgeClusterImmutables).
//   - scaleway.acl declared and different as a set: set-acl; rules that
//     admit every address, read or declared: a warning (judgeACL).
//   - pools, by name: declared and absent → create-pool; present and not
//     declared → undeclared (information), and waiting when the provider
//     moves it or its nodes; status scaling, upgrading or deleting (or 409)
//     → waiting ("upgrading to X"), no step; warning →
//     degraded with its error message (a warning finding); locked → error
//     finding; unknown → unknown. Size, autoscaling, min or max different →
//     update-pool naming the field; node_type, zone, placement group, root
//     volume type or size, or public_ip_disabled different → replace-pool
//     (they cannot change in place); a version below the
//     cluster's (cluster ready) → upgrade-pool X → Y, Y the cluster's
//     version after its planned upgrade, which the step then needs (the
//     provider upgrades a pool to its cluster's version only: UpgradePool);
//     above it → unknown (a pool can never be ahead of its control plane).
//     A pool the cluster's upgrade would leave beyond the version skew
//     policy holds it back when declared, blocks it when not
//     (holdForPools).
//   - nodes of a pool that is not moving: creating, starting, registering,
//     rebooting, upgrading, deleting → waiting (surge and leaving nodes
//     never make a pool's size drift: size is the pool's field); not_ready
//     or creation_error → degraded with the message: replace-node when the
//     pool's autohealing is off, information when on (the provider
//     replaces it); locked → error finding; unknown → unknown. A moving
//     node of a pool the list does not hold is waiting too: anything the
//     provider is moving, declared or not, is never in sync.
func JudgeKapsule(t *topology.Topology, k *topology.KapsuleObserved) KapsuleJudgement {
	var j KapsuleJudgement
	if k == nil {
		j.unknown(topology.ProviderSubject(), topology.ReasonNotRead, "not read")
		return j
	}
	clusterReady, poolRequired := false, false
	var cluster topology.KapsuleCluster
	switch {
	case k.Transient["cluster"] != "":
		j.wait(topology.ProviderClusterSubject(""), "the provider's API answered transient_state (current state "+k.Transient["cluster"]+")")
	case !k.Cluster.Known:
		j.unknown(topology.ProviderClusterSubject(""), k.Cluster.Code, k.Cluster.Reason)
	default:
		cluster = k.Cluster.Value
		switch st := cluster.Status; {
		case st == "ready":
			clusterReady = true
		case st == "pool_required":
			poolRequired = true
		case st == "deleting" || st == "deleted":
			j.wait(topology.ProviderClusterSubject(cluster.Name), st)
			j.Held = fmt.Sprintf("the cluster %s is %s: nothing is planned while the provider deletes it", cluster.Name, st)
			return j
		case st == "updating":
			j.wait(topology.ProviderClusterSubject(cluster.Name), k.UpdatingText())
		case clusterMoving[st]:
			j.wait(topology.ProviderClusterSubject(cluster.Name), st)
		case st == "locked":
			j.Findings = append(j.Findings, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingLocked, Subject: topology.ProviderClusterSubject(""), Message: "locked by the provider: contact Scaleway support; nestor plans nothing for a locked cluster"})
		default:
			j.unknown(topology.ProviderClusterSubject(cluster.Name), topology.ReasonUnrecognised, fmt.Sprintf("status \"%s\", which nestor does not know", st))
		}
	}
	if clusterReady || poolRequired {
		j.judgeVersion(t, k, cluster)
		if want := t.Kubernetes.AutoUpgrade; want != nil && *want != cluster.AutoUpgrade {
			j.add(topology.StepUpdateCluster, topology.PhaseCluster, "auto_upgrade", fmt.Sprintf("auto_upgrade %t → %t", cluster.AutoUpgrade, *want))
		}
	}
	if k.Cluster.Known {
		j.judgeClusterImmutables(t, cluster, clusterReady || poolRequired) // immutable.go
	}
	j.judgeACL(t, k, clusterReady || poolRequired) // acl.go
	if clusterReady {
		j.holdForPools(t, k)
	}
	// A pool step is planned only on a cluster that can take one (ready,
	// or waiting for its first pool); while the cluster is moving, locked
	// or unknown, what its pools need waits with it.
	j.judgePools(t, k, cluster, clusterReady, clusterReady || poolRequired)
	j.nodesList(k)
	return j
}

func (j *KapsuleJudgement) add(kind topology.StepKind, phase, target, reason string) {
	j.Steps = append(j.Steps, topology.NewStep(kind, phase, target, reason))
}

// unknown adds a part that could not be judged: s, its code and words.
func (j *KapsuleJudgement) unknown(s topology.Subject, code topology.ReasonCode, reason string) {
	j.Unknowns = append(j.Unknowns, topology.UnknownOf(s, code, reason))
}

// wait adds an object the provider is moving.
func (j *KapsuleJudgement) wait(s topology.Subject, message string) {
	j.Waiting = append(j.Waiting, topology.WaitingObject{Subject: s, Message: message})
}

// clusterVersion is the subject of the judgements of the cluster's
// version: the cluster, at kubernetes.version.
func clusterVersion() topology.Subject {
	s := topology.ProviderClusterSubject("")
	s.Key = topology.KeyVersion
	return s
}

// upgrade adds an upgrade step (kind upgrade or upgrade-pool) from the
// version from to the version to, the reason's words after the versions.
func (j *KapsuleJudgement) upgrade(kind topology.StepKind, phase, target, from, to, why string) {
	st := topology.NewStep(kind, phase, target, fmt.Sprintf("%s → %s (%s)", from, to, why))
	st.To = to
	j.Steps = append(j.Steps, st)
}

func (j *KapsuleJudgement) finding(sev topology.Severity, kind topology.FindingKind, subject topology.Subject, format string, args ...any) {
	j.Findings = append(j.Findings, topology.Finding{Severity: sev, Kind: kind, Subject: subject, Message: fmt.Sprintf(format, args...)})
}

// judgeVersion applies the version rules of JudgeKapsule to a cluster that
// is ready (or waits for a pool).
func (j *KapsuleJudgement) judgeVersion(t *topology.Topology, k *topology.KapsuleObserved, c topology.KapsuleCluster) {
	actual := kube.ParseVersion(c.Version)
	if !actual.Known || !actual.HasPatch {
		j.unknown(topology.VersionSubject(fmt.Sprintf("cluster version \"%s\"", c.Version)), topology.ReasonUnrecognised, "not MAJOR.MINOR.PATCH")
		return
	}
	var offered []kube.Version // the available versions, parsed, ascending
	if k.Available.Known {
		for _, s := range k.Available.Value {
			if v := kube.ParseVersion(s); v.Known && v.HasPatch {
				offered = append(offered, v)
			}
		}
		sort.Slice(offered, func(a, b int) bool { return kube.CompareVersions(offered[a], offered[b]) < 0 })
		newer := false
		for _, v := range offered {
			if kube.CompareVersions(v, actual) > 0 {
				newer = true
			}
		}
		if newer != c.UpgradeAvailable {
			j.finding(topology.SeverityWarning, topology.FindingProviderVersions, clusterVersion(), "the cluster says upgrade_available=%t, its available-versions list offers %s", c.UpgradeAvailable, versionList(offered))
		}
	}
	desiredText := t.Kubernetes.Version
	if desiredText == "" {
		if latest, ok := latestPatch(offered, actual.Major, actual.Minor); ok && kube.CompareVersions(latest, actual) > 0 {
			j.patchAvailable(c, latest)
		}
		j.minorOffered(offered, actual)
		return
	}
	desired := kube.ParseVersion(desiredText)
	if !desired.Known {
		j.unknown(topology.VersionSubject(fmt.Sprintf("kubernetes.version %q", desiredText)), topology.ReasonUnrecognised, desired.Reason)
		return
	}
	if !k.Available.Known && (desired.Minor > actual.Minor || desired.HasPatch) {
		j.unknown(topology.VersionSubject("versions offered to the cluster"), k.Available.Code, k.Available.Reason)
		return
	}
	switch {
	case desired.Major != actual.Major:
		j.unknown(topology.VersionSubject("kubernetes.version "+desiredText), topology.ReasonUnrecognised, fmt.Sprintf("it and the cluster's %s differ in major version", c.Version))
	case desired.Minor < actual.Minor:
		j.finding(topology.SeverityError, topology.FindingDowngrade, clusterVersion(), "desired kubernetes.version %s is below the cluster's %s: a cluster is never downgraded; declare %s", desiredText, c.Version, actual.MinorString())
	case desired.Minor > actual.Minor:
		next := actual.Minor + 1
		to, ok := latestPatch(offered, actual.Major, next)
		if desired.Minor == next && desired.HasPatch && containsVersion(offered, desired) {
			to, ok = desired, true
		}
		if !ok {
			j.unknown(topology.VersionSubject("kubernetes version"), topology.ReasonNotOffered, fmt.Sprintf("desired %s, but the provider offers no %d.%d to this cluster (available: %s)", desiredText, actual.Major, next, versionList(offered)))
			return
		}
		j.upgrade(topology.StepUpgrade, topology.PhaseCluster, "cluster", c.Version, to.Canonical(), "offered by the provider; one minor at a time")
		if desired.Minor > next {
			j.finding(topology.SeverityInfo, topology.FindingProviderVersions, clusterVersion(), "desired %s: the provider offers the next minor only once the cluster runs %d.%d; preview again after this upgrade", desiredText, actual.Major, next)
		}
	case desired.HasPatch && desired.Patch > actual.Patch:
		switch {
		case c.AutoUpgrade:
			j.finding(topology.SeverityInfo, topology.FindingProviderVersions, clusterVersion(), "patch %s is behind the declared %s: auto-upgrade is on, the provider applies patches in its maintenance window", c.Version, desiredText)
		case containsVersion(offered, desired):
			j.upgrade(topology.StepUpgrade, topology.PhaseCluster, "cluster", c.Version, desired.Canonical(), "offered by the provider")
		default:
			j.unknown(topology.VersionSubject("kubernetes version"), topology.ReasonNotOffered, fmt.Sprintf("desired %s is not offered to this cluster (available: %s)", desiredText, versionList(offered)))
		}
	default:
		if desired.HasPatch && desired.Patch < actual.Patch {
			why := "auto-upgrade moved the patch"
			if !c.AutoUpgrade {
				why = "the cluster runs a later patch"
			}
			j.finding(topology.SeverityInfo, topology.FindingProviderVersions, clusterVersion(), "the cluster runs %s above the declared %s (%s): not a downgrade; declare the minor %s to follow the provider", c.Version, desiredText, why, actual.MinorString())
		}
		if latest, ok := latestPatch(offered, actual.Major, actual.Minor); ok && kube.CompareVersions(latest, actual) > 0 {
			j.patchAvailable(c, latest)
		}
		j.minorOffered(offered, actual)
	}
}

// minorOffered says, as information, that the provider offers the cluster
// the next minor (its latest patch) when no upgrade to it is planned.
func (j *KapsuleJudgement) minorOffered(offered []kube.Version, actual kube.Version) {
	if next, ok := latestPatch(offered, actual.Major, actual.Minor+1); ok {
		j.finding(topology.SeverityInfo, topology.FindingProviderVersions, clusterVersion(), "the next minor is offered to this cluster: %s (declare kubernetes.version %s to plan the upgrade)", next.Canonical(), next.MinorString())
	}
}

func (j *KapsuleJudgement) patchAvailable(c topology.KapsuleCluster, latest kube.Version) {
	if c.AutoUpgrade {
		j.finding(topology.SeverityInfo, topology.FindingProviderVersions, clusterVersion(), "patch %s is available: auto-upgrade is on, the provider applies it in its maintenance window", latest.Canonical())
		return
	}
	j.finding(topology.SeverityInfo, topology.FindingProviderVersions, clusterVersion(), "patch %s is available (auto-upgrade is off)", latest.Canonical())
}

// judgePools applies the pool and node rules of JudgeKapsule.
func (j *KapsuleJudgement) judgePools(t *topology.Topology, k *topology.KapsuleObserved, c topology.KapsuleCluster, clusterReady, canPlan bool) {
	switch {
	case k.Transient["pools"] != "":
		j.wait(topology.PoolsSubject(), "the provider's API answered transient_state (current state "+k.Transient["pools"]+")")
		return
	case !k.Pools.Known:
		j.unknown(topology.PoolsSubject(), k.Pools.Code, k.Pools.Reason)
		return
	}
	observed := map[string]topology.KapsulePool{}
	poolIDs := map[string]bool{}
	for _, p := range k.Pools.Value {
		observed[p.Name] = p
		poolIDs[p.ID] = true
	}
	nodesOf := map[string][]topology.KapsuleNode{}
	if k.Nodes.Known {
		for _, n := range k.Nodes.Value {
			nodesOf[n.PoolID] = append(nodesOf[n.PoolID], n)
		}
	}
	declared := map[string]bool{}
	for _, want := range t.Pools {
		declared[want.Name] = true
		p, ok := observed[want.Name]
		switch {
		case !ok && canPlan:
			j.add(topology.StepCreatePool, topology.PhasePools, want.Name, "declared, the cluster has no pool of that name")
			continue
		case !ok:
			continue // the cluster cannot take a pool yet: said in the cluster's waiting line
		case j.poolMoving(p):
			continue
		}
		if !j.poolStatus(p) {
			continue
		}
		if canPlan {
			j.judgePoolFields(want, p)
		}
		if clusterReady {
			j.judgePoolVersion(p, c)
		}
		j.judgeNodes(p, nodesOf[p.ID], k, canPlan)
	}
	var extra []topology.KapsulePool
	for _, p := range k.Pools.Value {
		if !declared[p.Name] {
			extra = append(extra, p)
		}
	}
	sort.Slice(extra, func(a, b int) bool { return extra[a].Name < extra[b].Name })
	for _, p := range extra {
		j.add(topology.StepUndeclared, topology.PhasePools, p.Name, "a pool of the cluster not declared in the topology")
		// Not declared, but the provider moving it (or its nodes) is
		// still a change under way: waiting, never in sync.
		if !j.poolMoving(p) {
			j.judgeNodes(p, nodesOf[p.ID], k, false)
		}
	}
	// Nodes of no pool the list holds (a pool deleted since, a page
	// missed): moving is waiting there too.
	for id, nodes := range nodesOf {
		if poolIDs[id] || k.Transient["nodes"] != "" {
			continue
		}
		for _, n := range nodes {
			if nodeMoving[n.Status] {
				s := topology.ProviderNodeSubject(n.Name, "")
				s.Text = fmt.Sprintf("node %s (pool %s, not listed)", n.Name, id)
				j.wait(s, n.Status)
			}
		}
	}
}

// poolMoving reports whether the provider is moving pool p (scaling,
// upgrading, deleting), and adds it to the waiting objects when it is.
func (j *KapsuleJudgement) poolMoving(p topology.KapsulePool) bool {
	switch {
	case p.Status == "upgrading":
		j.wait(topology.PoolSubject(p.Name), "upgrading to "+p.Version)
	case poolMoving[p.Status]:
		j.wait(topology.PoolSubject(p.Name), p.Status)
	default:
		return false
	}
	return true
}

// poolStatus judges the status of a declared pool that is not moving: ready
// or warning (degraded, a warning finding) can be judged further; locked is
// an error finding and unknown statuses are unknowns, and nothing more is
// judged of them.
func (j *KapsuleJudgement) poolStatus(p topology.KapsulePool) bool {
	subject := topology.PoolSubject(p.Name)
	switch st := p.Status; {
	case st == "locked":
		j.finding(topology.SeverityError, topology.FindingLocked, subject, "locked by the provider: contact Scaleway support")
		return false
	case st == "warning":
		j.finding(topology.SeverityWarning, topology.FindingDegraded, subject, "degraded: %s", orText(p.ErrorMessage, "the provider reports a warning without a message"))
	case st != "ready":
		j.unknown(subject, topology.ReasonUnrecognised, fmt.Sprintf("status \"%s\", which nestor does not know", st))
		return false
	}
	return true
}

// clusterUpgrade is the cluster's upgrade step of the judgement so far,
// nil when none is planned.
func (j *KapsuleJudgement) clusterUpgrade() *topology.Step {
	for i := range j.Steps {
		if j.Steps[i].Kind == topology.StepUpgrade {
			return &j.Steps[i]
		}
	}
	return nil
}

// holdForPools keeps the cluster's planned upgrade within the version
// skew policy for every pool (a pool's nodes are kubelets: at most
// plan.KubeletSkewAllowed minors behind the control plane,
// kubernetes.io "Version Skew Policy"). A declared pool that the upgrade
// would leave farther behind holds it back: the upgrade is not planned
// (the pool is upgraded to the cluster's version first, an upgrade-pool of
// this plan, and the next preview plans the cluster's); a pool the topology
// does not declare, which no step moves, blocks it (Step.Blocked), and the
// reason says what the operator must do. A pool moving or whose version
// does not parse is judged elsewhere.
func (j *KapsuleJudgement) holdForPools(t *topology.Topology, k *topology.KapsuleObserved) {
	up := j.clusterUpgrade()
	if up == nil || !k.Pools.Known {
		return
	}
	to := kube.ParseVersion(up.To)
	declared := map[string]bool{}
	for _, p := range t.Pools {
		declared[p.Name] = true
	}
	var held, blockers []string
	for _, p := range k.Pools.Value {
		pv := kube.ParseVersion(p.Version)
		if !pv.Known || pv.Major != to.Major || poolMoving[p.Status] {
			continue
		}
		allowed := plan.KubeletSkewAllowed(pv)
		behind := to.Minor - pv.Minor
		if behind <= allowed {
			continue
		}
		if declared[p.Name] {
			held = append(held, fmt.Sprintf("pool %s at %s would be %d minors behind %s, more than the %d the version skew policy allows", p.Name, p.Version, behind, to.MinorString(), allowed))
			continue
		}
		blockers = append(blockers, fmt.Sprintf("pool %s at %s would be %d minors behind %s, more than the %d the version skew policy allows, and it is not declared in the topology, so no step of this plan upgrades it: upgrade it to the cluster's version outside nestor (scw k8s pool upgrade), or declare it under pools:, first", p.Name, p.Version, behind, to.MinorString(), allowed))
		up.Blocked = append(up.Blocked, topology.PoolSubject(p.Name))
	}
	if len(held) > 0 {
		ref := topology.StepRef(*up)
		steps := j.Steps[:0]
		for _, s := range j.Steps {
			if s.Kind != topology.StepUpgrade {
				steps = append(steps, s)
			}
		}
		j.Steps = steps
		j.finding(topology.SeverityWarning, topology.FindingProviderVersions, clusterVersion(), "%s is not planned yet: %s; the pool is upgraded to the cluster's version first, then preview again", ref, strings.Join(held, "; "))
		return
	}
	if len(blockers) > 0 {
		up.Reason += "; blocked: " + strings.Join(blockers, "; ")
	}
}

// judgePoolVersion compares a pool's version with its ready cluster's,
// as it will be after the cluster's planned upgrade (clusterUpgrade):
// behind is upgrade-pool to it, after that upgrade (Step.Needs; the
// provider upgrades a pool only to its cluster's version: Scaleway
// Kubernetes API v1, UpgradePool); ahead is unknown (a pool can never be
// ahead of its control plane); a version that does not parse is unknown.
func (j *KapsuleJudgement) judgePoolVersion(p topology.KapsulePool, c topology.KapsuleCluster) {
	subject := topology.PoolSubject(p.Name)
	cv, pv := kube.ParseVersion(c.Version), kube.ParseVersion(p.Version)
	target, why, up := cv, "the cluster's version", j.clusterUpgrade()
	if up != nil {
		target, why = kube.ParseVersion(up.To), "the cluster's version after "+topology.StepRef(*up)
	}
	switch {
	case !cv.Known:
	case !pv.Known || !pv.HasPatch || !cv.HasPatch:
		j.unknown(subject, topology.ReasonUnrecognised, fmt.Sprintf("version \"%s\" cannot be compared with the cluster's %s", p.Version, c.Version))
	case kube.CompareVersions(pv, cv) > 0:
		j.unknown(subject, topology.ReasonUnrecognised, fmt.Sprintf("version %s is ahead of the cluster's %s, which the provider never allows", p.Version, c.Version))
	case kube.CompareVersions(pv, target) < 0:
		j.upgrade(topology.StepUpgradePool, topology.PhasePools, p.Name, p.Version, target.Canonical(), why)
		if up != nil {
			j.Steps[len(j.Steps)-1].Needs = []string{topology.StepRef(*up)}
		}
	}
}

// judgePoolFields compares what a pool declares with the pool: update-pool
// for size and autoscaling (in place), replace-pool for node_type, zone and
// the other values the provider cannot change in place (poolImmutables).
func (j *KapsuleJudgement) judgePoolFields(want topology.Pool, p topology.KapsulePool) {
	var replace []string
	if NodeTypeKey(want.NodeType) != NodeTypeKey(p.NodeType) {
		replace = append(replace, fmt.Sprintf("node_type %s → %s", p.NodeType, want.NodeType))
	}
	if want.Zone != "" && want.Zone != p.Zone {
		replace = append(replace, fmt.Sprintf("zone %s → %s", p.Zone, want.Zone))
	}
	more, unread := poolImmutables(want, p) // immutable.go
	replace = append(replace, more...)
	for _, why := range unread {
		j.unknown(topology.PoolSubject(p.Name), topology.ReasonNotRead, why)
	}
	if len(replace) > 0 {
		j.add(topology.StepReplacePool, topology.PhasePools, p.Name, strings.Join(replace, ", ")+" (cannot change in place: a new pool, then the old one removed)")
	}
	var update []string
	switch a := want.Autoscaling; {
	case a == nil && p.Autoscaling:
		update = append(update, fmt.Sprintf("autoscaling on → off, size %d", want.Size))
	case a == nil && want.Size != p.Size:
		update = append(update, fmt.Sprintf("size %d → %d", p.Size, want.Size))
	case a != nil && !p.Autoscaling:
		update = append(update, fmt.Sprintf("autoscaling off → on (min %d, max %d)", a.Min, a.Max))
	case a != nil:
		if a.Min != p.MinSize {
			update = append(update, fmt.Sprintf("min_size %d → %d", p.MinSize, a.Min))
		}
		if a.Max != p.MaxSize {
			update = append(update, fmt.Sprintf("max_size %d → %d", p.MaxSize, a.Max))
		}
	}
	if len(update) > 0 {
		j.add(topology.StepUpdatePool, topology.PhasePools, p.Name, strings.Join(update, ", "))
	}
}

// NodeTypeKey is topology.NodeTypeKey, the form node types are compared in
// (its one home; kept here for callers of this package).
func NodeTypeKey(s string) string { return topology.NodeTypeKey(s) }

// judgeNodes applies the node rules of JudgeKapsule to the nodes of pool
// p; with canPlan false (an undeclared pool, or a cluster that cannot take
// a step) a degraded node is a finding, never a step.
func (j *KapsuleJudgement) judgeNodes(p topology.KapsulePool, nodes []topology.KapsuleNode, k *topology.KapsuleObserved, canPlan bool) {
	if k.Transient["nodes"] != "" {
		return // said once for the whole list (nodesJudgement)
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	for _, n := range nodes {
		subject := topology.ProviderNodeSubject(n.Name, p.Name)
		switch st := n.Status; {
		case st == "ready":
		case nodeMoving[st]:
			j.wait(subject, st)
		case st == "not_ready" || st == "creation_error":
			msg := orText(n.ErrorMessage, "no message from the provider")
			switch {
			case p.Autohealing:
				j.finding(topology.SeverityInfo, topology.FindingDegraded, subject, "degraded (%s: %s): autohealing is on, the provider replaces it", st, msg)
			case !canPlan:
				j.finding(topology.SeverityWarning, topology.FindingDegraded, subject, "degraded (%s: %s), autohealing off", st, msg)
			default:
				j.Steps = append(j.Steps, topology.NewStepAbout(topology.StepReplaceNode, topology.PhasePools, n.Name, fmt.Sprintf("degraded, %s: %s (pool %s has autohealing off)", st, msg, p.Name), subject))
			}
		case st == "locked":
			j.finding(topology.SeverityError, topology.FindingLocked, subject, "locked by the provider: contact Scaleway support")
		default:
			j.unknown(subject, topology.ReasonUnrecognised, fmt.Sprintf("status \"%s\", which nestor does not know", st))
		}
	}
}

// nodesList adds what the node list adds to a judgement: a 409 is
// waiting, another failure unknown, a read list nothing.
func (j *KapsuleJudgement) nodesList(k *topology.KapsuleObserved) {
	switch {
	case k.Transient["nodes"] != "":
		j.wait(topology.NodesSubject(topology.KeyPools), "the provider's API answered transient_state (current state "+k.Transient["nodes"]+")")
	case !k.Nodes.Known:
		j.unknown(topology.NodesSubject(topology.KeyPools), k.Nodes.Code, k.Nodes.Reason)
	}
}

// KapsuleCalendarWarnDays is how close an end of life is warned about.
const KapsuleCalendarWarnDays = kube.ProviderEndOfLifeNoticeDays

// KapsuleCalendar judges the provider's dates for the minors in use (the
// cluster's and each pool's) at asOf, from the version list (GET
// …/versions: deprecated_at "from which this version will no longer be
// available for provisioning", end_of_life_at "from which any remaining
// clusters on this version will begin to be forcibly upgraded to the next
// minor version" — scaleway-sdk-go api/k8s/v1 Version). Per minor:
// deprecated at or before asOf → warning; end of life past → error; within
// KapsuleCalendarWarnDays → warning with the days left and what the
// provider then does; an end of life before the deprecation → "calendar
// inconsistent" (information, no countdown); a minor the list does not
// carry → "not listed by the provider" (information, never
// "unsupported"). The entry of the exact version in use is taken, else the
// latest patch of the minor. It is pure; asOf is the preview's date.
func KapsuleCalendar(k *topology.KapsuleObserved, asOf time.Time) []topology.Finding {
	if k == nil || !k.Versions.Known {
		return nil
	}
	var out []topology.Finding
	for _, u := range k.MinorsInUse() {
		subject := topology.VersionSubject(u.Version.MinorString() + " (" + strings.Join(u.Users, ", ") + ")")
		entry, ok := k.VersionEntry(u.Version)
		if !ok {
			out = append(out, topology.Finding{Severity: topology.SeverityInfo, Kind: topology.FindingProviderCalendar, Subject: subject, Message: "not listed by the provider: no dates to judge"})
			continue
		}
		dep, eol := entry.DeprecatedAt, entry.EndOfLifeAt
		if dep != nil && eol != nil && eol.Before(*dep) {
			out = append(out, topology.Finding{Severity: topology.SeverityInfo, Kind: topology.FindingProviderCalendar, Subject: subject, Message: fmt.Sprintf("calendar inconsistent: end of life %s is before deprecation %s; no countdown", kube.DateText(*eol), kube.DateText(*dep))})
			continue
		}
		if dep != nil && !asOf.Before(*dep) && (eol == nil || asOf.Before(*eol)) {
			out = append(out, topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingProviderCalendar, Subject: subject, Message: "deprecated by the provider since " + kube.DateText(*dep)})
		}
		if eol == nil {
			continue
		}
		left := int(math.Ceil(eol.Sub(asOf).Hours() / 24))
		switch {
		case !asOf.Before(*eol):
			out = append(out, topology.Finding{Severity: topology.SeverityError, Kind: topology.FindingProviderCalendar, Subject: subject, Message: fmt.Sprintf("past its end of life (%s): the provider upgrades the cluster to the next minor's latest patch", kube.DateText(*eol))})
		case left <= KapsuleCalendarWarnDays:
			out = append(out, topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingProviderCalendar, Subject: subject, Message: fmt.Sprintf("end of life in %d days (%s): the provider then upgrades the cluster to the next minor's latest patch", left, kube.DateText(*eol))})
		}
	}
	return out
}

// containsVersion reports whether list holds v (compared by number).
func containsVersion(list []kube.Version, v kube.Version) bool {
	for _, x := range list {
		if kube.CompareVersions(x, v) == 0 {
			return true
		}
	}
	return false
}

// latestPatch is the highest version of list in major.minor.
func latestPatch(list []kube.Version, major, minor int) (kube.Version, bool) {
	var best kube.Version
	for _, v := range list {
		if v.Major == major && v.Minor == minor && (!best.Known || kube.CompareVersions(v, best) > 0) {
			best = v
		}
	}
	return best, best.Known
}

// versionList writes list for a message ("none" when empty).
func versionList(list []kube.Version) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = v.Canonical()
	}
	return strings.Join(parts, ", ")
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Rules are the kapsule kind's own phases and plan: cluster then pools,
// judged by JudgeKapsule from the provider's API, and the provider's
// calendar (KapsuleCalendar) when the plan's date is set.
type Rules struct{}

// OwnPhases are cluster and pools: the provider runs the control plane and
// the nodes, the unit declared is a pool.
func (Rules) OwnPhases(*topology.Topology) []topology.Phase {
	return []topology.Phase{{Name: topology.PhaseCluster, Kind: topology.PhaseKindCluster}, {Name: topology.PhasePools, Kind: topology.PhaseKindPools}}
}

// PlanOwn adds JudgeKapsule's judgement of obs.Kapsule to p, the offer's
// (judgeOffer: the declared type, its commitment judged at o.AsOf, and the
// headroom, KapsuleHeadroom, which p.Headroom carries), what kube-system's
// objects say (topology.JudgeProviderObjects: the provider's objects edited
// since it wrote them, the lists not read) and, when o.AsOf is set, the
// provider's calendar judged at that day.
func (Rules) PlanOwn(t *topology.Topology, obs *topology.Observed, o plan.Options, p *topology.Plan) {
	j := JudgeKapsule(t, obs.Kapsule)
	p.Headroom = KapsuleHeadroom(t, obs.Kapsule)
	j.judgeOffer(t, obs.Kapsule, p.Headroom, o.AsOf)
	p.Steps = append(p.Steps, j.Steps...)
	p.Waiting = append(p.Waiting, j.Waiting...)
	p.Unknowns = append(p.Unknowns, j.Unknowns...)
	p.Findings = append(p.Findings, j.Findings...)
	p.Held = j.Held
	edited, unread := topology.JudgeProviderObjects(obs.ProviderObjects)
	p.Findings = append(p.Findings, edited...)
	p.Unknowns = append(p.Unknowns, unread...)
	if !o.AsOf.IsZero() {
		p.Findings = append(p.Findings, KapsuleCalendar(obs.Kapsule, o.AsOf)...)
		p.Findings = append(p.Findings, upstreamCalendar(obs.Kapsule, o.AsOf)...)
	}
}

// upstreamCalendar judges the minors the cluster and its pools run (as the
// provider reports them) against the upstream support calendar
// (plan.JudgeSupport), as a prod stack's server version is:
// the provider's end of support and upstream's end of life are two dates,
// both said.
func upstreamCalendar(k *topology.KapsuleObserved, asOf time.Time) []topology.Finding {
	cal := kube.UpstreamCalendar()
	var out []topology.Finding
	for _, u := range k.MinorsInUse() {
		if f, ok := plan.JudgeSupport(cal, u.Version, strings.Join(u.Users, ", "), asOf); ok {
			out = append(out, f)
		}
	}
	return out
}

// AllDone: the cluster, its pools and the layers match.
func (Rules) AllDone() string { return "the cluster, its pools and the layers match the topology" }

// PhaseDone judges the cluster and pools phases for Next: the cluster
// phase is done when the cluster is ready (or waits for its first pool),
// the pools phase when every pool is neither moving nor unknown (the
// plan's steps then say what is left). Moving is not done ("waiting"), an
// unread part is unknown.
func (Rules) PhaseDone(_ *topology.Topology, obs *topology.Observed, ph topology.Phase) (done, unknown bool, why string) {
	k := obs.Kapsule
	if k == nil {
		return false, true, "the provider's API was not read"
	}
	if ph.Kind == topology.PhaseKindCluster {
		switch {
		case k.Transient["cluster"] != "":
			return false, false, "waiting: the cluster is " + k.Transient["cluster"]
		case !k.Cluster.Known:
			return false, true, k.Cluster.Reason
		}
		c := k.Cluster.Value
		switch {
		case c.Status == "ready" || c.Status == "pool_required":
			return true, false, ""
		case c.Status == "updating":
			return false, false, "waiting: the cluster is " + k.UpdatingText()
		case clusterMoving[c.Status]:
			return false, false, "waiting: the cluster is " + c.Status
		case c.Status == "locked":
			return false, false, "the cluster is locked by the provider: contact Scaleway support"
		}
		return false, true, fmt.Sprintf("cluster status \"%s\"", c.Status)
	}
	switch {
	case k.Transient["pools"] != "":
		return false, false, "waiting: the pools are " + k.Transient["pools"]
	case !k.Pools.Known:
		return false, true, k.Pools.Reason
	}
	for _, pool := range k.Pools.Value {
		switch {
		case poolMoving[pool.Status]:
			return false, false, fmt.Sprintf("waiting: pool %s is %s", pool.Name, pool.Status)
		case pool.Status != "ready" && pool.Status != "warning" && pool.Status != "locked":
			return false, true, fmt.Sprintf("pool %s: status \"%s\"", pool.Name, pool.Status)
		}
	}
	return true, false, ""
}
