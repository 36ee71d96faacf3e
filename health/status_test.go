package health

import (
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/topology"
)

var statusNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// before is statusNow minus d, as RFC 3339.
func before(d time.Duration) string { return statusNow.Add(-d).Format(time.RFC3339) }

// so builds a StatusObject with a status made of fields and conditions
// (none of either: no status at all).
func so(kind, ns, name string, fields map[string]string, conds ...topology.Condition) topology.StatusObject {
	return topology.StatusObject{Kind: kind, Namespace: ns, Name: name, Fields: fields, Conditions: conds, HasStatus: len(fields) > 0 || len(conds) > 0}
}

func cond(t, s, reason, msg string) topology.Condition {
	return topology.Condition{Type: t, Status: s, Reason: reason, Message: msg}
}

// statusFacts lists objs under their resources of layer; kinds of layer
// with no object are known and empty, and kinds in unread are unknown with
// the reason "forbidden".
func statusFacts(t *testing.T, layer string, objs []topology.StatusObject, unread ...string) (topology.LayerDef, topology.StatusFacts) {
	t.Helper()
	def, ok := topology.CatalogLayer(layer)
	if !ok {
		t.Fatalf("no catalog layer %s", layer)
	}
	return def, factsFor(def, objs, unread...)
}

func factsFor(def topology.LayerDef, objs []topology.StatusObject, unread ...string) topology.StatusFacts {
	f := topology.StatusFacts{ReadAt: statusNow, Lists: map[string]topology.Fact[[]topology.StatusObject]{}}
	for _, res := range def.Status {
		list := []topology.StatusObject{}
		for _, o := range objs {
			if o.Kind == res.Kind {
				list = append(list, o)
			}
		}
		f.Lists[res.Key()] = topology.KnownFact(list)
		for _, u := range unread {
			if u == res.Kind {
				f.Lists[res.Key()] = topology.UnknownFact[[]topology.StatusObject](topology.Because(topology.ReasonFailed, "forbidden"))
			}
		}
	}
	return f
}

type statusCase struct {
	name   string
	objs   []topology.StatusObject
	unread []string
	health topology.Health
	moving bool
	// words must appear in Words, in this order.
	words []string
	// findings are the kinds (and severities) of the findings, in order.
	findings []string
}

func runStatusCases(t *testing.T, layer string, cases []statusCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def, f := statusFacts(t, layer, tc.objs, tc.unread...)
			v := JudgeStatus(def, f)
			if v.Health != tc.health {
				t.Errorf("health %q, want %q (words %q)", v.Health, tc.health, v.Words)
			}
			if v.Progressing != tc.moving {
				t.Errorf("progressing %v, want %v (words %q)", v.Progressing, tc.moving, v.Words)
			}
			rest := v.Words
			for _, w := range tc.words {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("words %q lack %q (in order)", v.Words, w)
					break
				}
				rest = rest[i+len(w):]
			}
			var got []string
			for _, fd := range v.Findings {
				got = append(got, string(fd.Severity)+" "+string(fd.Kind))
			}
			if strings.Join(got, ", ") != strings.Join(tc.findings, ", ") {
				t.Errorf("findings %q, want %q; findings: %+v", got, tc.findings, v.Findings)
			}
			if len(v.Resources) != len(def.Status) {
				t.Errorf("%d resource reports, want one per status resource (%d)", len(v.Resources), len(def.Status))
			}
			reported := 0
			for _, r := range v.Resources {
				reported += len(r.Objects)
			}
			if reported != len(tc.objs) {
				t.Errorf("%d objects reported, want each of the %d: %+v", reported, len(tc.objs), v.Resources)
			}
		})
	}
}

func cephCluster(fields map[string]string, checks ...topology.HealthCheck) topology.StatusObject {
	o := so("CephCluster", "rook-ceph", "rook-ceph", fields)
	o.Checks = checks
	return o
}

