package topology

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The rule of each layer, in one line (the functions below give each
// state and its source):
//
//   - rook-ceph is degraded when a CephCluster reports HEALTH_WARN or
//     HEALTH_ERR, a phase Failure or state Error, when a CephBlockPool or
//     CephFilesystem is in phase Failure, or when there is no CephCluster at
//     all; unknown when a CephCluster's Ceph status is older than twice its
//     check interval.
//   - cnpg is degraded when a Cluster is in a phase that is not healthy or
//     has fewer ready instances than it asks for; a failed latest Backup or
//     failing WAL archiving is a finding.
//   - longhorn is degraded when a Longhorn Node is not Ready, a Volume is
//     faulted or degraded, or no Longhorn Node is registered; a Node that
//     takes no new replicas is a finding.
//   - kube-prometheus-stack is degraded when a Prometheus or Alertmanager
//     is not Available or not Reconciled, or when there is no Prometheus.
//   - cert-manager is degraded when no issuer at all is Ready or a
//     ClusterIssuer is not Ready; a namespaced Issuer not Ready and a
//     Certificate not Ready, not renewed or expired are findings.
//   - external-secrets is degraded when no store at all is Ready or a
//     ClusterSecretStore is not Ready; a namespaced SecretStore not Ready
//     and an ExternalSecret that does not sync are findings.
//   - flux is degraded when its own sync (the GitRepository or
//     OCIRepository and the Kustomization flux-system of namespace
//     flux-system, which flux bootstrap creates) is not Ready by kstatus;
//     any other Flux object not Ready is a finding.
//   - argocd: its workloads decide; an Application not Healthy, not Synced
//     or with an error condition is a finding.
//   - a custom layer's resource: kstatus decides (kstatusOf).
//
// Everywhere: an object with an empty status is unknown, "not reported
// yet" (unless its operator documents that it writes none: Flux's OCI
// HelmRepository); an object its operator was told to leave alone is
// suspended (Flux's spec.suspend, CloudNativePG's reconciliation loop
// disabled, a paused Prometheus, a CephCluster whose cleanup is confirmed),
// and a layer whose own object is suspended is suspended, never healthy
// on a frozen status; an object its operator is working on is progressing
// (a certificate issuing, an Application syncing, a volume attaching). A
// list that could not be read makes the layer unknown when the layer's
// health depends on it (StatusResource.Decides), else it is a finding of
// kind status-unread.

// statusRules holds the rule of each catalog layer that has status
// resources. A custom layer's resource is judged by judgeCustom.
var statusRules = map[string]func(*statusJudge){
	"rook-ceph":             judgeRookCeph,
	"cnpg":                  judgeCNPG,
	"longhorn":              judgeLonghorn,
	"kube-prometheus-stack": judgePrometheus,
	"cert-manager":          judgeCertManager,
	"external-secrets":      judgeExternalSecrets,
	"flux":                  judgeFlux,
	"argocd":                judgeArgoCD,
}

// JudgeStatus returns what def's status resources say, from the lists in
// facts judged at facts.ReadAt: Health Healthy, Degraded or Unknown with
// short Words, a ResourceReport per resource (what each object says) and
// the findings about what runs on the layer. Health is "" when def has no
// status resource, or none whose list decides its health (argocd): the
// workloads alone decide then, and Words only inform. A resource missing
// from facts.Lists counts as not read. It is pure.
func JudgeStatus(def LayerDef, facts StatusFacts) StatusVerdict {
	if len(def.Status) == 0 {
		return StatusVerdict{}
	}
	j := &statusJudge{def: def, now: facts.ReadAt, lists: map[string]Fact[[]StatusObject]{}, reports: map[string]*ResourceReport{}}
	for _, res := range def.Status {
		f, ok := facts.Lists[res.Key()]
		if !ok {
			f = UnknownFact[[]StatusObject](Because(ReasonNotRead, "not read"))
		}
		j.lists[res.Kind] = f
		j.res = append(j.res, res)
		r := &ResourceReport{Group: res.Group, Kind: res.Kind, Known: f.Known, Reason: f.Reason, Decides: res.Decides}
		j.reports[res.Kind] = r
		if !f.Known {
			if res.Decides {
				j.unread = append(j.unread, unreadList{kind: pluralKind(res.Kind), why: f.Why()})
				j.because(f.Why().Code)
			} else {
				j.finding(SeverityInfo, FindingStatusUnread, pluralKind(res.Kind), "not read (%s): what they say is unknown", OrNotRead(f.Reason))
			}
		}
	}
	rule := statusRules[def.Name]
	if def.Category == CategoryCustom {
		rule = judgeCustom
	}
	j.unknown = append(sayUnreadOnce(j.unread), j.unknown...)
	if rule != nil {
		rule(j)
	}
	return j.verdict()
}

// unreadList is a status list that decides health and was not read.
type unreadList struct {
	kind string // its plural kind ("CephClusters")
	why  Why
}

// sayUnreadOnce words the unread lists with one cause said once:
// forbidden lists in one phrase that names them and what grants them
// ("CephClusters, CephBlockPools and CephFilesystems: forbidden — the role
// `nestor rbac` prints grants them"; each list's own refusal is in its
// ResourceReport, which --detailed shows), the others grouped by their
// words ("CephClusters and CephBlockPools: timed out after 3s").
func sayUnreadOnce(lists []unreadList) []string {
	var order []Why
	kinds := map[Why][]string{}
	for _, l := range lists {
		key := l.why
		if key.Code == ReasonForbidden {
			key = Because(ReasonForbidden, "forbidden — the role `nestor rbac` prints grants them")
		}
		if _, ok := kinds[key]; !ok {
			order = append(order, key)
		}
		kinds[key] = append(kinds[key], l.kind)
	}
	out := make([]string, 0, len(order))
	for _, key := range order {
		out = append(out, JoinAnd(kinds[key])+": "+key.Text)
	}
	return out
}

// statusJudge collects what a layer's rule finds.
type statusJudge struct {
	def     LayerDef
	now     time.Time
	res     []StatusResource
	lists   map[string]Fact[[]StatusObject]
	reports map[string]*ResourceReport
	// bad are the words of what breaks the layer's own function; moving
	// counts those that are progressing.
	bad    []string
	moving int
	// absentObjects counts the words of bad that say an object the layer
	// must have does not exist: they rest on the layer running at all.
	absentObjects int
	// unknown are the words of what keeps the layer's health unknown;
	// code is the ReasonCode of the first of them; unread are the lists
	// that decide health and were not read (said in unknown's first words).
	unknown []string
	code    ReasonCode
	unread  []unreadList
	// suspended are the words of the deciding objects whose operator was
	// told to stop acting on them.
	suspended []string
	// good are the words of a healthy layer ("Ceph HEALTH_OK").
	good     []string
	findings []Finding
}

// objects returns the objects of kind that were read (nil when unknown).
func (j *statusJudge) objects(kind string) ([]StatusObject, bool) {
	f := j.lists[kind]
	return f.Value, f.Known
}

// report records what o says; Degraded and progressing is reported as
// Progressing.
func (j *statusJudge) report(o StatusObject, h Health, progressing bool, says string) {
	r := j.reports[o.Kind]
	if r == nil {
		return
	}
	if progressing && (h == Degraded || h == Progressing) {
		h = Progressing
	} else if h == Progressing {
		progressing = true
	}
	r.Objects = append(r.Objects, ObjectReport{Namespace: o.Namespace, Name: o.Name, Health: h, Progressing: progressing, Says: says})
}

// decide records o as deciding the layer's health: h Degraded (or
// Progressing) adds words to bad, Suspended to suspended, Unknown to
// unknown.
func (j *statusJudge) decide(o StatusObject, h Health, progressing bool, says, words string) {
	j.report(o, h, progressing, says)
	switch h {
	case Degraded, Progressing:
		j.bad = append(j.bad, words)
		if progressing || h == Progressing {
			j.moving++
		}
	case Suspended:
		j.suspended = append(j.suspended, words)
	case Unknown:
		j.unknown = append(j.unknown, words)
		j.because(ReasonNotReported)
	}
}

// noObject records that the object a running layer must have does not
// exist (words): degraded — when the layer runs, which the workloads say,
// not the status (EvaluateWithStatus).
func (j *statusJudge) noObject(words string) {
	j.bad = append(j.bad, words)
	j.absentObjects++
}

// because keeps code as the verdict's code when none is kept yet.
func (j *statusJudge) because(code ReasonCode) {
	if j.code == "" {
		j.code = code
	}
}

func (j *statusJudge) finding(sev Severity, kind FindingKind, subject, format string, args ...any) {
	j.findings = append(j.findings, Finding{Severity: sev, Kind: kind, Subject: ObjectSubject(j.def.Name, subject), Message: fmt.Sprintf(format, args...)})
}

// listWords bounds a list of words for a one-line reason: the first three,
// then how many more.
func listWords(words []string) string {
	if len(words) > 3 {
		return strings.Join(words[:3], "; ") + fmt.Sprintf("; and %d more", len(words)-3)
	}
	return strings.Join(words, "; ")
}

func (j *statusJudge) verdict() StatusVerdict {
	v := StatusVerdict{Findings: j.findings}
	for _, res := range j.res {
		v.Resources = append(v.Resources, *j.reports[res.Kind])
	}
	decides := false
	for _, res := range j.res {
		decides = decides || res.Decides
	}
	switch {
	case len(j.bad) > 0:
		v.Health = Degraded
		v.Progressing = j.moving == len(j.bad)
		v.OnlyAbsentObjects = j.absentObjects == len(j.bad)
		v.Words = listWords(append(append([]string{}, j.bad...), j.unknown...))
	case len(j.suspended) > 0:
		// Its status may be frozen: never healthy, and nothing to repair
		// while its operator leaves it alone.
		v.Health = Suspended
		v.Words = listWords(append(append([]string{}, j.suspended...), j.unknown...))
	case len(j.unknown) > 0:
		v.Health = Unknown
		v.Code = j.code
		if v.Code == "" {
			v.Code = ReasonNotReported
		}
		v.Words = listWords(j.unknown)
	case decides:
		v.Health = Healthy
		v.Words = strings.Join(j.good, ", ")
	default:
		v.Words = strings.Join(j.good, ", ")
	}
	return v
}

// name is "NS/NAME" or "NAME".
func (o StatusObject) name() string {
	if o.Namespace != "" {
		return o.Namespace + "/" + o.Name
	}
	return o.Name
}

// condition returns o's condition of type t.
func (o StatusObject) condition(t string) (Condition, bool) {
	for _, c := range o.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return Condition{}, false
}

// condWords is "Ready False (Reason): message", the message bounded.
func condWords(c Condition) string {
	s := c.Type + " " + c.Status
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	if c.Message != "" {
		s += ": " + firstLine(c.Message)
	}
	return s
}

// firstLine keeps the first line of a multi-line message.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// pluralKind is the kind's plural for words ("CephClusters").
func pluralKind(kind string) string {
	switch {
	case strings.HasSuffix(kind, "s"):
		return kind + "es"
	case strings.HasSuffix(kind, "y"):
		return kind[:len(kind)-1] + "ies"
	}
	return kind + "s"
}

// count is "1 CephCluster", "2 CephClusters".
func count(n int, kind string) string {
	if n == 1 {
		return "1 " + kind
	}
	return strconv.Itoa(n) + " " + pluralKind(kind)
}

// ago says how long before now t was, rounded: "40 s", "5 min", "3 h",
// "2 days"; a t after now says by how much it is ahead.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "ahead of this machine's clock by " + roughDuration(-d)
	}
	return roughDuration(d) + " ago"
}

