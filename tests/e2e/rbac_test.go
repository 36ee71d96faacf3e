package e2e

// End-to-end proof of `nestor rbac`: the role it prints for a stack is
// exactly what a preview of that stack reads. An identity with no rights
// of its own, bound to that role on the real API server, gets a full read
// (nothing forbidden, nothing unknown); with any one rule taken out, what
// that rule grants — and only that — is forbidden, and it reaches the
// report as unknown, never as absent.

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/tests/harness"
)

// rbacStack is the demo stack (tests/demo) declaring 1.38, so that the
// upgrade report's reads are made too; %s are the endpoint and the
// kubeconfig.
const rbacStack = `name: demo
target_kind: prod
kubeconfig: %s
endpoint: %s
kubernetes:
  version: "1.38"
nodes:
  - {name: demo1, role: control-plane, address: 10.20.0.11}
  - {name: demo2, role: worker, address: 10.20.0.12}
  - {name: demo3, role: worker, address: 10.20.0.13}
  - {name: demo4, role: worker, address: 10.20.0.14}
backend: ceph
layers: [cilium, rook-ceph, cnpg, kube-prometheus-stack, argocd]
`

// forbiddenRE finds what a report says was forbidden: the resource
// (resource.group) or the path after "cannot VERB".
var forbiddenRE = regexp.MustCompile(`forbidden \(user \S+ cannot \S+ (?:path )?([^ )]+)( in namespace [^ )]+)?\)`)