func TestJudgeRookCeph(t *testing.T) {
	ok := map[string]string{topology.FieldCephHealth: "HEALTH_OK", topology.FieldCephLastChecked: before(40 * time.Second), topology.FieldPhase: "Ready", topology.FieldState: "Created"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
			} else {
				out[kv[i]] = kv[i+1]
			}
		}
		return out
	}
	pool := func(phase string) topology.StatusObject {
		if phase == "" {
			return so("CephBlockPool", "rook-ceph", "replicapool", nil)
		}
		return so("CephBlockPool", "rook-ceph", "replicapool", map[string]string{topology.FieldPhase: phase})
	}
	runStatusCases(t, "rook-ceph", []statusCase{
		{name: "HEALTH_OK, checked 40 s ago", objs: []topology.StatusObject{cephCluster(ok), pool("Ready")}, health: topology.Healthy, words: []string{"Ceph HEALTH_OK"}},
		{name: "HEALTH_ERR with Ceph's checks, errors first", health: topology.Degraded,
			objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephHealth, "HEALTH_ERR"),
				topology.HealthCheck{Name: "OSD_DOWN", Severity: "HEALTH_WARN", Message: "2 osds down"},
				topology.HealthCheck{Name: "PG_AVAILABILITY", Severity: "HEALTH_ERR", Message: "Reduced data availability: 64 pgs inactive"})},
			words: []string{"Ceph HEALTH_ERR: Reduced data availability: 64 pgs inactive; 2 osds down, checked 40 s ago"}},
		{name: "HEALTH_WARN is degraded", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephHealth, "HEALTH_WARN"), topology.HealthCheck{Name: "MON_CLOCK_SKEW", Severity: "HEALTH_WARN", Message: "clock skew detected on mon.b"})},
			health: topology.Degraded, words: []string{"HEALTH_WARN: clock skew detected on mon.b"}},
		{name: "a failed ceph status is Rook's HEALTH_ERR with an Urgent check", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephHealth, "HEALTH_ERR"), topology.HealthCheck{Name: "error", Severity: "Urgent", Message: "failed to get status. exit status 1"})},
			health: topology.Degraded, words: []string{"HEALTH_ERR: failed to get status"}},
		{name: "stale: checked 2 h ago with the default 60 s interval", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, before(2*time.Hour)))},
			health: topology.Unknown, words: []string{"Ceph HEALTH_OK as last checked 2 h ago", before(2 * time.Hour), "Rook checks every 1m0s, so it is stale"}},
		{name: "stale just past twice the interval", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, before(121*time.Second)))},
			health: topology.Unknown, words: []string{"stale"}},
		{name: "fresh within twice the interval", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, before(119*time.Second)))},
			health: topology.Healthy},
		{name: "a longer interval of its own", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, before(15*time.Minute), topology.FieldCephCheckInterval, "10m0s"))},
			health: topology.Healthy, words: []string{"Ceph HEALTH_OK"}},
		{name: "stale with its checks disabled says so", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, before(72*time.Hour), topology.FieldCephCheckDisabled, "true"))},
			health: topology.Unknown, words: []string{"3 days ago", "status check is disabled"}},
		{name: "a check time ahead of this clock is not stale", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, before(-30*time.Second)))},
			health: topology.Healthy},
		{name: "no time of check", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephLastChecked, ""))}, health: topology.Unknown, words: []string{"no time of check"}},
		{name: "not reported yet", objs: []topology.StatusObject{cephCluster(nil)}, health: topology.Unknown, words: []string{"CephCluster rook-ceph/rook-ceph: not reported yet"}},
		{name: "creating: no Ceph health yet", objs: []topology.StatusObject{cephCluster(map[string]string{topology.FieldPhase: "Progressing", topology.FieldMessage: "Configuring Ceph Mons"})},
			health: topology.Degraded, moving: true, words: []string{"creating, no Ceph health yet: Configuring Ceph Mons"}},
		{name: "HEALTH_OK while the operator updates it", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldPhase, "Progressing"))}, health: topology.Degraded, moving: true, words: []string{"HEALTH_OK, phase Progressing"}},
		{name: "phase Failure", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldPhase, "Failure", topology.FieldMessage, "failed to create cluster: mon quorum"))},
			health: topology.Degraded, words: []string{"phase Failure: failed to create cluster"}},
		{name: "a health Ceph never reports", objs: []topology.StatusObject{cephCluster(with(ok, topology.FieldCephHealth, "HEALTH_GOOD"))}, health: topology.Unknown, words: []string{`"HEALTH_GOOD" is not one Ceph reports`}},
		{name: "no CephCluster at all", health: topology.Degraded, words: []string{"rook-ceph runs, no CephCluster"}},
		{name: "being deleted", objs: []topology.StatusObject{func() topology.StatusObject { o := cephCluster(ok); o.Deleting = true; return o }()}, health: topology.Degraded, moving: true, words: []string{"CephCluster rook-ceph/rook-ceph: being deleted"}},
		{name: "CephClusters not readable", unread: []string{"CephCluster"}, health: topology.Unknown, words: []string{"CephClusters: forbidden"}},
		{name: "a pool in Failure", objs: []topology.StatusObject{cephCluster(ok), pool("Failure")}, health: topology.Degraded, words: []string{"CephBlockPool rook-ceph/replicapool: phase Failure"}},
		{name: "a pool not reported yet", objs: []topology.StatusObject{cephCluster(ok), pool("")}, health: topology.Unknown, words: []string{"replicapool: not reported yet"}},
		{name: "two clusters, one broken, each named", objs: []topology.StatusObject{cephCluster(ok), {Kind: "CephCluster", Namespace: "rook-ceph-2", Name: "second", HasStatus: true, Fields: with(ok, topology.FieldCephHealth, "HEALTH_ERR")}},
			health: topology.Degraded, words: []string{"CephCluster rook-ceph-2/second: HEALTH_ERR"}},
	})
}

