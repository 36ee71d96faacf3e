package health

import (
	"errors"
	"io"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// The operators' own states — paused, suspended, static, in progress — as
// each operator writes its objects: the YAML below is what
// `kubectl get -o yaml` shows of them (status fields and condition reasons
// from each operator's API types, cited on the rule in its file of this package), decoded
// by DecodeStatusObject and judged by JudgeStatus.

// operatorObjects decodes the YAML documents of layer's status resources.
func operatorObjects(t *testing.T, layer, docs string) []topology.StatusObject {
	t.Helper()
	var out []topology.StatusObject
	dec := yaml.NewDecoder(strings.NewReader(docs))
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			continue
		}
		kind, _ := m["kind"].(string)
		o, err := topology.DecodeStatusObject(fixtures.StatusResource(t, layer, kind), m, topology.StatusCleaner{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

type operatorCase struct {
	name  string
	layer string
	yaml  string
	// health and moving are the layer's verdict.
	health topology.Health
	moving bool
	// objects: "Kind NS/NAME" → the object's health, and words its Says
	// must contain.
	objects map[string]objectWant
	// findings are "severity kind" of every finding, in order.
	findings []string
}

type objectWant struct {
	health topology.Health
	says   string
}

func runOperatorCases(t *testing.T, cases []operatorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def, ok := topology.CatalogLayer(tc.layer)
			if !ok {
				t.Fatalf("no layer %s", tc.layer)
			}
			v := JudgeStatus(def, factsFor(def, operatorObjects(t, tc.layer, tc.yaml)))
			if v.Health != tc.health || v.Progressing != tc.moving {
				t.Errorf("layer %s progressing %v, want %s progressing %v (words %q)", v.Health, v.Progressing, tc.health, tc.moving, v.Words)
			}
			got := map[string]topology.ObjectReport{}
			for _, r := range v.Resources {
				for _, o := range r.Objects {
					got[r.Kind+" "+topology.StatusObject{Namespace: o.Namespace, Name: o.Name}.Ref()] = o
				}
			}
			for key, want := range tc.objects {
				o, ok := got[key]
				switch {
				case !ok:
					t.Errorf("%s: not reported (have %v)", key, got)
				case o.Health != want.health || !strings.Contains(o.Says, want.says):
					t.Errorf("%s: %s %q, want %s with %q", key, o.Health, o.Says, want.health, want.says)
				case o.Progressing != (o.Health == topology.Progressing):
					t.Errorf("%s: Progressing %v with health %s", key, o.Progressing, o.Health)
				}
			}
			var fs []string
			for _, f := range v.Findings {
				fs = append(fs, string(f.Severity)+" "+string(f.Kind))
			}
			if strings.Join(fs, ", ") != strings.Join(tc.findings, ", ") {
				t.Errorf("findings %q, want %q (%+v)", fs, tc.findings, v.Findings)
			}
		})
	}
}

const letsencryptIssuer = `
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: letsencrypt, generation: 1}
spec:
  acme: {server: "https://acme-v02.api.letsencrypt.org/directory", privateKeySecretRef: {name: letsencrypt}}
status:
  acme: {uri: "https://acme-v02.api.letsencrypt.org/acme/acct/1"}
  conditions:
  - {type: Ready, status: "True", reason: ACMEAccountRegistered, message: The ACME account was registered with the ACME server, observedGeneration: 1, lastTransitionTime: "2026-11-01T10:00:00Z"}
`

// certificate is a Certificate of namespace web with the given conditions
// (YAML list items).
func certificate(conds string) string {
	return `---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls, namespace: web, generation: 1, creationTimestamp: "2026-12-01T11:58:00Z"}
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
status:
  conditions:
` + conds
}

const (
	readyDoesNotExist = `  - {type: Ready, status: "False", reason: DoesNotExist, message: Issuing certificate as Secret does not exist, observedGeneration: 1, lastTransitionTime: "2026-12-01T11:58:00Z"}
`
	issuingDoesNotExist = `  - {type: Issuing, status: "True", reason: DoesNotExist, message: Issuing certificate as Secret does not exist, observedGeneration: 1, lastTransitionTime: "2026-12-01T11:58:00Z"}
`
	issuingFailed = `  - {type: Issuing, status: "False", reason: Failed, message: "The certificate request has failed to complete and will be retried: Failed to wait for order resource \"web-tls-1-1\" to become ready: order is in \"invalid\" state", observedGeneration: 1, lastTransitionTime: "2026-12-01T11:59:00Z"}
`
	readyTrue = `  - {type: Ready, status: "True", reason: Ready, message: Certificate is up to date and has not expired, observedGeneration: 1, lastTransitionTime: "2026-11-01T10:00:00Z"}
`
	issuingRenewing = `  - {type: Issuing, status: "True", reason: Renewing, message: Renewing certificate as renewal was scheduled at 2026-12-01 11:00:00 +0000 UTC, observedGeneration: 1, lastTransitionTime: "2026-12-01T11:00:00Z"}
`
)

