package probes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/topology"
)

// fakeAPI is a minimal Kubernetes API server for transport-level tests: it
// answers, in JSON, the reads the probes make (version; nodes, namespaces
// and CRDs as server-side Tables, and 406 Not Acceptable when the request
// does not ask for a Table; StorageClasses, and the three workload kinds
// per namespace), answers 403 to the workload lists of the namespaces in
// forbidden (and to the namespace list when namespacesForbidden), and
// records every request path.
type fakeAPI struct {
	namespaces []string
	crds       []string
	classes    []storagev1.StorageClass
	workloads  []topology.WorkloadState
	forbidden  map[string]bool
	// namespacesForbidden: the namespace list is answered 403.
	namespacesForbidden bool
	// namespacesDelay: the namespace list is answered after this long.
	namespacesDelay time.Duration
	// workloadsGate, when set, holds every workload list until it is
	// closed (or the request ends).
	workloadsGate chan struct{}

	mu    sync.Mutex
	paths []string
}

func (f *fakeAPI) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.paths...)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeTable answers a Table (meta.k8s.io/v1) with columns cols and rows,
// as the API server does for Accept: application/json;as=Table;…, or 406
// when r does not ask for a Table.
func writeTable(w http.ResponseWriter, r *http.Request, cols []string, rows [][]any) {
	if !strings.Contains(r.Header.Get("Accept"), "as=Table") {
		writeJSON(w, 406, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Reason: metav1.StatusReasonNotAcceptable, Code: 406, Message: "the fake API serves this list as a Table only"})
		return
	}
	t := metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	for _, c := range cols {
		t.ColumnDefinitions = append(t.ColumnDefinitions, metav1.TableColumnDefinition{Name: c, Type: "string"})
	}
	for _, row := range rows {
		t.Rows = append(t.Rows, metav1.TableRow{Cells: row})
	}
	writeJSON(w, 200, t)
}

// nameRows is one row per name with an age cell, as the default table
// convertor (CRDs) writes.
func nameRows(names []string) [][]any {
	var rows [][]any
	for _, n := range names {
		rows = append(rows, []any{n, "5m"})
	}
	return rows
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	p := r.URL.Path
	if p == "/api/v1/namespaces" && f.namespacesDelay > 0 {
		select {
		case <-time.After(f.namespacesDelay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case p == "/version":
		writeJSON(w, 200, map[string]string{"gitVersion": "v1.37.2"})
	case p == "/api/v1/nodes":
		// The columns of the API server's node printer, in its order.
		writeTable(w, r, []string{"Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"},
			[][]any{{"dirqual1", "Ready", "control-plane,ingress", "5m", "v1.36.2", "10.67.2.11", "<none>", "Debian GNU/Linux 13", "6.12.0", "containerd://2.1.0"}})
	case p == "/api/v1/namespaces" && f.namespacesForbidden:
		writeJSON(w, 403, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Reason: metav1.StatusReasonForbidden, Code: 403,
			Message: `namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope`})
	case p == "/api/v1/namespaces":
		var rows [][]any
		for _, n := range f.namespaces {
			rows = append(rows, []any{n, "Active", "5m"})
		}
		writeTable(w, r, []string{"Name", "Status", "Age"}, rows)
	case p == "/apis/apiextensions.k8s.io/v1/customresourcedefinitions":
		writeTable(w, r, []string{"Name", "Created At"}, nameRows(f.crds))
	case p == "/apis/storage.k8s.io/v1/storageclasses":
		writeJSON(w, 200, storagev1.StorageClassList{TypeMeta: metav1.TypeMeta{Kind: "StorageClassList", APIVersion: "storage.k8s.io/v1"}, Items: f.classes})
	case strings.HasPrefix(p, "/apis/apps/v1/namespaces/"):
		parts := strings.Split(strings.TrimPrefix(p, "/apis/apps/v1/namespaces/"), "/")
		if len(parts) != 2 {
			http.NotFound(w, r)
			return
		}
		ns, res := parts[0], parts[1]
		if f.workloadsGate != nil {
			select {
			case <-f.workloadsGate:
			case <-r.Context().Done():
				return
			}
		}
		if f.forbidden[ns] {
			writeJSON(w, 403, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonForbidden, Code: 403,
				Message: fmt.Sprintf(`%s.apps is forbidden: User "bob" cannot list resource %q in API group "apps" in the namespace %q`, res, res, ns)})
			return
		}
		f.writeWorkloads(w, r, ns, res)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeAPI) writeWorkloads(w http.ResponseWriter, r *http.Request, ns, res string) {
	var mine []topology.WorkloadState
	for _, ws := range f.workloads {
		if ws.Namespace == ns {
			mine = append(mine, ws)
		}
	}
	meta := func(ws topology.WorkloadState) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: ws.Name, Namespace: ws.Namespace}
	}
	switch res {
	case "deployments":
		l := appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{Kind: "DeploymentList", APIVersion: "apps/v1"}}
		for _, ws := range mine {
			if ws.Kind == topology.KindDeployment {
				d := ws.Desired
				l.Items = append(l.Items, appsv1.Deployment{ObjectMeta: meta(ws), Spec: appsv1.DeploymentSpec{Replicas: &d},
					Status: appsv1.DeploymentStatus{AvailableReplicas: ws.Ready}})
			}
		}
		writeJSON(w, 200, l)
	case "daemonsets":
		l := appsv1.DaemonSetList{TypeMeta: metav1.TypeMeta{Kind: "DaemonSetList", APIVersion: "apps/v1"}}
		for _, ws := range mine {
			if ws.Kind == topology.KindDaemonSet {
				l.Items = append(l.Items, appsv1.DaemonSet{ObjectMeta: meta(ws),
					Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: ws.Desired, NumberAvailable: ws.Ready}})
			}
		}
		writeJSON(w, 200, l)
	case "statefulsets":
		l := appsv1.StatefulSetList{TypeMeta: metav1.TypeMeta{Kind: "StatefulSetList", APIVersion: "apps/v1"}}
		for _, ws := range mine {
			if ws.Kind == topology.KindStatefulSet {
				d := ws.Desired
				l.Items = append(l.Items, appsv1.StatefulSet{ObjectMeta: meta(ws), Spec: appsv1.StatefulSetSpec{Replicas: &d},
					Status: appsv1.StatefulSetStatus{AvailableReplicas: ws.Ready}})
			}
		}
		writeJSON(w, 200, l)
	default:
		http.NotFound(w, r)
	}
}
