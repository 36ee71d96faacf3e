package probes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// targetAt loads a target whose kubeconfig points at server.
func targetAt(t *testing.T, server string, timeout time.Duration) *Target {
	t.Helper()
	path := writeFile(t, filepath.Join(t.TempDir(), "kc"), kubeconfigText("ctx",
		map[string]string{"c": server}, map[string][2]string{"ctx": {"c", "u"}}))
	tg, err := LoadTargetWith(Kubeconfig{Paths: []string{path}, Source: SourceFlag},
		LoadOptions{UserAgent: "nestor/test", Kube: KubeOptions{Timeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestReadNodesClosedPortFailsFast(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more: connection refused

	tg := targetAt(t, "https://"+addr, 10*time.Second)
	start := time.Now()
	ver, nodes := ReadNodes(context.Background(), tg)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a closed port took %v to fail; it must fail fast", d)
	}
	want := "unreachable: dial tcp " + addr + ": connect: connection refused"
	if ver.Known || ver.Reason != want {
		t.Errorf("version = %+v, want unknown %q", ver, want)
	}
	if nodes.Known || nodes.Reason != want || nodes.Value != nil {
		t.Errorf("nodes = %+v, want unknown %q", nodes, want)
	}
}

func TestReadNodesBlackholeEndsAtTimeout(t *testing.T) {
	// A listener that never accepts: the TCP handshake completes in the
	// kernel, the TLS handshake never gets an answer.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	tg := targetAt(t, "https://"+l.Addr().String(), 700*time.Millisecond)
	start := time.Now()
	ver, nodes := ReadNodes(context.Background(), tg)
	d := time.Since(start)
	if d < 600*time.Millisecond || d > 3*time.Second {
		t.Errorf("a blackholed endpoint ended after %v, want about the 700ms timeout", d)
	}
	for _, r := range []string{ver.Reason, nodes.Reason} {
		if r != "timed out after 700ms" {
			t.Errorf("reason %q, want %q", r, "timed out after 700ms")
		}
	}
	if ver.Known || nodes.Known {
		t.Error("a fact is known after a timeout")
	}

	// The caller's deadline applies when it is sooner than the target's.
	tg.Options.Timeout = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start = time.Now()
	declared := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cnpg"}, {Name: "argocd"}}}
	_, _, facts := readTarget(ctx, tg, declared, false, topology.Fact[string]{}, topology.Fact[[]topology.NodeState]{})
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("ProbeCluster reads ended after %v with a 1.5s context", d)
	}
	for name, f := range map[string]topology.Fact[[]string]{"namespaces": facts.Namespaces, "crd groups": facts.CRDGroups} {
		if f.Known || !strings.HasPrefix(f.Reason, "timed out after 1.") {
			t.Errorf("%s = %+v, want unknown timed out after ~1.5s", name, f)
		}
	}
	if facts.StorageClasses.Known || facts.Workloads.Known {
		t.Errorf("storage %+v workloads %+v, want unknown", facts.StorageClasses, facts.Workloads)
	}
	// Namespaces unknown: workloads were looked for in every namespace of
	// the declared layers; none could be read, each keeps its reason.
	if len(facts.WorkloadNamespaces) != 0 {
		t.Errorf("WorkloadNamespaces = %q, want none read", facts.WorkloadNamespaces)
	}
	for _, ns := range []string{"argocd", "cnpg-system"} {
		if r := facts.WorkloadErrors[ns]; !strings.HasPrefix(r.Text, "deployments in "+ns+": timed out after 1.") || r.Code != topology.ReasonTimedOut {
			t.Errorf("WorkloadErrors[%s] = %+v", ns, r)
		}
	}
	if len(facts.WorkloadErrors) != 2 {
		t.Errorf("WorkloadErrors = %q, want argocd and cnpg-system only", facts.WorkloadErrors)
	}
}

func TestProbeClusterUnreachableIsUnknownNotAbsent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tg := targetAt(t, "https://"+addr, 5*time.Second)
	topo := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cnpg"}, {Name: "argocd"}}}
	ver, nodes := ReadNodes(context.Background(), tg)
	obs, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes)
	health.Judge(obs, topo, facts)
	if obs.Nodes.Known || obs.ServerVersion.Known || facts.Namespaces.Known || obs.Storage.Known {
		t.Fatalf("unreachable target gave known facts: %+v %+v", obs, facts)
	}
	if len(obs.Layers) != 2 {
		t.Fatalf("layers %+v", obs.Layers)
	}
	for _, l := range obs.Layers {
		if l.Health != topology.Unknown || !strings.Contains(l.Reason, "connection refused") {
			t.Errorf("layer %+v, want unknown (connection refused)", l)
		}
	}
}