func roughDuration(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// notReported is the words of an object whose operator has not written
// its status yet.
const notReported = "not reported yet"

// --- rook-ceph -------------------------------------------------------------

// cephStaleFactor: a Ceph status older than this many check intervals is
// stale. Rook checks every interval and writes lastChecked each time
// (pkg/operator/ceph/cluster/cephstatus.go checkCephStatus), a failed check
// included (it writes HEALTH_ERR with the error); two intervals leave room
// for one slow check.
const cephStaleFactor = 2

// cephDefaultInterval is Rook's default status check interval
// (cephstatus.go defaultStatusCheckInterval).
const cephDefaultInterval = 60 * time.Second

// judgeRookCeph: a CephCluster is healthy when Ceph says HEALTH_OK,
// checked within twice the check interval, and its phase is Ready or
// Connected (or not given); HEALTH_WARN and HEALTH_ERR are degraded, with
// Ceph's check messages (the anchor, argo-cd
// resource_customizations/ceph.rook.io/CephCluster/health.lua, degrades
// both); a phase Failure, or state Error, is degraded; Progressing,
// Updating, Connecting or Creating is degraded and progressing; a status
// older than twice the interval is unknown and says when it was checked
// (the interval is the CephCluster's
// spec.healthCheck.daemonHealth.status.interval, else 60 s; the operator's
// ROOK_CEPH_STATUS_CHECK_INTERVAL, which nestor cannot see, overrides it).
// No CephCluster at all is degraded: the operator runs but no Ceph cluster
// stores anything. Pools and filesystems: phase Ready healthy, Failure
// degraded, Progressing degraded and progressing.
//
// Rook's own states come first (cephDeletion): a CephCluster being deleted
// is progressing, or degraded when its condition DeletionIsBlocked is True
// (pkg/apis/ceph.rook.io/v1 ConditionDeletionIsBlocked: dependents such as
// pools still exist); a CephCluster whose spec.cleanupPolicy.confirmation
// is "yes-really-destroy-data" is suspended: "after the confirmation is
// set, Rook will immediately stop configuring the cluster and only wait
// for the delete command" (deploy/examples/cluster.yaml), so its Ceph
// health is no longer what Rook keeps it at.
func judgeRookCeph(j *statusJudge) {
	clusters, known := j.objects("CephCluster")
	if known && len(clusters) == 0 {
		j.noObject("rook-ceph runs, no CephCluster")
	}
	var oks []string
	for _, o := range clusters {
		h, moving, says := cephClusterHealth(o, j.now)
		words := "CephCluster " + o.name() + ": " + says
		if len(clusters) == 1 && strings.HasPrefix(says, "HEALTH_") {
			words = "Ceph " + says // one cluster: Ceph's own words
		}
		j.decide(o, h, moving, says, words)
		if h == Healthy {
			oks = append(oks, says)
		}
	}
	switch {
	case len(oks) == 1:
		j.good = append(j.good, "Ceph "+strings.SplitN(oks[0], ",", 2)[0])
	case len(oks) > 1:
		j.good = append(j.good, count(len(oks), "CephCluster")+" HEALTH_OK")
	}
	for _, kind := range []string{"CephBlockPool", "CephFilesystem"} {
		objs, _ := j.objects(kind)
		for _, o := range objs {
			h, moving, says := phaseHealth(o)
			j.decide(o, h, moving, says, kind+" "+o.name()+": "+says)
		}
	}
}

// cephClusterHealth judges one CephCluster at now.
func cephClusterHealth(o StatusObject, now time.Time) (Health, bool, string) {
	if o.Deleting {
		return cephDeletion(o)
	}
	if o.Fields[fieldCephCleanup] == cephCleanupConfirmed {
		return Suspended, false, "cleanup confirmed (spec.cleanupPolicy.confirmation: " + cephCleanupConfirmed + "): Rook stops configuring it and waits for its deletion, which wipes its hosts' data"
	}
	if !o.HasStatus {
		return Unknown, false, notReported
	}
	phase, state := o.Fields[fieldPhase], o.Fields[fieldState]
	msg := o.Fields[fieldMessage]
	withMsg := func(s string) string {
		if msg != "" {
			return s + ": " + firstLine(msg)
		}
		return s
	}
	if phase == "Failure" || state == "Error" {
		return Degraded, false, withMsg("phase " + nonEmpty(phase, state))
	}
	health := o.Fields[fieldCephHealth]
	if health == "" {
		if phase == "Progressing" || state == "Creating" {
			return Degraded, true, withMsg("creating, no Ceph health yet")
		}
		return Unknown, false, "no Ceph health reported yet (phase " + nonEmpty(phase, "none") + ")"
	}
	checked, err := time.Parse(time.RFC3339, o.Fields[fieldCephLastChecked])
	if err != nil {
		return Unknown, false, "Ceph " + health + " with no time of check (status.ceph.lastChecked " + strconv.Quote(o.Fields[fieldCephLastChecked]) + ")"
	}
	interval := cephDefaultInterval
	if s := o.Fields[fieldCephCheckInterval]; s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			interval = d
		}
	}
	when := "checked " + ago(now, checked)
	if now.Sub(checked) > cephStaleFactor*interval {
		why := fmt.Sprintf("Rook checks every %s", interval)
		if o.Fields[fieldCephCheckDisabled] == "true" {
			why = "its status check is disabled (spec.healthCheck.daemonHealth.status.disabled)"
		}
		return Unknown, false, fmt.Sprintf("Ceph %s as last %s (%s); %s, so it is stale", health, when, checked.UTC().Format(time.RFC3339), why)
	}
	switch health {
	case "HEALTH_OK":
		switch phase {
		case "", "Ready", "Connected":
		default:
			return Degraded, true, "HEALTH_OK, phase " + phase + ", " + when
		}
		return Healthy, false, "HEALTH_OK, " + when
	case "HEALTH_WARN", "HEALTH_ERR":
		return Degraded, false, health + cephCheckWords(o.Checks) + ", " + when
	}
	return Unknown, false, fmt.Sprintf("Ceph health %q is not one Ceph reports (HEALTH_OK, HEALTH_WARN, HEALTH_ERR)", health)
}

