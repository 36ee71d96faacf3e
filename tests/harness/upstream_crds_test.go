package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/tests/harness"
	"nestor.dev/nestor/topology"
)

// crdDoc is the part of a CustomResourceDefinition the checks read.
type crdDoc struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name         string         `json:"name"`
			Served       bool           `json:"served"`
			Subresources map[string]any `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
}

func decodeCRDs(t *testing.T, data []byte) map[string]crdDoc {
	t.Helper()
	out := map[string]crdDoc{}
	dec := yamlutil.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var d crdDoc
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("decode upstream CRDs: %v", err)
		}
		if d.Metadata.Name != "" {
			out[d.Metadata.Name] = d
		}
	}
}

// TestUpstreamCRDsMatchTheCatalog checks every status resource of the
// layer catalog against the real CRD its operator's release ships (pinned
// in tests/upstream/go.mod): the CRD exists, has the catalog's kind, plural
// and scope, and serves the catalog's preferred version. It needs the
// module cache only, no cluster.
func TestUpstreamCRDsMatchTheCatalog(t *testing.T) {
	var names []string
	want := map[string]topology.StatusResource{}
	for _, def := range topology.Catalog() {
		for _, r := range def.Status {
			names = append(names, r.Key())
			want[r.Key()] = r
		}
	}
	data, err := harness.UpstreamCRDs(names...)
	if err != nil {
		t.Fatal(err)
	}
	crds := decodeCRDs(t, data)
	for name, r := range want {
		c, ok := crds[name]
		if !ok {
			t.Errorf("%s: not in the upstream files", name)
			continue
		}
		if c.Spec.Names.Kind != r.Kind || c.Spec.Names.Plural != r.Resource || c.Spec.Group != r.Group {
			t.Errorf("%s: upstream kind %s plural %s group %s; the catalog says %s %s %s", name, c.Spec.Names.Kind, c.Spec.Names.Plural, c.Spec.Group, r.Kind, r.Resource, r.Group)
		}
		if (c.Spec.Scope == "Namespaced") != r.Namespaced {
			t.Errorf("%s: upstream scope %s; the catalog says namespaced=%v", name, c.Spec.Scope, r.Namespaced)
		}
		served := false
		for _, v := range c.Spec.Versions {
			served = served || (v.Served && v.Name == r.Versions[0])
		}
		if !served {
			t.Errorf("%s: upstream does not serve %s (versions %+v)", name, r.Versions[0], c.Spec.Versions)
		}
	}
	if _, err := harness.UpstreamCRDs("widgets.nowhere.example"); err == nil || !strings.Contains(err.Error(), "widgets.nowhere.example") {
		t.Errorf("an unknown CRD name: %v", err)
	}
}

func TestFixtureTimes(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	got, err := harness.FixtureTimes([]byte(`a: "NOW"
b: "NOW-40s"
c: "NOW+1440h"
d: "NOW-1h30m"
e: NOW-40s
f: "NOWHERE"`), now)
	if err != nil {
		t.Fatal(err)
	}
	want := `a: "2026-12-01T12:00:00Z"