func TestOperatorStatesCertManager(t *testing.T) {
	runOperatorCases(t, []operatorCase{
		{name: "a first issuance, Ready before Issuing", layer: "cert-manager", yaml: letsencryptIssuer + certificate(readyDoesNotExist+issuingDoesNotExist),
			health:   topology.Healthy,
			objects:  map[string]objectWant{"Certificate web/web-tls": {topology.Progressing, "issuing: Ready False (DoesNotExist)"}},
			findings: []string{"info certificate"}},
		{name: "a first issuance, Issuing before Ready", layer: "cert-manager", yaml: letsencryptIssuer + certificate(issuingDoesNotExist+readyDoesNotExist),
			health:   topology.Healthy,
			objects:  map[string]objectWant{"Certificate web/web-tls": {topology.Progressing, "issuing: Ready False (DoesNotExist)"}},
			findings: []string{"info certificate"}},
		{name: "a first issuance before any Ready condition", layer: "cert-manager", yaml: letsencryptIssuer + certificate(issuingDoesNotExist),
			health:   topology.Healthy,
			objects:  map[string]objectWant{"Certificate web/web-tls": {topology.Progressing, "issuing: no Ready condition yet"}},
			findings: []string{"info certificate"}},
		{name: "an issuance that failed is degraded", layer: "cert-manager", yaml: letsencryptIssuer + certificate(readyDoesNotExist+issuingFailed),
			health:   topology.Healthy,
			objects:  map[string]objectWant{"Certificate web/web-tls": {topology.Degraded, "Ready False (DoesNotExist)"}},
			findings: []string{"warning certificate"}},
		{name: "a renewal of a Ready certificate", layer: "cert-manager", yaml: letsencryptIssuer + certificate(readyTrue+issuingRenewing),
			health:  topology.Healthy,
			objects: map[string]objectWant{"Certificate web/web-tls": {topology.Healthy, "Ready"}}},
	})
}

// cnpgCluster is a Cluster of namespace db whose status says healthy, with
// the given annotations (YAML mapping lines, indented by four).
func cnpgCluster(annotations string) string {
	meta := "metadata:\n  name: pg\n  namespace: db\n  generation: 3\n"
	if annotations != "" {
		meta += "  annotations:\n" + annotations
	}
	return `---
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
` + meta + `spec:
  instances: 3
  storage: {size: 10Gi}
status:
  phase: Cluster in healthy state
  instances: 3
  readyInstances: 3
  currentPrimary: pg-1
  targetPrimary: pg-1
  conditions:
  - {type: Ready, status: "True", reason: ClusterIsReady, message: Cluster is Ready, lastTransitionTime: "2026-11-30T10:00:00Z"}
  - {type: ContinuousArchiving, status: "True", reason: ContinuousArchivingSuccess, message: Continuous archiving is working, lastTransitionTime: "2026-11-30T10:00:00Z"}
`
}

func TestOperatorStatesCNPG(t *testing.T) {
	runOperatorCases(t, []operatorCase{
		{name: "the reconciliation loop disabled", layer: "cnpg", yaml: cnpgCluster("    cnpg.io/reconciliationLoop: disabled\n"),
			health:  topology.Suspended,
			objects: map[string]objectWant{"Cluster db/pg": {topology.Suspended, `reconciliation disabled (cnpg.io/reconciliationLoop: disabled): no self-healing, no failover; its status is frozen (last phase "Cluster in healthy state")`}}},
		{name: "Argo CD's spelling is not the operator's", layer: "cnpg", yaml: cnpgCluster("    cnpg.io/reconciliation: disabled\n"),
			health:  topology.Healthy,
			objects: map[string]objectWant{"Cluster db/pg": {topology.Healthy, "healthy, 3/3 instances ready"}}},
		{name: "a value other than disabled does not stop the loop", layer: "cnpg", yaml: cnpgCluster("    cnpg.io/reconciliationLoop: Disabled\n"),
			health:  topology.Healthy,
			objects: map[string]objectWant{"Cluster db/pg": {topology.Healthy, "healthy"}}},
		{name: "the loop enabled", layer: "cnpg", yaml: cnpgCluster("    cnpg.io/reconciliationLoop: enabled\n"),
			health:  topology.Healthy,
			objects: map[string]objectWant{"Cluster db/pg": {topology.Healthy, "healthy"}}},
	})
}

