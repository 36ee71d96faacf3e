package harness

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GrantReadOnly gives UserReadOnly get/list/watch on more resources than
// ReadOnlyRules (an operator's custom resources, whose CRDs a fixture
// brings): a ClusterRole and ClusterRoleBinding named name. A test that
// does not call it proves what a preview says when those reads are
// forbidden.
func (c *Cluster) GrantReadOnly(name string, rules []rbacv1.PolicyRule) error {
	ctx, cancel := opContext()
	defer cancel()
	rbac := c.adminClient.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ClusterRole %s: %w", name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: UserReadOnly}},
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ClusterRoleBinding %s: %w", name, err)
	}
	return nil
}

// ReadRules returns get/list/watch rules on each group's resources
// (group → plurals), one rule per group.
func ReadRules(resources map[string][]string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for g, rs := range resources {
		out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: rs, Verbs: []string{"get", "list", "watch"}})
	}
	return out
}