func statusErr(code int32, reason metav1.StatusReason, msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
}

func TestClassify(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/version", Err: &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: errors.New("connect: connection refused")}}
	tests := []struct {
		err  error
		want string
		code topology.ReasonCode
	}{
		{nil, "", ""},
		{statusErr(403, metav1.StatusReasonForbidden, `nodes is forbidden: User "nestor-noaccess" cannot list resource "nodes" in API group "" at the cluster scope`),
			"forbidden (user nestor-noaccess cannot list nodes)", topology.ReasonForbidden},
		{statusErr(403, metav1.StatusReasonForbidden, `deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" in the namespace "cnpg-system"`),
			"forbidden (user bob cannot list deployments.apps in namespace cnpg-system)", topology.ReasonForbidden},
		{statusErr(403, metav1.StatusReasonForbidden, `forbidden: something else`), "forbidden (forbidden: something else)", topology.ReasonForbidden},
		{statusErr(401, metav1.StatusReasonUnauthorized, "Unauthorized"), "unauthorized (the API server refused the credentials)", topology.ReasonUnauthorized},
		{&TimeoutError{After: 10 * time.Second, Err: context.DeadlineExceeded}, "timed out after 10s", topology.ReasonTimedOut},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), "timed out", topology.ReasonTimedOut},
		{refused, "unreachable: dial tcp 127.0.0.1:1: connect: connection refused", topology.ReasonUnreachable},
		{&url.Error{Op: "Get", URL: "https://nope.invalid/version", Err: &net.DNSError{Err: "no such host", Name: "nope.invalid"}},
			"unreachable: lookup nope.invalid: no such host", topology.ReasonUnreachable},
		{statusErr(500, metav1.StatusReasonInternalError, "etcd is down"), "internalerror: etcd is down", topology.ReasonServerError},
		{statusErr(404, metav1.StatusReasonNotFound, "the server could not find the requested resource"), "notfound: the server could not find the requested resource", topology.ReasonNotServed},
		{&url.Error{Op: "Get", URL: "https://x/version", Err: errors.New("boom")}, "boom", topology.ReasonFailed},
		{&WriteRefusedError{Method: http.MethodPost, Path: "/api/v1/namespaces"},
			"refused by nestor: nestor refused to send POST /api/v1/namespaces: read commands only send GET, HEAD and OPTIONS", topology.ReasonRefused},
	}
	for _, tc := range tests {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
		if got := Explain(tc.err); got != topology.Because(tc.code, tc.want) {
			t.Errorf("Explain(%v) = %+v, want code %q, text %q", tc.err, got, tc.code, tc.want)
		}
	}
}