// fluxSync is the flux-system sync, both Ready.
const fluxSync = `
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system, generation: 1}
spec: {interval: 1m0s, ref: {branch: main}, url: "ssh://git@github.com/acme/fleet"}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "True", reason: Succeeded, message: "stored artifact for revision 'main@sha1:0123abc'", observedGeneration: 1, lastTransitionTime: "2026-12-01T11:00:00Z"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system, generation: 1}
spec: {interval: 10m0s, path: ./clusters/prod, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "True", reason: ReconciliationSucceeded, message: "Applied revision: main@sha1:0123abc", observedGeneration: 1, lastTransitionTime: "2026-12-01T11:00:00Z"}
`

func TestOperatorStatesFlux(t *testing.T) {
	runOperatorCases(t, []operatorCase{
		{name: "an OCI HelmRepository has no status by design", layer: "flux", yaml: fluxSync + `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: podinfo, namespace: apps, generation: 1}
spec: {type: oci, interval: 5m0s, url: "oci://ghcr.io/stefanprodan/charts"}
status: {}
`,
			health:  topology.Healthy,
			objects: map[string]objectWant{"HelmRepository apps/podinfo": {topology.Healthy, "static (spec.type oci): Flux writes no status for it"}}},
		{name: "an OCI HelmRepository with the CRD's default status", layer: "flux", yaml: fluxSync + `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: podinfo, namespace: apps, generation: 1}
spec: {type: oci, interval: 5m0s, url: "oci://ghcr.io/stefanprodan/charts"}
status: {observedGeneration: -1}
`,
			health:  topology.Healthy,
			objects: map[string]objectWant{"HelmRepository apps/podinfo": {topology.Healthy, "static"}}},
		{name: "an HTTP HelmRepository with no status is not reported yet", layer: "flux", yaml: fluxSync + `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: bitnami, namespace: apps, generation: 1}
spec: {interval: 5m0s, url: "https://charts.bitnami.com/bitnami"}
status: {}
`,
			health:  topology.Healthy,
			objects: map[string]objectWant{"HelmRepository apps/bitnami": {topology.Unknown, "not reported yet"}}},
		{name: "an OCI HelmRepository an older release reconciled is judged by its conditions", layer: "flux", yaml: fluxSync + `---
apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: HelmRepository
metadata: {name: podinfo, namespace: apps, generation: 1}
spec: {type: oci, interval: 5m0s, url: "oci://ghcr.io/stefanprodan/charts"}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "False", reason: AuthenticationFailed, message: "failed to login to OCI registry: unauthorized", observedGeneration: 1}
`,
			health:   topology.Healthy,
			objects:  map[string]objectWant{"HelmRepository apps/podinfo": {topology.Degraded, "Ready False (AuthenticationFailed)"}},
			findings: []string{"warning flux-object"}},
		{name: "the flux-system Kustomization suspended", layer: "flux", yaml: strings.Replace(fluxSync, "spec: {interval: 10m0s,", "spec: {suspend: true, interval: 10m0s,", 1),
			health:  topology.Suspended,
			objects: map[string]objectWant{"Kustomization flux-system/flux-system": {topology.Suspended, "suspended (spec.suspend: true): Flux does not reconcile it; its last status: Ready"}}},
		{name: "an application HelmRelease suspended", layer: "flux", yaml: fluxSync + `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: apps, generation: 2}
spec: {suspend: true, interval: 10m, chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: podinfo}}}}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "False", reason: UpgradeFailed, message: "Helm upgrade failed: timed out waiting for the condition", observedGeneration: 1}
`,
			health:   topology.Healthy,
			objects:  map[string]objectWant{"HelmRelease apps/web": {topology.Suspended, "suspended (spec.suspend: true)"}},
			findings: []string{"info suspended"}},
	})
}

// argoApp is an Application of namespace argocd with the given status.
func argoApp(name, status string) string {
	return `---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ` + name + `, namespace: argocd, generation: 12}
spec:
  project: default
  source: {repoURL: "https://github.com/acme/apps", path: web, targetRevision: HEAD}
  destination: {server: "https://kubernetes.default.svc", namespace: web}
status:
` + status
}

