package action

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/probes"
)

// RBAC is `nestor rbac`: the role a preview identity of the selected stack
// needs, derived from the reads the reader sends for it
// (probes.ClusterReads, probes.RBACRules; a managed kind's objects inside
// the cluster, probes.ProviderObjectReads): get and list only, never a
// secret.
// It reads nothing but the topology.
type RBAC struct {
	Config
	Selection Selection
	// Name names the roles and bindings ("nestor-preview-STACK" when "").
	Name string
	// Namespaced puts the reads made in named namespaces (the declared
	// layers' workloads, kube-system's leases) in a Role of each namespace
	// instead of the ClusterRole.
	Namespaced bool
	// Subject, when set, is who the bindings bind: "user:NAME",
	// "group:NAME" or "serviceaccount:NAMESPACE:NAME"; no binding is made
	// without it.
	Subject string
}

// RBACDoc is rbac's model: the roles (and bindings) as Kubernetes objects
// and, for each rule, what it lets nestor read.
type RBACDoc struct {
	Stack   string
	Objects []RBACObject
}

// RBACObject is one object of the document and the comments of its rules
// (one list of lines per rule, in order).
type RBACObject struct {
	Object any
	Why    [][]string
}

// Run builds the document. Errors: the stack does not load; Subject is not
// one of its three forms.
func (r RBAC) Run() (*RBACDoc, error) {
	s, err := r.LoadStack(r.Selection)
	if err != nil {
		return nil, err
	}
	name := r.Name
	if name == "" {
		name = "nestor-preview-" + s.Name
	}
	var subject *rbacv1.Subject
	if r.Subject != "" {
		if subject, err = parseSubject(r.Subject); err != nil {
			return nil, err
		}
	}
	reads := probes.ClusterReads(s.Topology)
	if pm, ok := s.Kind.(probes.ProviderMarker); ok {
		reads = append(reads, probes.ProviderObjectReads(pm.ProviderMarks())...)
	}
	cluster, byNS := probes.RBACRules(reads), map[string][]probes.Rule{}
	if r.Namespaced {
		cluster, byNS = probes.NamespacedRBACRules(reads)
	}
	doc := &RBACDoc{Stack: s.Name}
	meta := func(ns string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/managed-by": "nestor"}}
	}
	role, why := policyRules(cluster)
	doc.Objects = append(doc.Objects, RBACObject{Object: &rbacv1.ClusterRole{
		TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, ObjectMeta: meta(""), Rules: role}, Why: why})
	if subject != nil {
		doc.Objects = append(doc.Objects, RBACObject{Object: &rbacv1.ClusterRoleBinding{
			TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"}, ObjectMeta: meta(""),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}, Subjects: []rbacv1.Subject{*subject}}})
	}
	namespaces := make([]string, 0, len(byNS))
	for ns := range byNS {
		namespaces = append(namespaces, ns)
	}
	slices.Sort(namespaces)
	for _, ns := range namespaces {
		rules, why := policyRules(byNS[ns])
		doc.Objects = append(doc.Objects, RBACObject{Object: &rbacv1.Role{
			TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"}, ObjectMeta: meta(ns), Rules: rules}, Why: why})
		if subject != nil {
			doc.Objects = append(doc.Objects, RBACObject{Object: &rbacv1.RoleBinding{
				TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"}, ObjectMeta: meta(ns),
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}, Subjects: []rbacv1.Subject{*subject}}})
		}
	}
	return doc, nil
}

// policyRules are rules as rbac/v1 PolicyRules, with each rule's Why.
func policyRules(rules []probes.Rule) ([]rbacv1.PolicyRule, [][]string) {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	why := make([][]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, NonResourceURLs: r.NonResourceURLs, Verbs: r.Verbs})
		why = append(why, r.Why)
	}
	return out, why
}

// parseSubject reads "user:NAME", "group:NAME" or
// "serviceaccount:NAMESPACE:NAME": the three kinds of subject kubectl create
// rolebinding binds, in one flag.
func parseSubject(s string) (*rbacv1.Subject, error) {
	kind, rest, _ := strings.Cut(s, ":")
	switch {
	case kind == "user" && rest != "":
		return &rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: rest}, nil
	case kind == "group" && rest != "":
		return &rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: rest}, nil
	case kind == "serviceaccount":
		if ns, name, ok := strings.Cut(rest, ":"); ok && ns != "" && name != "" {
			return &rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}, nil
		}
	}
	return nil, fmt.Errorf("--bind %q: write user:NAME, group:NAME or serviceaccount:NAMESPACE:NAME", s)
}

// MarshalJSON is the document as a v1 List of its objects, which kubectl
// apply -f takes as it is.
func (d *RBACDoc) MarshalJSON() ([]byte, error) {
	items := make([]any, len(d.Objects))
	for i, o := range d.Objects {
		items[i] = o.Object
	}
	return json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
}