func TestJudgeCNPG(t *testing.T) {
	cl := func(name, phase, want, ready string, conds ...topology.Condition) topology.StatusObject {
		f := map[string]string{topology.FieldPhase: phase, topology.FieldInstances: want}
		if ready != "" {
			f[topology.FieldReadyInstances] = ready
		}
		return so("Cluster", "db", name, f, conds...)
	}
	backup := func(name, phase string, started time.Duration, errText string) topology.StatusObject {
		return so("Backup", "db", name, map[string]string{topology.FieldBackupCluster: "main", topology.FieldPhase: phase, topology.FieldBackupStarted: before(started), topology.FieldBackupError: errText})
	}
	healthy := cl("main", "Cluster in healthy state", "3", "3", cond("Ready", "True", "ClusterIsReady", ""))
	runStatusCases(t, "cnpg", []statusCase{
		{name: "healthy, 3/3 ready", objs: []topology.StatusObject{healthy}, health: topology.Healthy, words: []string{"1 Cluster healthy"}},
		{name: "no Cluster at all is no fault", health: topology.Healthy, words: []string{"no Postgres Cluster"}},
		{name: "fewer ready instances than asked", objs: []topology.StatusObject{cl("main", "Cluster in healthy state", "3", "2")}, health: topology.Degraded, words: []string{"Cluster db/main: 2/3 instances ready"}},
		{name: "no ready instance (readyInstances omitted)", objs: []topology.StatusObject{cl("main", "Cluster in healthy state", "1", "")}, health: topology.Degraded, words: []string{"0/1 instances ready"}},
		{name: "failing over", objs: []topology.StatusObject{cl("main", "Failing over", "3", "2")}, health: topology.Degraded, words: []string{"Cluster db/main: Failing over"}},
		{name: "unrecoverable", objs: []topology.StatusObject{cl("main", "Cluster is unrecoverable and needs manual intervention", "3", "0")}, health: topology.Degraded, words: []string{"unrecoverable"}},
		{name: "creating a replica is progressing", objs: []topology.StatusObject{cl("main", "Creating a new replica", "3", "2")}, health: topology.Degraded, moving: true, words: []string{"Creating a new replica"}},
		{name: "a phase CloudNativePG does not report", objs: []topology.StatusObject{cl("main", "Dancing", "3", "3")}, health: topology.Unknown, words: []string{`phase "Dancing" is not one CloudNativePG reports`}},
		{name: "not reported yet", objs: []topology.StatusObject{so("Cluster", "db", "main", nil)}, health: topology.Unknown, words: []string{"Cluster db/main: not reported yet"}},
		{name: "hibernated is healthy and said", objs: []topology.StatusObject{cl("main", "Cluster in healthy state", "3", "0", cond("cnpg.io/hibernation", "True", "Hibernated", "Cluster has been hibernated"))},
			health: topology.Healthy, findings: []string{"info suspended"}},
		{name: "WAL archiving failing is a finding", objs: []topology.StatusObject{cl("main", "Cluster in healthy state", "3", "3", cond("ContinuousArchiving", "False", "ContinuousArchivingFailing", "unexpected failure invoking barman-cloud-wal-archive"))},
			health: topology.Healthy, findings: []string{"warning backup"}},
		{name: "the latest Backup failed", objs: []topology.StatusObject{healthy, backup("b-old", "completed", 48*time.Hour, ""), backup("b-new", "failed", time.Hour, "can't upload: access denied")},
			health: topology.Healthy, findings: []string{"warning backup"}},
		{name: "an older failed Backup, the latest completed", objs: []topology.StatusObject{healthy, backup("b-old", "failed", 48*time.Hour, "x"), backup("b-new", "completed", time.Hour, "")},
			health: topology.Healthy},
		{name: "Backups not readable: a finding, not the layer's health", objs: []topology.StatusObject{healthy}, unread: []string{"Backup"}, health: topology.Healthy, findings: []string{"info status-unread"}},
		{name: "Clusters not readable", unread: []string{"Cluster"}, health: topology.Unknown, words: []string{"Clusters: forbidden"}},
	})
}