// cephCheckWords lists Ceph's check messages, errors first (Ceph's
// severities HEALTH_ERR, then Rook's Urgent, then HEALTH_WARN), then by
// name, bounded: ": Reduced data availability: 64 pgs inactive; 2 osds
// down".
func cephCheckWords(checks []HealthCheck) string {
	rank := func(s string) int {
		switch s {
		case "HEALTH_ERR":
			return 0
		case "Urgent":
			return 1
		case "HEALTH_WARN":
			return 2
		}
		return 3
	}
	cs := append([]HealthCheck{}, checks...)
	sort.SliceStable(cs, func(a, b int) bool { return rank(cs[a].Severity) < rank(cs[b].Severity) })
	var msgs []string
	for _, c := range cs {
		m := c.Message
		if m == "" {
			m = c.Name
		}
		msgs = append(msgs, firstLine(m))
	}
	if len(msgs) == 0 {
		return ""
	}
	return ": " + listWords(msgs)
}

// cephDeletion judges a Rook object being deleted: progressing while Rook
// removes it, degraded when Rook reports its deletion blocked (condition
// DeletionIsBlocked True, reason ObjectHasDependents: the objects that
// still use it are named in the message).
func cephDeletion(o StatusObject) (Health, bool, string) {
	if c, ok := o.condition("DeletionIsBlocked"); ok && c.Status == ConditionTrue {
		return Degraded, false, "deletion blocked: " + condWords(c)
	}
	says := "being deleted"
	if o.Fields[fieldCephCleanup] == cephCleanupConfirmed {
		says += ", its hosts' data wiped (spec.cleanupPolicy.confirmation: " + cephCleanupConfirmed + ")"
	}
	return Progressing, true, says
}