func TestOperatorStatesArgoCD(t *testing.T) {
	runOperatorCases(t, []operatorCase{
		{name: "a sync running", layer: "argocd", yaml: argoApp("web", `  health: {status: Healthy}
  sync: {status: OutOfSync, revision: 0123abc}
  operationState:
    phase: Running
    message: "waiting for completion of hook batch/Job/migrate"
    startedAt: "2026-12-01T11:59:00Z"
    operation: {sync: {revision: 0123abc}}
`),
			objects:  map[string]objectWant{"Application argocd/web": {topology.Progressing, "Healthy, OutOfSync, operation Running: waiting for completion of hook batch/Job/migrate"}},
			findings: []string{"info application"}},
		{name: "a sync that failed", layer: "argocd", yaml: argoApp("web", `  health: {status: Healthy}
  sync: {status: OutOfSync, revision: 0123abc}
  operationState:
    phase: Failed
    message: "one or more objects failed to apply, reason: Deployment.apps \"web\" is invalid"
    startedAt: "2026-12-01T11:50:00Z"
    finishedAt: "2026-12-01T11:51:00Z"
`),
			objects:  map[string]objectWant{"Application argocd/web": {topology.Healthy, "Healthy, OutOfSync"}},
			findings: []string{"warning application"}},
		{name: "a sync that succeeded", layer: "argocd", yaml: argoApp("web", `  health: {status: Healthy}
  sync: {status: Synced, revision: 0123abc}
  operationState: {phase: Succeeded, message: successfully synced (all tasks run)}
`),
			objects: map[string]objectWant{"Application argocd/web": {topology.Healthy, "Healthy, Synced"}}},
		{name: "a suspended Application", layer: "argocd", yaml: argoApp("cron", `  health: {status: Suspended}
  sync: {status: Synced}
`),
			objects:  map[string]objectWant{"Application argocd/cron": {topology.Suspended, "Suspended, Synced"}},
			findings: []string{"info suspended"}},
		{name: "a progressing Application", layer: "argocd", yaml: argoApp("web", `  health: {status: Progressing, message: "Waiting for rollout to finish"}
  sync: {status: Synced}
`),
			objects:  map[string]objectWant{"Application argocd/web": {topology.Progressing, "Progressing, Synced"}},
			findings: []string{"info application"}},
	})
}

// cephClusterYAML is a CephCluster whose Ceph status is HEALTH_OK, checked
// 30 s before statusNow, with extra metadata and spec lines.
func cephClusterYAML(meta, spec, conds string) string {
	return `---
apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata:
  name: rook-ceph
  namespace: rook-ceph
  generation: 2
` + meta + `spec:
  cephVersion: {image: "quay.io/ceph/ceph:v19.2.3"}
  dataDirHostPath: /var/lib/rook
` + spec + `status:
  phase: Ready
  state: Created
  message: Cluster created successfully
  ceph: {health: HEALTH_OK, lastChecked: "` + before(30e9) + `"}
  conditions:
  - {type: Ready, status: "True", reason: ClusterCreated, message: Cluster created successfully}
` + conds
}

func TestOperatorStatesRook(t *testing.T) {
	runOperatorCases(t, []operatorCase{
		{name: "a cleanup policy confirmed", layer: "rook-ceph", yaml: cephClusterYAML("", "  cleanupPolicy: {confirmation: yes-really-destroy-data}\n", ""),
			health:  topology.Suspended,
			objects: map[string]objectWant{"CephCluster rook-ceph/rook-ceph": {topology.Suspended, "cleanup confirmed (spec.cleanupPolicy.confirmation: yes-really-destroy-data): Rook stops configuring it"}}},
		{name: "a cleanup policy left empty", layer: "rook-ceph", yaml: cephClusterYAML("", "  cleanupPolicy: {confirmation: \"\"}\n", ""),
			health:  topology.Healthy,
			objects: map[string]objectWant{"CephCluster rook-ceph/rook-ceph": {topology.Healthy, "HEALTH_OK"}}},
		{name: "being deleted", layer: "rook-ceph", yaml: cephClusterYAML("  deletionTimestamp: \""+before(60e9)+"\"\n  finalizers: [cephcluster.ceph.rook.io]\n", "", ""),
			health: topology.Degraded, moving: true,
			objects: map[string]objectWant{"CephCluster rook-ceph/rook-ceph": {topology.Progressing, "being deleted"}}},
		{name: "being deleted, blocked by its pools", layer: "rook-ceph", yaml: cephClusterYAML("  deletionTimestamp: \""+before(60e9)+"\"\n  finalizers: [cephcluster.ceph.rook.io]\n", "",
			"  - {type: Deleting, status: \"True\", reason: Deleting, message: Deleting the CephCluster}\n  - {type: DeletionIsBlocked, status: \"True\", reason: ObjectHasDependents, message: \"object deletion is blocked because it has dependents: CephBlockPools: [replicapool]\"}\n"),
			health:  topology.Degraded,
			objects: map[string]objectWant{"CephCluster rook-ceph/rook-ceph": {topology.Degraded, "deletion blocked: DeletionIsBlocked True (ObjectHasDependents): object deletion is blocked because it has dependents: CephBlockPools: [replicapool]"}}},
	})
}