func TestNodeRow(t *testing.T) {
	// Cells of nodeColumns (Name, Status, Roles, Version, Internal-IP) as
	// the API server's node printer writes them.
	tests := []struct {
		cells []string
		want  topology.NodeState
	}{
		{[]string{"dirqual1", "Ready", "control-plane,ingress", "v1.36.2", "10.67.2.11"},
			topology.NodeState{Name: "dirqual1", Ready: true, ReadyStatus: "True", Roles: []string{"control-plane", "ingress"}, KubeletVersion: "v1.36.2", InternalIP: "10.67.2.11"}},
		{[]string{"w1", "Ready,SchedulingDisabled", "<none>", "v1.37.2", "<none>"},
			topology.NodeState{Name: "w1", Ready: true, ReadyStatus: "True", Unschedulable: true, Roles: []string{}, KubeletVersion: "v1.37.2"}},
		{[]string{"w2", "NotReady", "worker", "v1.37.2", "fd00::2"},
			topology.NodeState{Name: "w2", Roles: []string{"worker"}, KubeletVersion: "v1.37.2", InternalIP: "fd00::2"}},
		{[]string{"w3", "Unknown,SchedulingDisabled", "", "", ""},
			topology.NodeState{Name: "w3", Unschedulable: true, ReadyMessage: "the node has no Ready condition (its kubelet has not posted a status)", Roles: []string{}}},
		{[]string{"w4", "NotReady,SchedulingDisabled", "storage,worker", "v1.37.2\x1b[2J", "10.0.0.4"},
			topology.NodeState{Name: "w4", Unschedulable: true, Roles: []string{"storage", "worker"}, KubeletVersion: `v1.37.2\x1b[2J`, InternalIP: "10.0.0.4"}},
		// RKE1 and k3s spell the roles their way; the column carries them as they are.
		{[]string{"rke-n1", "Ready", "controlplane,etcd,worker", "v1.28.15", "192.0.2.91"},
			topology.NodeState{Name: "rke-n1", Ready: true, ReadyStatus: "True", Roles: []string{"controlplane", "etcd", "worker"}, KubeletVersion: "v1.28.15", InternalIP: "192.0.2.91"}},
		{[]string{"k3s1", "Ready", "control-plane,etcd,master", "v1.33.5+k3s1", "192.0.2.11"},
			topology.NodeState{Name: "k3s1", Ready: true, ReadyStatus: "True", Roles: []string{"control-plane", "etcd", "master"}, KubeletVersion: "v1.33.5+k3s1", InternalIP: "192.0.2.11"}},
	}
	for _, tc := range tests {
		got := nodeRow(tc.cells)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("nodeRow(%q) = %+v, want %+v", tc.cells, got, tc.want)
		}
	}
}

// TestListTableRefusesWhatIsNotATable: an answer that is not the Table
// asked for, or that lacks a column, is an error naming it, never an empty
// list.
func TestListTableRefusesWhatIsNotATable(t *testing.T) {
	for _, tc := range []struct {
		body string
		want string
	}{
		{`{"kind":"NodeList","apiVersion":"v1","items":[]}`, `is a "NodeList", not the Table`},
		{`{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[]}`, "has no Status column"},
		{`{"kind":"Table","columnDefinitions":[{"name":"Name"},{"name":"Status"},{"name":"Roles"},{"name":"Version"},{"name":"Internal-IP"}],"rows":[{"cells":["a","Ready"]}]}`, "has 2 cells"},
		{`{"kind":"Table","columnDefinitions":[{"name":"Name"},{"name":"Status"},{"name":"Roles"},{"name":"Version"},{"name":"Internal-IP"}],"rows":[{"cells":["a",3,"","",""]}]}`, "Status cell of row 0"},
	} {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(tc.body))
		}))
		tg := targetAt(t, srv.URL, 5*time.Second)
		_, nodes := ReadNodes(context.Background(), tg)
		if nodes.Known || !strings.Contains(nodes.Reason, tc.want) {
			t.Errorf("body %s: nodes %+v, want unknown %q", tc.body, nodes, tc.want)
		}
		srv.Close()
	}
}

// TestReadRefusesRedirect: a target that answers every read with a 302 to
// another server. Nothing may reach that server (client-go would put the
// bearer token back on the redirected request), and every fact is unknown
// with a reason that names the redirect and both hosts.
func TestReadRefusesRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		writeJSON(w, 200, map[string]string{"gitVersion": "v9.9.9-elsewhere"})
	}))
	defer other.Close()
	target := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer target.Close()

	tg := targetAt(t, target.URL, 5*time.Second)
	topo := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cilium"}}}
	ver, nodes := ReadNodes(context.Background(), tg)
	obs, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes)
	health.Judge(obs, topo, facts)

	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the redirect target received %d requests, want none", n)
	}
	from := target.URL
	reasons := map[string]string{"version": ver.Reason, "nodes": nodes.Reason, "namespaces": facts.Namespaces.Reason,
		"crd groups": facts.CRDGroups.Reason, "storage classes": facts.StorageClasses.Reason, "workloads": facts.Workloads.Reason,
		"layer cilium": obs.Layers[0].Reason}
	if ver.Known || nodes.Known || facts.Namespaces.Known || facts.CRDGroups.Known || facts.StorageClasses.Known ||
		facts.Workloads.Known || obs.Layers[0].Health != topology.Unknown {
		t.Errorf("a fact is known after a redirect: %+v %+v %+v %+v", ver, nodes, facts, obs.Layers)
	}
	for name, r := range reasons {
		if !strings.Contains(r, "refused by nestor: the API server "+from+" redirected to "+other.URL) {
			t.Errorf("%s reason %q, want the refused redirect from %s to %s", name, r, from, other.URL)
		}
	}
}

