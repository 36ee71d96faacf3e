package e2e

// End-to-end proof of the provider's objects in kube-system (RUNBOOK.md
// "The provider's objects in kube-system"): on the real API server, objects
// carrying Kapsule's marks are written by the provider's field manager,
// then edited by others — an Update of a ConfigMap's data, a server-side
// apply — or touched in ways that are no edits (a label, a status written
// through the status subresource, a rollout restart), and one object is
// added without the marks. Preview must count them, name who edited what
// and when from the objects' own managedFields, and, when a list is
// forbidden, say it is unknown and claim nothing of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"nestor.dev/nestor/tests/golden"
	"nestor.dev/nestor/tests/harness"
)

// providerObjectsDoc is the part of preview's JSON document about
// kube-system's objects.
type providerObjectsDoc struct {
	Actual struct {
		ProviderObjects *struct {
			Marks struct {
				Provider string   `json:"provider"`
				Managers []string `json:"managers"`
			} `json:"marks"`
			Lists []struct {
				Resource string `json:"resource"`
				Objects  struct {
					Known  bool   `json:"known"`
					Reason string `json:"reason"`
					Code   string `json:"reason_code"`
					Value  []struct {
						Kind  string `json:"kind"`
						Name  string `json:"name"`
						Owner string `json:"owner"`
						Edits []struct {
							Manager string `json:"manager"`
						} `json:"edits"`
					} `json:"value"`
				} `json:"objects"`
			} `json:"lists"`
			Counts struct {
				Complete   bool `json:"complete"`
				Provider   int  `json:"provider"`
				Edited     int  `json:"edited"`
				Unjudged   int  `json:"unjudged"`
				Kubernetes int  `json:"kubernetes"`
				Yours      int  `json:"yours"`
			} `json:"counts"`
		} `json:"provider_objects"`
	} `json:"actual"`
	Plan struct {
		Findings []struct {
			Severity, Kind, Message, Source, Reach string
			Subject                                jsonSubject
		} `json:"findings"`
		Unknowns []jsonClaim `json:"unknowns"`
	} `json:"plan"`
}

func decodeProviderObjects(t *testing.T, r result) providerObjectsDoc {
	t.Helper()
	decodePreview(t, r)
	var d providerObjectsDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatal(err)
	}
	if d.Actual.ProviderObjects == nil {
		t.Fatalf("no actual.provider_objects:\n%s", r.stdout)
	}
	return d
}

// edited returns the provider-object-edited findings of d by subject name.
func (d providerObjectsDoc) edited() map[string]string {
	out := map[string]string{}
	for _, f := range d.Plan.Findings {
		if f.Kind == "provider-object-edited" {
			out[f.Subject.Name] = f.Message
		}
	}
	return out
}

// kapsuleLabels are the marks Kapsule's objects carry; mode is the addon
// manager's ("" for none).
func kapsuleLabels(system, kind, mode string) map[string]string {
	l := map[string]string{"k8s.scw.cloud/system": system, "k8s.scw.cloud/object": kind}
	if mode != "" {
		l["addonmanager.kubernetes.io/mode"] = mode
	}
	return l
}

// writeTime is the time the API server recorded for manager's write of the
// object whose managedFields are mf ("" when none), as preview says it.
func writeTime(mf []metav1.ManagedFieldsEntry, manager string) string {
	for _, e := range mf {
		if e.Manager == manager && e.Subresource == "" && e.Time != nil {
			return e.Time.UTC().Format("2006-01-02 15:04:05 UTC")
		}
	}
	return ""
}

