package probes

import (
	"sort"
	"strings"

	"nestor.dev/nestor/topology"
)

// Read is one kind of request the kube reader sends for a stack, as RBAC
// sees it: a resource of an API group with the verbs used, or a
// non-resource URL; and what it is for. Every read is get or list: nestor
// never asks for more.
type Read struct {
	// Group and Resource name a resource ("" is the core group);
	// NonResourceURL is set instead for /version, /metrics, discovery.
	Group, Resource string
	NonResourceURL  string
	// Namespaces are where a namespaced resource is read, when the reader
	// reads it in named namespaces only (the declared layers' workloads,
	// the identity leases of kube-system); empty: all namespaces, or a
	// cluster-scoped resource.
	Namespaces []string
	Verbs      []string
	// Why says what preview reads it for ("the nodes and their Ready
	// condition").
	Why string
}

// ClusterReads are the reads a preview of t sends to its cluster, in the
// order the reader sends them, derived from the same rules the reader uses:
// /version; the nodes, namespaces, CRDs and StorageClasses (lists, and a
// list of one node for the Ready condition of a node that is not Ready);
// the Deployments, DaemonSets and StatefulSets where the declared layers
// live (their namespaces in Namespaces); each declared layer's status
// resources (all the versions nestor knows, since the first the server
// serves is read), and for a custom layer's detect.resource the discovery
// of its group version and a get of its object; the status resources of
// every other catalog layer, which are read when that layer is found on the
// cluster undeclared (its workloads with the workload rule, in their own
// namespaces); for a stack with a provider's offer (scaleway:), /metrics
// for etcd's size (Opened.ReadStorageSize). Then what the upgrade report
// reads when a move is due (Opened.ReadUpgrade): discovery (/api, /apis),
// /metrics, the identity leases of kube-system, the PodDisruptionBudgets and
// the pods of those that allow no disruption (as a Table: names and nodes).
// Secrets are never read.
func ClusterReads(t *topology.Topology) []Read {
	list := []string{"list"}
	get := []string{"get"}
	workloadNS := workloadNamespaces(t, topology.ClusterFacts{}, false)
	out := []Read{
		{NonResourceURL: "/version", Verbs: get, Why: "the API server's version (granted to every user by system:public-info-viewer)"},
		{Group: "", Resource: "nodes", Verbs: list, Why: "the nodes, their roles, kubelet versions and Ready condition"},
		{Group: "", Resource: "namespaces", Verbs: list, Why: "which layers' namespaces exist"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Verbs: list, Why: "the CRD groups that show a layer installed"},
		{Group: "storage.k8s.io", Resource: "storageclasses", Verbs: list, Why: "the default StorageClass and the storage layers' provisioners"},
	}
	for _, res := range []string{"deployments", "daemonsets", "statefulsets"} {
		out = append(out, Read{Group: "apps", Resource: res, Namespaces: workloadNS, Verbs: list, Why: "the layers' workloads, their availability and images"})
	}
	for _, r := range statusResources(declaredDefs(t)) {
		if r.Name != "" {
			for _, v := range r.Versions {
				out = append(out, Read{NonResourceURL: apiBase(r.Group, v), Verbs: get, Why: "the discovery of " + r.Kind + "'s resource (detect.resource)"})
			}
			out = append(out, Read{Group: r.Group, Resource: pluralGuess(r), Verbs: get, Why: r.Kind + " " + r.Name + ": its status decides the custom layer's health"})
			continue
		}
		why := r.Kind + ": its status decides the layer's health"
		if !r.Decides {
			why = r.Kind + ": what its status says of what runs on the layer"
		}
		out = append(out, Read{Group: r.Group, Resource: r.Resource, Verbs: list, Why: why})
	}
	seen := map[string]bool{}
	for _, r := range out {
		seen[r.Group+"/"+r.Resource] = true
	}
	for _, r := range statusResources(undeclaredDefs(t)) {
		if !seen[r.Group+"/"+r.Resource] {
			seen[r.Group+"/"+r.Resource] = true
			out = append(out, Read{Group: r.Group, Resource: r.Resource, Verbs: list, Why: r.Kind + ": its status, when its layer is found on the cluster undeclared"})
		}
	}
	if t != nil && t.Scaleway != nil {
		// A managed offer's etcd quota (ReadStorageSize): read at every
		// preview of a stack whose provider sets one.
		out = append(out, Read{NonResourceURL: pathMetrics, Verbs: get, Why: "apiserver_storage_size_bytes: the size of etcd against the cluster type's max_etcd_size"})
	}
	const before = "before an upgrade (read only when one is planned or due): "
	return append(out,
		Read{NonResourceURL: pathCoreDiscovery, Verbs: get, Why: before + "the group versions served (granted to every user by system:discovery)"},
		Read{NonResourceURL: pathGroupDiscovery, Verbs: get, Why: before + "the group versions served (granted to every user by system:discovery)"},
		Read{NonResourceURL: pathMetrics, Verbs: get, Why: before + "apiserver_requested_deprecated_apis: the clients still calling deprecated APIs"},
		Read{Group: "coordination.k8s.io", Resource: "leases", Namespaces: []string{"kube-system"}, Verbs: list, Why: before + "the API server identity leases: how many API servers the metric speaks for"},
		Read{Group: "policy", Resource: "poddisruptionbudgets", Verbs: list, Why: before + "the PodDisruptionBudgets that would hold a drain"},
		Read{Group: "", Resource: "pods", Verbs: list, Why: before + "the nodes the pods of a PodDisruptionBudget that allows no disruption run on (names and nodes only): which drain it holds"},
	)
}

