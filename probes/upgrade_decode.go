package probes

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// The reads of the upgrade judgement (upgrade.JudgeUpgrade) and their
// bounds.
const (
	// DiscoveryAccept is the Accept header that asks /api and /apis for the
	// aggregated discovery document (apidiscovery.k8s.io/v2
	// APIGroupDiscoveryList, served by kube-apiserver since 1.30; KEP-3352
	// "Aggregated Discovery"). A server that does not serve it answers the
	// unaggregated APIVersions or APIGroupList, which DecodeDiscovery
	// refuses (ErrNotAggregatedDiscovery).
	DiscoveryAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	// DiscoveryLimit bounds one discovery document: 8 MiB, a hundred times
	// a bare API server's /apis (about 60 KiB for 1.37).
	DiscoveryLimit int64 = 8 << 20
	// PDBListLimit bounds the PodDisruptionBudget list: 8 MiB.
	PDBListLimit int64 = 8 << 20
	// LeaseListLimit bounds the identity lease list: 1 MiB.
	LeaseListLimit int64 = 1 << 20
	// IdentityLeaseSelector is the label selector of the API server
	// identity leases in kube-system (kubernetes.io "Leases", API server
	// identity).
	IdentityLeaseSelector = "apiserver.kubernetes.io/identity=kube-apiserver"
	// maxDiscoveryEntries bounds the group versions, and separately the
	// resources, of the two discovery documents together.
	maxDiscoveryEntries = 20000
)

// ErrNotAggregatedDiscovery is wrapped by DecodeDiscovery's error when a
// document is not the aggregated discovery document: the API server (older
// than 1.30, or a proxy in front of it) ignored the Accept header.
var ErrNotAggregatedDiscovery = errors.New("not the aggregated discovery document (apidiscovery.k8s.io/v2 APIGroupDiscoveryList)")

// decodeBounded reads r within limit and decodes it as JSON into v with
// apimachinery's decoder (field names matched case-sensitively, as the API
// server writes them), refusing a document whose kind and apiVersion are
// not wantKind and wantAPIVersion.
func decodeBounded(r io.Reader, limit int64, what, wantKind, wantAPIVersion string, v any) error {
	data, err := readBounded(r, what, limit, "the bound nestor sets for it")
	if err != nil {
		return err
	}
	var head struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if err := utiljson.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%s is not JSON: %s", what, Sanitize(err.Error()))
	}
	if head.Kind != wantKind || head.APIVersion != wantAPIVersion {
		return &kindError{fmt.Sprintf("%s is %s %s, not %s %s", what, quoteOr(SanitizeName(head.APIVersion)), quoteOr(SanitizeName(head.Kind)), wantAPIVersion, wantKind)}
	}
	if err := utiljson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %s", what, Sanitize(err.Error()))
	}
	return nil
}

// kindError is a document of another kind or apiVersion than asked for.
type kindError struct{ msg string }

func (e *kindError) Error() string { return e.msg }

func quoteOr(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// validAPIName reports whether s can be a group, version or resource name
// as discovery writes them: not empty, no "/", no space or control
// character.
func validAPIName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "/ \t\r\n") && printableASCII(s)
}