// nonEmpty returns a, or b when a is empty.
func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// phaseHealth judges a Rook pool or filesystem by status.phase (rook
// pkg/apis/ceph.rook.io/v1 ConditionType: Progressing, Ready, Failure,
// Deleting).
func phaseHealth(o StatusObject) (Health, bool, string) {
	if o.Deleting {
		return cephDeletion(o)
	}
	if !o.HasStatus {
		return Unknown, false, notReported
	}
	switch p := o.Fields[fieldPhase]; p {
	case "Ready", "Connected":
		return Healthy, false, "phase " + p
	case "Failure":
		return Degraded, false, "phase Failure"
	case "Progressing", "Connecting", "Updating":
		return Degraded, true, "phase " + p
	case "Deleting":
		return cephDeletion(o)
	case "":
		return Unknown, false, "no phase reported"
	default:
		return Unknown, false, fmt.Sprintf("phase %q is not one Rook reports", p)
	}
}

// --- cnpg ------------------------------------------------------------------

// cnpgPhases classes each phase of a CloudNativePG Cluster
// (cloudnative-pg api/v1/cluster_types.go Phase*): "healthy", "moving"
// (the operator is at work: degraded and progressing) or "broken"
// (degraded). The anchor is argo-cd
// resource_customizations/postgresql.cnpg.io/Cluster/health.lua, which
// calls the moving ones Progressing or Degraded and the broken ones
// Degraded or Suspended; a phase not listed is unknown.
var cnpgPhases = map[string]string{
	"Cluster in healthy state":                                 "healthy",
	"Setting up primary":                                       "moving",
	"Creating a new replica":                                   "moving",
	"Upgrading cluster":                                        "moving",
	"Waiting for the instances to become active":               "moving",
	"Promoting to primary cluster":                             "moving",
	"Switchover in progress":                                   "moving",
	"Upgrading Postgres major version":                         "moving",
	"Primary instance is being restarted in-place":             "moving",
	"Primary instance is being restarted without a switchover": "moving",
	"Online upgrade in progress":                               "moving",
	"Applying configuration":                                   "moving",
	"Failing over":                                             "broken",
	"Cluster upgrade delayed":                                  "broken",
	"Waiting for user action":                                  "broken",
	"Unable to create required cluster objects":                "broken",
	"Cluster cannot proceed to reconciliation due to an unknown plugin being required":        "broken",
	"Cluster cannot proceed to reconciliation due to an error while interacting with plugins": "broken",
	"Cluster has incomplete or invalid image catalog":                                         "broken",
	"Cluster is unrecoverable and needs manual intervention":                                  "broken",
	"Cluster cannot execute instance online upgrade due to missing architecture binary":       "broken",
}

