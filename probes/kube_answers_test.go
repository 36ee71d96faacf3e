package probes

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/topology"
)

// Tests of what the prober does with answers a real API server should not
// give: each must end unknown with a reason, never as an empty known list.
// (Found by a review of the Table rework.)

const answersNodeCols = `[{"name":"Name"},{"name":"Status"},{"name":"Roles"},{"name":"Age"},{"name":"Version"},{"name":"Internal-IP"}]`

func answersNodePage(cont string) string {
	return fmt.Sprintf(`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"continue":%q},"columnDefinitions":%s,"rows":[{"cells":["a","Ready","<none>","5m","v1.37.2","10.0.0.1"]}]}`, cont, answersNodeCols)
}

// A 2xx answer that is not the list asked for must not read as an empty
// list, or a layer would be reported absent.
func TestJSONListThatIsNotAListIsUnknown(t *testing.T) {
	for _, body := range []string{`{}`, `null`, `[1,2]`, `"StorageClassList"`, `{"kind":"Status","apiVersion":"v1","status":"Success"}`, `{"kind":"Table","rows":[]}`,
		// keys sorted, as the API server writes custom resources: kind after items
		`{"apiVersion":"v1","items":[{"metadata":{"name":"a"}}],"kind":"PodList","metadata":{}}`,
		`{"apiVersion":"v1","items":{"not":"a list"},"kind":"StorageClassList","metadata":{}}`} {
		t.Run(body, func(t *testing.T) {
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/version":
					fmt.Fprint(w, `{"gitVersion":"v1.37.2"}`)
				case pathNodes:
					fmt.Fprint(w, answersNodePage(""))
				case pathNamespaces:
					fmt.Fprint(w, `{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[{"cells":["mlflow"]}]}`)
				case pathCRDs:
					fmt.Fprint(w, `{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[]}`)
				default: // StorageClasses and workloads
					fmt.Fprint(w, body)
				}
			}))
			defer srv.Close()
			tg := targetAt(t, srv.URL, 2*time.Second)
			topo := &topology.Topology{Layers: []topology.LayerRef{{Name: "mlflow", Detect: &topology.Detect{Deployment: "mlflow/mlflow"}}}}
			obs, facts := ProbeTarget(context.Background(), tg, topo)
			health.Judge(obs, topo, facts)
			if facts.StorageClasses.Known {
				t.Errorf("StorageClasses known from a non-list answer: %v", facts.StorageClasses.Value)
			}
			if !strings.Contains(facts.StorageClasses.Reason, "is not a StorageClassList") {
				t.Errorf("StorageClasses reason %q", facts.StorageClasses.Reason)
			}
			if h := obs.Layers[0].Health; h != topology.Unknown {
				t.Errorf("mlflow is %s (%s), want unknown", h, obs.Layers[0].Reason)
			}
		})
	}
}

// A 403 that came back at once stays "forbidden" even when another list
// later used up the budget.
func TestForbiddenIsNotRelabelledTimeout(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		p := r.URL.Path
		switch {
		case p == "/version":
			fmt.Fprint(w, `{"gitVersion":"v1.37.2"}`)
		case p == pathNodes:
			fmt.Fprint(w, answersNodePage(""))
		case p == pathNamespaces:
			fmt.Fprint(w, `{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[{"cells":["a"]},{"cells":["b"]}]}`)
		case p == pathCRDs:
			fmt.Fprint(w, `{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[]}`)
		case p == pathStorageClasses:
			fmt.Fprint(w, `{"kind":"StorageClassList","items":[]}`)
		case strings.HasPrefix(p, "/apis/apps/v1/namespaces/a/"):
			w.WriteHeader(403)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"deployments.apps is forbidden: User \"bob\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"a\""}`)
		case strings.HasPrefix(p, "/apis/apps/v1/namespaces/b/statefulsets"):
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		default:
			kind := map[string]string{"deployments": "DeploymentList", "daemonsets": "DaemonSetList", "statefulsets": "StatefulSetList"}[p[strings.LastIndex(p, "/")+1:]]
			fmt.Fprintf(w, `{"kind":%q,"items":[]}`, kind)
		}
	}))
	defer srv.Close()
	tg := targetAt(t, srv.URL, 700*time.Millisecond)
	topo := &topology.Topology{Layers: []topology.LayerRef{
		{Name: "la", Detect: &topology.Detect{Deployment: "a/x"}},
		{Name: "lb", Detect: &topology.Detect{Deployment: "b/y"}},
	}}
	_, facts := ProbeTarget(context.Background(), tg, topo)
	if got := facts.WorkloadErrors["a"]; !strings.Contains(got.Text, "forbidden") || strings.Contains(got.Text, "timed out") || got.Code != topology.ReasonForbidden {
		t.Errorf("namespace a's 403 is reported as %+v", got)
	}
	if got := facts.WorkloadErrors["b"]; !strings.Contains(got.Text, "timed out") || got.Code != topology.ReasonTimedOut {
		t.Errorf("namespace b's hang is reported as %+v", got)
	}
}

// A server that repeats its continue token is refused at once instead of
// being asked again until the deadline.
func TestRepeatedContinueTokenIsRefused(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/version" {
			fmt.Fprint(w, `{"gitVersion":"v1.37.2"}`)
			return
		}
		calls.Add(1)
		fmt.Fprint(w, answersNodePage("same"))
	}))
	defer srv.Close()
	tg := targetAt(t, srv.URL, 5*time.Second)
	_, nodes := ReadNodes(context.Background(), tg)
	if nodes.Known || !strings.Contains(nodes.Reason, "inconsistent") {
		t.Errorf("nodes known=%v reason %q", nodes.Known, nodes.Reason)
	}
	if n := calls.Load(); n > 3 {
		t.Errorf("%d node list requests for a repeated token, want at most 3", n)
	}
}