func TestJudgeLonghorn(t *testing.T) {
	node := func(name string, conds ...topology.Condition) topology.StatusObject {
		return so("Node", "longhorn-system", name, nil, conds...)
	}
	vol := func(name, rob, state string) topology.StatusObject {
		return so("Volume", "longhorn-system", name, map[string]string{topology.FieldRobustness: rob, topology.FieldState: state})
	}
	ready := cond("Ready", "True", "", "")
	runStatusCases(t, "longhorn", []statusCase{
		{name: "nodes Ready, volumes healthy or detached", objs: []topology.StatusObject{node("n1", ready), node("n2", ready), vol("pvc-1", "healthy", "attached"), vol("pvc-2", "unknown", "detached")},
			health: topology.Healthy, words: []string{"2 Longhorn nodes Ready, 2 volumes healthy"}},
		{name: "a node not Ready", objs: []topology.StatusObject{node("n1", ready), node("n2", cond("Ready", "False", "ManagerPodDown", "Node n2 is down: the manager pod longhorn-manager-x is not running"))},
			health: topology.Degraded, words: []string{"Longhorn Node longhorn-system/n2: Ready False (ManagerPodDown)"}},
		{name: "a node that takes no new replicas is a finding", objs: []topology.StatusObject{node("n1", ready, cond("Schedulable", "False", "KubernetesNodeCordoned", "Node n1 is cordoned"))},
			health: topology.Healthy, findings: []string{"warning storage-node"}},
		{name: "a faulted volume", objs: []topology.StatusObject{node("n1", ready), vol("pvc-1", "faulted", "detached")}, health: topology.Degraded, words: []string{"Volume longhorn-system/pvc-1: robustness faulted, detached"}},
		{name: "a degraded volume", objs: []topology.StatusObject{node("n1", ready), vol("pvc-1", "degraded", "attached")}, health: topology.Degraded, words: []string{"robustness degraded, attached"}},
		{name: "robustness unknown while attached", objs: []topology.StatusObject{node("n1", ready), vol("pvc-1", "unknown", "attached")}, health: topology.Unknown, words: []string{"robustness unknown, attached"}},
		{name: "no Longhorn Node at all", health: topology.Degraded, words: []string{"longhorn runs, no Longhorn Node registered"}},
		{name: "a node not reported yet", objs: []topology.StatusObject{node("n1")}, health: topology.Unknown, words: []string{"not reported yet"}},
	})
}

func TestJudgePrometheus(t *testing.T) {
	prom := func(kind string, conds ...topology.Condition) topology.StatusObject {
		o := so(kind, "monitoring", "kps-prometheus", map[string]string{topology.FieldReplicas: "1", topology.FieldAvailableReplicas: "1"}, conds...)
		o.Generation = 3
		for i := range o.Conditions {
			o.Conditions[i].ObservedGeneration = 3
		}
		return o
	}
	avail := cond("Available", "True", "", "")
	rec := cond("Reconciled", "True", "", "")
	runStatusCases(t, "kube-prometheus-stack", []statusCase{
		{name: "Available and Reconciled", objs: []topology.StatusObject{prom("Prometheus", avail, rec), prom("Alertmanager", avail, rec)}, health: topology.Healthy, words: []string{"Prometheus Available, Alertmanager Available"}},
		{name: "some pods not ready", objs: []topology.StatusObject{prom("Prometheus", cond("Available", "Degraded", "SomePodsNotReady", "pod prometheus-kps-1: containers not ready"), rec)},
			health: topology.Degraded, words: []string{"Prometheus monitoring/kps-prometheus: Available Degraded (SomePodsNotReady)"}},
		{name: "no pod ready", objs: []topology.StatusObject{prom("Prometheus", cond("Available", "False", "NoPodReady", ""), rec)}, health: topology.Degraded, words: []string{"Available False (NoPodReady)"}},
		{name: "not reconciled", objs: []topology.StatusObject{prom("Prometheus", avail, cond("Reconciled", "False", "ReconciliationFailed", "invalid remote write config"))},
			health: topology.Degraded, words: []string{"Reconciled False (ReconciliationFailed): invalid remote write config"}},
		{name: "an Alertmanager down", objs: []topology.StatusObject{prom("Prometheus", avail, rec), prom("Alertmanager", cond("Available", "False", "NoPodReady", ""), rec)}, health: topology.Degraded, words: []string{"Alertmanager"}},
		{name: "conditions of an older generation", objs: []topology.StatusObject{func() topology.StatusObject { o := prom("Prometheus", avail, rec); o.Generation = 4; return o }()},
			health: topology.Degraded, moving: true, words: []string{"reconciling generation 4 (conditions are of 3)"}},
		{name: "no condition yet", objs: []topology.StatusObject{prom("Prometheus")}, health: topology.Unknown, words: []string{"not reported yet"}},
		{name: "no Prometheus at all", health: topology.Degraded, words: []string{"no Prometheus resource"}},
		{name: "Alertmanagers not readable", objs: []topology.StatusObject{prom("Prometheus", avail, rec)}, unread: []string{"Alertmanager"}, health: topology.Unknown, words: []string{"Alertmanagers: forbidden"}},
	})
}

