package probes

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/topology"
)

// nodesAPI answers the node reads as the API server does: the node Table
// (rows as its printer writes them) and, to a JSON request, the NodeList of
// nodes (restricted by fieldSelector=metadata.name=NAME when given), or 403
// when forbidJSON. It records the query of every JSON node list.
type nodesAPI struct {
	rows       [][]any
	nodes      []corev1.Node
	forbidJSON bool

	mu      sync.Mutex
	queries []string
}

func (a *nodesAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/version":
		writeJSON(w, 200, map[string]string{"gitVersion": "v1.37.2"})
	case r.URL.Path == pathNodes && strings.Contains(r.Header.Get("Accept"), "as=Table"):
		writeTable(w, r, []string{"Name", "Status", "Roles", "Age", "Version", "Internal-IP"}, a.rows)
	case r.URL.Path == pathNodes:
		a.mu.Lock()
		a.queries = append(a.queries, r.URL.RawQuery)
		a.mu.Unlock()
		if a.forbidJSON {
			writeJSON(w, 403, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonForbidden, Code: 403, Message: `nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope`})
			return
		}
		l := corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}}
		sel := r.URL.Query().Get("fieldSelector")
		for _, n := range a.nodes {
			if sel == "" || sel == "metadata.name="+n.Name {
				l.Items = append(l.Items, n)
			}
		}
		writeJSON(w, 200, l)
	default:
		http.NotFound(w, r)
	}
}

func nodeWithReady(name string, status corev1.ConditionStatus, reason, message string) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: status, Reason: reason, Message: message},
		{Type: corev1.NodeReady, Status: status, Reason: reason, Message: message},
	}}}
}

