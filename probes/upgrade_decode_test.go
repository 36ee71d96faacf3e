package probes

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// The bodies below follow the Kubernetes API reference of
// apidiscovery.k8s.io/v2 (APIGroupDiscoveryList), policy/v1
// (PodDisruptionBudgetList) and coordination.k8s.io/v1 (LeaseList), in the
// shape kube-apiserver 1.37 writes them.

const coreDiscovery = `{
  "kind": "APIGroupDiscoveryList",
  "apiVersion": "apidiscovery.k8s.io/v2",
  "metadata": {},
  "items": [
    {
      "metadata": {},
      "versions": [
        {
          "version": "v1",
          "resources": [
            {"resource": "bindings", "responseKind": {"group": "", "version": "", "kind": "Binding"}, "scope": "Namespaced", "singularResource": "binding", "verbs": ["create"]},
            {"resource": "componentstatuses", "responseKind": {"group": "", "version": "", "kind": "ComponentStatus"}, "scope": "Cluster", "singularResource": "componentstatus", "verbs": ["get", "list"], "shortNames": ["cs"]},
            {"resource": "pods", "responseKind": {"group": "", "version": "", "kind": "Pod"}, "scope": "Namespaced", "singularResource": "pod",
             "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"], "shortNames": ["po"], "categories": ["all"],
             "subresources": [
               {"subresource": "eviction", "responseKind": {"group": "policy", "version": "v1", "kind": "Eviction"}, "verbs": ["create"]},
               {"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "Pod"}, "verbs": ["get", "patch", "update"]}
             ]}
          ],
          "freshness": "Current"
        }
      ]
    }
  ]
}`

const groupsDiscovery = `{
  "kind": "APIGroupDiscoveryList",
  "apiVersion": "apidiscovery.k8s.io/v2",
  "metadata": {},
  "items": [
    {
      "metadata": {"name": "batch"},
      "versions": [
        {"version": "v1", "resources": [
          {"resource": "cronjobs", "responseKind": {"group": "", "version": "", "kind": "CronJob"}, "scope": "Namespaced", "singularResource": "cronjob", "verbs": ["get", "list"]},
          {"resource": "jobs", "responseKind": {"group": "", "version": "", "kind": "Job"}, "scope": "Namespaced", "singularResource": "job", "verbs": ["get", "list"]}
        ], "freshness": "Current"}
      ]
    },
    {
      "metadata": {"name": "resource.k8s.io"},
      "versions": [
        {"version": "v1", "resources": [
          {"resource": "deviceclasses", "responseKind": {"group": "", "version": "", "kind": "DeviceClass"}, "scope": "Cluster", "singularResource": "deviceclass", "verbs": ["get", "list"]}
        ], "freshness": "Current"},
        {"version": "v1beta1", "resources": [
          {"resource": "deviceclasses", "responseKind": {"group": "", "version": "", "kind": "DeviceClass"}, "scope": "Cluster", "singularResource": "deviceclass", "verbs": ["get", "list"]},
          {"resource": "resourceclaims", "responseKind": {"group": "", "version": "", "kind": "ResourceClaim"}, "scope": "Namespaced", "singularResource": "resourceclaim", "verbs": ["get", "list"],
           "subresources": [{"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "ResourceClaim"}, "verbs": ["get"]}]}
        ], "freshness": "Current"}
      ]
    },
    {
      "metadata": {"name": "metrics.k8s.io"},
      "versions": [
        {"version": "v1beta1", "resources": [
          {"resource": "nodes", "responseKind": {"group": "", "version": "", "kind": "NodeMetrics"}, "scope": "Cluster", "singularResource": "", "verbs": ["get", "list"]}
        ], "freshness": "Stale"}
      ]
    },
    {
      "metadata": {"name": "example.io"},
      "versions": [
        {"version": "v1", "resources": [
          {"resource": "widgets", "scope": "Namespaced", "singularResource": "widget", "verbs": [],
           "subresources": [{"subresource": "proxy", "verbs": ["get"]}]}
        ]}
      ]
    }
  ]
}`