func TestJudgeCertManager(t *testing.T) {
	ready := cond("Ready", "True", "ACMEAccountRegistered", "The ACME account was registered")
	notReady := cond("Ready", "False", "ErrRegisterACMEAccount", "Failed to register ACME account: 403")
	ci := func(name string, c ...topology.Condition) topology.StatusObject {
		return so("ClusterIssuer", "", name, nil, c...)
	}
	is := func(name string, c ...topology.Condition) topology.StatusObject {
		return so("Issuer", "team-a", name, nil, c...)
	}
	cert := func(name string, fields map[string]string, c ...topology.Condition) topology.StatusObject {
		return so("Certificate", "web", name, fields, c...)
	}
	future := map[string]string{topology.FieldNotAfter: before(-60 * 24 * time.Hour), topology.FieldRenewalTime: before(-30 * 24 * time.Hour)}
	runStatusCases(t, "cert-manager", []statusCase{
		{name: "a ClusterIssuer Ready", objs: []topology.StatusObject{ci("letsencrypt", ready), cert("tls", future, cond("Ready", "True", "Ready", ""))}, health: topology.Healthy, words: []string{"1 issuer Ready"}},
		{name: "no issuer at all", health: topology.Degraded, words: []string{"no ClusterIssuer or Issuer"}},
		{name: "a ClusterIssuer not Ready degrades even with another Ready", objs: []topology.StatusObject{ci("letsencrypt", notReady), ci("selfsigned", ready)},
			health: topology.Degraded, words: []string{"ClusterIssuer letsencrypt: Ready False (ErrRegisterACMEAccount): Failed to register ACME account: 403"}},
		{name: "no issuer Ready: only a tenant's, failing", objs: []topology.StatusObject{is("team-ca", notReady)}, health: topology.Degraded, words: []string{"no issuer Ready"}, findings: []string{"warning issuer"}},
		{name: "a tenant's Issuer failing beside a Ready ClusterIssuer is a finding", objs: []topology.StatusObject{ci("letsencrypt", ready), is("team-ca", notReady)}, health: topology.Healthy, findings: []string{"warning issuer"}},
		{name: "a ClusterIssuer not reported yet", objs: []topology.StatusObject{ci("letsencrypt")}, health: topology.Unknown, words: []string{"not reported yet"}},
		{name: "Issuers unread and no ClusterIssuer Ready", unread: []string{"Issuer"}, health: topology.Unknown, words: []string{"no ClusterIssuer Ready, and Issuers not read"}, findings: []string{"info status-unread"}},
		{name: "a Certificate not Ready", objs: []topology.StatusObject{ci("le", ready), cert("tls", future, cond("Ready", "False", "DoesNotExist", "Issuing certificate as Secret does not exist"))}, health: topology.Healthy, findings: []string{"warning certificate"}},
		{name: "a Certificate expired", objs: []topology.StatusObject{ci("le", ready), cert("tls", map[string]string{topology.FieldNotAfter: before(24 * time.Hour), topology.FieldRenewalTime: before(30 * 24 * time.Hour)}, cond("Ready", "True", "Ready", ""))},
			health: topology.Healthy, findings: []string{"error certificate"}},
		{name: "a Certificate past its renewal time, not renewed", objs: []topology.StatusObject{ci("le", ready), cert("tls", map[string]string{topology.FieldNotAfter: before(-10 * 24 * time.Hour), topology.FieldRenewalTime: before(3 * 24 * time.Hour)}, cond("Ready", "True", "Ready", ""))},
			health: topology.Healthy, findings: []string{"warning certificate"}},
		{name: "a Certificate past its renewal time while it renews", objs: []topology.StatusObject{ci("le", ready), cert("tls", map[string]string{topology.FieldNotAfter: before(-10 * 24 * time.Hour), topology.FieldRenewalTime: before(time.Hour)}, cond("Ready", "True", "Ready", ""), cond("Issuing", "True", "Renewing", "Renewing certificate as renewal was scheduled"))},
			health: topology.Healthy, findings: []string{"info certificate"}},
	})
}