// DecodeDiscovery decodes the aggregated discovery documents of /api
// (core) and /apis (groups), each the body of a GET with Accept
// DiscoveryAccept read within limit bytes (DiscoveryLimit when limit <= 0),
// into the group versions served with their kinds and each resource's kind
// (apidiscovery.k8s.io/v2: items are groups, "" the core group; each
// version lists its resources with their responseKind; subresources are
// left out). A version whose freshness is Stale (an aggregated API server
// whose discovery could not be refreshed: "clients performing an operation
// should not use the aggregated document") is listed without kinds, so
// APIRemovals says its kinds were not read. A resource without a
// responseKind (one that "supports no operations on the parent resource")
// serves no kind and is left out.
//
// The error names the document: one larger than limit, not JSON, not an
// APIGroupDiscoveryList of apidiscovery.k8s.io/v2 (wrapping
// ErrNotAggregatedDiscovery), a named group in /api or the core group in
// /apis, a group, version or resource name that is empty or holds "/" or a
// space, the same group or group version twice, the same resource twice in
// a group version, more than 20000 group versions or resources.
func DecodeDiscovery(core, groups io.Reader, limit int64) (upgrade.ServedAPIs, error) {
	if limit <= 0 {
		limit = DiscoveryLimit
	}
	res := upgrade.ServedAPIs{GroupVersions: []kube.ServedGroupVersion{}, Resources: []upgrade.ServedResource{}}
	seenGroup := map[string]string{}
	seenGV := map[string]bool{}
	for _, doc := range []struct {
		path string
		r    io.Reader
	}{{"/api", core}, {"/apis", groups}} {
		what := "discovery document " + doc.path
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := decodeBounded(doc.r, limit, what, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2", &list); err != nil {
			var ke *kindError
			if errors.As(err, &ke) {
				return res, fmt.Errorf("%w: %v", ErrNotAggregatedDiscovery, err)
			}
			return res, err
		}
		for _, g := range list.Items {
			name := g.Name
			switch {
			case doc.path == "/api" && name != "":
				return res, fmt.Errorf("%s lists group \"%s\": /api serves the core group only", what, SanitizeName(name))
			case doc.path == "/apis" && name == "":
				return res, fmt.Errorf("%s lists the core group: /apis serves named groups only", what)
			case name != "" && !validAPIName(name):
				return res, fmt.Errorf("%s lists group \"%s\", which is not a group name", what, SanitizeName(name))
			}
			if prev, dup := seenGroup[name]; dup {
				return res, fmt.Errorf("%s lists group %s twice (first in %s)", what, groupWords(name), prev)
			}
			seenGroup[name] = doc.path
			for _, v := range g.Versions {
				if !validAPIName(v.Version) {
					return res, fmt.Errorf("%s: group %s lists version \"%s\", which is not a version name", what, groupWords(name), SanitizeName(v.Version))
				}
				gv := v.Version
				if name != "" {
					gv = name + "/" + v.Version
				}
				if seenGV[gv] {
					return res, fmt.Errorf("%s lists group version %s twice", what, gv)
				}
				seenGV[gv] = true
				if len(seenGV) > maxDiscoveryEntries {
					return res, fmt.Errorf("%s: more than %d group versions: refused", what, maxDiscoveryEntries)
				}
				sgv := kube.ServedGroupVersion{GroupVersion: gv}
				stale := v.Freshness == apidiscoveryv2.DiscoveryFreshnessStale
				seenRes := map[string]bool{}
				for _, r := range v.Resources {
					if !validAPIName(r.Resource) {
						return res, fmt.Errorf("%s: %s lists resource \"%s\", which is not a resource name", what, gv, SanitizeName(r.Resource))
					}
					if seenRes[r.Resource] {
						return res, fmt.Errorf("%s: %s lists resource %s twice", what, gv, r.Resource)
					}
					seenRes[r.Resource] = true
					if stale || r.ResponseKind == nil || r.ResponseKind.Kind == "" {
						continue
					}
					kind := r.ResponseKind.Kind
					if !validAPIName(kind) {
						return res, fmt.Errorf("%s: %s resource %s has kind \"%s\", which is not a kind name", what, gv, r.Resource, SanitizeName(kind))
					}
					res.Resources = append(res.Resources, upgrade.ServedResource{GroupVersion: gv, Resource: r.Resource, Kind: kind})
					if len(res.Resources) > maxDiscoveryEntries {
						return res, fmt.Errorf("%s: more than %d resources: refused", what, maxDiscoveryEntries)
					}
					if !containsString(sgv.Kinds, kind) {
						sgv.Kinds = append(sgv.Kinds, kind)
					}
				}
				sort.Strings(sgv.Kinds)
				res.GroupVersions = append(res.GroupVersions, sgv)
			}
		}
	}
	sort.Slice(res.GroupVersions, func(i, j int) bool { return res.GroupVersions[i].GroupVersion < res.GroupVersions[j].GroupVersion })
	sort.Slice(res.Resources, func(i, j int) bool {
		a, b := res.Resources[i], res.Resources[j]
		return a.GroupVersion < b.GroupVersion || a.GroupVersion == b.GroupVersion && a.Resource < b.Resource
	})
	return res, nil
}

func groupWords(name string) string {
	if name == "" {
		return "core (\"\")"
	}
	return name
}