// writeKubeSystem writes what the test judges into c's kube-system: the
// provider's objects (created by kubectl-client-side-apply, the manager
// Kapsule's own writes use), then, a second later, the edits and the
// writes that are no edits, and an object of the operator's without the
// marks. It returns the times of the two edits, as preview must say them.
func writeKubeSystem(t *testing.T, cs kubernetes.Interface) (coredns, cilium string) {
	t.Helper()
	ctx := context.Background()
	const ns = "kube-system"
	provider := metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}
	cms := cs.CoreV1().ConfigMaps(ns)
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Labels: kapsuleLabels("coredns", "ConfigMap", "EnsureExists")},
			Data: map[string]string{"Corefile": ".:53 {\n    errors\n    forward . /etc/resolv.conf\n}\n"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "cilium-config", Labels: kapsuleLabels("cni", "ConfigMap", "Reconcile")},
			Data: map[string]string{"enable-ipv6": "false"}},
	} {
		if _, err := cms.Create(ctx, cm, provider); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kube-dns", Labels: kapsuleLabels("coredns", "Service", "")},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"k8s-app": "kube-dns"}, Ports: []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}}}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, provider); err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Labels: kapsuleLabels("coredns", "ServiceAccount", "")}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, provider); err != nil {
		t.Fatal(err)
	}
	// managedFields times are in seconds: the next writes come after.
	time.Sleep(1100 * time.Millisecond)

	// Edits: kubectl edit of CoreDNS's Corefile (an Update), a server-side
	// apply of Cilium's config by another tool.
	cm, err := cms.Get(ctx, "coredns", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["Corefile"] = ".:53 {\n    errors\n    log\n    forward . 9.9.9.9\n}\n"
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	coredns = writeTime(cm.ManagedFields, "kubectl-edit")
	applied, err := cms.Apply(ctx, corev1ac.ConfigMap("cilium-config", ns).WithData(map[string]string{"enable-ipv6": "true"}),
		metav1.ApplyOptions{FieldManager: "argocd-controller", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	cilium = writeTime(applied.ManagedFields, "argocd-controller")

	// No edits: a label on the Service, the Deployment's status through
	// the status subresource, a rollout restart of metrics-server.
	s, err := cs.CoreV1().Services(ns).Get(ctx, "kube-dns", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Labels["team"] = "dns"
	if _, err := cs.CoreV1().Services(ns).Update(ctx, s, metav1.UpdateOptions{FieldManager: "kubectl-label"}); err != nil {
		t.Fatal(err)
	}
	deploys := cs.AppsV1().Deployments(ns)
	d, err := deploys.Get(ctx, "coredns", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Status.ObservedGeneration = d.Generation
	d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"})
	d, err = deploys.UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: "kube-controller-manager"})
	if err != nil {
		t.Fatal(err)
	}
	if writeTimeOf(d.ManagedFields, "kube-controller-manager", "status") == "" {
		t.Fatalf("the status write left no managedFields entry: %+v", d.ManagedFields)
	}
	restart := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"` + time.Now().UTC().Format(time.RFC3339) + `"}}}}}`
	if _, err := deploys.Patch(ctx, "metrics-server", types.StrategicMergePatchType, []byte(restart), metav1.PatchOptions{FieldManager: "kubectl-rollout"}); err != nil {
		t.Fatal(err)
	}

	// The operator's own object in kube-system, without the marks.
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "my-stub-domains"}, Data: map[string]string{"stub.server": "corp.example:53 {\n    forward . 10.0.0.53\n}\n"}}
	if _, err := cms.Create(ctx, mine, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
	return coredns, cilium
}

// writeTimeOf is writeTime for a write through subresource.
func writeTimeOf(mf []metav1.ManagedFieldsEntry, manager, subresource string) string {
	for _, e := range mf {
		if e.Manager == manager && e.Subresource == subresource && e.Time != nil {
			return e.Time.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

func TestKapsuleProviderObjects(t *testing.T) {
	c := ownCluster(t, kapsuleFixture)
	kw := kapsuleWorldOn(t, c)
	// An ACL that admits only one range: the warnings are kube-system's.
	kw.data.ACL = []string{"203.0.113.0/24"}
	kw.stub.Serve(kw.data)
	kw.stack("1.35", "~/.kube/lyneko-apps.config", "")
	corednsAt, ciliumAt := writeKubeSystem(t, c.AdminClient())
	if corednsAt == "" || ciliumAt == "" {
		t.Fatalf("the edits left no managedFields time: %q %q", corednsAt, ciliumAt)
	}
	args := []string{"preview", "--stack", "lyneko-apps", "--stacks", kw.Stacks, "--no-input", "--as-of", "2026-11-30"}

	t.Run("counted in ACTUAL, edits named with who and when", func(t *testing.T) {
		r := kw.run(creds(), append(args, "--detailed-exitcode")...)
		wantCode(t, r, 0) // findings never change the exit code
		// The fixture's six workloads and the four objects written here
		// carry the marks; two of them were edited.
		wantLine(t, "ACTUAL", r.stdout, `^  kube-system +\d+ objects: 10 Scaleway's \(marked; 2 edited\), [1-9]\d* Kubernetes' own, 1 yours \(not marked\): ConfigMap my-stub-domains$`)
		wantLine(t, "FINDINGS", r.stdout, quote("  warning  ConfigMap kube-system/coredns: edited by kubectl-edit (Update at "+corednsAt+": .data.Corefile), after the provider's write (kubectl-client-side-apply at ")+
			`[0-9: -]+ UTC`+quote("); EnsureExists: yours from now on (the provider only re-creates it if it is deleted; its upgrades no longer update it)"))
		wantLine(t, "FINDINGS", r.stdout, quote("  warning  ConfigMap kube-system/cilium-config: edited by argocd-controller (Apply at "+ciliumAt+": .data.enable-ipv6), after the provider's write (kubectl-client-side-apply at ")+
			`[0-9: -]+ UTC`+quote("); Reconcile: the provider reverts this (your change does not last)"))
		for _, notEdited := range []string{"Service kube-system/kube-dns", "Deployment kube-system/coredns", "Deployment kube-system/metrics-server", "ServiceAccount kube-system/coredns", "my-stub-domains:"} {
			wantNotContains(t, "FINDINGS", r.stdout, notEdited)
		}
		wantContains(t, "the finding's source and reach", r.stdout, "source: Scaleway's Kubernetes shared-responsibility model", "reach: the object's metadata.managedFields: an edit with the provider's own field manager (kubectl-client-side-apply or kubectl-create)")

		f := kw.run(creds(), append(args, "--fail-on", "warning")...)
		wantCode(t, f, 3)

		j := kw.run(creds(), append(args, "-o", "json")...)
		wantCode(t, j, 0)
		d := decodeProviderObjects(t, j)
		po := d.Actual.ProviderObjects
		if c := po.Counts; !c.Complete || c.Provider != 10 || c.Edited != 2 || c.Unjudged != 0 || c.Yours != 1 || c.Kubernetes < 1 {
			t.Errorf("counts %+v, want complete: 10 provider's, 2 edited, 1 yours, some Kubernetes' own", c)
		}
		owners := map[string]string{}
		for _, l := range po.Lists {
			if !l.Objects.Known {
				t.Errorf("list %s unknown: %s", l.Resource, l.Objects.Reason)
			}
			for _, o := range l.Objects.Value {
				owners[o.Kind+" "+o.Name] = o.Owner
			}
		}
		for obj, want := range map[string]string{"ConfigMap coredns": "provider", "ConfigMap my-stub-domains": "yours", "ConfigMap extension-apiserver-authentication": "kubernetes",
			"DaemonSet cilium": "provider", "Service kube-dns": "provider", "ServiceAccount coredns": "provider"} {
			if owners[obj] != want {
				t.Errorf("%s: owner %q, want %q (owners %v)", obj, owners[obj], want, owners)
			}
		}
		edited := d.edited()
		if len(edited) != 2 || !strings.Contains(edited["ConfigMap kube-system/coredns"], "kubectl-edit (Update at "+corednsAt) ||
			!strings.Contains(edited["ConfigMap kube-system/cilium-config"], "argocd-controller (Apply at "+ciliumAt) {
			t.Errorf("edited findings %v", edited)
		}
		for _, f := range d.Plan.Findings {
			if f.Kind == "provider-object-edited" && (f.Severity != "warning" || f.Subject.Kind != "provider-object" || f.Subject.Key != "name") {
				t.Errorf("finding %+v", f)
			}
		}
		if len(d.Plan.Unknowns) != 0 {
			t.Errorf("unknowns %v, want none", d.Plan.Unknowns)
		}
		// Metadata only: no ConfigMap's data reaches the document (the
		// reader asks for PartialObjectMetadataList: probes' unit tests).
		wantNotContains(t, "json", j.stdout, "9.9.9.9", "corp.example")
	})

	t.Run("the preview's view (golden)", func(t *testing.T) {
		r := kw.run(creds(), args...)
		stamps := regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC`)
		norm := func(s string) string {
			s = strings.ReplaceAll(s, kw.Root, "$ROOT")
			s = strings.ReplaceAll(s, c.URL, "$API")
			s = strings.ReplaceAll(s, kw.stub.URL, "$SCW")
			return stamps.ReplaceAllString(s, "$$TIME")
		}
		golden.CheckDir(t, filepath.Join(repoRoot(t), "tests", "testdata", "golden", "preview", "kapsule-kube-system"),
			map[string]string{"stdout": norm(r.stdout), "stderr": norm(r.stderr), "code": fmt.Sprintf("%d\n", r.code)})
	})

	t.Run("nestor rbac grants the reads; a forbidden list is unknown and claims nothing", func(t *testing.T) {
		noAccess := kw.kubeconfigFor(c, harness.IdentityNoAccess)
		r := kw.run(creds(), "rbac", "--stacks", kw.Stacks, "lyneko-apps", "--bind", "user:"+harness.UserNoAccess)
		wantCode(t, r, 0)
		wantContains(t, "rbac", r.stdout, "Scaleway's objects in kube-system, their metadata only", "serviceaccounts", "poddisruptionbudgets")
		apply := exec.Command(filepath.Join(harnessBin(t), "kubectl"), "--kubeconfig", c.Admin, "apply", "-f", "-")
		apply.Stdin = strings.NewReader(r.stdout)
		if b, err := apply.CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply -f - of nestor rbac's output: %v\n%s", err, b)
		}
		jargs := append(slices.Clone(args), "--kubeconfig", noAccess, "-o", "json")
		// RBAC's authorizer follows its objects through a watch: preview
		// until what is wanted holds, 10 s at most.
		until := func(ok func(providerObjectsDoc, result) bool) (providerObjectsDoc, result) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for {
				j := kw.run(creds(), jargs...)
				d := decodeProviderObjects(t, j)
				if ok(d, j) || time.Now().After(deadline) {
					return d, j
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		d, j := until(func(d providerObjectsDoc, j result) bool { return !strings.Contains(j.stdout, "forbidden") })
		if strings.Contains(j.stdout, "forbidden") || !d.Actual.ProviderObjects.Counts.Complete || len(d.edited()) != 2 {
			t.Fatalf("bound to nestor rbac's role: counts %+v, edited %v, unknowns %v", d.Actual.ProviderObjects.Counts, d.edited(), d.Plan.Unknowns)
		}

		// The role without configmaps: that list is forbidden.
		roles := c.AdminClient().RbacV1().ClusterRoles()
		role, err := roles.Get(context.Background(), "nestor-preview-lyneko-apps", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		removed := false
		for i, rule := range role.Rules {
			if k := slices.Index(rule.Resources, "configmaps"); k >= 0 && slices.Equal(rule.APIGroups, []string{""}) {
				role.Rules[i].Resources = slices.Delete(slices.Clone(rule.Resources), k, k+1)
				removed = true
			}
		}
		if !removed {
			t.Fatalf("nestor rbac's role grants no configmaps: %+v", role.Rules)
		}
		if _, err := roles.Update(context.Background(), role, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		d, j = until(func(d providerObjectsDoc, j result) bool { return strings.Contains(j.stdout, "forbidden") })
		var unread *jsonClaim
		for i, u := range d.Plan.Unknowns {
			if u.Subject.Kind == "provider-objects" {
				unread = &d.Plan.Unknowns[i]
			}
		}
		if unread == nil || unread.Subject.Text != "configmaps in kube-system" || unread.Reason != "forbidden" || !strings.Contains(unread.Message, "cannot list") {
			t.Fatalf("unknowns %v, want configmaps in kube-system forbidden", d.Plan.Unknowns)
		}
		for name := range d.edited() {
			if strings.HasPrefix(name, "ConfigMap ") {
				t.Errorf("a finding rests on the forbidden list: %s", name)
			}
		}
		if c := d.Actual.ProviderObjects.Counts; c.Complete || c.Edited != 0 || c.Yours != 0 {
			t.Errorf("counts %+v, want partial, nothing of the ConfigMaps", c)
		}
		for _, l := range d.Actual.ProviderObjects.Lists {
			if l.Resource == "configmaps" && (l.Objects.Known || l.Objects.Code != "forbidden") {
				t.Errorf("configmaps list %+v, want unknown, forbidden", l.Objects)
			}
		}
		text := kw.run(creds(), append(slices.Clone(args), "--kubeconfig", noAccess, "--detailed-exitcode")...)
		wantCode(t, text, 1) // a part of ACTUAL unknown
		wantLine(t, "ACTUAL", text.stdout, `^  kube-system +\d+ objects: 8 Scaleway's \(marked\), \d+ Kubernetes' own, 0 yours \(not marked\)  \(of the lists read\)$`)
		wantLine(t, "ACTUAL", text.stdout, `^ {14}configmaps unknown \(forbidden \(user `+regexp.QuoteMeta(harness.UserNoAccess)+` cannot list configmaps in namespace kube-system\)\)$`)
		wantLine(t, "PLAN", text.stdout, `^  \?  unknown \(configmaps in kube-system: forbidden \(user `+regexp.QuoteMeta(harness.UserNoAccess)+` cannot list configmaps`)
		wantNotContains(t, "FINDINGS", text.stdout, "ConfigMap kube-system/coredns:", "ConfigMap kube-system/cilium-config:")
		wantContains(t, "hint", text.stdout, "hint: the API server forbade some reads")
	})
}

// kubeconfigFor writes a kubeconfig of identity for c under HOME and
// returns its path.
func (kw *kapsuleWorld) kubeconfigFor(c *harness.Cluster, identity string) string {
	return kw.world.kubeconfig(c, filepath.Join(kw.Home, ".kube", "lyneko-apps-"+identity+".config"), identity, "")
}