// undeclaredDefs are the catalog layers t does not declare: those the
// reader looks for on the cluster.
func undeclaredDefs(t *topology.Topology) []topology.LayerDef {
	declared := map[string]bool{}
	if t != nil {
		for _, ref := range t.Layers {
			declared[ref.Name] = true
		}
	}
	var out []topology.LayerDef
	for _, def := range topology.Catalog() {
		if !declared[def.Name] {
			out = append(out, def)
		}
	}
	return out
}

// pluralGuess is the resource of a custom layer's kind as Kubernetes names
// it by default: the lowercase kind plus "s" (a CRD's default plural).
// RBAC names the plural; the reader itself finds it by discovery.
func pluralGuess(r topology.StatusResource) string {
	if r.Resource != "" {
		return r.Resource
	}
	return strings.ToLower(r.Kind) + "s"
}

// Rule is one RBAC rule of a ClusterRole (rbac.authorization.k8s.io/v1
// PolicyRule), with what it lets nestor read.
type Rule struct {
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
	Verbs           []string `json:"verbs"`
	// Why says what each resource is read for, one line each.
	Why []string `json:"-"`
}

// RBACRules turns reads into the fewest RBAC rules: one per API group and set
// of verbs, one per set of non-resource URLs' verbs; groups and resources
// sorted.
func RBACRules(reads []Read) []Rule {
	type key struct{ group, verbs string }
	byKey := map[key]*Rule{}
	var keys []key
	var urls []*Rule
	for _, r := range reads {
		verbs := strings.Join(r.Verbs, ",")
		if r.NonResourceURL != "" {
			var found *Rule
			for _, u := range urls {
				if strings.Join(u.Verbs, ",") == verbs {
					found = u
				}
			}
			if found == nil {
				found = &Rule{Verbs: r.Verbs}
				urls = append(urls, found)
			}
			if !contains(found.NonResourceURLs, r.NonResourceURL) {
				found.NonResourceURLs = append(found.NonResourceURLs, r.NonResourceURL)
			}
			if why := r.NonResourceURL + ": " + r.Why; !contains(found.Why, why) {
				found.Why = append(found.Why, why) // one URL read for several ends says each
			}
			continue
		}
		k := key{r.Group, verbs}
		rule, ok := byKey[k]
		if !ok {
			rule = &Rule{APIGroups: []string{r.Group}, Verbs: r.Verbs}
			byKey[k] = rule
			keys = append(keys, k)
		}
		if !contains(rule.Resources, r.Resource) {
			rule.Resources = append(rule.Resources, r.Resource)
			rule.Why = append(rule.Why, r.Resource+": "+r.Why)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].group != keys[j].group {
			return keys[i].group < keys[j].group
		}
		return keys[i].verbs < keys[j].verbs
	})
	var out []Rule
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	for _, u := range urls {
		out = append(out, *u)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NamespacedRBACRules is Rules for a ClusterRole and namespaced Roles: the
// reads made in named namespaces only (Read.Namespaces) become the rules
// of a Role in each of those namespaces (keyed by namespace), every other
// read a rule of the ClusterRole.
func NamespacedRBACRules(reads []Read) (cluster []Rule, byNamespace map[string][]Rule) {
	var rest []Read
	perNS := map[string][]Read{}
	for _, r := range reads {
		if len(r.Namespaces) == 0 || r.NonResourceURL != "" {
			rest = append(rest, r)
			continue
		}
		for _, ns := range r.Namespaces {
			perNS[ns] = append(perNS[ns], r)
		}
	}
	byNamespace = map[string][]Rule{}
	for ns, rs := range perNS {
		byNamespace[ns] = RBACRules(rs)
	}
	return RBACRules(rest), byNamespace
}