// DecodePDBList decodes the body of GET /apis/policy/v1/poddisruptionbudgets
// (all namespaces, without limit=: the whole list), read within limit bytes
// (PDBListLimit when limit <= 0), into the states PDBStates gives. The error
// names what is wrong: a body larger than limit, not JSON, not a policy/v1
// PodDisruptionBudgetList, a page of a list (metadata.continue set: the
// rest is not in it), or what PDBStates refuses.
func DecodePDBList(r io.Reader, limit int64) ([]upgrade.PDBState, error) {
	if limit <= 0 {
		limit = PDBListLimit
	}
	var list policyv1.PodDisruptionBudgetList
	if err := decodeBounded(r, limit, "the PodDisruptionBudget list", "PodDisruptionBudgetList", "policy/v1", &list); err != nil {
		return nil, err
	}
	if list.Continue != "" {
		return nil, errors.New("the PodDisruptionBudget list is one page of several (metadata.continue is set): the rest was not read")
	}
	return PDBStates(list.Items)
}

// PDBStates returns the drain judgement's view of PodDisruptionBudgets
// (policy/v1; a typed client's list items, or DecodePDBList's), sorted by
// namespace and name, names made printable (SanitizeName), each with its
// spec.selector as a label selector query (metav1.LabelSelectorAsSelector;
// "" selects every pod of the namespace). A null selector selects no pod
// (policy/v1 PodDisruptionBudgetSpec): its PodNodes are known and empty. A
// selector that does not convert leaves its PodNodes unknown, with why.
// The error refuses a list that contradicts itself: the same
// namespace/name twice, a name or namespace empty, a negative count, a
// status of a generation newer than the object's
// (status.observedGeneration > metadata.generation), more than 100000
// items.
func PDBStates(items []policyv1.PodDisruptionBudget) ([]upgrade.PDBState, error) {
	if len(items) > maxListItems {
		return nil, fmt.Errorf("the PodDisruptionBudget list has %d items, more than %d: refused", len(items), maxListItems)
	}
	out := make([]upgrade.PDBState, 0, len(items))
	seen := map[string]bool{}
	for _, p := range items {
		ns, name := SanitizeName(p.Namespace), SanitizeName(p.Name)
		key := ns + "/" + name
		st := p.Status
		switch {
		case p.Namespace == "" || p.Name == "":
			return nil, fmt.Errorf("the PodDisruptionBudget list has an item without a namespace or a name (\"%s\")", key)
		case seen[key]:
			return nil, fmt.Errorf("the PodDisruptionBudget list holds %s twice", key)
		case st.DisruptionsAllowed < 0 || st.CurrentHealthy < 0 || st.DesiredHealthy < 0 || st.ExpectedPods < 0:
			return nil, fmt.Errorf("PodDisruptionBudget %s has a negative count in its status (disruptionsAllowed %d, currentHealthy %d, desiredHealthy %d, expectedPods %d)",
				key, st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods)
		case st.ObservedGeneration > p.Generation:
			return nil, fmt.Errorf("PodDisruptionBudget %s: its status is of generation %d, newer than the object's %d", key, st.ObservedGeneration, p.Generation)
		}
		seen[key] = true
		state := upgrade.PDBState{Namespace: ns, Name: name, DisruptionsAllowed: st.DisruptionsAllowed, CurrentHealthy: st.CurrentHealthy,
			DesiredHealthy: st.DesiredHealthy, ExpectedPods: st.ExpectedPods, Generation: p.Generation, ObservedGeneration: st.ObservedGeneration}
		switch sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector); {
		case p.Spec.Selector == nil:
			state.PodNodes = topology.KnownFact([]string{})
		case err != nil:
			state.PodNodes = topology.UnknownFact[[]string](topology.Because(topology.ReasonAnswerRefused, "its selector: "+Sanitize(err.Error())))
		default:
			state.Selector = sel.String()
		}
		out = append(out, state)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	return out, nil
}

// APIServerIdentities counts the API server identity leases: live ones,
// renewed within their duration at the judged time, and the others.
type APIServerIdentities struct {
	Live    int
	Expired int
}

// DecodeIdentityLeases decodes the body of GET
// /apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=
// IdentityLeaseSelector, read within limit bytes (LeaseListLimit when limit
// <= 0), and counts its identity leases at now (IdentityLeases). The error
// names what is wrong: a body larger than limit, not JSON, not a
// coordination.k8s.io/v1 LeaseList, a page of a list, or what
// IdentityLeases refuses.
func DecodeIdentityLeases(r io.Reader, limit int64, now time.Time) (APIServerIdentities, error) {
	if limit <= 0 {
		limit = LeaseListLimit
	}
	var list coordinationv1.LeaseList
	if err := decodeBounded(r, limit, "the kube-system Lease list", "LeaseList", "coordination.k8s.io/v1", &list); err != nil {
		return APIServerIdentities{}, err
	}
	if list.Continue != "" {
		return APIServerIdentities{}, errors.New("the kube-system Lease list is one page of several (metadata.continue is set): the rest was not read")
	}
	return IdentityLeases(list.Items, now)
}