func TestJudgeExternalSecrets(t *testing.T) {
	valid := cond("Ready", "True", "Valid", "store validated")
	invalid := cond("Ready", "False", "InvalidProviderConfig", "unable to validate store: 403")
	runStatusCases(t, "external-secrets", []statusCase{
		{name: "a ClusterSecretStore Ready", objs: []topology.StatusObject{so("ClusterSecretStore", "", "vault", nil, valid), so("ExternalSecret", "app", "db", nil, cond("Ready", "True", "SecretSynced", ""))},
			health: topology.Healthy, words: []string{"1 store Ready"}},
		{name: "a ClusterSecretStore that cannot sync", objs: []topology.StatusObject{so("ClusterSecretStore", "", "vault", nil, invalid)}, health: topology.Degraded, words: []string{"ClusterSecretStore vault: Ready False (InvalidProviderConfig)"}},
		{name: "no store at all", health: topology.Degraded, words: []string{"no ClusterSecretStore or SecretStore"}},
		{name: "a tenant's SecretStore failing beside a Ready one", objs: []topology.StatusObject{so("ClusterSecretStore", "", "vault", nil, valid), so("SecretStore", "team-a", "aws", nil, invalid)},
			health: topology.Healthy, findings: []string{"warning secret-store"}},
		{name: "an ExternalSecret that does not sync", objs: []topology.StatusObject{so("SecretStore", "app", "aws", nil, valid), so("ExternalSecret", "app", "db", nil, cond("Ready", "False", "SecretSyncedError", "could not get secret data from provider"))},
			health: topology.Healthy, findings: []string{"warning external-secret"}},
		{name: "ClusterSecretStores not readable", objs: []topology.StatusObject{so("SecretStore", "app", "aws", nil, valid)}, unread: []string{"ClusterSecretStore"}, health: topology.Unknown, words: []string{"ClusterSecretStores: forbidden"}},
	})
}

