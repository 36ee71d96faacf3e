package probes

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"nestor.dev/nestor/topology"
)

// kapsuleLikeMarks are Kapsule's marks as probes/kapsule declares them
// (this package cannot import it), over two kinds.
var kapsuleLikeMarks = topology.ProviderMarks{
	Provider: "Scaleway", Namespace: "kube-system",
	Resources: []topology.ProviderResource{
		{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"},
	},
	Labels: []string{"k8s.scw.cloud/system", "k8s.scw.cloud/object"}, ModeKey: topology.AddonModeKey,
	Managers: []string{"kubectl-client-side-apply", "kubectl-create"}, Source: "test",
}

// eksLikeMarks are what an EKS kind would say: its add-on objects carry
// eks.amazonaws.com/component, and its manager "eks" (server-side apply,
// aws/containers-roadmap #1159) is no user's, so it marks by itself.
var eksLikeMarks = topology.ProviderMarks{
	Provider: "EKS", Namespace: "kube-system",
	Resources: []topology.ProviderResource{{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}},
	Labels:    []string{"eks.amazonaws.com/component"}, Managers: []string{"eks"}, ManagersMark: true, Source: "test",
}

// metaItem is one PartialObjectMetadata as the API server lists it:
// labels (JSON object text) and managedFields (JSON array text).
func metaItem(name, labels, managedFields string) string {
	if labels == "" {
		labels = "{}"
	}
	return fmt.Sprintf(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":%q,"namespace":"kube-system","uid":"u-%s","resourceVersion":"1","creationTimestamp":"2026-11-02T08:14:07Z","labels":%s,"managedFields":%s}}`,
		name, name, labels, managedFields)
}

func metaList(items ...string) string {
	return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"items":[` + strings.Join(items, ",") + `]}`
}

// metaAPI answers the metadata lists of kube-system: body per path, 406
// when the request does not ask for PartialObjectMetadataList, 404 for
// any other path; it records the Accept headers it saw.
type metaAPI struct {
	bodies map[string]string
	codes  map[string]int
	mu     sync.Mutex
	accept []string
}

func (a *metaAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.accept = append(a.accept, r.Header.Get("Accept"))
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if code := a.codes[r.URL.Path]; code != 0 {
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps is forbidden: User \"viewer\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"kube-system\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":%d}`, code)
		return
	}
	body, ok := a.bodies[r.URL.Path]
	switch {
	case !ok:
		w.WriteHeader(404)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	case !strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList"):
		w.WriteHeader(406)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotAcceptable","code":406}`)
	default:
		fmt.Fprint(w, body)
	}
}

