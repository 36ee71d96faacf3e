package health

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
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
func JudgeStatus(def topology.LayerDef, facts topology.StatusFacts) topology.StatusVerdict {
	if len(def.Status) == 0 {
		return topology.StatusVerdict{}
	}
	j := &statusJudge{def: def, now: facts.ReadAt, lists: map[string]topology.Fact[[]topology.StatusObject]{}, reports: map[string]*topology.ResourceReport{}}
	for _, res := range def.Status {
		f, ok := facts.Lists[res.Key()]
		if !ok {
			f = topology.UnknownFact[[]topology.StatusObject](topology.Because(topology.ReasonNotRead, "not read"))
		}
		j.lists[res.Kind] = f
		j.res = append(j.res, res)
		r := &topology.ResourceReport{Group: res.Group, Kind: res.Kind, Known: f.Known, Reason: f.Reason, Decides: res.Decides}
		j.reports[res.Kind] = r
		if !f.Known {
			if res.Decides {
				j.unread = append(j.unread, unreadList{kind: pluralKind(res.Kind), why: f.Why()})
				j.because(f.Why().Code)
			} else {
				j.finding(topology.SeverityInfo, topology.FindingStatusUnread, pluralKind(res.Kind), "not read (%s): what they say is unknown", topology.OrNotRead(f.Reason))
			}
		}
	}
	rule := statusRules[def.Name]
	if def.Category == topology.CategoryCustom {
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
	why  topology.Why
}

// sayUnreadOnce words the unread lists with one cause said once:
// forbidden lists in one phrase that names them and what grants them
// ("CephClusters, CephBlockPools and CephFilesystems: forbidden — the role
// `nestor rbac` prints grants them"; each list's own refusal is in its
// ResourceReport, which --detailed shows), the others grouped by their
// words ("CephClusters and CephBlockPools: timed out after 3s").
func sayUnreadOnce(lists []unreadList) []string {
	var order []topology.Why
	kinds := map[topology.Why][]string{}
	for _, l := range lists {
		key := l.why
		if key.Code == topology.ReasonForbidden {
			key = topology.Because(topology.ReasonForbidden, "forbidden — the role `nestor rbac` prints grants them")
		}
		if _, ok := kinds[key]; !ok {
			order = append(order, key)
		}
		kinds[key] = append(kinds[key], l.kind)
	}
	out := make([]string, 0, len(order))
	for _, key := range order {
		out = append(out, kube.JoinAnd(kinds[key])+": "+key.Text)
	}
	return out
}

// statusJudge collects what a layer's rule finds.
type statusJudge struct {
	def     topology.LayerDef
	now     time.Time
	res     []topology.StatusResource
	lists   map[string]topology.Fact[[]topology.StatusObject]
	reports map[string]*topology.ResourceReport
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
	code    topology.ReasonCode
	unread  []unreadList
	// suspended are the words of the deciding objects whose operator was
	// told to stop acting on them.
	suspended []string
	// good are the words of a healthy layer ("Ceph HEALTH_OK").
	good     []string
	findings []topology.Finding
}

// objects returns the objects of kind that were read (nil when unknown).
func (j *statusJudge) objects(kind string) ([]topology.StatusObject, bool) {
	f := j.lists[kind]
	return f.Value, f.Known
}

// report records what o says; Degraded and progressing is reported as
// Progressing.
func (j *statusJudge) report(o topology.StatusObject, h topology.Health, progressing bool, says string) {
	r := j.reports[o.Kind]
	if r == nil {
		return
	}
	if progressing && (h == topology.Degraded || h == topology.Progressing) {
		h = topology.Progressing
	} else if h == topology.Progressing {
		progressing = true
	}
	r.Objects = append(r.Objects, topology.ObjectReport{Namespace: o.Namespace, Name: o.Name, Health: h, Progressing: progressing, Says: says})
}

// decide records o as deciding the layer's health: h Degraded (or
// Progressing) adds words to bad, Suspended to suspended, Unknown to
// unknown.
func (j *statusJudge) decide(o topology.StatusObject, h topology.Health, progressing bool, says, words string) {
	j.report(o, h, progressing, says)
	switch h {
	case topology.Degraded, topology.Progressing:
		j.bad = append(j.bad, words)
		if progressing || h == topology.Progressing {
			j.moving++
		}
	case topology.Suspended:
		j.suspended = append(j.suspended, words)
	case topology.Unknown:
		j.unknown = append(j.unknown, words)
		j.because(topology.ReasonNotReported)
	}
}

// noObject records that the object a running layer must have does not
// exist (words): degraded — when the layer runs, which the workloads say,
// not the status (JudgeLayer).
func (j *statusJudge) noObject(words string) {
	j.bad = append(j.bad, words)
	j.absentObjects++
}

// because keeps code as the verdict's code when none is kept yet.
func (j *statusJudge) because(code topology.ReasonCode) {
	if j.code == "" {
		j.code = code
	}
}

func (j *statusJudge) finding(sev topology.Severity, kind topology.FindingKind, subject, format string, args ...any) {
	j.findings = append(j.findings, topology.Finding{Severity: sev, Kind: kind, Subject: topology.ObjectSubject(j.def.Name, subject), Message: fmt.Sprintf(format, args...)})
}

// listWords bounds a list of words for a one-line reason: the first three,
// then how many more.
func listWords(words []string) string {
	if len(words) > 3 {
		return strings.Join(words[:3], "; ") + fmt.Sprintf("; and %d more", len(words)-3)
	}
	return strings.Join(words, "; ")
}

func (j *statusJudge) verdict() topology.StatusVerdict {
	v := topology.StatusVerdict{Findings: j.findings}
	for _, res := range j.res {
		v.Resources = append(v.Resources, *j.reports[res.Kind])
	}
	decides := false
	for _, res := range j.res {
		decides = decides || res.Decides
	}
	switch {
	case len(j.bad) > 0:
		v.Health = topology.Degraded
		v.Progressing = j.moving == len(j.bad)
		v.OnlyAbsentObjects = j.absentObjects == len(j.bad)
		v.Words = listWords(append(append([]string{}, j.bad...), j.unknown...))
	case len(j.suspended) > 0:
		// Its status may be frozen: never healthy, and nothing to repair
		// while its operator leaves it alone.
		v.Health = topology.Suspended
		v.Words = listWords(append(append([]string{}, j.suspended...), j.unknown...))
	case len(j.unknown) > 0:
		v.Health = topology.Unknown
		v.Code = j.code
		if v.Code == "" {
			v.Code = topology.ReasonNotReported
		}
		v.Words = listWords(j.unknown)
	case decides:
		v.Health = topology.Healthy
		v.Words = strings.Join(j.good, ", ")
	default:
		v.Words = strings.Join(j.good, ", ")
	}
	return v
}

// condWords is "Ready False (Reason): message", the message bounded.
func condWords(c topology.Condition) string {
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

// refName is a custom layer's resource as "NS/NAME" or "NAME".
func refName(res topology.StatusResource) string {
	if res.Namespace != "" {
		return res.Namespace + "/" + res.Name
	}
	return res.Name
}