func TestJudgeFlux(t *testing.T) {
	flux := func(kind, ns, name string, gen, observed int64, fields map[string]string, conds ...topology.Condition) topology.StatusObject {
		o := so(kind, ns, name, fields, conds...)
		o.Generation, o.ObservedGeneration, o.HasObserved = gen, observed, observed > 0
		if observed > 0 {
			o.HasStatus = true
		}
		return o
	}
	ready := cond("Ready", "True", "Succeeded", "stored artifact for revision 'main@sha1:abc'")
	git := flux("GitRepository", "flux-system", "flux-system", 1, 1, nil, ready)
	ks := flux("Kustomization", "flux-system", "flux-system", 2, 2, nil, ready)
	runStatusCases(t, "flux", []statusCase{
		{name: "the flux-system sync Ready", objs: []topology.StatusObject{git, ks, flux("HelmRelease", "apps", "web", 1, 1, nil, ready)}, health: topology.Healthy, words: []string{"flux-system sync Ready"}},
		{name: "not bootstrapped: the workloads decide", health: topology.Healthy, words: []string{"no flux-system sync (not bootstrapped)"}},
		{name: "the sync stalled", objs: []topology.StatusObject{git, flux("Kustomization", "flux-system", "flux-system", 2, 2, nil, cond("Ready", "False", "BuildFailed", "kustomize build failed"), cond("Stalled", "True", "BuildFailed", "kustomize build failed"))},
			health: topology.Degraded, words: []string{"Kustomization flux-system/flux-system: failed: Stalled True (BuildFailed): kustomize build failed"}},
		{name: "the source failing while Flux retries is not progress", objs: []topology.StatusObject{flux("GitRepository", "flux-system", "flux-system", 1, 1, nil, cond("Reconciling", "True", "ProgressingWithRetry", "retrying"), cond("Ready", "False", "GitOperationFailed", "failed to checkout and determine revision: authentication required")), ks},
			health: topology.Degraded, words: []string{"GitRepository flux-system/flux-system: Ready False (GitOperationFailed): failed to checkout"}},
		{name: "a new generation not observed yet", objs: []topology.StatusObject{git, flux("Kustomization", "flux-system", "flux-system", 3, 2, nil, ready)}, health: topology.Degraded, moving: true, words: []string{"in progress"}},
		{name: "the sync suspended", objs: []topology.StatusObject{git, flux("Kustomization", "flux-system", "flux-system", 2, 2, map[string]string{topology.FieldSuspend: "true"}, ready)}, health: topology.Suspended, words: []string{"suspended (spec.suspend: true)"}},
		{name: "an application HelmRelease failing is a finding", objs: []topology.StatusObject{git, ks, flux("HelmRelease", "apps", "web", 1, 1, nil, cond("Ready", "False", "InstallFailed", "Helm install failed"))}, health: topology.Healthy, findings: []string{"warning flux-object"}},
		{name: "a suspended application is information", objs: []topology.StatusObject{git, ks, flux("Kustomization", "apps", "web", 1, 1, map[string]string{topology.FieldSuspend: "true"}, ready)}, health: topology.Healthy, findings: []string{"info suspended"}},
		{name: "the sync not reported yet", objs: []topology.StatusObject{git, flux("Kustomization", "flux-system", "flux-system", 1, 0, nil)}, health: topology.Unknown, words: []string{"not reported yet"}},
		{name: "Kustomizations not readable", objs: []topology.StatusObject{git}, unread: []string{"Kustomization"}, health: topology.Unknown, words: []string{"Kustomizations: forbidden"}},
		{name: "HelmReleases not readable", objs: []topology.StatusObject{git, ks}, unread: []string{"HelmRelease"}, health: topology.Healthy, findings: []string{"info status-unread"}},
	})
}

func TestJudgeArgoCD(t *testing.T) {
	app := func(name, health, sync string, conds ...topology.Condition) topology.StatusObject {
		return so("Application", "argocd", name, map[string]string{topology.FieldAppHealth: health, topology.FieldAppSync: sync}, conds...)
	}
	runStatusCases(t, "argocd", []statusCase{
		{name: "Applications healthy and synced", objs: []topology.StatusObject{app("web", "Healthy", "Synced")}, health: "", words: []string{"1 Application"}},
		{name: "a degraded Application is a finding", objs: []topology.StatusObject{app("web", "Degraded", "Synced"), app("db", "Healthy", "Synced")}, health: "", words: []string{"2 Applications (1 not healthy)"}, findings: []string{"warning application"}},
		{name: "out of sync is information", objs: []topology.StatusObject{app("web", "Healthy", "OutOfSync")}, findings: []string{"info application"}},
		{name: "a comparison error", objs: []topology.StatusObject{app("web", "Healthy", "Unknown", topology.Condition{Type: "ComparisonError", Message: "rpc error: repository not accessible"})}, findings: []string{"warning application"}},
		{name: "missing", objs: []topology.StatusObject{app("web", "Missing", "OutOfSync")}, findings: []string{"warning application"}},
		{name: "not reported yet", objs: []topology.StatusObject{so("Application", "argocd", "web", nil)}},
		{name: "Applications not readable", unread: []string{"Application"}, findings: []string{"info status-unread"}},
	})
}

func customDef(ns string) topology.LayerDef {
	d, _ := topology.LayerDefFor(topology.LayerRef{Name: "widgets", Detect: &topology.Detect{Resource: &topology.ResourceRef{APIVersion: "example.io/v1", Kind: "Widget", Namespace: ns, Name: "main"}}})
	return d
}