// TestTargetBuildsClientsOnce: the clients (HTTP client, transport, TLS
// pool) are built once per Target, however many reads, even concurrent.
func TestTargetBuildsClientsOnce(t *testing.T) {
	api := &fakeAPI{namespaces: []string{"kube-system"}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	tg := targetAt(t, srv.URL, 5*time.Second)
	var builds atomic.Int32
	tg.Config.Wrap(func(rt http.RoundTripper) http.RoundTripper { builds.Add(1); return rt })

	topo := &topology.Topology{Path: "/s/x.yaml", Name: "x", TargetKind: topology.TargetProd, Layers: []topology.LayerRef{{Name: "cilium"}}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ver, nodes := ReadNodes(context.Background(), tg)
			if !ver.Known || !nodes.Known {
				t.Errorf("ReadNodes: %+v %+v", ver, nodes)
			}
			if _, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes); !facts.Workloads.Known {
				t.Errorf("workloads %+v", facts.Workloads)
			}
		}()
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("the transport was built %d times for 8 reads of one target, want once", n)
	}
}

// workloadListsPerNamespace counts the workload lists api answered, per
// namespace.
func workloadListsPerNamespace(api *fakeAPI) map[string]int {
	listed := map[string]int{}
	for _, p := range api.seen() {
		if rest, ok := strings.CutPrefix(p, "/apis/apps/v1/namespaces/"); ok {
			listed[strings.Split(rest, "/")[0]]++
		}
	}
	return listed
}

// TestProbeClusterNamespaceListForbidden: when the namespace list cannot be
// read, which namespaces exist is unknown, so every candidate namespace of
// the declared layers is listed (a missing one lists empty) and the layers
// are still judged from what the lists hold.
func TestProbeClusterNamespaceListForbidden(t *testing.T) {
	api := &fakeAPI{
		namespaces:          []string{"kube-system"},
		namespacesForbidden: true,
		workloads: []topology.WorkloadState{
			{Kind: topology.KindDaemonSet, Namespace: "kube-system", Name: "cilium", Desired: 4, Ready: 4},
			{Kind: topology.KindDeployment, Namespace: "kube-system", Name: "cilium-operator", Desired: 1, Ready: 1},
		},
	}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	tg := targetAt(t, srv.URL, 5*time.Second)
	topo := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cilium"}}}
	ver, nodes := ReadNodes(context.Background(), tg)
	obs, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes)
	health.Judge(obs, topo, facts)
	if facts.Namespaces.Known || !strings.Contains(facts.Namespaces.Reason, "forbidden") {
		t.Errorf("namespaces = %+v, want unknown (forbidden)", facts.Namespaces)
	}
	want := workloadNamespaces(topo, topology.ClusterFacts{}, false)
	if !slices.Contains(want, "cilium") || !slices.Contains(want, "kube-system") {
		t.Fatalf("the catalog's namespaces of cilium are %q, want cilium and kube-system among them", want)
	}
	listed := workloadListsPerNamespace(api)
	for _, ns := range want {
		if listed[ns] != 3 {
			t.Errorf("namespace %s: %d workload lists, want 3 (every candidate is listed when which exist is unknown): %v", ns, listed[ns], listed)
		}
	}
	if len(obs.Layers) == 0 || obs.Layers[0].Name != "cilium" || obs.Layers[0].Health != topology.Healthy {
		t.Errorf("layers = %+v, want cilium healthy first", obs.Layers)
	}
}