// legacyNodesAPI is the handed situation (a legacy master, a kubelet that
// stopped posting status, a cordoned worker) and its neighbours: Ready=False
// with the kubelet's reason, cordoned and NotReady at once, no Ready
// condition yet, a node that recovered between the Table and the detail
// read, and one deleted in between.
func legacyNodesAPI() *nodesAPI {
	return &nodesAPI{
		rows: [][]any{
			{"legacy-cp1", "Ready", "master", "10d", "v1.37.2", "192.0.2.81"},
			{"legacy-w1", "NotReady", "<none>", "10d", "v1.37.2", "192.0.2.82"},
			{"legacy-w2", "Ready,SchedulingDisabled", "<none>", "10d", "v1.37.2", "192.0.2.83"},
			{"legacy-w3", "NotReady,SchedulingDisabled", "worker", "10d", "v1.36.4", "192.0.2.84"},
			{"legacy-w4", "Unknown", "<none>", "1m", "", "<none>"},
			{"legacy-w5", "NotReady", "<none>", "10d", "v1.37.2", "192.0.2.86"},
			{"legacy-w6", "NotReady", "<none>", "10d", "v1.37.2", "192.0.2.87"},
		},
		nodes: []corev1.Node{
			nodeWithReady("legacy-cp1", corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			nodeWithReady("legacy-w1", corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."),
			nodeWithReady("legacy-w2", corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			nodeWithReady("legacy-w3", corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready: NetworkReady=false \x1b[31mcni\x1b[0m"),
			{ObjectMeta: metav1.ObjectMeta{Name: "legacy-w4"}},
			nodeWithReady("legacy-w5", corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
		},
	}
}

func wantLegacyNodes(gone string) []topology.NodeState {
	return []topology.NodeState{
		{Name: "legacy-cp1", Ready: true, ReadyStatus: "True", Roles: []string{"master"}, KubeletVersion: "v1.37.2", InternalIP: "192.0.2.81"},
		{Name: "legacy-w1", ReadyStatus: "Unknown", ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status.", Roles: []string{}, KubeletVersion: "v1.37.2", InternalIP: "192.0.2.82"},
		{Name: "legacy-w2", Ready: true, ReadyStatus: "True", Unschedulable: true, Roles: []string{}, KubeletVersion: "v1.37.2", InternalIP: "192.0.2.83"},
		{Name: "legacy-w3", ReadyStatus: "False", ReadyReason: "KubeletNotReady", ReadyMessage: "container runtime network not ready: NetworkReady=false [31mcni[0m", Unschedulable: true, Roles: []string{"worker"}, KubeletVersion: "v1.36.4", InternalIP: "192.0.2.84"},
		{Name: "legacy-w4", ReadyMessage: "the node has no Ready condition (its kubelet has not posted a status)", Roles: []string{}},
		{Name: "legacy-w5", Ready: true, ReadyStatus: "True", ReadyReason: "KubeletReady", ReadyMessage: "kubelet is posting ready status", Roles: []string{}, KubeletVersion: "v1.37.2", InternalIP: "192.0.2.86"},
		{Name: "legacy-w6", ReadyMessage: gone, Roles: []string{}, KubeletVersion: "v1.37.2", InternalIP: "192.0.2.87"},
	}
}

func TestReadNodesReadyConditionAndCordon(t *testing.T) {
	gone := "the Ready condition could not be read: the node is gone or has no Ready condition"
	for _, tc := range []struct {
		name  string
		lists int // readyDetailLists
		want  []topology.NodeState
		reads []string // the nodes whose condition is read
	}{
		{name: "one list per node not Ready", lists: 16, want: wantLegacyNodes(gone),
			// legacy-w1, w3, w5, w6: the Table said NotReady; w4 has no condition to read.
			reads: []string{"legacy-w1", "legacy-w3", "legacy-w5", "legacy-w6"}},
		{name: "more nodes not Ready than are read: the others say so", lists: 3,
			want:  wantLegacyNodes("the Ready condition was not read: 4 nodes are not Ready, and nestor reads it for the first 3 by name only (`kubectl describe node legacy-w6` shows it)"),
			reads: []string{"legacy-w1", "legacy-w3", "legacy-w5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := readyDetailLists
			readyDetailLists = tc.lists
			defer func() { readyDetailLists = old }()
			api := legacyNodesAPI()
			srv := httptest.NewTLSServer(api)
			defer srv.Close()
			_, nodes := ReadNodes(context.Background(), targetAt(t, srv.URL, 5*time.Second))
			if !nodes.Known {
				t.Fatalf("nodes unknown: %s", nodes.Reason)
			}
			for i := range tc.want {
				if i >= len(nodes.Value) || !reflect.DeepEqual(nodes.Value[i], tc.want[i]) {
					got := topology.NodeState{}
					if i < len(nodes.Value) {
						got = nodes.Value[i]
					}
					t.Errorf("node %d:\n got %+v\nwant %+v", i, got, tc.want[i])
				}
			}
			var reads []string
			for _, q := range api.queries {
				v, err := url.ParseQuery(q)
				if err != nil || v.Get("limit") != "500" {
					t.Errorf("node list %q", q)
				}
				reads = append(reads, strings.TrimPrefix(v.Get("fieldSelector"), "metadata.name="))
			}
			slices.Sort(reads)
			if !slices.Equal(reads, tc.reads) {
				t.Errorf("conditions read of %q, want %q", reads, tc.reads)
			}
		})
	}

	t.Run("detail forbidden: the Table's facts stay, the reason says why", func(t *testing.T) {
		api := legacyNodesAPI()
		api.forbidJSON = true
		srv := httptest.NewTLSServer(api)
		defer srv.Close()
		_, nodes := ReadNodes(context.Background(), targetAt(t, srv.URL, 5*time.Second))
		if !nodes.Known || len(nodes.Value) != 7 {
			t.Fatalf("nodes %+v", nodes)
		}
		w1 := nodes.Value[1]
		if w1.Ready || w1.ReadyStatus != "" || w1.ReadyMessage != "the Ready condition could not be read: forbidden (user bob cannot list nodes)" {
			t.Errorf("legacy-w1 = %+v", w1)
		}
		if w3 := nodes.Value[3]; !w3.Unschedulable || w3.Ready {
			t.Errorf("legacy-w3 = %+v, want cordoned and not Ready", w3)
		}
	})

	t.Run("a healthy cluster costs only the Table", func(t *testing.T) {
		api := &nodesAPI{rows: [][]any{{"n1", "Ready", "control-plane", "1d", "v1.37.2", "10.0.0.1"}, {"n2", "Ready,SchedulingDisabled", "<none>", "1d", "v1.37.2", "10.0.0.2"}}}
		srv := httptest.NewTLSServer(api)
		defer srv.Close()
		_, nodes := ReadNodes(context.Background(), targetAt(t, srv.URL, 5*time.Second))
		if !nodes.Known || len(nodes.Value) != 2 || !nodes.Value[1].Unschedulable || nodes.Value[0].ReadyStatus != "True" {
			t.Errorf("nodes %+v", nodes)
		}
		if len(api.queries) != 0 {
			t.Errorf("node objects read although every node is Ready: %q", api.queries)
		}
	})
}

// TestListStorageClassesReadsCreationAndBothAnnotations: the creation time
// is read; a class is default by either annotation set exactly to "true"
// (kubernetes IsDefaultAnnotation), never by "True" or "yes".
func TestListStorageClassesReadsCreationAndBothAnnotations(t *testing.T) {
	created := func(s string) metav1.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return metav1.NewTime(tm)
	}
	sc := func(name, prov, ts string, ann map[string]string) storagev1.StorageClass {
		return storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann, CreationTimestamp: created(ts)}, Provisioner: prov}
	}
	api := &fakeAPI{classes: []storagev1.StorageClass{
		sc("local-path", "rancher.io/local-path", "2026-11-19T10:00:00Z", map[string]string{annDefaultClass: "true"}),
		sc("longhorn", "driver.longhorn.io", "2026-11-19T10:00:30Z", map[string]string{annDefaultClass: "true"}),
		sc("microk8s-hostpath", "microk8s.io/hostpath", "2026-11-18T09:00:00Z", map[string]string{annBetaDefaultClass: "true"}),
		sc("capital", "x.example/capital", "2026-11-20T00:00:00Z", map[string]string{annDefaultClass: "True"}),
		sc("yes", "x.example/yes", "2026-11-20T00:00:00Z", map[string]string{annBetaDefaultClass: "yes"}),
		sc("unmarked", "x.example/unmarked", "2026-11-20T00:00:00Z", map[string]string{annDefaultClass: "false", annBetaDefaultClass: "true"}),
	}}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	tg := targetAt(t, srv.URL, 5*time.Second)
	c, err := tg.clients()
	if err != nil {
		t.Fatal(err)
	}
	got, err := listStorageClasses(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // name → default + creation
		"capital": "false 2026-11-20T00:00:00Z", "local-path": "true 2026-11-19T10:00:00Z", "longhorn": "true 2026-11-19T10:00:30Z",
		"microk8s-hostpath": "true 2026-11-18T09:00:00Z", "unmarked": "true 2026-11-20T00:00:00Z", "yes": "false 2026-11-20T00:00:00Z",
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for _, g := range got {
		if s := fmt.Sprintf("%v %s", g.Default, g.Created.UTC().Format(time.RFC3339)); s != want[g.Name] {
			t.Errorf("%s: %s, want %s", g.Name, s, want[g.Name])
		}
	}
}