// The managedFields of the cases: as the API server records them (fieldsV1
// with "f:" fields, "k:" list keys, "." for a map owned as a whole).
const (
	// kubectl apply (client-side) of a Kapsule-marked ConfigMap; after a
	// later Update changed data.Corefile, the Update owns it and the
	// apply's entry keeps data only as a map.
	mfApplyCM   = `{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2026-11-02T08:14:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:addonmanager.kubernetes.io/mode":{},"f:k8s-app":{},"f:k8s.scw.cloud/object":{},"f:k8s.scw.cloud/system":{}}}}}`
	mfEditData  = `{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2026-11-20T10:03:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:Corefile":{}}}}`
	mfOldEdit   = `{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2026-10-01T10:03:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:Corefile":{}}}}`
	mfSameSec   = `{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2026-11-02T08:14:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:Corefile":{}}}}`
	mfLabelOnly = `{"manager":"kubectl-label","operation":"Update","apiVersion":"v1","time":"2026-11-21T09:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}}}}`
	mfModeEdit  = `{"manager":"kubectl-label","operation":"Update","apiVersion":"v1","time":"2026-11-21T09:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:addonmanager.kubernetes.io/mode":{}}}}}`
	// A Deployment applied client-side, then the deployment controller's
	// revision annotation, its status through the status subresource, a
	// rollout restart, and a server-side apply of a container's image.
	mfApplyDeploy = `{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"apps/v1","time":"2026-11-02T08:14:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:k8s.scw.cloud/object":{},"f:k8s.scw.cloud/system":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:k8s-app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"coredns\"}":{".":{},"f:image":{},"f:name":{}}}}}}}}`
	mfRevision    = `{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2026-11-25T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}}}}`
	mfStatus      = `{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2026-11-25T08:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:status":{},"f:type":{}}},"f:replicas":{}}},"subresource":"status"}`
	// A status write whose fields look like spec: the subresource decides.
	mfStatusOdd = `{"manager":"some-controller","operation":"Update","apiVersion":"apps/v1","time":"2026-11-25T08:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"status"}`
	mfRestart   = `{"manager":"kubectl-rollout","operation":"Update","apiVersion":"apps/v1","time":"2026-11-24T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:template":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{}}}}}}}`
	mfSSAImage  = `{"manager":"argocd-controller","operation":"Apply","apiVersion":"apps/v1","time":"2026-11-22T14:20:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"coredns\"}":{".":{},"f:image":{},"f:name":{}}}}}}}}`
	mfScale     = `{"manager":"kubectl-scale","operation":"Update","apiVersion":"apps/v1","time":"2026-11-23T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}`
	// Written by a manager the provider does not use (a fixture loader):
	// the marks' owner is then the provider's write.
	mfLoader      = `{"manager":"e2e.test","operation":"Update","apiVersion":"v1","time":"2026-11-02T08:14:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:Corefile":{}},"f:metadata":{"f:labels":{".":{},"f:k8s.scw.cloud/object":{},"f:k8s.scw.cloud/system":{}}}}}`
	mfSSALabels   = `{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-11-26T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:Corefile":{}},"f:metadata":{"f:labels":{"f:k8s.scw.cloud/object":{},"f:k8s.scw.cloud/system":{}}}}}`
	mfAPIServer   = `{"manager":"kube-apiserver","operation":"Update","apiVersion":"v1","time":"2026-11-02T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:client-ca-file":{}}}}`
	mfCreate      = `{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-11-27T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:stub.server":{}}}}`
	mfEKS         = `{"manager":"eks","operation":"Apply","apiVersion":"v1","time":"2026-11-02T08:14:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:Corefile":{}},"f:metadata":{"f:labels":{"f:eks.amazonaws.com/component":{},"f:k8s-app":{}}}}}`
	mfEKSNoLabel  = `{"manager":"eks","operation":"Apply","apiVersion":"v1","time":"2026-11-02T08:14:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:config":{}}}}`
	mfBadFieldsV1 = `{"manager":"kubectl-patch","operation":"Update","apiVersion":"v1","time":"2026-11-28T08:00:00Z","fieldsType":"FieldsV2","fieldsV1":{"x":{}}}`
)

const (
	kapsuleCMLabels     = `{"addonmanager.kubernetes.io/mode":"EnsureExists","k8s-app":"kube-dns","k8s.scw.cloud/object":"ConfigMap","k8s.scw.cloud/system":"coredns"}`
	kapsuleReconcile    = `{"addonmanager.kubernetes.io/mode":"Reconcile","k8s.scw.cloud/object":"ConfigMap","k8s.scw.cloud/system":"cni"}`
	kapsuleDeployLabels = `{"k8s.scw.cloud/object":"Deployment","k8s.scw.cloud/system":"coredns"}`
)

func mf(entries ...string) string { return "[" + strings.Join(entries, ",") + "]" }