func TestOperatorStatesLonghornAndPrometheus(t *testing.T) {
	node := `
apiVersion: longhorn.io/v1beta2
kind: Node
metadata: {name: demo1, namespace: longhorn-system}
status:
  conditions:
  - {type: Ready, status: "True", reason: "", message: ""}
  - {type: Schedulable, status: "True", reason: "", message: ""}
`
	volume := func(state, robustness string) string {
		return `---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-1, namespace: longhorn-system}
spec: {numberOfReplicas: 3, size: "10737418240"}
status: {state: ` + state + `, robustness: ` + robustness + `, currentNodeID: demo1}
`
	}
	prom := func(paused string) string {
		return `
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: k8s, namespace: monitoring, generation: 4}
spec: {replicas: 2, paused: ` + paused + `}
status:
  paused: ` + paused + `
  replicas: 2
  availableReplicas: 2
  conditions:
  - {type: Available, status: "True", reason: "", observedGeneration: 4}
  - {type: Reconciled, status: "True", reason: "", observedGeneration: 4}
`
	}
	runOperatorCases(t, []operatorCase{
		{name: "a volume attaching", layer: "longhorn", yaml: node + volume("attaching", "unknown"),
			health: topology.Degraded, moving: true,
			objects: map[string]objectWant{"Volume longhorn-system/pvc-1": {topology.Progressing, "attaching"}}},
		{name: "a volume detaching", layer: "longhorn", yaml: node + volume("detaching", "unknown"),
			health: topology.Degraded, moving: true,
			objects: map[string]objectWant{"Volume longhorn-system/pvc-1": {topology.Progressing, "detaching"}}},
		{name: "a volume detached", layer: "longhorn", yaml: node + volume("detached", "unknown"),
			health:  topology.Healthy,
			objects: map[string]objectWant{"Volume longhorn-system/pvc-1": {topology.Healthy, "detached"}}},
		{name: "a paused Prometheus", layer: "kube-prometheus-stack", yaml: prom("true"),
			health:  topology.Suspended,
			objects: map[string]objectWant{"Prometheus monitoring/k8s": {topology.Suspended, "paused (spec.paused)"}}},
		{name: "a Prometheus not paused", layer: "kube-prometheus-stack", yaml: prom("false"),
			health:  topology.Healthy,
			objects: map[string]objectWant{"Prometheus monitoring/k8s": {topology.Healthy, "Available (2/2 replicas)"}}},
	})
}

// A suspended layer is neither healthy nor repaired: the plan lists it as
// unknown, with why, and proposes no step for it; next says so.
func TestSuspendedLayerIsNotRepaired(t *testing.T) {
	def, _ := topology.CatalogLayer("cnpg")
	objs := operatorObjects(t, "cnpg", cnpgCluster("    cnpg.io/reconciliationLoop: disabled\n"))
	j := JudgeLayer(def, topology.ClusterFacts{}, factsFor(def, objs), true)
	if j.State.Health != topology.Suspended || !strings.Contains(j.State.Reason, "reconciliation disabled") {
		t.Fatalf("layer %s %q, want suspended", j.State.Health, j.State.Reason)
	}
	obs := fixtures.HealthyDirqual()
	fixtures.SetLayer(obs, "cnpg", j.State.Health, j.State.Reason)
	p := plan.Build(fixtures.Dirqual(), obs, plan.NodeCluster{}, plan.Options{})
	for _, s := range p.Steps {
		if s.Target == "cnpg" {
			t.Errorf("a step for a suspended layer: %+v", s)
		}
	}
	if p.Outcome() == topology.OutcomeInSync || !strings.Contains(strings.Join(topology.Texts(p.Unknowns), "\n"), "layer cnpg: Cluster db/pg: reconciliation disabled") {
		t.Errorf("status %s, unknowns %q", p.Outcome(), topology.Texts(p.Unknowns))
	}
	for _, u := range p.Unknowns {
		if u.Subject.Key == topology.LayerKey("cnpg") && u.Code != topology.ReasonSuspended {
			t.Errorf("the suspended layer's unknown has reason %s, want %s", u.Code, topology.ReasonSuspended)
		}
	}
	next := plan.Next(fixtures.Dirqual(), obs, p, plan.NodeCluster{})
	if next.Done || !strings.Contains(next.Why, "suspended") {
		t.Errorf("next %+v", next)
	}
}