// TestProbeClusterSlowNamespaceList: a namespace list slower than
// namespaceGrace does not hold the workload lists back (they go to every
// candidate namespace, as when it fails), and is still read; a namespace
// list slower than the whole bound leaves the workloads known.
func TestProbeClusterSlowNamespaceList(t *testing.T) {
	defer func(g time.Duration) { namespaceGrace = g }(namespaceGrace)
	namespaceGrace = 100 * time.Millisecond
	topo := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cilium"}}}
	for _, tc := range []struct {
		name           string
		delay, timeout time.Duration
		namespaces     bool // the namespace list is known
	}{
		{"slower than the grace", 600 * time.Millisecond, 5 * time.Second, true},
		{"slower than the bound", 3 * time.Second, 1500 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{
				namespaces:      []string{"kube-system"},
				namespacesDelay: tc.delay,
				workloads: []topology.WorkloadState{
					{Kind: topology.KindDaemonSet, Namespace: "kube-system", Name: "cilium", Desired: 4, Ready: 4},
					{Kind: topology.KindDeployment, Namespace: "kube-system", Name: "cilium-operator", Desired: 1, Ready: 1},
				},
			}
			srv := httptest.NewTLSServer(api)
			defer srv.Close()
			tg := targetAt(t, srv.URL, tc.timeout)
			ver, nodes := ReadNodes(context.Background(), tg)
			obs, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes)
			health.Judge(obs, topo, facts)
			if facts.Namespaces.Known != tc.namespaces {
				t.Errorf("namespaces = %+v, want known %v", facts.Namespaces, tc.namespaces)
			}
			if !facts.Workloads.Known {
				t.Fatalf("workloads unknown (%s): the slow namespace list held them back", facts.Workloads.Reason)
			}
			if listed := workloadListsPerNamespace(api); listed["cilium"] != 3 || listed["kube-system"] != 3 {
				t.Errorf("workload lists per namespace %v, want 3 in cilium and kube-system (every candidate)", listed)
			}
			if len(obs.Layers) == 0 || obs.Layers[0].Health != topology.Healthy {
				t.Errorf("layers = %+v, want cilium healthy", obs.Layers)
			}
		})
	}
}

// TestProbeClusterNamespaceFailureStaysLocal: a forbidden namespace makes
// only the layers that live there unknown, with that namespace's own
// reason; workloads are listed only where the declared layers live, plus
// the namespaces of an undeclared catalog layer whose CRDs were seen.
func TestProbeClusterNamespaceFailureStaysLocal(t *testing.T) {
	api := &fakeAPI{
		namespaces: []string{"default", "kube-system", "argocd", "harbor", "monitoring", "rook-ceph"},
		crds:       []string{"ciliumnetworkpolicies.cilium.io", "applications.argoproj.io"},
		workloads: []topology.WorkloadState{
			{Kind: topology.KindDaemonSet, Namespace: "kube-system", Name: "cilium", Desired: 4, Ready: 4},
			{Kind: topology.KindDeployment, Namespace: "kube-system", Name: "cilium-operator", Desired: 1, Ready: 1},
			{Kind: topology.KindDeployment, Namespace: "argocd", Name: "argocd-server", Desired: 1, Ready: 1},
			{Kind: topology.KindDeployment, Namespace: "argocd", Name: "argocd-repo-server", Desired: 1, Ready: 1},
			{Kind: topology.KindStatefulSet, Namespace: "argocd", Name: "argocd-application-controller", Desired: 1, Ready: 1},
		},
		forbidden: map[string]bool{"harbor": true},
	}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	tg := targetAt(t, srv.URL, 5*time.Second)
	topo := &topology.Topology{Path: "/s/dirqual.yaml", Name: "dirqual", TargetKind: topology.TargetProd,
		Layers: []topology.LayerRef{{Name: "cilium"}, {Name: "harbor"}}}
	ver, nodes := ReadNodes(context.Background(), tg)
	obs, facts := ProbeCluster(context.Background(), tg, topo, ver, nodes)
	health.Judge(obs, topo, facts)

	if !facts.Workloads.Known {
		t.Fatalf("workloads unknown (%s) because one namespace is forbidden", facts.Workloads.Reason)
	}
	// kube-system (cilium), harbor (declared), argocd (CRDs seen); the
	// cilium namespace does not exist; monitoring and rook-ceph belong to
	// undeclared layers with no CRD or provisioner seen.
	if got := strings.Join(facts.WorkloadNamespaces, ","); got != "argocd,kube-system" {
		t.Errorf("WorkloadNamespaces = %q, want argocd,kube-system", got)
	}
	wantErr := "deployments in harbor: forbidden (user bob cannot list deployments.apps in namespace harbor)"
	if len(facts.WorkloadErrors) != 1 || facts.WorkloadErrors["harbor"] != topology.Because(topology.ReasonForbidden, wantErr) {
		t.Errorf("WorkloadErrors = %q, want harbor: %q", facts.WorkloadErrors, wantErr)
	}
	// The declared layers' namespaces that exist are listed once the
	// namespace list is in (cilium, which does not exist, is not); argocd
	// in the second wave, once its CRDs were seen; monitoring and rook-ceph
	// never.
	listed := workloadListsPerNamespace(api)
	if len(listed) != 3 || listed["kube-system"] != 3 || listed["harbor"] != 3 || listed["argocd"] != 3 {
		t.Errorf("workload lists per namespace %v, want 3 in each of kube-system, harbor and argocd only", listed)
	}
	if _, ok := facts.WorkloadErrors["cilium"]; ok || slices.Contains(facts.WorkloadNamespaces, "cilium") {
		t.Errorf("the missing namespace cilium is in the facts: %q %q", facts.WorkloadNamespaces, facts.WorkloadErrors)
	}

	byName := map[string]topology.LayerState{}
	for _, l := range obs.Layers {
		byName[l.Name] = l
	}
	if l := byName["cilium"]; l.Health != topology.Healthy || !l.Declared {
		t.Errorf("cilium = %+v, want declared healthy", l)
	}
	if l := byName["harbor"]; l.Health != topology.Unknown || !strings.Contains(l.Reason, wantErr) || l.Code != topology.ReasonForbidden {
		t.Errorf("harbor = %+v, want unknown with %q", l, wantErr)
	}
	// The plan's unknown part for harbor says so, typed: the layer's key
	// and the code of its namespace's refusal.
	var harbor []topology.UnknownPart
	for _, u := range plan.Build(topo, obs, plan.NodeCluster{}, plan.Options{}).Unknowns {
		if u.Subject.Kind == topology.SubjectLayer && u.Subject.Name == "harbor" {
			harbor = append(harbor, u)
		}
	}
	if len(harbor) != 1 || harbor[0].Code != topology.ReasonForbidden || harbor[0].Subject.Key != "layers/harbor" || !strings.Contains(harbor[0].String(), "layer harbor: ") {
		t.Errorf("harbor's unknown parts = %+v, want one, forbidden, key layers/harbor", harbor)
	}
	if l, ok := byName["argocd"]; !ok || l.Declared || l.Health != topology.Healthy {
		t.Errorf("argocd = %+v (found %v), want undeclared healthy", l, ok)
	}
}