// forbiddenParts lists the forbidden resources a report names (without
// their group), with the namespace when one is named ("deployments in
// cert-manager").
func forbiddenParts(out string) []string {
	var parts []string
	for _, m := range forbiddenRE.FindAllStringSubmatch(out, -1) {
		res, _, _ := strings.Cut(m[1], ".")
		if strings.HasPrefix(m[1], "/") {
			res = m[1]
		}
		p := res
		if m[2] != "" {
			p += " in" + strings.TrimPrefix(m[2], " in namespace")
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return parts
}

func TestRBACRoleIsWhatPreviewReads(t *testing.T) {
	c := ownCluster(t, "demo.yaml")
	// The CRDs of layers the stack does not declare: found on the
	// cluster, their own status resources are read too.
	if err := c.LoadUpstreamCRDs("clustersecretstores.external-secrets.io", "secretstores.external-secrets.io", "externalsecrets.external-secrets.io",
		"gitrepositories.source.toolkit.fluxcd.io", "ocirepositories.source.toolkit.fluxcd.io", "helmrepositories.source.toolkit.fluxcd.io",
		"kustomizations.kustomize.toolkit.fluxcd.io", "helmreleases.helm.toolkit.fluxcd.io", "nodes.longhorn.io", "volumes.longhorn.io"); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, c)
	kc := w.kubeconfig(c, filepath.Join(w.Home, ".kube", "demo.config"), harness.IdentityNoAccess, "")
	w.stackFile("demo", strings.ReplaceAll(strings.Replace(rbacStack, "%s", kc, 1), "%s", c.URL))
	preview := func() (string, previewDoc) {
		t.Helper()
		r := w.run(nil, "preview", "--stacks", w.Stacks, "demo", "-o", "json", "--as-of", "2026-12-01")
		return r.stdout, decodePreview(t, r)
	}
	out, _ := preview()
	if len(forbiddenParts(out)) < 5 {
		t.Fatalf("the identity is not without rights before the role is bound: %v", forbiddenParts(out))
	}

	r := w.run(nil, "rbac", "--stacks", w.Stacks, "demo", "--bind", "user:"+harness.UserNoAccess)
	wantCode(t, r, 0)
	apply := exec.Command(filepath.Join(harnessBin(t), "kubectl"), "--kubeconfig", c.Admin, "apply", "-f", "-")
	apply.Stdin = strings.NewReader(r.stdout)
	if b, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -f - of nestor rbac's output: %v\n%s\n%s", err, b, r.stdout)
	}
	role, err := c.AdminClient().RbacV1().ClusterRoles().Get(context.Background(), "nestor-preview-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := role.Rules
	for _, rule := range full {
		if slices.Contains(rule.Resources, "secrets") || slices.Contains(rule.Resources, "*") || slices.Contains(rule.APIGroups, "*") {
			t.Errorf("the role grants more than nestor reads: %v", rule)
		}
		for _, v := range rule.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("the role grants verb %q: %v", v, rule)
			}
		}
	}

	// waitFor previews until the forbidden parts are want (RBAC's
	// authorizer follows its objects through a watch: a change lands
	// within moments), at most 10 s.
	waitFor := func(want func([]string) bool) (string, previewDoc, []string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, d := preview()
			parts := forbiddenParts(out)
			if want(parts) || time.Now().After(deadline) {
				return out, d, parts
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	var read []string // the paths the full read sent
	t.Run("bound to exactly that role: a full read", func(t *testing.T) {
		out, d, parts := waitFor(func(p []string) bool { return len(p) == 0 })
		if len(parts) != 0 || d.Summary.Unknown != 0 || strings.Contains(out, "forbidden") {
			t.Errorf("with the role: forbidden %v, %d unknown:\n%s", parts, d.Summary.Unknown, out)
		}
		before := len(auditEvents(t, c))
		preview()
		read = auditPaths(auditEvents(t, c)[before:])
	})

	for i, rule := range full {
		grants := append(append([]string{}, rule.Resources...), rule.NonResourceURLs...)
		t.Run("without "+strings.Join(grants, ","), func(t *testing.T) {
			if !ruleRead(read, rule) {
				t.Fatalf("the full read sent no request the rule %v grants", rule)
			}
			setRules(t, c, slices.Delete(slices.Clone(full), i, i+1))
			t.Cleanup(func() { setRules(t, c, full) })
			out, d, parts := waitFor(func(p []string) bool { return len(p) > 0 })
			if len(parts) == 0 {
				t.Fatalf("nothing forbidden without the rule %v:\n%s", rule, out)
			}
			for _, p := range parts {
				res, _, _ := strings.Cut(p, " in ")
				if !slices.Contains(grants, res) {
					t.Errorf("without %v, %q is forbidden too", grants, p)
				}
			}
			// The forbidden read reaches the report the operator reads, too.
			text := w.run(nil, "preview", "--stacks", w.Stacks, "demo", "--no-input", "--detailed", "--as-of", "2026-12-01")
			if !strings.Contains(text.stdout, "forbidden") {
				t.Errorf("without %v, the human view does not say a read was forbidden (unknown %d):\n%s", grants, d.Summary.Unknown, text.stdout)
			}
		})
	}

	t.Run("--namespaced: the declared layers' workloads read through Roles", func(t *testing.T) {
		setRules(t, c, full)
		r := w.run(nil, "rbac", "--stacks", w.Stacks, "demo", "--namespaced", "--bind", "user:"+harness.UserNoAccess, "--name", "nestor-preview-demo-ns")
		wantCode(t, r, 0)
		// A Role of a candidate namespace that does not exist cannot be
		// applied (the command's help says so): only those of existing
		// namespaces are applied here.
		var docs []string
		for _, doc := range strings.Split(r.stdout, "\n---\n") {
			if ns := regexp.MustCompile(`(?m)^  namespace: (\S+)$`).FindStringSubmatch(doc); ns != nil {
				if _, err := c.AdminClient().CoreV1().Namespaces().Get(context.Background(), ns[1], metav1.GetOptions{}); err != nil {
					continue
				}
			}
			docs = append(docs, doc)
		}
		if err := c.AdminClient().RbacV1().ClusterRoleBindings().Delete(context.Background(), "nestor-preview-demo", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		apply := exec.Command(filepath.Join(harnessBin(t), "kubectl"), "--kubeconfig", c.Admin, "apply", "-f", "-")
		apply.Stdin = strings.NewReader(strings.Join(docs, "\n---\n"))
		if b, err := apply.CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply: %v\n%s", err, b)
		}
		_, _, parts := waitFor(func(p []string) bool {
			for _, x := range p {
				if !strings.HasPrefix(x, "deployments in") && !strings.HasPrefix(x, "daemonsets in") && !strings.HasPrefix(x, "statefulsets in") {
					return false
				}
			}
			return true
		})
		for _, p := range parts {
			if strings.HasSuffix(p, " in cert-manager") {
				continue // cert-manager is not declared: its namespace is not granted
			}
			t.Errorf("with the namespaced roles, %q is forbidden", p)
		}
	})
}

// ruleRead reports whether paths (a read's, from the audit log) hold a
// request that rule grants: a resource of its group (the last path
// element, the group after /apis/), or one of its URLs that the bootstrap
// roles do not grant every user anyway (/version: system:public-info-viewer;
// /api, /apis and below: system:discovery).
func ruleRead(paths []string, rule rbacv1.PolicyRule) bool {
	for _, p := range paths {
		p, _, _ = strings.Cut(p, "?")
		for _, u := range rule.NonResourceURLs {
			if p == u && u != "/version" && u != "/api" && u != "/apis" && !strings.HasPrefix(u, "/apis/") {
				return true
			}
		}
		parts := strings.Split(strings.Trim(p, "/"), "/")
		group := ""
		if parts[0] == "apis" && len(parts) > 1 {
			group = parts[1]
		} else if parts[0] != "api" {
			continue
		}
		if slices.Contains(rule.APIGroups, group) && slices.Contains(rule.Resources, parts[len(parts)-1]) {
			return true
		}
	}
	return false
}

// setRules replaces the rules of ClusterRole nestor-preview-demo.
func setRules(t *testing.T, c *harness.Cluster, rules []rbacv1.PolicyRule) {
	t.Helper()
	roles := c.AdminClient().RbacV1().ClusterRoles()
	role, err := roles.Get(context.Background(), "nestor-preview-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role.Rules = rules
	if _, err := roles.Update(context.Background(), role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// harnessBin is the folder of the test cluster binaries (kubectl).
func harnessBin(t *testing.T) string {
	t.Helper()
	dir, err := harness.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