func TestDecodeDiscovery(t *testing.T) {
	got, err := DecodeDiscovery(strings.NewReader(coreDiscovery), strings.NewReader(groupsDiscovery), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantGV := []kube.ServedGroupVersion{
		{GroupVersion: "batch/v1", Kinds: []string{"CronJob", "Job"}},
		{GroupVersion: "example.io/v1"},
		{GroupVersion: "metrics.k8s.io/v1beta1"},
		{GroupVersion: "resource.k8s.io/v1", Kinds: []string{"DeviceClass"}},
		{GroupVersion: "resource.k8s.io/v1beta1", Kinds: []string{"DeviceClass", "ResourceClaim"}},
		{GroupVersion: "v1", Kinds: []string{"Binding", "ComponentStatus", "Pod"}},
	}
	if !reflect.DeepEqual(got.GroupVersions, wantGV) {
		t.Errorf("group versions:\n%+v\nwant\n%+v", got.GroupVersions, wantGV)
	}
	wantRes := []upgrade.ServedResource{
		{GroupVersion: "batch/v1", Resource: "cronjobs", Kind: "CronJob"}, {GroupVersion: "batch/v1", Resource: "jobs", Kind: "Job"},
		{GroupVersion: "resource.k8s.io/v1", Resource: "deviceclasses", Kind: "DeviceClass"},
		{GroupVersion: "resource.k8s.io/v1beta1", Resource: "deviceclasses", Kind: "DeviceClass"}, {GroupVersion: "resource.k8s.io/v1beta1", Resource: "resourceclaims", Kind: "ResourceClaim"},
		{GroupVersion: "v1", Resource: "bindings", Kind: "Binding"}, {GroupVersion: "v1", Resource: "componentstatuses", Kind: "ComponentStatus"}, {GroupVersion: "v1", Resource: "pods", Kind: "Pod"},
	}
	if !reflect.DeepEqual(got.Resources, wantRes) {
		t.Errorf("resources:\n%+v\nwant\n%+v", got.Resources, wantRes)
	}
	// What it is for: the served group versions judged by the lifecycle
	// table. A stale version's kinds are unread, never "none".
	rep, err := kube.APIRemovals(got.GroupVersions, kube.ParseVersion("1.38"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removals) != 1 || rep.Removals[0].GroupVersion != "resource.k8s.io/v1beta1" || !rep.Removals[0].Whole {
		t.Errorf("removals at 1.38: %+v", rep.Removals)
	}
	if !reflect.DeepEqual(rep.NotCovered, []string{"example.io/v1", "metrics.k8s.io/v1beta1"}) {
		t.Errorf("not covered: %q", rep.NotCovered)
	}
}

func TestDecodeDiscoveryRefuses(t *testing.T) {
	doc := func(items string) string {
		return `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[` + items + `]}`
	}
	res := func(name, kind string) string {
		return `{"resource":"` + name + `","responseKind":{"group":"","version":"","kind":"` + kind + `"},"scope":"Cluster","singularResource":"x","verbs":["get"]}`
	}
	group := func(name string, versions ...string) string {
		return `{"metadata":{"name":"` + name + `"},"versions":[` + strings.Join(versions, ",") + `]}`
	}
	version := func(v string, resources ...string) string {
		return `{"version":"` + v + `","resources":[` + strings.Join(resources, ",") + `],"freshness":"Current"}`
	}
	okCore := doc(`{"metadata":{},"versions":[` + version("v1", res("pods", "Pod")) + `]}`)
	tests := []struct {
		name        string
		core, apis  string
		limit       int64
		has         string
		notAggState bool
	}{
		{name: "the unaggregated group list", core: okCore, apis: `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}]}]}`,
			has: "discovery document /apis is v1 APIGroupList, not apidiscovery.k8s.io/v2 APIGroupDiscoveryList", notAggState: true},
		{name: "the unaggregated core versions", core: `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}`, apis: doc(""),
			has: `discovery document /api is "" APIVersions`, notAggState: true},
		{name: "v2beta1", core: strings.Replace(okCore, "/v2", "/v2beta1", 1), apis: doc(""), has: "apidiscovery.k8s.io/v2beta1 APIGroupDiscoveryList, not", notAggState: true},
		{name: "larger than the bound", core: okCore, apis: doc(""), limit: 64, has: "the answer to discovery document /api is larger than 64 bytes"},
		{name: "not JSON", core: okCore, apis: "<html>", has: "discovery document /apis is not JSON"},
		{name: "a named group in /api", core: doc(group("apps", version("v1", res("deployments", "Deployment")))), apis: doc(""), has: `/api lists group "apps": /api serves the core group only`},
		{name: "the core group in /apis", core: okCore, apis: doc(`{"metadata":{},"versions":[]}`), has: "/apis lists the core group"},
		{name: "a group twice", core: okCore, apis: doc(group("apps", version("v1")) + "," + group("apps", version("v1beta1"))), has: "lists group apps twice"},
		{name: "a group version twice", core: okCore, apis: doc(group("apps", version("v1"), version("v1"))), has: "lists group version apps/v1 twice"},
		{name: "a resource twice", core: okCore, apis: doc(group("apps", version("v1", res("deployments", "Deployment"), res("deployments", "Deployment")))), has: "apps/v1 lists resource deployments twice"},
		{name: "a group with a slash", core: okCore, apis: doc(group("apps/x", version("v1"))), has: `lists group "apps/x", which is not a group name`},
		{name: "an empty version", core: okCore, apis: doc(group("apps", version(""))), has: `group apps lists version "", which is not a version name`},
		{name: "an empty resource", core: okCore, apis: doc(group("apps", version("v1", res("", "Deployment")))), has: `apps/v1 lists resource "", which is not a resource name`},
		{name: "a kind with a space", core: okCore, apis: doc(group("apps", version("v1", res("deployments", "Deploy ment")))), has: `has kind "Deploy ment"`},
		{name: "a control character, made printable", core: okCore, apis: doc(group(`apps\u001b[31m`, version("v1"))), has: `apps\x1b[31m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeDiscovery(strings.NewReader(tt.core), strings.NewReader(tt.apis), tt.limit)
			if err == nil || !strings.Contains(err.Error(), tt.has) {
				t.Fatalf("error %v, want one holding %q", err, tt.has)
			}
			if errors.Is(err, ErrNotAggregatedDiscovery) != tt.notAggState {
				t.Errorf("errors.Is(ErrNotAggregatedDiscovery) = %v, want %v", !tt.notAggState, tt.notAggState)
			}
		})
	}
	// The many-entries bound.
	var many []string
	for i := 0; i <= maxDiscoveryEntries; i++ {
		many = append(many, `{"version":"v`+strconv.Itoa(i)+`"}`)
	}
	_, err := DecodeDiscovery(strings.NewReader(okCore), strings.NewReader(doc(group("apps", many...))), 0)
	if err == nil || !strings.Contains(err.Error(), "more than 20000 group versions") {
		t.Errorf("error %v, want the group-version bound", err)
	}
}

const pdbList = `{
  "kind": "PodDisruptionBudgetList",
  "apiVersion": "policy/v1",
  "metadata": {"resourceVersion": "222"},
  "items": [
    {
      "metadata": {"name": "rook-ceph-osd", "namespace": "rook-ceph", "uid": "956c60ec-716b-4c03-a0fd-5e9e7905094a", "resourceVersion": "222", "generation": 2, "creationTimestamp": "2026-12-01T22:16:52Z"},
      "spec": {"selector": {"matchLabels": {"app": "rook-ceph-osd"}}, "maxUnavailable": 1},
      "status": {"observedGeneration": 2, "disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 3,
                 "conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods", "message": "", "observedGeneration": 2, "lastTransitionTime": "2026-12-01T22:20:00Z"}]}
    },
    {
      "metadata": {"name": "osd", "namespace": "default", "generation": 1, "creationTimestamp": "2026-12-01T22:16:52Z"},
      "spec": {"selector": {"matchLabels": {"app": "osd"}}, "maxUnavailable": 1},
      "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    },
    {
      "metadata": {"name": "all", "namespace": "web", "generation": 1},
      "spec": {"selector": {}, "minAvailable": 1},
      "status": {"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}
    },
    {
      "metadata": {"name": "none", "namespace": "web", "generation": 1},
      "spec": {"minAvailable": 1},
      "status": {"observedGeneration": 1}
    },
    {
      "metadata": {"name": "expr", "namespace": "web", "generation": 1},
      "spec": {"selector": {"matchLabels": {"tier": "front"}, "matchExpressions": [{"key": "app", "operator": "In", "values": ["a", "b"]}]}},
      "status": {"observedGeneration": 1}
    },
    {
      "metadata": {"name": "bad", "namespace": "web", "generation": 1},
      "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "Near", "values": ["a"]}]}},
      "status": {"observedGeneration": 1}
    }
  ]
}`

func TestDecodePDBList(t *testing.T) {
	got, err := DecodePDBList(strings.NewReader(pdbList), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Each selector as a label selector query: "" selects the whole
	// namespace, a null one selects no pod (its nodes known: none), one
	// that does not convert leaves its nodes unknown.
	want := []upgrade.PDBState{
		{Namespace: "default", Name: "osd", Generation: 1, Selector: "app=osd"},
		{Namespace: "rook-ceph", Name: "rook-ceph-osd", CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3, Generation: 2, ObservedGeneration: 2, Selector: "app=rook-ceph-osd"},
		{Namespace: "web", Name: "all", CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1, Generation: 1, ObservedGeneration: 1},
		{Namespace: "web", Name: "bad", Generation: 1, ObservedGeneration: 1,
			PodNodes: topology.UnknownFact[[]string](topology.Because(topology.ReasonAnswerRefused, `its selector: "Near" is not a valid label selector operator`))},
		{Namespace: "web", Name: "expr", Generation: 1, ObservedGeneration: 1, Selector: "app in (a,b),tier=front"},
		{Namespace: "web", Name: "none", Generation: 1, ObservedGeneration: 1, PodNodes: topology.KnownFact([]string{})},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("states\n%+v\nwant\n%+v", got, want)
	}
	empty, err := DecodePDBList(strings.NewReader(`{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1","metadata":{},"items":[]}`), 0)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("an empty list: %v, %v (want [], never nil)", empty, err)
	}
	item := func(ns, name string, gen int64, status string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"` + ns + `","generation":` + strconv.Itoa(int(gen)) + `},"spec":{},"status":` + status + `}`
	}
	list := func(items ...string) string {
		return `{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1","metadata":{},"items":[` + strings.Join(items, ",") + `]}`
	}
	okStatus := `{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2}`
	refused := []struct {
		name, body string
		limit      int64
		has        string
	}{
		{"the same budget twice", list(item("a", "b", 1, okStatus), item("a", "b", 1, okStatus)), 0, "holds a/b twice"},
		{"a negative count", list(item("a", "b", 1, `{"observedGeneration":1,"disruptionsAllowed":-1}`)), 0, "PodDisruptionBudget a/b has a negative count"},
		{"a status of a later generation", list(item("a", "b", 1, `{"observedGeneration":3}`)), 0, "its status is of generation 3, newer than the object's 1"},
		{"no name", list(item("a", "", 1, okStatus)), 0, "without a namespace or a name"},
		{"a page", `{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1","metadata":{"continue":"abc"},"items":[]}`, 0, "one page of several"},
		{"another kind", `{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1beta1","items":[]}`, 0, "is policy/v1beta1 PodDisruptionBudgetList, not policy/v1 PodDisruptionBudgetList"},
		{"larger than the bound", pdbList, 100, "larger than 100 bytes"},
		{"a wrong type", `{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1","items":[{"status":{"expectedPods":"three"}}]}`, 0, "the PodDisruptionBudget list:"},
	}
	for _, tt := range refused {
		if _, err := DecodePDBList(strings.NewReader(tt.body), tt.limit); err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: error %v, want one holding %q", tt.name, err, tt.has)
		}
	}
}

func lease(name, identity, holder, renew string, duration int) string {
	s := `{"metadata":{"name":"` + name + `","namespace":"kube-system","labels":{`
	if identity != "" {
		s += `"apiserver.kubernetes.io/identity":"` + identity + `",`
	}
	s += `"kubernetes.io/hostname":"cp"}},"spec":{"holderIdentity":"` + holder + `"`
	if duration > 0 {
		s += `,"leaseDurationSeconds":` + strconv.Itoa(duration)
	}
	if renew != "" {
		s += `,"renewTime":"` + renew + `"`
	}
	return s + `}}`
}

func leaseList(items ...string) string {
	return `{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"221"},"items":[` + strings.Join(items, ",") + `]}`
}

func TestDecodeIdentityLeases(t *testing.T) {
	now := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	body := leaseList(
		lease("apiserver-wlv32tlttr4jl3gtroqexyxapa", "kube-apiserver", "apiserver-wlv32tlttr4jl3gtroqexyxapa_2402f3b1-8bfc-441d-8953-9992a26921fe", "2026-12-01T22:59:50.751363Z", 3600),
		lease("apiserver-07a5ea9b9b072c4a5f3d1c3702", "kube-apiserver", "apiserver-07a5ea9b9b072c4a5f3d1c3702_0c8914f7-0f35-440e-8676-7844977d3a05", "2026-12-01T22:10:00.000000Z", 3600),
		lease("apiserver-1dfef752bcb36637d2763d1868", "kube-apiserver", "apiserver-1dfef752bcb36637d2763d1868_c5ffa286", "2026-12-01T21:00:00.000000Z", 3600),
		lease("apiserver-nolabel", "", "x", "2026-12-01T22:59:50.000000Z", 3600),
		lease("kube-scheduler", "", "cp_1", "2026-12-01T22:59:58.000000Z", 15),
		lease("apiserver-norenew", "kube-apiserver", "apiserver-norenew_1", "", 3600),
	)
	got, err := DecodeIdentityLeases(strings.NewReader(body), 0, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (APIServerIdentities{Live: 2, Expired: 2}); got != want {
		t.Errorf("identities %+v, want %+v", got, want)
	}
	refused := []struct {
		name, body, has string
	}{
		{"the same lease twice", leaseList(lease("apiserver-a", "kube-apiserver", "h1", "2026-12-01T22:59:50.000000Z", 3600), lease("apiserver-a", "kube-apiserver", "h2", "2026-12-01T22:59:50.000000Z", 3600)), "holds apiserver-a twice"},
		{"one holder twice", leaseList(lease("apiserver-a", "kube-apiserver", "h1", "2026-12-01T22:59:50.000000Z", 3600), lease("apiserver-b", "kube-apiserver", "h1", "2026-12-01T22:59:50.000000Z", 3600)), "two API server identity leases are held by h1"},
		{"a page", `{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"continue":"x"},"items":[]}`, "one page of several"},
		{"another kind", `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1"}`, "not coordination.k8s.io/v1 LeaseList"},
	}
	for _, tt := range refused {
		if _, err := DecodeIdentityLeases(strings.NewReader(tt.body), 0, now); err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: error %v, want one holding %q", tt.name, err, tt.has)
		}
	}
}

func TestInstancesFact(t *testing.T) {
	tests := []struct {
		ids  APIServerIdentities
		err  error
		want topology.Fact[int]
	}{
		{APIServerIdentities{Live: 3, Expired: 1}, nil, topology.KnownFact(3)},
		{APIServerIdentities{Expired: 2}, nil, topology.UnknownFact[int](topology.Because(topology.ReasonNotReported, "no live API server identity lease in kube-system (2 expired)"))},
		{APIServerIdentities{}, nil, topology.UnknownFact[int](topology.Because(topology.ReasonNotReported, "no API server identity lease in kube-system (the APIServerIdentity feature may be off)"))},
		// A decoder's refusal, as readIdentityLeases returns it: the answer
		// was refused; another error keeps its own code.
		{APIServerIdentities{Live: 3}, &AnswerRefusedError{Err: errors.New("the kube-system Lease list holds apiserver-a twice")}, topology.UnknownFact[int](topology.Because(topology.ReasonAnswerRefused, "the API server identity leases: the kube-system Lease list holds apiserver-a twice"))},
		{APIServerIdentities{Live: 3}, errors.New("read: connection reset"), topology.UnknownFact[int](topology.Because(topology.ReasonFailed, "the API server identity leases: read: connection reset"))},
	}
	for i, tt := range tests {
		if got := InstancesFact(tt.ids, tt.err); got != tt.want {
			t.Errorf("case %d: %+v, want %+v", i, got, tt.want)
		}
	}
}

func TestDeprecatedCallsFrom(t *testing.T) {
	const exposition = `# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.
# TYPE apiserver_requested_deprecated_apis gauge
apiserver_requested_deprecated_apis{group="resource.k8s.io",removed_release="1.38",resource="deviceclasses",subresource="",version="v1beta1"} 1
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79616337088e+09
`
	m, err := ParseDeprecatedAPIMetrics(strings.NewReader(exposition), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := DeprecatedCallsFrom(m, topology.KnownFact(2))
	start := time.Unix(1796163370, 880000000).UTC()
	if !got.Complete || got.Limit != 0 || got.WindowStart == nil || got.WindowStart.Sub(start).Abs() > time.Millisecond || got.Instances != topology.KnownFact(2) ||
		!reflect.DeepEqual(got.Requests, []upgrade.DeprecatedCall{{Group: "resource.k8s.io", Version: "v1beta1", Resource: "deviceclasses", RemovedRelease: "1.38"}}) {
		t.Errorf("calls %+v", got)
	}
	// Cut at its bound: not complete, the bound said, no window.
	m, err = ParseDeprecatedAPIMetrics(strings.NewReader(exposition), 200)
	if err != nil {
		t.Fatal(err)
	}
	got = DeprecatedCallsFrom(m, topology.UnknownFact[int](topology.Because(topology.ReasonFailed, "not read")))
	if got.Complete || got.Limit != 200 || got.WindowStart != nil || got.Requests == nil {
		t.Errorf("a cut read: %+v", got)
	}
}