b: "2026-12-01T11:59:20Z"
c: "2027-01-30T12:00:00Z"
d: "2026-12-01T10:30:00Z"
e: NOW-40s
f: "NOWHERE"`
	if string(got) != want {
		t.Errorf("FixtureTimes:\n%s\nwant:\n%s", got, want)
	}
}

// operatorLayers are the layers the operators-*.yaml fixtures hold, and
// the custom layer widgets (detect.resource apps/main).
func operatorLayers() []topology.LayerDef {
	var defs []topology.LayerDef
	for _, n := range []string{"rook-ceph", "cnpg", "longhorn", "kube-prometheus-stack", "cert-manager", "external-secrets", "flux", "argocd"} {
		d, _ := topology.CatalogLayer(n)
		defs = append(defs, d)
	}
	w, _ := topology.LayerDefFor(topology.LayerRef{Name: "widgets", Detect: &topology.Detect{Resource: &topology.ResourceRef{APIVersion: "example.io/v1", Kind: "Widget", Namespace: "apps", Name: "main"}}})
	return append(defs, w)
}

// readStatus lists every status resource of defs as the read-only
// identity, as JSON decoded with encoding/json (what nestor's reader
// does), through topology.DecodeStatusObject.
func readStatus(t *testing.T, dyn dynamic.Interface, defs []topology.LayerDef, at time.Time) topology.StatusFacts {
	t.Helper()
	f := topology.StatusFacts{ReadAt: at, Lists: map[string]topology.Fact[[]topology.StatusObject]{}}
	ctx := context.Background()
	for _, def := range defs {
		for _, r := range def.Status {
			gvr := schema.GroupVersionResource{Group: r.Group, Version: r.Versions[0], Resource: pluralOf(r)}
			list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				f.Lists[r.Key()] = topology.UnknownFact[[]topology.StatusObject](topology.Because(topology.ReasonFailed, err.Error()))
				continue
			}
			objs := []topology.StatusObject{}
			for _, item := range list.Items {
				if r.Name != "" && (item.GetName() != r.Name || item.GetNamespace() != r.Namespace) {
					continue
				}
				raw, err := json.Marshal(item.Object)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				o, err := topology.DecodeStatusObject(r, m, topology.StatusCleaner{})
				if err != nil {
					t.Fatalf("%s: %v", r.Key(), err)
				}
				objs = append(objs, o)
			}
			f.Lists[r.Key()] = topology.KnownFact(objs)
		}
	}
	return f
}

// layerWant is what one layer's status must say in a fixture.
type layerWant struct {
	health topology.Health
	words  string // a prefix of Words
	// findings are the findings' "severity kind subject", in order.
	findings []string
}

// TestOperatorFixtures loads each operators-*.yaml fixture, with the real
// upstream CRDs, into a real API server, reads the status resources back
// as the read-only identity and judges them: what each operator would
// write must survive the CRDs' schemas and status subresources and give
// the verdict the fixture's header states.
func TestOperatorFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real API server")
	}
	cases := []struct {
		fixture string
		want    map[string]layerWant
	}{
		{"operators-degraded.yaml", map[string]layerWant{
			"rook-ceph": {health: topology.Degraded, words: "Ceph HEALTH_ERR: Reduced data availability: 64 pgs inactive; 2 osds down, checked 40 s ago; CephBlockPool rook-ceph/replicapool: phase Failure"},
			"cnpg": {health: topology.Degraded, words: "Cluster db/analytics: 2/3 instances ready; Cluster db/main: Failing over (Failing over from main-1 to main-2)",
				findings: []string{"warning backup Cluster db/main", "warning backup Cluster db/main"}},
			"longhorn": {health: topology.Degraded, words: "Longhorn Node longhorn-system/node2: Ready False (ManagerPodDown): Node node2 is down or deleted; Volume longhorn-system/pvc-3b1f6c2e-8a47-4d0e-b1a6-5f2c9e7d4a01: robustness faulted, detached; Volume longhorn-system/pvc-9c04e1d7-2b3a-4f6e-8d5c-1a7b3e9f0c22: robustness degraded, attached",
				findings: []string{"warning storage-node Longhorn Node longhorn-system/node3"}},
			"kube-prometheus-stack": {health: topology.Degraded, words: "Prometheus monitoring/kube-prometheus-stack-prometheus: Available False (NoPodReady): pod prometheus-kube-prometheus-stack-prometheus-0: containers with unready status: [prometheus]; Alertmanager monitoring/kube-prometheus-stack-alertmanager: Available Degraded (SomePodsNotReady)"},
			"cert-manager": {health: topology.Degraded, words: "ClusterIssuer letsencrypt-prod: Ready False (ErrRegisterACMEAccount): Failed to register ACME account",
				findings: []string{"warning issuer Issuer team-a/team-ca", "warning certificate Certificate web/api-tls", "error certificate Certificate web/old-tls", "warning certificate Certificate web/web-tls"}},
			"external-secrets": {health: topology.Degraded, words: "ClusterSecretStore aws-secrets-manager: Ready False (InvalidProviderConfig): unable to validate store",
				findings: []string{"warning external-secret ExternalSecret app/db-credentials"}},
			"flux": {health: topology.Degraded, words: "GitRepository flux-system/flux-system: Ready False (GitOperationFailed): failed to checkout and determine revision",
				findings: []string{"warning flux-object HelmRelease apps/podinfo"}},
			"argocd": {health: "", words: "2 Applications (2 not healthy)",
				findings: []string{"info application Application argocd/billing", "warning application Application argocd/billing", "warning application Application argocd/guestbook"}},
			"widgets": {health: topology.Degraded, words: "Widget apps/main: failed: Stalled True (InvalidSpec): spec.size must be positive"},
		}},
		{"operators-not-reported.yaml", map[string]layerWant{
			"rook-ceph":             {health: topology.Unknown, words: "CephCluster rook-ceph/rook-ceph: not reported yet; CephBlockPool rook-ceph/replicapool: not reported yet"},
			"cnpg":                  {health: topology.Unknown, words: "Cluster db/main: not reported yet"},
			"longhorn":              {health: topology.Unknown, words: "Longhorn Node longhorn-system/node1: not reported yet"},
			"kube-prometheus-stack": {health: topology.Unknown, words: "Prometheus monitoring/kube-prometheus-stack-prometheus: not reported yet"},
			"cert-manager":          {health: topology.Unknown, words: "ClusterIssuer letsencrypt-prod: not reported yet; no issuer Ready yet, 2 not reported yet"},
			"external-secrets":      {health: topology.Unknown, words: "ClusterSecretStore aws-secrets-manager: not reported yet; no store Ready yet, 2 not reported yet"},
			"flux":                  {health: topology.Unknown, words: "GitRepository flux-system/flux-system: not reported yet; Kustomization flux-system/flux-system: not reported yet"},
			"argocd":                {health: "", words: "2 Applications"},
			"widgets":               {health: topology.Unknown, words: "Widget apps/main: not reported yet"},
		}},
		{"operators-ceph-stale.yaml", map[string]layerWant{
			"rook-ceph": {health: topology.Unknown, words: "CephCluster rook-ceph/rook-ceph: Ceph HEALTH_OK as last checked 2 h ago"},
		}},
		{"operators-unconfigured.yaml", map[string]layerWant{
			"rook-ceph":             {health: topology.Degraded, words: "rook-ceph runs, no CephCluster"},
			"cnpg":                  {health: topology.Healthy, words: "no Postgres Cluster"},
			"longhorn":              {health: topology.Degraded, words: "longhorn runs, no Longhorn Node registered"},
			"kube-prometheus-stack": {health: topology.Degraded, words: "no Prometheus resource"},
			"cert-manager":          {health: topology.Degraded, words: "no ClusterIssuer or Issuer"},
			"external-secrets":      {health: topology.Degraded, words: "no ClusterSecretStore or SecretStore"},
			"flux":                  {health: topology.Healthy, words: "no flux-system sync (not bootstrapped)"},
			"argocd":                {health: "", words: "0 Applications"},
			"widgets":               {health: topology.Degraded, words: "Widget apps/main not found"},
		}},
		{"operators-healthy.yaml", map[string]layerWant{
			"rook-ceph":             {health: topology.Healthy, words: "Ceph HEALTH_OK"},
			"cnpg":                  {health: topology.Healthy, words: "1 Cluster healthy"},
			"longhorn":              {health: topology.Healthy, words: "3 Longhorn nodes Ready, 2 volumes healthy"},
			"kube-prometheus-stack": {health: topology.Healthy, words: "Prometheus Available, Alertmanager Available"},
			"cert-manager":          {health: topology.Healthy, words: "2 issuers Ready"},
			"external-secrets":      {health: topology.Healthy, words: "2 stores Ready"},
			"flux":                  {health: topology.Healthy, words: "flux-system sync Ready"},
			"argocd":                {health: "", words: "2 Applications"},
			"widgets":               {health: topology.Healthy, words: "Widget apps/main Ready"},
		}},
	}
	c := harness.StartT(t, harness.Options{})
	if err := c.LoadFixture(fixture("operators-workloads.yaml")); err != nil {
		t.Fatalf("load operators-workloads.yaml: %v", err)
	}
	defs := operatorLayers()
	grant := map[string][]string{}
	for _, def := range defs {
		for _, r := range def.Status {
			grant[r.Group] = append(grant[r.Group], pluralOf(r))
		}
	}
	if err := c.GrantReadOnly("nestor-test-operator-status", harness.ReadRules(grant)); err != nil {
		t.Fatal(err)
	}
	admin := dynamic.NewForConfigOrDie(c.AdminConfig())
	readOnly := dynamicFor(t, c.ReadOnly)
	noAccess := dynamicFor(t, c.NoAccess)
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			loaded, err := c.LoadOperatorFixture(fixture(tc.fixture))
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			t.Cleanup(func() { deleteStatusObjects(t, admin, defs) })
			// Judged at the load time the fixture's times count from.
			facts := readStatus(t, readOnly, defs, loaded)
			for _, def := range defs {
				w, ok := tc.want[def.Name]
				if !ok {
					continue // the fixture is about other layers
				}
				v := health.JudgeStatus(def, facts)
				if v.Health != w.health || !strings.HasPrefix(v.Words, w.words) {
					t.Errorf("%s: %s %q, want %s %q…", def.Name, v.Health, v.Words, w.health, w.words)
				}
				var got []string
				for _, f := range v.Findings {
					got = append(got, fmt.Sprintf("%s %s %s", f.Severity, f.Kind, f.Subject))
				}
				if strings.Join(got, "; ") != strings.Join(w.findings, "; ") {
					t.Errorf("%s: findings %q, want %q", def.Name, got, w.findings)
				}
			}
			if tc.fixture != "operators-healthy.yaml" {
				return
			}
			// The same objects, read by an identity that may not list
			// them: no layer is healthy; argocd, whose Applications only
			// give findings, says they were not read.
			denied := readStatus(t, noAccess, defs, loaded)
			for _, def := range defs {
				v := health.JudgeStatus(def, denied)
				switch def.Name {
				case "argocd":
					if v.Health != "" || len(v.Findings) != 1 || v.Findings[0].Kind != topology.FindingStatusUnread {
						t.Errorf("argocd, forbidden: %s %q, findings %+v", v.Health, v.Words, v.Findings)
					}
				default:
					if v.Health != topology.Unknown || !strings.Contains(v.Words, "forbidden") {
						t.Errorf("%s, forbidden: %s %q, want unknown, forbidden", def.Name, v.Health, v.Words)
					}
				}
			}
		})
	}
}

// pluralOf is r's plural; the custom layer's Widget has none in the
// catalog (the reader finds it by discovery): its CRD's, "widgets".
func pluralOf(r topology.StatusResource) string {
	if r.Resource != "" {
		return r.Resource
	}
	return strings.ToLower(r.Kind) + "s"
}

func dynamicFor(t *testing.T, kubeconfig string) dynamic.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return dynamic.NewForConfigOrDie(cfg)
}

// deleteStatusObjects deletes every object of defs' status resources, so
// the next fixture starts from none.
func deleteStatusObjects(t *testing.T, dyn dynamic.Interface, defs []topology.LayerDef) {
	ctx := context.Background()
	for _, def := range defs {
		for _, r := range def.Status {
			gvr := schema.GroupVersionResource{Group: r.Group, Version: r.Versions[0], Resource: pluralOf(r)}
			list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Errorf("list %s: %v", r.Key(), err)
				continue
			}
			for _, item := range list.Items {
				if err := dyn.Resource(gvr).Namespace(item.GetNamespace()).Delete(ctx, item.GetName(), metav1.DeleteOptions{}); err != nil {
					t.Errorf("delete %s %s/%s: %v", r.Kind, item.GetNamespace(), item.GetName(), err)
				}
			}
		}
	}
}