// IdentityLeases counts the API server identity leases among leases (of
// kube-system): those named "apiserver-…" with the label
// apiserver.kubernetes.io/identity=kube-apiserver, each kube-apiserver's own
// (kubernetes.io "Leases", API server identity: one lease per API server
// host, renewed every 10 seconds, leaseDurationSeconds 3600, an expired one
// garbage-collected after an hour). A lease is live when spec.renewTime +
// spec.leaseDurationSeconds is after now (the server's clock: its Date
// header, when the reader has it); one without either is counted expired.
// Other leases are not counted. The error refuses the same name or the
// same holderIdentity twice among identity leases, or more than 100000
// items.
func IdentityLeases(leases []coordinationv1.Lease, now time.Time) (APIServerIdentities, error) {
	var ids APIServerIdentities
	if len(leases) > maxListItems {
		return ids, fmt.Errorf("the kube-system Lease list has %d items, more than %d: refused", len(leases), maxListItems)
	}
	names, holders := map[string]bool{}, map[string]bool{}
	for _, l := range leases {
		if !strings.HasPrefix(l.Name, "apiserver-") || l.Labels["apiserver.kubernetes.io/identity"] != "kube-apiserver" {
			continue
		}
		name := SanitizeName(l.Name)
		if names[l.Name] {
			return ids, fmt.Errorf("the kube-system Lease list holds %s twice", name)
		}
		names[l.Name] = true
		if h := l.Spec.HolderIdentity; h != nil && *h != "" {
			if holders[*h] {
				return ids, fmt.Errorf("two API server identity leases are held by %s", SanitizeName(*h))
			}
			holders[*h] = true
		}
		renew, dur := l.Spec.RenewTime, l.Spec.LeaseDurationSeconds
		if renew != nil && dur != nil && renew.Add(time.Duration(*dur)*time.Second).After(now) {
			ids.Live++
		} else {
			ids.Expired++
		}
	}
	return ids, nil
}

// InstancesFact is the number of API server instances the identity leases
// tell, for upgrade.DeprecatedCalls.Instances: known when at least one
// lease is live; unknown, with why, when none is (the APIServerIdentity
// feature gate off, or leases not renewed) or when err (the read's or the
// decoder's) is set — then the reason is Classify(err).
func InstancesFact(ids APIServerIdentities, err error) topology.Fact[int] {
	switch {
	case err != nil:
		return topology.UnknownFact[int](Explain(err).Prefixed("the API server identity leases: "))
	case ids.Live == 0 && ids.Expired > 0:
		return topology.UnknownFact[int](topology.Because(topology.ReasonNotReported, fmt.Sprintf("no live API server identity lease in kube-system (%d expired)", ids.Expired)))
	case ids.Live == 0:
		return topology.UnknownFact[int](topology.Because(topology.ReasonNotReported, "no API server identity lease in kube-system (the APIServerIdentity feature may be off)"))
	}
	return topology.KnownFact(ids.Live)
}

// DeprecatedCallsFrom is what ParseDeprecatedAPIMetrics read (m), as the
// upgrade judgement takes it, with the number of API server instances
// (InstancesFact): the requests, whether they are the whole family, the
// window's start when known.
func DeprecatedCallsFrom(m DeprecatedAPIMetrics, instances topology.Fact[int]) upgrade.DeprecatedCalls {
	c := upgrade.DeprecatedCalls{Requests: make([]upgrade.DeprecatedCall, 0, len(m.Requests)), Complete: m.RequestsComplete, Instances: instances}
	if !m.RequestsComplete {
		c.Limit = m.Limit
	}
	if m.WindowKnown {
		start := m.WindowStart
		c.WindowStart = &start
	}
	for _, r := range m.Requests {
		c.Requests = append(c.Requests, upgrade.DeprecatedCall{Group: r.Group, Version: r.Version, Resource: r.Resource, Subresource: r.Subresource, RemovedRelease: r.RemovedRelease})
	}
	return c
}