// judgeCNPG: a Cluster annotated cnpg.io/reconciliationLoop: disabled is
// suspended, whatever its status says: the operator "will stop processing
// updates" to it, "including self-healing actions and failover"
// (cloudnative-pg docs/src/failure_modes.md; the annotation and its value
// pkg/utils/labels_annotations.go IsReconciliationDisabled), so its phase
// and ready instances are frozen at the moment the loop stopped. A Cluster
// is healthy in phase "Cluster in healthy state" with
// status.readyInstances equal to spec.instances; hibernated (condition
// cnpg.io/hibernation True) it is healthy and a finding; otherwise see
// cnpgPhases. Findings: the conditions ContinuousArchiving or
// LastBackupSucceeded False, and a cluster's latest Backup (by
// status.startedAt, else creation) in phase failed or walArchivingFailing.
func judgeCNPG(j *statusJudge) {
	clusters, known := j.objects("Cluster")
	healthy := 0
	for _, o := range clusters {
		h, moving, says := cnpgClusterHealth(o)
		j.decide(o, h, moving, says, "Cluster "+o.name()+": "+says)
		if h == Healthy {
			healthy++
		}
		if c, ok := o.condition("cnpg.io/hibernation"); ok && c.Status == ConditionTrue {
			j.finding(SeverityInfo, FindingSuspended, "Cluster "+o.name(), "hibernated: its instances are shut down")
		}
		for _, t := range []string{"ContinuousArchiving", "LastBackupSucceeded"} {
			if c, ok := o.condition(t); ok && c.Status == ConditionFalse {
				j.finding(SeverityWarning, FindingBackup, "Cluster "+o.name(), "%s", condWords(c))
			}
		}
	}
	if known && len(clusters) == healthy {
		if healthy == 0 {
			j.good = append(j.good, "no Postgres Cluster")
		} else {
			j.good = append(j.good, count(healthy, "Cluster")+" healthy")
		}
	}
	backups, _ := j.objects("Backup")
	latest := map[string]StatusObject{}
	for _, b := range backups {
		h, moving, says := backupHealth(b)
		j.report(b, h, moving, says)
		key := b.Namespace + "/" + b.Fields[fieldBackupCluster]
		if cur, ok := latest[key]; !ok || backupTime(b).After(backupTime(cur)) {
			latest[key] = b
		}
	}
	keys := make([]string, 0, len(latest))
	for k := range latest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b := latest[k]
		if p := b.Fields[fieldPhase]; p == "failed" || p == "walArchivingFailing" {
			msg := "latest Backup " + b.name() + " " + p
			if e := b.Fields[fieldBackupError]; e != "" {
				msg += ": " + firstLine(e)
			}
			j.finding(SeverityWarning, FindingBackup, "Cluster "+k, "%s", msg)
		}
	}
}

func cnpgClusterHealth(o StatusObject) (Health, bool, string) {
	if o.Deleting {
		return Degraded, false, "being deleted"
	}
	if v, ok := o.Annotations[annCNPGReconciliationLoop]; ok && v == annCNPGDisabled {
		says := "reconciliation disabled (" + annCNPGReconciliationLoop + ": " + annCNPGDisabled + "): no self-healing, no failover"
		if p := o.Fields[fieldPhase]; p != "" {
			says += "; its status is frozen (last phase " + strconv.Quote(p) + ")"
		} else {
			says += "; its status is frozen"
		}
		return Suspended, false, says
	}
	if !o.HasStatus {
		return Unknown, false, notReported
	}
	if c, ok := o.condition("cnpg.io/hibernation"); ok && c.Status == ConditionTrue {
		return Healthy, false, "hibernated"
	}
	phase := o.Fields[fieldPhase]
	says := phase
	if r := o.Fields[fieldPhaseReason]; r != "" {
		says += " (" + firstLine(r) + ")"
	}
	switch cnpgPhases[phase] {
	case "healthy":
		want, wok := strconv.Atoi(o.Fields[fieldInstances])
		ready, rok := strconv.Atoi(o.Fields[fieldReadyInstances])
		if rok != nil {
			ready = 0 // omitempty: no ready instance
		}
		if wok == nil && ready < want {
			return Degraded, false, fmt.Sprintf("%d/%d instances ready", ready, want)
		}
		if wok == nil {
			return Healthy, false, fmt.Sprintf("healthy, %d/%d instances ready", ready, want)
		}
		return Healthy, false, "healthy"
	case "moving":
		return Degraded, true, says
	case "broken":
		return Degraded, false, says
	}
	if phase == "" {
		return Unknown, false, "no phase reported yet"
	}
	return Unknown, false, fmt.Sprintf("phase %q is not one CloudNativePG reports", phase)
}

func backupHealth(b StatusObject) (Health, bool, string) {
	if !b.HasStatus {
		return Unknown, false, notReported
	}
	switch p := b.Fields[fieldPhase]; p {
	case "completed":
		return Healthy, false, "completed"
	case "failed", "walArchivingFailing":
		return Degraded, false, p
	case "pending", "started", "running", "finalizing":
		return Degraded, true, p
	default:
		return Unknown, false, "phase " + strconv.Quote(p)
	}
}

func backupTime(b StatusObject) time.Time {
	if t, err := time.Parse(time.RFC3339, b.Fields[fieldBackupStarted]); err == nil {
		return t
	}
	return b.Created
}

// --- longhorn --------------------------------------------------------------

// judgeLonghorn: a Longhorn Node is healthy with condition Ready True; Ready
// False or Unknown is degraded (its reason: ManagerPodDown,
// KubernetesNodeNotReady…); Schedulable False is a finding (the node takes
// no new replicas: disk pressure, cordoned). A Volume is healthy with
// robustness healthy; degraded (fewer healthy replicas than asked: data at
// risk, as Ceph's HEALTH_WARN for degraded placement groups) and faulted (no
// healthy replica) are degraded; unknown is the normal robustness of a
// detached volume, healthy then, and unknown otherwise (longhorn-manager
// k8s/pkg/apis/longhorn/v1beta2/volume.go: healthy and degraded "during
// attached", faulted "during detached"); a volume creating, attaching,
// detaching or deleting (status.state, robustness unknown until it is
// attached) is progressing. No Longhorn Node at all is degraded:
// longhorn-manager registers one per node it runs on.
func judgeLonghorn(j *statusJudge) {
	nodes, known := j.objects("Node")
	if known && len(nodes) == 0 {
		j.noObject("longhorn runs, no Longhorn Node registered")
	}
	ready := 0
	for _, o := range nodes {
		h, says := Unknown, notReported
		if c, ok := o.condition("Ready"); ok {
			if c.Status == ConditionTrue {
				h, says = Healthy, "Ready"
				ready++
			} else {
				h, says = Degraded, condWords(c)
			}
		} else if o.HasStatus {
			says = "no Ready condition reported yet"
		}
		j.decide(o, h, false, says, "Longhorn Node "+o.name()+": "+says)
		if c, ok := o.condition("Schedulable"); ok && c.Status == ConditionFalse {
			j.finding(SeverityWarning, FindingStorageNode, "Longhorn Node "+o.name(), "takes no new replicas: %s", condWords(c))
		}
	}
	volumes, vknown := j.objects("Volume")
	healthy := 0
	for _, o := range volumes {
		h, says := longhornVolumeHealth(o)
		j.decide(o, h, h == Progressing, says, "Volume "+o.name()+": "+says)
		if h == Healthy {
			healthy++
		}
	}
	if known && ready == len(nodes) && len(nodes) > 0 {
		w := count(ready, "Longhorn node") + " Ready"
		if vknown && healthy == len(volumes) {
			w += ", " + count(healthy, "volume") + " healthy"
		}
		j.good = append(j.good, w)
	}
}