func TestListWorkloadsEveryNamespaceFailed(t *testing.T) {
	api := &fakeAPI{namespaces: []string{"harbor"}, forbidden: map[string]bool{"harbor": true}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	tg := targetAt(t, srv.URL, 5*time.Second)
	topo := &topology.Topology{Path: "/s/x.yaml", Name: "x", TargetKind: topology.TargetProd, Layers: []topology.LayerRef{{Name: "harbor"}}}
	_, _, facts := readTarget(context.Background(), tg, topo, false, topology.Fact[string]{}, topology.Fact[[]topology.NodeState]{})
	want := "forbidden (user bob cannot list deployments.apps in namespace harbor)"
	if facts.Workloads.Known || facts.Workloads.Reason != want || facts.Workloads.Code != topology.ReasonForbidden {
		t.Errorf("workloads = %+v, want unknown %q", facts.Workloads, want)
	}
	if len(facts.WorkloadNamespaces) != 0 || facts.WorkloadErrors["harbor"].Text == "" || facts.WorkloadErrors["harbor"].Code != topology.ReasonForbidden {
		t.Errorf("read %q errors %q", facts.WorkloadNamespaces, facts.WorkloadErrors)
	}
}

func TestClassifySanitizes(t *testing.T) {
	err := statusErr(500, metav1.StatusReasonInternalError, "etcd\x1b[2J\x1b]0;pwned\x07 is down\r\nnext\tline\u009b31m")
	if got, want := Classify(err), "internalerror: etcd[2J]0;pwned is down\nnext\tline31m"; got != want {
		t.Errorf("Classify = %q, want %q", got, want)
	}
	forbidden := statusErr(403, metav1.StatusReasonForbidden, "no\x1b[1A way")
	if got := Classify(forbidden); got != "forbidden (no[1A way)" {
		t.Errorf("Classify(forbidden) = %q", got)
	}
}
