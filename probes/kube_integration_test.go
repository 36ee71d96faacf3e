package probes

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/tests/harness"
	"nestor.dev/nestor/topology"
)

// These tests read a real kube-apiserver (tests/harness) loaded with the
// dirqual-healthy fixture, as the read-only and the no-access identities,
// and check what ProbeCluster makes of it and what reached the server (the
// audit log). Skipped with -short.

const integrationUA = "nestor/probes-integration-test"

func fixturePath(t *testing.T, name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "tests", "testdata", "clusters", name)
}

func dirqualTopology() *topology.Topology {
	return &topology.Topology{Path: "/stacks/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Backend: "rook-ceph",
		Layers: []topology.LayerRef{
			{Name: "cilium"}, {Name: "rook-ceph"}, {Name: "cnpg"}, {Name: "kube-prometheus-stack"}, {Name: "argocd"},
			{Name: "registry", Detect: &topology.Detect{Deployment: "registry/registry"}},
		}}
}

// contentTypes records the Accept header of each request and the
// Content-Type of its response, by path.
type contentTypes struct {
	mu     sync.Mutex
	seen   map[string]string
	accept map[string]string
}

func (c *contentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		c.mu.Lock()
		c.accept[req.URL.Path] = req.Header.Get("Accept")
		if err == nil {
			c.seen[req.URL.Path] = resp.Header.Get("Content-Type")
		}
		c.mu.Unlock()
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func loadIntegrationTarget(t *testing.T, kubeconfig string) *Target {
	t.Helper()
	tg, err := LoadTargetWith(Kubeconfig{Paths: []string{kubeconfig}, Source: SourceFlag, Detail: "test"},
		LoadOptions{UserAgent: integrationUA, Kube: KubeOptions{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestProbeClusterRealAPIServer(t *testing.T) {
	c := harness.StartT(t, harness.Options{})
	if err := c.LoadFixture(fixturePath(t, "dirqual-healthy.yaml")); err != nil {
		t.Fatal(err)
	}
	topo := dirqualTopology()
	ctx := context.Background()

	t.Run("readonly", func(t *testing.T) {
		tg := loadIntegrationTarget(t, c.ReadOnly)
		if same, err := topology.SameEndpoint(tg.Endpoint, c.URL); err != nil || !same {
			t.Errorf("endpoint %q, cluster %q", tg.Endpoint, c.URL)
		}
		ct := &contentTypes{seen: map[string]string{}, accept: map[string]string{}}
		tg.Config.Wrap(ct.wrap)

		start := time.Now()
		ver, nodes := ReadNodes(ctx, tg)
		readNodes := time.Since(start)
		start = time.Now()
		obs, facts := ProbeCluster(ctx, tg, topo, ver, nodes)
		health.Judge(obs, topo, facts)
		t.Logf("ReadNodes %v, ProbeCluster %v", readNodes, time.Since(start))

		if !ver.Known || ver.Value != "v1.37.2" {
			t.Errorf("server version %+v, want v1.37.2", ver)
		}
		if !nodes.Known || len(nodes.Value) != 4 {
			t.Fatalf("nodes %+v, want 4 known", nodes)
		}
		for i, n := range nodes.Value {
			wantName := "dirqual" + string(rune('1'+i))
			wantIP := "10.67.2.1" + string(rune('1'+i))
			if n.Name != wantName || !n.Ready || n.KubeletVersion != "v1.37.2" || n.InternalIP != wantIP {
				t.Errorf("node %d = %+v, want %s Ready v1.37.2 %s", i, n, wantName, wantIP)
			}
		}
		if !slices.Contains(nodes.Value[0].Roles, "control-plane") {
			t.Errorf("dirqual1 roles %q, want control-plane", nodes.Value[0].Roles)
		}
		if obs.Nodes.Known != true || len(obs.Nodes.Value) != 4 || obs.ServerVersion != ver {
			t.Errorf("observation does not carry ReadNodes' facts: %+v %+v", obs.ServerVersion, obs.Nodes)
		}

		for _, f := range []struct {
			name  string
			known bool
			why   string
		}{{"namespaces", facts.Namespaces.Known, facts.Namespaces.Reason}, {"crd groups", facts.CRDGroups.Known, facts.CRDGroups.Reason},
			{"storage classes", facts.StorageClasses.Known, facts.StorageClasses.Reason}, {"workloads", facts.Workloads.Known, facts.Workloads.Reason}} {
			if !f.known {
				t.Errorf("%s unknown: %s", f.name, f.why)
			}
		}
		// Workloads are listed where the declared layers live (and that
		// exists), not in every catalog namespace.
		if got := strings.Join(facts.WorkloadNamespaces, ","); got != "argocd,cnpg-system,kube-system,monitoring,registry,rook-ceph" {
			t.Errorf("WorkloadNamespaces = %q", got)
		}
		if len(facts.WorkloadErrors) != 0 {
			t.Errorf("WorkloadErrors = %q", facts.WorkloadErrors)
		}
		for _, ns := range []string{"rook-ceph", "cnpg-system", "monitoring", "argocd", "registry", "kube-system"} {
			if !slices.Contains(facts.Namespaces.Value, ns) {
				t.Errorf("namespace %s not seen: %q", ns, facts.Namespaces.Value)
			}
		}
		for _, g := range []string{"cilium.io", "ceph.rook.io", "postgresql.cnpg.io", "monitoring.coreos.com", "argoproj.io"} {
			if !slices.Contains(facts.CRDGroups.Value, g) {
				t.Errorf("CRD group %s not seen: %q", g, facts.CRDGroups.Value)
			}
		}
		if !obs.Storage.Known || obs.Storage.Value.Class != "rook-ceph-block" || obs.Storage.Value.Backend != "rook-ceph" {
			t.Errorf("storage %+v, want rook-ceph-block (rook-ceph)", obs.Storage)
		}
		declared := 0
		for _, l := range obs.Layers {
			t.Logf("layer %s declared=%v %s: %s", l.Name, l.Declared, l.Health, l.Reason)
			if l.Declared {
				declared++
				if l.Health != topology.Healthy {
					t.Errorf("layer %s is %s (%s), want healthy", l.Name, l.Health, l.Reason)
				}
			}
		}
		if declared != len(topo.Layers) || obs.Layers[0].Name != "cilium" || obs.Layers[5].Name != "registry" {
			t.Errorf("layers %+v", obs.Layers)
		}

		// Server-side Tables without objects for the long lists (the nodes
		// above were decoded from one: listTable refuses anything else),
		// JSON for the few workloads and StorageClasses.
		for path, want := range map[string]string{
			"/api/v1/nodes":      acceptTable,
			"/api/v1/namespaces": acceptTable,
			"/apis/apiextensions.k8s.io/v1/customresourcedefinitions": acceptTable,
			"/apis/storage.k8s.io/v1/storageclasses":                  acceptJSON,
			"/apis/apps/v1/namespaces/argocd/deployments":             acceptJSON,
		} {
			if got := ct.accept[path]; got != want {
				t.Errorf("%s asked for %q, want %q", path, got, want)
			}
			if got := ct.seen[path]; !strings.HasPrefix(got, "application/json") {
				t.Errorf("%s answered %q, want JSON", path, got)
			}
		}

		// ProbeTarget reads the same, all at once.
		obs2, facts2 := ProbeTarget(ctx, tg, topo)
		health.Judge(obs2, topo, facts2)
		facts2.Status.ReadAt = facts.Status.ReadAt // each read says when it was made
		if a, b := agesAsRead(t, obs2), agesAsRead(t, obs); a != b || !reflect.DeepEqual(facts2, facts) {
			t.Errorf("ProbeTarget differs from ReadNodes + ProbeCluster:\n%s\n%s\nfacts\n%+v\n%+v", a, b, facts2, facts)
		}

		// A write through the same client never leaves the process.
		hc, err := restHTTPClient(tg)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, c.URL+"/api/v1/namespaces", strings.NewReader(`{"metadata":{"name":"x"}}`))
		if _, err := hc.Do(req); !errors.As(err, new(*WriteRefusedError)) {
			t.Errorf("POST through the target's client: %v, want refused", err)
		}

		events, err := c.AuditEvents(integrationUA)
		if err != nil {
			t.Fatal(err)
		}
		lists := 0
		for _, e := range events {
			if e.Verb != "get" && e.Verb != "list" {
				t.Errorf("nestor sent %s", e)
			}
			if e.Verb == "list" {
				lists++
				if !strings.Contains(e.RequestURI, "limit=500") {
					t.Errorf("unpaginated list: %s", e)
				}
			}
			if strings.HasPrefix(e.RequestURI, "/api/v1/nodes/") || strings.Contains(e.RequestURI, "customresourcedefinitions/") {
				t.Errorf("a request per object: %s", e)
			}
		}
		t.Logf("%d requests (%d lists)", len(events), lists)
	})

	t.Run("pagination", func(t *testing.T) {
		old := pageSize
		pageSize = 2
		defer func() { pageSize = old }()
		oldNodes := nodePageSize
		nodePageSize = 2 // the node Table's own page size
		defer func() { nodePageSize = oldNodes }()
		tg := loadIntegrationTarget(t, c.ReadOnly)
		tg.Config.UserAgent = integrationUA + "-pages"
		_, nodes := ReadNodes(ctx, tg)
		if !nodes.Known || len(nodes.Value) != 4 {
			t.Fatalf("nodes with 2 per page: %+v", nodes)
		}
		events, err := c.AuditEvents(integrationUA + "-pages")
		if err != nil {
			t.Fatal(err)
		}
		pages := 0
		for _, e := range events {
			if strings.HasPrefix(e.RequestURI, "/api/v1/nodes?") {
				pages++
				if pages > 1 && !strings.Contains(e.RequestURI, "continue=") {
					t.Errorf("page %d without continue: %s", pages, e)
				}
			}
		}
		if pages != 2 {
			t.Errorf("%d node pages for 4 nodes at 2 per page, want 2", pages)
		}
	})

	t.Run("noaccess", func(t *testing.T) {
		tg := loadIntegrationTarget(t, c.NoAccess)
		ver, nodes := ReadNodes(ctx, tg)
		obs, facts := ProbeCluster(ctx, tg, topo, ver, nodes)
		health.Judge(obs, topo, facts)
		obs2, facts2 := ProbeTarget(ctx, tg, topo)
		health.Judge(obs2, topo, facts2)
		facts2.Status.ReadAt = facts.Status.ReadAt // each read says when it was made
		if !reflect.DeepEqual(obs2, obs) || !reflect.DeepEqual(facts2, facts) {
			t.Errorf("ProbeTarget differs from ReadNodes + ProbeCluster:\n%+v\n%+v", obs2, obs)
		}
		// /version is open to every authenticated user (system:public-info-viewer).
		if !ver.Known {
			t.Errorf("version %+v", ver)
		}
		if want := "forbidden (user " + harness.UserNoAccess + " cannot list nodes)"; nodes.Known || nodes.Reason != want {
			t.Errorf("nodes %+v, want unknown %q", nodes, want)
		}
		for name, f := range map[string]struct {
			known  bool
			reason string
		}{
			"namespaces":      {facts.Namespaces.Known, facts.Namespaces.Reason},
			"crd groups":      {facts.CRDGroups.Known, facts.CRDGroups.Reason},
			"storage classes": {facts.StorageClasses.Known, facts.StorageClasses.Reason},
			"workloads":       {facts.Workloads.Known, facts.Workloads.Reason},
			"storage":         {obs.Storage.Known, obs.Storage.Reason},
		} {
			if f.known || !strings.Contains(f.reason, "forbidden (user "+harness.UserNoAccess+" cannot list ") {
				t.Errorf("%s: known=%v reason %q, want unknown forbidden", name, f.known, f.reason)
			}
		}
		for _, l := range obs.Layers {
			t.Logf("layer %s: %s (%s)", l.Name, l.Health, l.Reason)
			if l.Health != topology.Unknown || !strings.Contains(l.Reason, "forbidden") {
				t.Errorf("layer %s is %s (%s), want unknown (forbidden), never absent", l.Name, l.Health, l.Reason)
			}
		}
		// Each layer gives the error of its own namespace.
		if want := "deployments in kube-system: forbidden (user " + harness.UserNoAccess + " cannot list deployments.apps in namespace kube-system)"; !strings.Contains(obs.Layers[0].Reason, want) {
			t.Errorf("cilium: %q, want %q", obs.Layers[0].Reason, want)
		}
	})
}

func restHTTPClient(tg *Target) (*http.Client, error) {
	return rest.HTTPClientFor(rest.CopyConfig(tg.Config))
}

// ageWords are the ages a status's words say ("checked 43 s ago", "5 min
// ago"), each at the time of its own read.
var ageWords = regexp.MustCompile(`\b\d+ (s|min|h|d) ago\b`)

// agesAsRead is obs as JSON with every age said as "N ago": two reads a
// moment apart judge the same status at their own time, and may round its
// age differently.
func agesAsRead(t *testing.T, obs *topology.Observed) string {
	t.Helper()
	b, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	return ageWords.ReplaceAllString(string(b), "N ago")
}
