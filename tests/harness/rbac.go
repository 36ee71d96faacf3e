package harness

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/topology"
)

// ReadOnlyRole is the ClusterRole (and ClusterRoleBinding) that gives
// UserReadOnly its rights.
const ReadOnlyRole = "nestor-test-readonly"

// ReadOnlyRules are the read-only identity's rights: get/list/watch on what
// a preview reads, the access an operator would hand a preview tool. They
// are written out because the built-in view role is aggregated by
// kube-controller-manager, which does not run here (TEST-CLUSTER.md).
var ReadOnlyRules = []rbacv1.PolicyRule{
	{
		APIGroups: []string{""},
		Resources: []string{"nodes", "namespaces", "pods", "services", "configmaps", "serviceaccounts"},
		Verbs:     []string{"get", "list", "watch"},
	},
	{
		APIGroups: []string{"apps"},
		Resources: []string{"deployments", "daemonsets", "statefulsets", "replicasets"},
		Verbs:     []string{"get", "list", "watch"},
	},
	{
		APIGroups: []string{"apiextensions.k8s.io"},
		Resources: []string{"customresourcedefinitions"},
		Verbs:     []string{"get", "list", "watch"},
	},
	{
		APIGroups: []string{"storage.k8s.io"},
		Resources: []string{"storageclasses"},
		Verbs:     []string{"get", "list", "watch"},
	},
	// Before an upgrade: the drain blockers and the API server instances.
	// /metrics is left out on purpose: a managed control plane seldom
	// grants it, and the tests prove what a preview says without it.
	{
		APIGroups: []string{"policy"},
		Resources: []string{"poddisruptionbudgets"},
		Verbs:     []string{"get", "list", "watch"},
	},
	{
		APIGroups: []string{"coordination.k8s.io"},
		Resources: []string{"leases"},
		Verbs:     []string{"get", "list", "watch"},
	},
}

func init() {
	ReadOnlyRules = append(ReadOnlyRules, catalogStatusRules()...)
}

// catalogStatusRules are get/list on the status resources of every layer
// of nestor's catalog (topology's LayerDef.Status): what a preview reads of
// the layers' own status, one rule per API group.
func catalogStatusRules() []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	var groups []string
	for _, d := range topology.Catalog() {
		for _, r := range d.Status {
			if _, ok := byGroup[r.Group]; !ok {
				groups = append(groups, r.Group)
			}
			if !slices.Contains(byGroup[r.Group], r.Resource) {
				byGroup[r.Group] = append(byGroup[r.Group], r.Resource)
			}
		}
	}
	var out []rbacv1.PolicyRule
	for _, g := range groups {
		out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: byGroup[g], Verbs: []string{"get", "list"}})
	}
	return out
}

// setupRBAC creates ReadOnlyRole with ReadOnlyRules and binds it to
// UserReadOnly. UserNoAccess gets no binding.
func (c *Cluster) setupRBAC() error {
	ctx, cancel := opContext()
	defer cancel()
	rbac := c.adminClient.RbacV1()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: ReadOnlyRole},
		Rules:      ReadOnlyRules,
	}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ClusterRole %s: %w", ReadOnlyRole, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ReadOnlyRole},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ReadOnlyRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: UserReadOnly}},
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ClusterRoleBinding %s: %w", ReadOnlyRole, err)
	}
	return nil
}