func longhornVolumeHealth(o StatusObject) (Health, string) {
	if !o.HasStatus {
		return Unknown, notReported
	}
	rob, state := o.Fields[fieldRobustness], o.Fields[fieldState]
	says := "robustness " + nonEmpty(rob, "none") + ", " + nonEmpty(state, "no state")
	switch rob {
	case "healthy":
		return Healthy, says
	case "degraded", "faulted":
		return Degraded, says
	case "unknown", "":
		switch state {
		case "detached":
			return Healthy, "detached"
		case "creating", "attaching", "detaching", "deleting":
			return Progressing, state
		}
		return Unknown, says
	}
	return Unknown, fmt.Sprintf("robustness %q is not one Longhorn reports", rob)
}

// --- kube-prometheus-stack -------------------------------------------------

// judgePrometheus: a Prometheus or Alertmanager is healthy when its
// condition Available is True and Reconciled is not False; Available
// Degraded (SomePodsNotReady) or False (NoPodReady, StatefulSetNotFound) is
// degraded, and so is Reconciled False (prometheus-operator
// pkg/operator/statefulset_reporter.go; argo-cd
// resource_customizations/monitoring.coreos.com/Prometheus/health.lua);
// a condition whose observedGeneration is behind metadata.generation is
// about an older spec: degraded and progressing. No condition yet is
// unknown. A paused one (status.paused true, from spec.paused: "no actions
// except for deletion will be performed on the underlying objects",
// monitoring.coreos.com_prometheuses.yaml) is suspended. No Prometheus at
// all is degraded: the chart's job is one.
func judgePrometheus(j *statusJudge) {
	proms, known := j.objects("Prometheus")
	if known && len(proms) == 0 {
		j.noObject("no Prometheus resource")
	}
	var good []string
	allGood := known
	for _, kind := range []string{"Prometheus", "Alertmanager"} {
		objs, k := j.objects(kind)
		allGood = allGood && k
		n := 0
		for _, o := range objs {
			h, moving, says := availableHealth(o)
			j.decide(o, h, moving, says, kind+" "+o.name()+": "+says)
			if h == Healthy {
				n++
			} else {
				allGood = false
			}
		}
		if n > 0 {
			if n == 1 {
				good = append(good, kind+" Available")
			} else {
				good = append(good, strconv.Itoa(n)+" "+kind+" Available")
			}
		}
	}
	if allGood {
		j.good = append(j.good, strings.Join(good, ", "))
	}
}

func availableHealth(o StatusObject) (Health, bool, string) {
	if o.Deleting {
		return Degraded, false, "being deleted"
	}
	if o.Fields[fieldPaused] == "true" {
		return Suspended, false, "paused (spec.paused): the operator changes nothing of it"
	}
	avail, ok := o.condition("Available")
	if !ok {
		return Unknown, false, notReported
	}
	if o.Generation > 0 && avail.ObservedGeneration > 0 && avail.ObservedGeneration < o.Generation {
		return Degraded, true, fmt.Sprintf("reconciling generation %d (conditions are of %d)", o.Generation, avail.ObservedGeneration)
	}
	if rec, ok := o.condition("Reconciled"); ok && rec.Status == ConditionFalse {
		return Degraded, false, condWords(rec)
	}
	if avail.Status != ConditionTrue {
		return Degraded, false, condWords(avail)
	}
	says := "Available"
	if a, w := o.Fields[fieldAvailableReplicas], o.Fields[fieldReplicas]; a != "" && w != "" {
		says += " (" + a + "/" + w + " replicas)"
	}
	return Healthy, false, says
}

// --- cert-manager ----------------------------------------------------------

// readyHealth judges an object by its Ready condition (the issuers' and
// stores' rule: argo-cd resource_customizations/cert-manager.io/Issuer,
// external-secrets.io/SecretStore health.lua): True healthy, False or
// Unknown degraded, none unknown.
func readyHealth(o StatusObject) (Health, string) {
	if o.Deleting {
		return Degraded, "being deleted"
	}
	c, ok := o.condition("Ready")
	if !ok {
		return Unknown, notReported
	}
	if c.Status == ConditionTrue {
		return Healthy, "Ready"
	}
	return Degraded, condWords(c)
}

// judgeIssuersOrStores is the rule cert-manager and external-secrets
// share: degraded when none of the cluster-wide and namespaced objects is
// Ready, or a cluster-wide one is not Ready (the platform's own); a
// namespaced one not Ready is a finding (a tenant's). When none is Ready
// and some has not reported yet, or the namespaced list was not read,
// whether any is Ready is unknown.
func judgeIssuersOrStores(j *statusJudge, clusterKind, nsKind string, kind FindingKind, what string) {
	ready, pending := 0, 0
	cluster, cknown := j.objects(clusterKind)
	for _, o := range cluster {
		h, says := readyHealth(o)
		j.decide(o, h, false, says, clusterKind+" "+o.name()+": "+says)
		switch h {
		case Healthy:
			ready++
		case Unknown:
			pending++
		}
	}
	namespaced, nknown := j.objects(nsKind)
	for _, o := range namespaced {
		h, says := readyHealth(o)
		j.report(o, h, false, says)
		switch h {
		case Healthy:
			ready++
		case Unknown:
			pending++
		case Degraded:
			j.finding(SeverityWarning, kind, nsKind+" "+o.name(), "%s", says)
		}
	}
	switch {
	case ready > 0:
		j.good = append(j.good, count(ready, what)+" Ready")
	case pending > 0:
		j.unknown = append(j.unknown, fmt.Sprintf("no %s Ready yet, %d not reported yet", what, pending))
	case cknown && nknown && len(cluster)+len(namespaced) == 0:
		j.bad = append(j.bad, "no "+clusterKind+" or "+nsKind)
	case cknown && nknown:
		j.bad = append(j.bad, "no "+what+" Ready")
	case cknown && !nknown:
		j.unknown = append(j.unknown, "no "+clusterKind+" Ready, and "+pluralKind(nsKind)+" not read")
	}
}