// TestProviderObjectsRule: real managedFields shapes read through the
// reader (a metadata-only list of kube-system), derived and judged: whose
// each object is, which writes are edits, and what the finding says.
func TestProviderObjectsRule(t *testing.T) {
	type want struct {
		owner topology.ObjectOwner
		edits []string // the managers of the edits
		// msg are words the edit's finding holds; unknown: the edits are
		// not judged (an unknown part names the object).
		msg     []string
		unknown string
	}
	for _, tc := range []struct {
		name  string
		marks topology.ProviderMarks
		kind  string // ConfigMap or Deployment
		item  string
		want  want
	}{
		{"an Update of data after the provider's apply (EnsureExists)", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfApplyCM, mfEditData)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl-edit"}, msg: []string{"edited by kubectl-edit (Update at 2026-11-20 10:03:11 UTC: .data.Corefile)", "after the provider's write (kubectl-client-side-apply at 2026-11-02 08:14:07 UTC)", "EnsureExists: yours from now on"}}},
		{"the same on a Reconcile object", kapsuleLikeMarks, "ConfigMap",
			metaItem("cilium-config", kapsuleReconcile, mf(mfApplyCM, mfEditData)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl-edit"}, msg: []string{"Reconcile: the provider reverts this"}}},
		{"an edit older than the provider's write is not seen", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfOldEdit, mfApplyCM)),
			want{owner: topology.OwnerProvider}},
		{"an edit within the provider's second is not seen", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfApplyCM, mfSameSec)),
			want{owner: topology.OwnerProvider}},
		{"a label added is metadata, not an edit", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfApplyCM, mfLabelOnly)),
			want{owner: topology.OwnerProvider}},
		{"the mode changed by someone else is an edit", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfApplyCM, mfModeEdit)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl-label"}, msg: []string{".metadata.labels.addonmanager.kubernetes.io/mode"}}},
		{"the controller's revision, status and a rollout restart are not edits", kapsuleLikeMarks, "Deployment",
			metaItem("coredns", kapsuleDeployLabels, mf(mfApplyDeploy, mfRevision, mfStatus, mfStatusOdd, mfRestart)),
			want{owner: topology.OwnerProvider}},
		{"a server-side apply of the spec and a scale are edits; no mode said", kapsuleLikeMarks, "Deployment",
			metaItem("coredns", kapsuleDeployLabels, mf(mfApplyDeploy, mfStatus, mfSSAImage, mfScale)),
			want{owner: topology.OwnerProvider, edits: []string{"argocd-controller", "kubectl-scale"}, msg: []string{"argocd-controller (Apply at 2026-11-22 14:20:00 UTC: .spec.template)", "kubectl-scale (Update at 2026-11-23 12:00:00 UTC: .spec.replicas)", "no addonmanager.kubernetes.io/mode"}}},
		{"no write by the provider's managers: the marks' owner wrote for it", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfLoader, mfEditData)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl-edit"}, msg: []string{"after the provider's write (e2e.test at 2026-11-02 08:14:07 UTC)"}}},
		{"a later server-side apply of the same labels is not the provider", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfLoader, mfSSALabels)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl"}}},
		{"no managedFields: not judged", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, "null"),
			want{owner: topology.OwnerProvider, unknown: "no metadata.managedFields"}},
		{"a write nestor cannot read after the provider's: not judged", kapsuleLikeMarks, "ConfigMap",
			metaItem("coredns", kapsuleCMLabels, mf(mfApplyCM, mfBadFieldsV1)),
			want{owner: topology.OwnerProvider, unknown: `fieldsType "FieldsV2"`}},
		{"unmarked, written by the API server: Kubernetes'", kapsuleLikeMarks, "ConfigMap",
			metaItem("extension-apiserver-authentication", "", mf(mfAPIServer)),
			want{owner: topology.OwnerKubernetes}},
		{"unmarked, created by kubectl: yours", kapsuleLikeMarks, "ConfigMap",
			metaItem("my-stub-domains", `{"team":"net"}`, mf(mfCreate)),
			want{owner: topology.OwnerYours}},
		{"unmarked, no writes recorded: yours", kapsuleLikeMarks, "ConfigMap",
			metaItem("old", "", "null"),
			want{owner: topology.OwnerYours}},
		{"EKS: the eks manager's apply, then an edit", eksLikeMarks, "ConfigMap",
			metaItem("coredns", `{"eks.amazonaws.com/component":"coredns","k8s-app":"kube-dns"}`, mf(mfEKS, mfEditData)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl-edit"}, msg: []string{"after the provider's write (eks at 2026-11-02 08:14:07 UTC)"}}},
		{"EKS: the eks manager marks an object without labels", eksLikeMarks, "ConfigMap",
			metaItem("aws-auth-ish", "", mf(mfEKSNoLabel, mfEditData)),
			want{owner: topology.OwnerProvider, edits: []string{"kubectl-edit"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.marks
			api := &metaAPI{bodies: map[string]string{}}
			for _, r := range m.Resources {
				body := metaList()
				if r.Kind == tc.kind {
					body = metaList(tc.item)
				}
				api.bodies[resourcePath(r, m.Namespace)] = body
			}
			srv := httptest.NewTLSServer(api)
			defer srv.Close()
			po := ReadProviderObjects(context.Background(), targetAt(t, srv.URL, 5*time.Second), m)
			po.Derive()
			var got *topology.NamespaceObject
			for li, l := range po.Lists {
				if !l.Objects.Known {
					t.Fatalf("list %s unknown: %s", l.Resource, l.Objects.Reason)
				}
				for oi := range l.Objects.Value {
					got = &po.Lists[li].Objects.Value[oi]
				}
			}
			if got == nil {
				t.Fatal("the object was not read")
			}
			if got.Owner != tc.want.owner {
				t.Errorf("owner %q, want %q (writes %+v)", got.Owner, tc.want.owner, got.Writes)
			}
			var edits []string
			for _, e := range got.Edits {
				edits = append(edits, e.Manager)
			}
			if !slices.Equal(edits, tc.want.edits) {
				t.Errorf("edits %v, want %v (writes %+v)", edits, tc.want.edits, got.Writes)
			}
			findings, unknowns := topology.JudgeProviderObjects(po)
			if len(tc.want.edits) > 0 {
				if len(findings) != 1 || findings[0].Kind != topology.FindingProviderObjectEdited || findings[0].Severity != topology.SeverityWarning {
					t.Fatalf("findings %+v, want one provider-object-edited warning", findings)
				}
				f := findings[0]
				if wantSubject := topology.ProviderObjectSubject(tc.kind, "kube-system", got.Name); f.Subject != wantSubject {
					t.Errorf("subject %+v, want %+v", f.Subject, wantSubject)
				}
				for _, w := range tc.want.msg {
					if !strings.Contains(f.Message, w) {
						t.Errorf("message %q lacks %q", f.Message, w)
					}
				}
			} else if len(findings) != 0 {
				t.Errorf("findings %+v, want none", findings)
			}
			if tc.want.unknown != "" {
				if len(unknowns) != 1 || unknowns[0].Code != topology.ReasonNotReported || unknowns[0].Subject.Kind != topology.SubjectProviderObject || !strings.Contains(unknowns[0].Message, tc.want.unknown) {
					t.Errorf("unknowns %+v, want the object's edits not judged (%q)", unknowns, tc.want.unknown)
				}
			} else if len(unknowns) != 0 {
				t.Errorf("unknowns %+v, want none", unknowns)
			}
			for _, a := range api.accept {
				if a != acceptMetadata {
					t.Errorf("asked for %q, want the metadata list only", a)
				}
			}
		})
	}
}

// TestProviderObjectsUnreadList: a list the API server forbids is unknown
// with its reason code; nothing is claimed of what it holds (no finding),
// the other lists are read and counted, and the counts say they are
// partial. A list that repeats an item is refused, never counted twice.
func TestProviderObjectsUnreadList(t *testing.T) {
	m := kapsuleLikeMarks
	cm, dep := resourcePath(m.Resources[0], m.Namespace), resourcePath(m.Resources[1], m.Namespace)
	api := &metaAPI{
		bodies: map[string]string{dep: metaList(metaItem("coredns", kapsuleDeployLabels, mf(mfApplyDeploy, mfSSAImage)))},
		codes:  map[string]int{cm: 403},
	}
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	po := ReadProviderObjects(context.Background(), targetAt(t, srv.URL, 5*time.Second), m)
	po.Derive()
	if l := po.Lists[0]; l.Objects.Known || l.Objects.Code != topology.ReasonForbidden || !strings.Contains(l.Objects.Reason, "forbidden") {
		t.Errorf("configmaps: %+v, want unknown, forbidden", l.Objects)
	}
	if c := po.Counts; c.Complete || c.Provider != 1 || c.Edited != 1 {
		t.Errorf("counts %+v, want partial: 1 provider's, 1 edited", c)
	}
	findings, unknowns := topology.JudgeProviderObjects(po)
	if len(unknowns) != 1 || unknowns[0].Code != topology.ReasonForbidden || unknowns[0].Subject.Kind != topology.SubjectProviderObjects || unknowns[0].Subject.Text != "configmaps in kube-system" {
		t.Errorf("unknowns %+v, want configmaps in kube-system forbidden", unknowns)
	}
	for _, f := range findings {
		if strings.HasPrefix(f.Subject.Name, "ConfigMap ") {
			t.Errorf("a finding rests on the unread list: %+v", f)
		}
	}
	if len(findings) != 1 {
		t.Errorf("findings %+v, want the Deployment's edit only", findings)
	}

	api.codes = nil
	item := metaItem("coredns", kapsuleCMLabels, mf(mfApplyCM))
	api.bodies[cm] = metaList(item, item)
	po = ReadProviderObjects(context.Background(), targetAt(t, srv.URL, 5*time.Second), m)
	if l := po.Lists[0]; l.Objects.Known || l.Objects.Code != topology.ReasonAnswerRefused {
		t.Errorf("a list naming coredns twice: %+v, want refused", l.Objects)
	}
	api.bodies[cm] = `{"kind":"ConfigMapList","apiVersion":"v1","items":[]}`
	po = ReadProviderObjects(context.Background(), targetAt(t, srv.URL, 5*time.Second), m)
	if l := po.Lists[0]; l.Objects.Known || !strings.Contains(l.Objects.Reason, "not a PartialObjectMetadataList") {
		t.Errorf("a whole ConfigMapList for the metadata asked: %+v, want refused", l.Objects)
	}
}