func TestKstatusOfCustomResource(t *testing.T) {
	w := func(gen, observed int64, conds ...topology.Condition) topology.StatusObject {
		o := so("Widget", "apps", "main", nil, conds...)
		o.Generation, o.ObservedGeneration, o.HasObserved = gen, observed, true
		o.HasStatus = true
		return o
	}
	for _, tc := range []struct {
		name   string
		o      topology.StatusObject
		health topology.Health
		moving bool
		says   string
	}{
		{"Ready True", w(2, 2, cond("Ready", "True", "Reconciled", "")), topology.Healthy, false, "Ready"},
		{"no conditions but observed: current", w(2, 2), topology.Healthy, false, "current"},
		{"Reconciling", w(2, 2, cond("Reconciling", "True", "Scaling", "scaling to 3")), topology.Degraded, true, "in progress: Reconciling True (Scaling): scaling to 3"},
		{"Stalled", w(2, 2, cond("Stalled", "True", "BadConfig", "spec.size must be positive")), topology.Degraded, false, "failed: Stalled True (BadConfig): spec.size must be positive"},
		{"generation not observed", w(3, 2, cond("Ready", "True", "", "")), topology.Degraded, true, "in progress: Reconciling True (LatestGenerationNotObserved)"},
		{"Ready False", w(2, 2, cond("Ready", "False", "Unreachable", "backend down")), topology.Degraded, false, "Ready False (Unreachable): backend down"},
		{"Ready Unknown is in progress", w(2, 2, cond("Ready", "Unknown", "Pending", "")), topology.Degraded, true, "in progress"},
		{"no status at all", so("Widget", "apps", "main", nil), topology.Unknown, false, "not reported yet"},
		{"being deleted", func() topology.StatusObject { o := w(2, 2, cond("Ready", "True", "", "")); o.Deleting = true; return o }(), topology.Degraded, false, "being deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, moving, says := kstatusOf(tc.o)
			if h != tc.health || moving != tc.moving || !strings.HasPrefix(says, tc.says) {
				t.Errorf("kstatusOf = %s, %v, %q; want %s, %v, %q…", h, moving, says, tc.health, tc.moving, tc.says)
			}
		})
	}
}

func TestJudgeCustomResource(t *testing.T) {
	def := customDef("apps")
	f := factsFor(def, nil)
	v := JudgeStatus(def, f)
	if v.Health != topology.Degraded || v.Words != "Widget apps/main not found" {
		t.Errorf("missing object: %s %q, want degraded, not found", v.Health, v.Words)
	}
	o := so("Widget", "apps", "main", nil, cond("Ready", "True", "", ""))
	v = JudgeStatus(def, factsFor(def, []topology.StatusObject{o}))
	if v.Health != topology.Healthy || v.Words != "Widget apps/main Ready" {
		t.Errorf("Ready: %s %q", v.Health, v.Words)
	}
}

func TestJudgeStatusNotInFacts(t *testing.T) {
	def, _ := topology.CatalogLayer("rook-ceph")
	v := JudgeStatus(def, topology.StatusFacts{ReadAt: statusNow})
	if v.Health != topology.Unknown || !strings.Contains(v.Words, "CephClusters, CephBlockPools and CephFilesystems: not read") {
		t.Errorf("nothing read: %s %q, want unknown, not read", v.Health, v.Words)
	}
	if cil, _ := topology.CatalogLayer("cilium"); JudgeStatus(cil, topology.StatusFacts{}).Health != "" {
		t.Errorf("a layer without status resources has a status health")
	}
}

// TestCatalogStatusResources checks the declarations the reader relies on:
// a plural, a kind, a version, a source, a unique key, and every field a
// path.
func TestCatalogStatusResources(t *testing.T) {
	seen := map[string]string{}
	withStatus := 0
	for _, def := range topology.Catalog() {
		if len(def.Status) > 0 {
			withStatus++
			if statusRules[def.Name] == nil {
				t.Errorf("%s declares status resources but has no rule", def.Name)
			}
		}
		for _, r := range def.Status {
			if r.Resource == "" || r.Kind == "" || r.Group == "" || len(r.Versions) == 0 || r.Source == "" {
				t.Errorf("%s: incomplete status resource %+v", def.Name, r)
			}
			if prev, dup := seen[r.Key()]; dup {
				t.Errorf("%s and %s both declare %s", prev, def.Name, r.Key())
			}
			seen[r.Key()] = def.Name
			for _, f := range r.Fields {
				if !strings.HasPrefix(f, "status.") && !strings.HasPrefix(f, "spec.") {
					t.Errorf("%s %s: field %q is not a spec. or status. path", def.Name, r.Kind, f)
				}
			}
		}
	}
	if withStatus != len(statusRules) {
		t.Errorf("%d layers declare status resources, %d rules exist", withStatus, len(statusRules))
	}
}