// judgeCertManager: see judgeIssuersOrStores (ClusterIssuer, Issuer).
// Certificates are findings: Ready False (argo-cd
// resource_customizations/cert-manager.io/Certificate/health.lua) a
// warning, unless condition Issuing is True: cert-manager's
// types_certificate.go says Issuing is "removed by the 'issuing' controller
// upon completing issuance", so a Certificate not Ready while it is True (a
// first issuance: Ready False, reason DoesNotExist) is progressing, and
// information (Argo CD's Certificate/health.lua also looks at Issuing
// first); status.notAfter past an error (expired); status.renewalTime past
// a warning (cert-manager renews at renewalTime: past it the certificate
// was not renewed), information while condition Issuing is True (a
// renewal runs).
func judgeCertManager(j *statusJudge) {
	judgeIssuersOrStores(j, "ClusterIssuer", "Issuer", FindingIssuer, "issuer")
	certs, _ := j.objects("Certificate")
	for _, o := range certs {
		h, says := readyHealth(o)
		subject := "Certificate " + o.name()
		issuing, isIssuing := o.condition("Issuing")
		isIssuing = isIssuing && issuing.Status == ConditionTrue
		switch {
		case isIssuing && h != Healthy && !o.Deleting:
			if h == Unknown {
				says = "no Ready condition yet"
			}
			h, says = Progressing, "issuing: "+says
			if issuing.Message != "" && !strings.Contains(says, firstLine(issuing.Message)) {
				says += "; " + firstLine(issuing.Message)
			}
			j.finding(SeverityInfo, FindingCertificate, subject, "%s", says)
		case h == Degraded:
			j.finding(SeverityWarning, FindingCertificate, subject, "%s", says)
		}
		if na, err := time.Parse(time.RFC3339, o.Fields[fieldNotAfter]); err == nil && j.now.After(na) {
			h, says = Degraded, "expired "+ago(j.now, na)
			j.finding(SeverityError, FindingCertificate, subject, "expired at %s (%s)", na.UTC().Format(time.RFC3339), ago(j.now, na))
		} else if rt, err := time.Parse(time.RFC3339, o.Fields[fieldRenewalTime]); err == nil && j.now.After(rt) {
			if c, ok := o.condition("Issuing"); ok && c.Status == ConditionTrue {
				j.finding(SeverityInfo, FindingCertificate, subject, "renewing: its renewal time was %s (%s)", rt.UTC().Format(time.RFC3339), ago(j.now, rt))
			} else {
				if h == Healthy {
					h, says = Degraded, "not renewed since its renewal time, "+ago(j.now, rt)
				}
				j.finding(SeverityWarning, FindingCertificate, subject, "past its renewal time %s (%s) and not renewed", rt.UTC().Format(time.RFC3339), ago(j.now, rt))
			}
		}
		j.report(o, h, false, says)
	}
}

// --- external-secrets ------------------------------------------------------

// judgeExternalSecrets: see judgeIssuersOrStores (ClusterSecretStore,
// SecretStore). An ExternalSecret whose Ready condition is not True is a
// finding (argo-cd
// resource_customizations/external-secrets.io/ExternalSecret/health.lua;
// its reason, SecretSyncedError when the provider refused, is kept).
func judgeExternalSecrets(j *statusJudge) {
	judgeIssuersOrStores(j, "ClusterSecretStore", "SecretStore", FindingSecretStore, "store")
	ess, _ := j.objects("ExternalSecret")
	for _, o := range ess {
		h, says := readyHealth(o)
		j.report(o, h, false, says)
		if h == Degraded {
			j.finding(SeverityWarning, FindingExternalSecret, "ExternalSecret "+o.name(), "does not sync: %s", says)
		}
	}
}

// --- flux ------------------------------------------------------------------

// fluxSyncName is the name and namespace of the GitRepository (or
// OCIRepository) and Kustomization that flux bootstrap creates (fluxcd/flux2
// pkg/manifestgen/sync/options.go MakeDefaultOptions).
const fluxSyncName = "flux-system"

// judgeFlux: each Flux object is judged by kstatus (kstatusOf), with
// Flux's own states first:
//
//   - spec.suspend true is suspended, whatever its status says: the
//     controller skips it ("suspend tells the controller to suspend
//     subsequent reconciliations", the spec of every Flux kind, e.g.
//     source-controller docs/spec/v1/gitrepositories.md "Suspend"), so its
//     conditions are those of its last reconciliation;
//   - a HelmRepository of spec.type oci with no status is healthy, "static":
//     source-controller writes none for it — OCI HelmRepositories "do not
//     contain any information in the status" and "can be considered to be
//     ready for use" (docs/spec/v1/helmrepositories.md, Type); one that
//     has conditions (older releases reconciled it) is judged by them.
//
// The sources and the Kustomization named flux-system in namespace
// flux-system are Flux's own sync: degraded there is degraded, suspended
// there makes the layer suspended. Every other object not healthy is a
// finding (warning; progressing and suspended are information). Without a
// flux-system sync (Flux installed without bootstrap) the workloads decide.
func judgeFlux(j *statusJudge) {
	var own []string
	for _, res := range j.res {
		objs, _ := j.objects(res.Kind)
		for _, o := range objs {
			h, moving, says := fluxHealth(o)
			suspended := h == Suspended
			isOwn := res.Decides && o.Namespace == fluxSyncName && o.Name == fluxSyncName
			if isOwn {
				own = append(own, res.Kind)
				j.decide(o, h, moving, says, res.Kind+" "+o.name()+": "+says)
				continue
			}
			j.report(o, h, moving, says)
			subject := res.Kind + " " + o.name()
			switch {
			case suspended:
				j.finding(SeverityInfo, FindingSuspended, subject, "suspended")
			case h == Degraded && moving:
				j.finding(SeverityInfo, FindingFluxObject, subject, "%s", says)
			case h == Degraded:
				j.finding(SeverityWarning, FindingFluxObject, subject, "%s", says)
			}
		}
	}
	if len(own) == 0 {
		j.good = append(j.good, "no flux-system sync (not bootstrapped)")
	} else if len(j.suspended) > 0 {
		// no good words: the sync is suspended
	} else {
		j.good = append(j.good, "flux-system sync Ready")
	}
}

// fluxHealth judges one Flux object (see judgeFlux).
func fluxHealth(o StatusObject) (Health, bool, string) {
	if o.Fields[fieldSuspend] == "true" && !o.Deleting {
		says := "suspended (spec.suspend: true): Flux does not reconcile it"
		if _, _, last := kstatusOf(o); o.HasStatus {
			says += "; its last status: " + last
		}
		return Suspended, false, says
	}
	if o.Kind == "HelmRepository" && o.Fields[fieldSourceType] == "oci" && !o.HasStatus && !o.Deleting {
		return Healthy, false, "static (spec.type oci): Flux writes no status for it, ready for use"
	}
	return kstatusOf(o)
}

// --- argocd ----------------------------------------------------------------

// judgeArgoCD: Applications are findings, never the layer's health: a
// status.health.status of Degraded or Missing is a warning, Unknown,
// Progressing and Suspended information; status.sync.status OutOfSync is
// information; each condition whose type ends in Error (argo-cd
// pkg/apis/application/v1alpha1 ApplicationCondition.IsError:
// ComparisonError, InvalidSpecError, SyncError…) a warning; an Application
// with no status is not reported yet. The object is Suspended when its
// health says Suspended, and Progressing when its health says Progressing
// or an operation runs on it (status.operationState.phase Running or
// Terminating, argo-cd pkg/apis/application/v1alpha1 OperationPhase:
// "the operation is not completed" while Running); an operation Failed or
// Error is a warning with its message.
func judgeArgoCD(j *statusJudge) {
	apps, known := j.objects("Application")
	bad := 0
	for _, o := range apps {
		subject := "Application " + o.name()
		health, sync := o.Fields[fieldAppHealth], o.Fields[fieldAppSync]
		if !o.HasStatus || health == "" {
			j.report(o, Unknown, false, notReported)
			continue
		}
		says := health + ", " + nonEmpty(sync, "sync unknown")
		h := Healthy
		switch health {
		case "Healthy":
		case "Degraded", "Missing":
			h = Degraded
			j.finding(SeverityWarning, FindingApplication, subject, "%s", says)
		case "Suspended":
			h = Suspended
			j.finding(SeverityInfo, FindingSuspended, subject, "%s", says)
		case "Progressing":
			h = Progressing
			j.finding(SeverityInfo, FindingApplication, subject, "%s", says)
		default:
			h = Unknown
			j.finding(SeverityInfo, FindingApplication, subject, "%s", says)
		}
		switch op := o.Fields[fieldAppOperationPhase]; op {
		case "Running", "Terminating":
			says += ", operation " + op
			if m := o.Fields[fieldAppOperationReason]; m != "" {
				says += ": " + firstLine(m)
			}
			if h == Healthy {
				h = Progressing
			}
			j.finding(SeverityInfo, FindingApplication, subject, "%s", says)
		case "Failed", "Error":
			msg := "last operation " + op
			if m := o.Fields[fieldAppOperationReason]; m != "" {
				msg += ": " + firstLine(m)
			}
			j.finding(SeverityWarning, FindingApplication, subject, "%s", msg)
		default:
			if sync == "OutOfSync" && h == Healthy {
				j.finding(SeverityInfo, FindingApplication, subject, "%s", says)
			}
		}
		for _, c := range o.Conditions {
			if strings.HasSuffix(c.Type, "Error") {
				j.finding(SeverityWarning, FindingApplication, subject, "%s: %s", c.Type, firstLine(c.Message))
				if h == Healthy {
					h = Degraded
				}
			}
		}
		if h != Healthy {
			bad++
		}
		j.report(o, h, h == Progressing, says)
	}
	if known {
		w := count(len(apps), "Application")
		if bad > 0 {
			w += fmt.Sprintf(" (%d not healthy)", bad)
		}
		j.good = append(j.good, w)
	}
}

// --- custom ----------------------------------------------------------------

// judgeCustom: a custom layer's one resource (detect.resource), judged by
// kstatus (kstatusOf). Not found is degraded; EvaluateWithStatus makes the
// layer absent instead when nothing else of it was found.
func judgeCustom(j *statusJudge) {
	for _, res := range j.res {
		objs, known := j.objects(res.Kind)
		if !known {
			continue
		}
		if len(objs) == 0 {
			j.bad = append(j.bad, res.Kind+" "+refName(res)+" not found")
			continue
		}
		for _, o := range objs {
			h, moving, says := kstatusOf(o)
			j.decide(o, h, moving, says, res.Kind+" "+o.name()+": "+says)
			if h == Healthy {
				j.good = append(j.good, res.Kind+" "+o.name()+" "+says)
			}
		}
	}
}

func refName(res StatusResource) string {
	if res.Namespace != "" {
		return res.Namespace + "/" + res.Name
	}
	return res.Name
}
