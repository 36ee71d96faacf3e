package e2e

// End-to-end tests of nestor preview. That preview never writes is checked by
// world.run after every run of the binary: the files under the world and the
// kubeconfigs are byte-identical before and after, and nestor's user agent
// sent only get/list/watch.

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nestor.dev/nestor/tests/harness"
)

const (
	healthyFixture = "dirqual-healthy.yaml"
	benchFixture   = "bench-two-nodes.yaml"
)

// dirqualLayers are the layers of stacks/examples/dirqual.yaml, in order.
var dirqualLayers = []string{"cilium", "rook-ceph", "cnpg", "kube-prometheus-stack", "argocd", "registry"}

// dirqualWorld is a world with stacks/dirqual.yaml declaring endpoint c.URL
// and `kubeconfig: ~/.kube/dirqual.config`, that file being a kubeconfig of
// identity for c. It returns the world and the kubeconfig's path.
func dirqualWorld(t *testing.T, c *harness.Cluster, identity string, others ...*harness.Cluster) (*world, string) {
	t.Helper()
	w := newWorld(t, append([]*harness.Cluster{c}, others...)...)
	w.dirqualStack(c.URL, "~/.kube/dirqual.config")
	kc := w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), identity, "")
	return w, kc
}

// The healthy dirqual cluster read with the read-only identity: 4 nodes
// Ready with versions, every layer healthy, an empty plan, exit 0 with
// --detailed-exitcode; every request is a read made as the read-only
// identity, and nothing is written.
func TestPreviewDirqualHealthy(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	w, kc := dirqualWorld(t, c, harness.IdentityReadOnly)
	stack := filepath.Join(w.Stacks, "dirqual.yaml")

	r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--detailed-exitcode", "-o", "json")
	wantCode(t, r, 0)
	doc := decodePreview(t, r)
	if doc.Stack.Name != "dirqual" || doc.Stack.TargetKind != "prod" || doc.Stack.File != stack {
		t.Errorf("stack = %+v, want dirqual prod %s", doc.Stack, stack)
	}
	if doc.Target == nil {
		t.Fatalf("target is null\n%s", r)
	}
	if doc.Target.Endpoint != c.URL || doc.Target.Source != "topology" || !slices.Equal(doc.Target.Kubeconfig, []string{kc}) ||
		doc.Target.Context != "readonly@nestor-test" || doc.Target.EndpointMatches == nil || !*doc.Target.EndpointMatches {
		t.Errorf("target = %+v, want endpoint %s from the topology's kubeconfig %s, context readonly@nestor-test, endpoint_matches true", *doc.Target, c.URL, kc)
	}
	if !doc.Actual.ServerVersion.Known || doc.Actual.ServerVersion.Value != harness.K8sVersion {
		t.Errorf("server_version = %+v, want %s", doc.Actual.ServerVersion, harness.K8sVersion)
	}
	if !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 4 {
		t.Fatalf("nodes = %+v, want 4 known nodes", doc.Actual.Nodes)
	}
	for i, n := range doc.Actual.Nodes.Value {
		name := fmt.Sprintf("dirqual%d", i+1)
		ip := fmt.Sprintf("10.67.2.%d", 11+i)
		if n.Name != name || !n.Ready || n.KubeletVersion != "v1.37.2" || n.InternalIP != ip {
			t.Errorf("node %d = %+v, want %s Ready v1.37.2 %s", i, n, name, ip)
		}
		if wantCP := i == 0; slices.Contains(n.Roles, "control-plane") != wantCP {
			t.Errorf("node %s roles %v, control-plane expected: %v", n.Name, n.Roles, wantCP)
		}
	}
	for _, l := range dirqualLayers {
		if h, why := doc.layer(t, l); h != "healthy" {
			t.Errorf("layer %s: %s (%s), want healthy", l, h, why)
		}
	}
	if !doc.Actual.Storage.Known || doc.Actual.Storage.Value.Class != "rook-ceph-block" || doc.Actual.Storage.Value.Backend != "rook-ceph" {
		t.Errorf("storage = %+v, want default rook-ceph-block (rook-ceph)", doc.Actual.Storage)
	}
	if len(doc.changeSteps()) != 0 || doc.Plan.Unverified || len(doc.Plan.Unknowns) != 0 {
		t.Errorf("plan = %+v, want no change, verified, no unknown", doc.Plan)
	}
	if !doc.Summary.InSync || doc.Summary.Changes != 0 || doc.Summary.Unknown != 0 {
		t.Errorf("summary = %+v, want in sync", doc.Summary)
	}
	wantReadOnlyUser(t, r.audit[0], harness.UserReadOnly)
	if len(w.limaCalls()) != 0 {
		t.Errorf("limactl was run for a prod stack: %v", w.limaCalls())
	}

	// The human view, from the same model.
	r = w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--detailed-exitcode")
	wantCode(t, r, 0)
	out := r.stdout
	wantLine(t, "stack line", out, `^Stack dirqual \(prod\) — `+quote(stack)+`$`)
	wantLine(t, "target line", out, `^Target: `+quote(c.URL)+`\s+context readonly@nestor-test\s+kubeconfig `+quote(kc)+` \(from kubeconfig: in `+quote(stack)+`\)$`)
	wantLine(t, "ACTUAL", out, `^ACTUAL\s+\(read now, not stored\)$`)
	wantLine(t, "server", out, `^\s+server\s+`+quote(harness.K8sVersion)+`$`)
	wantLine(t, "nodes", out, `^\s+nodes\s+4 registered, 4 Ready$`)
	for i := 1; i <= 4; i++ {
		role := "<none>"
		if i == 1 {
			role = "control-plane"
		}
		wantLine(t, "node row", out, fmt.Sprintf(`^\s+dirqual%d\s+True\s+%s\s+v1\.37\.2\s+10\.67\.2\.%d$`, i, quote(role), 10+i))
	}
	for _, l := range dirqualLayers {
		wantLine(t, "layer "+l, out, `^\s+`+quote(l)+`\s+healthy\b`)
	}
	wantLine(t, "storage", out, `^\s+storage\s+default StorageClass rook-ceph-block \(rook-ceph\.rbd\.csi\.ceph\.com → rook-ceph\)$`)
	wantLine(t, "empty plan", out, `^\s+\(no steps\)$`)
	wantLine(t, "summary", out, `^Plan: 0 to change, 0 undeclared, 0 unknown\. In sync\.$`)
	wantNotContains(t, "prod preview", out, "unknown (", "UNVERIFIED", "limactl", "nestor env")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour escape in output although stdout is no terminal and NO_COLOR=1")
	}
}

// wantReadOnlyUser fails unless nestor made requests, all as user.
func wantReadOnlyUser(t *testing.T, events []harness.AuditEvent, user string) {
	t.Helper()
	if len(events) == 0 {
		t.Errorf("no request of nestor in the audit log, want reads as %s", user)
	}
	for _, e := range events {
		if e.User != user {
			t.Errorf("request %s made as %s, want %s", e, e.User, user)
		}
	}
}

// Backend drift, then a missing and a degraded layer: on a cluster of its
// own, first the default StorageClass becomes local-path (plan: one
// migrate-backend step naming both), then, that undone, CloudNativePG is
// removed and Argo CD's repo-server is 0/1 available (plan: exactly install
// cnpg and repair argocd, exit 2). On that same state, `next` names cnpg as
// the next phase.
func TestPreviewDirqualDriftAndNext(t *testing.T) {
	c := ownCluster(t, healthyFixture)
	cs := c.AdminClient()
	ctx := context.Background()
	w, _ := dirqualWorld(t, c, harness.IdentityReadOnly)
	args := []string{"preview", "--stack", "dirqual", "--stacks", w.Stacks, "--detailed-exitcode"}

	t.Run("backend-drift", func(t *testing.T) {
		setDefaultClass(t, c, "rook-ceph-block", false)
		lp := &storagev1.StorageClass{
			ObjectMeta:  metav1.ObjectMeta{Name: "local-path", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
			Provisioner: "rancher.io/local-path",
		}
		if _, err := cs.StorageV1().StorageClasses().Create(ctx, lp, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { // undo, for the next subtest
			if err := cs.StorageV1().StorageClasses().Delete(ctx, "local-path", metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
			setDefaultClass(t, c, "rook-ceph-block", true)
		}()

		r := w.run(nil, append(args, "-o", "json")...)
		wantCode(t, r, 2)
		doc := decodePreview(t, r)
		steps := doc.changeSteps()
		if len(steps) != 1 || steps[0].Kind != "migrate-backend" {
			t.Fatalf("plan steps = %+v, want exactly one migrate-backend", doc.Plan.Steps)
		}
		wantContains(t, "migrate-backend reason", steps[0].Reason, "ceph", "local-path", "rancher.io/local-path")
		if s := doc.Actual.Storage; !s.Known || s.Value.Class != "local-path" || s.Value.Backend != "local-path" {
			t.Errorf("storage = %+v, want default local-path (backend local-path)", s)
		}
		if doc.Summary.Changes != 1 || doc.Summary.ByKind["migrate-backend"] != 1 {
			t.Errorf("summary = %+v, want 1 change (migrate-backend)", doc.Summary)
		}
		if h, why := doc.layer(t, "rook-ceph"); h != "healthy" {
			t.Errorf("rook-ceph %s (%s): the drift is the default class, Ceph itself still runs", h, why)
		}

		r = w.run(nil, args...)
		wantCode(t, r, 2)
		wantLine(t, "migrate step", r.stdout, `^\s+1\. ~ migrate-backend rook-ceph\s+\(.*ceph.*local-path.*\)$`)
		// The bare local-path class is itself a layer nobody declared (its
		// provisioner Deployment is not there): information, not a change.
		wantLine(t, "undeclared", r.stdout, `^\s+2\. i undeclared local-path\s+\(.*\)$`)
		wantLine(t, "summary", r.stdout, `^Plan: 1 to change \(1 migrate-backend\), 1 undeclared, 0 unknown\.`)
	})

	t.Run("cnpg-removed-argocd-degraded", func(t *testing.T) {
		removeCNPG(t, c)
		degradeRepoServer(t, c)

		r := w.run(nil, append(args, "-o", "json")...)
		wantCode(t, r, 2)
		doc := decodePreview(t, r)
		steps := doc.changeSteps()
		if len(steps) != 2 || steps[0].Kind != "install" || steps[0].Target != "cnpg" ||
			steps[1].Kind != "repair" || steps[1].Target != "argocd" {
			t.Fatalf("plan steps = %+v, want exactly [install cnpg, repair argocd]", doc.Plan.Steps)
		}
		wantContains(t, "repair argocd reason", steps[1].Reason, "argocd-repo-server", "0/1")
		if h, _ := doc.layer(t, "cnpg"); h != "absent" {
			t.Errorf("cnpg is %s, want absent", h)
		}
		if h, why := doc.layer(t, "argocd"); h != "degraded" || !strings.Contains(why, "argocd-repo-server") {
			t.Errorf("argocd is %s (%s), want degraded naming argocd-repo-server", h, why)
		}
		if doc.Summary.Changes != 2 || doc.Summary.ByKind["install"] != 1 || doc.Summary.ByKind["repair"] != 1 || doc.Summary.InSync {
			t.Errorf("summary = %+v, want 2 changes (1 install, 1 repair)", doc.Summary)
		}

		r = w.run(nil, args...)
		wantCode(t, r, 2)
		wantLine(t, "install step", r.stdout, `^\s+1\. \+ install cnpg\s+\(.+\)$`)
		wantLine(t, "repair step", r.stdout, `^\s+2\. ~ repair argocd\s+\(.*argocd-repo-server 0/1 available.*\)$`)
		wantLine(t, "layer cnpg", r.stdout, `^\s+cnpg\s+absent\b`)
		wantLine(t, "layer argocd", r.stdout, `^\s+argocd\s+degraded\s+\(.*argocd-repo-server.*\)$`)
		wantLine(t, "summary", r.stdout, `^Plan: 2 to change \(1 install, 1 repair\), 0 undeclared, 0 unknown\.`)
		plan := r.stdout[strings.Index(r.stdout, "\nPLAN"):]
		wantNoVM(t, "prod preview", r.stdout)
		wantNotContains(t, "prod plan", plan, "bootstrap", "join-node", "migrate-backend")
	})

	t.Run("next-names-cnpg", func(t *testing.T) {
		r := w.run(nil, "next", "--stack", "dirqual", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		wantLine(t, "next phase", r.stdout, `^Stack dirqual: next phase is cnpg — .*cnpg.*$`)
		wantLine(t, "what runs it", r.stdout, `^Run:\s+.*cnpg.*$`)
		wantNoVM(t, "next on prod", r.stdout+r.stderr)

		r = w.run(nil, "next", "--stack", "dirqual", "--stacks", w.Stacks, "-o", "json")
		wantCode(t, r, 0)
		var n struct {
			Stack, Phase, Why, Run string
			Done, Unknown          bool
		}
		if err := jsonDecode(r.stdout, &n); err != nil {
			t.Fatalf("next -o json: %v\n%s", err, r)
		}
		if n.Stack != "dirqual" || n.Phase != "cnpg" || n.Done || n.Unknown || !strings.Contains(n.Run, "cnpg") {
			t.Errorf("next = %+v, want phase cnpg, not done, not unknown, run naming cnpg", n)
		}
		if len(w.limaCalls()) != 0 {
			t.Errorf("limactl was run for a prod stack: %v", w.limaCalls())
		}
	})
}

// setDefaultClass sets the is-default-class annotation of StorageClass name.
func setDefaultClass(t *testing.T, c *harness.Cluster, name string, def bool) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":%q}}}`, strconv.FormatBool(def))
	if _, err := c.AdminClient().StorageV1().StorageClasses().Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// removeCNPG deletes CloudNativePG's operator Deployment and every CRD of the
// group postgresql.cnpg.io, and waits (bounded) until they are gone.
func removeCNPG(t *testing.T, c *harness.Cluster) {
	t.Helper()
	ctx := context.Background()
	if err := c.AdminClient().AppsV1().Deployments("cnpg-system").Delete(ctx, "cnpg-controller-manager", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	crds := c.AdminDynamic().Resource(crdGVR)
	list, err := crds.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range list.Items {
		if strings.HasSuffix(it.GetName(), ".postgresql.cnpg.io") {
			names = append(names, it.GetName())
		}
	}
	if len(names) == 0 {
		t.Fatal("the fixture has no postgresql.cnpg.io CRD")
	}
	for _, n := range names {
		if err := crds.Delete(ctx, n, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The apiserver's own CRD finalizer (customresourcecleanup) removes a
	// deleted CRD once its custom resources are gone; on a loaded machine it
	// has taken more than two minutes. The fixture holds no custom resource
	// of these CRDs, so the test does what that finalizer would end with:
	// it drops the finalizer, and the CRD goes at once.
	for _, n := range names {
		_, err := crds.Patch(ctx, n, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("drop the finalizer of CRD %s: %v", n, err)
		}
	}
	left := ""
	poll(t, 120*time.Second, "CNPG's CRDs and operator deleted", func() bool {
		for _, n := range names {
			if _, err := crds.Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				left = "CRD " + n
				return false
			}
		}
		_, err := c.AdminClient().AppsV1().Deployments("cnpg-system").Get(ctx, "cnpg-controller-manager", metav1.GetOptions{})
		left = "Deployment cnpg-system/cnpg-controller-manager"
		return apierrors.IsNotFound(err)
	}, func() string { return left })
}

// degradeRepoServer makes argocd/argocd-repo-server 0/1 available through the
// status subresource (no controller would).
func degradeRepoServer(t *testing.T, c *harness.Cluster) {
	t.Helper()
	ctx := context.Background()
	deps := c.AdminClient().AppsV1().Deployments("argocd")
	d, err := deps.Get(ctx, "argocd-repo-server", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Status.Replicas = 1
	d.Status.UpdatedReplicas = 1
	d.Status.ReadyReplicas = 0
	d.Status.AvailableReplicas = 0
	d.Status.UnavailableReplicas = 1
	if _, err := deps.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// poll calls cond every 100 ms until it is true, failing after limit with
// what and the state describes.
func poll(t *testing.T, limit time.Duration, what string, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (still there: %s)", what, limit, state())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// With no target declared, a ~/.kube/config is ignored: HOME holds one
// pointing at a second running apiserver, no KUBECONFIG, no kubeconfig: in
// the topology. ACTUAL says no target, PLAN is unverified, the second
// apiserver saw nothing of nestor and limactl was never run.
func TestPreviewNoTargetIgnoresHomeKubeconfig(t *testing.T) {
	prod := sharedFixtureCluster(t, healthyFixture)
	second := sharedFixtureCluster(t, benchFixture)
	w := newWorld(t, second, prod)
	stack := w.dirqualStack(prod.URL, "")
	w.kubeconfig(second, filepath.Join(w.Home, ".kube", "config"), harness.IdentityAdmin, "")

	for _, extra := range [][]string{nil, {"KUBECONFIG="}} { // unset, and exported but empty
		t.Run(fmt.Sprintf("env=%v", extra), func(t *testing.T) {
			w := w.in(t)
			r := w.run(extra, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "-o", "json")
			wantCode(t, r, 0)
			doc := decodePreview(t, r)
			if doc.Target != nil {
				t.Errorf("target = %+v, want null (nothing was read)", *doc.Target)
			}
			if !doc.Actual.NoTarget || !strings.Contains(doc.Actual.NoTargetReason, "kubeconfig") {
				t.Errorf("actual.no_target = %v (%q), want true with a reason saying how to declare the kubeconfig", doc.Actual.NoTarget, doc.Actual.NoTargetReason)
			}
			if doc.Actual.Nodes.Known || doc.Actual.ServerVersion.Known {
				t.Errorf("nodes/server known although nothing was read: %+v %+v", doc.Actual.Nodes, doc.Actual.ServerVersion)
			}
			if !doc.Plan.Unverified || doc.Summary.InSync {
				t.Errorf("plan.unverified = %v, summary %+v: want an unverified plan, not in sync", doc.Plan.Unverified, doc.Summary)
			}
			for _, s := range doc.Plan.Steps {
				if s.Kind == "create-vm" || s.Kind == "start-vm" {
					t.Errorf("prod plan has a VM step: %+v", s)
				}
			}
			if n := len(r.audit[0]); n != 0 {
				t.Errorf("the apiserver of ~/.kube/config received %d requests from nestor: %v", n, r.audit[0])
			}
			if n := len(r.audit[1]); n != 0 {
				t.Errorf("the prod apiserver received %d requests although no kubeconfig was declared: %v", n, r.audit[1])
			}
			if calls := w.limaCalls(); len(calls) != 0 {
				t.Errorf("the limactl stand-in was run for a prod stack: %v", calls)
			}

			r = w.run(extra, "preview", "--stack", "dirqual", "--stacks", w.Stacks)
			wantCode(t, r, 0)
			wantLine(t, "target line", r.stdout, `^Target: NONE — nothing was read$`)
			wantLine(t, "ACTUAL says so", r.stdout, `^\s+NO TARGET: nothing was read`)
			wantLine(t, "how to declare", r.stdout, `kubeconfig: ~/\.kube/dirqual\.config`)
			wantLine(t, "unverified plan", r.stdout, `^PLAN\s+UNVERIFIED: assumes an empty cluster`)
			wantContains(t, "no target reason", r.stdout, stack)
			wantNotContains(t, "no-target preview", r.stdout, second.URL, "lima", "nestor env")
			if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
				t.Errorf("nestor sent %d requests with no target: %v %v", n, r.audit[0], r.audit[1])
			}
			if calls := w.limaCalls(); len(calls) != 0 {
				t.Errorf("the limactl stand-in was run for a prod stack: %v", calls)
			}

			r = w.run(extra, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--detailed-exitcode")
			wantCode(t, r, 1) // no target: never "in sync", never "changes"
		})
	}
}

// --kubeconfig beats KUBECONFIG beats the topology, the target line naming
// the rule each time (and the audit log showing the identity of the file that
// won); a KUBECONFIG list follows client-go's first-wins merge; an empty
// current-context or a missing file is an error naming the file.
func TestPreviewKubeconfigPriority(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	other := sharedFixtureCluster(t, benchFixture)
	w := newWorld(t, c, other)
	stack := w.dirqualStack(c.URL, "~/.kube/dirqual.config")
	topo := w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityNoAccess, "")
	env := w.kubeconfig(c, w.path("kc", "env.config"), harness.IdentityReadOnly, "")
	flag := w.kubeconfig(c, w.path("kc", "flag.config"), harness.IdentityAdmin, "")
	base := []string{"preview", "--stack", "dirqual", "--stacks", w.Stacks}

	cases := []struct {
		name    string
		env     []string
		flags   []string
		source  string
		path    string
		user    string
		context string
		detail  string
	}{
		{"flag beats KUBECONFIG and topology", []string{"KUBECONFIG=" + env}, []string{"--kubeconfig", flag}, "--kubeconfig", flag, harness.UserAdmin, "admin@nestor-test", "--kubeconfig on the command line"},
		{"KUBECONFIG beats topology", []string{"KUBECONFIG=" + env}, nil, "KUBECONFIG", env, harness.UserReadOnly, "readonly@nestor-test", "KUBECONFIG in the environment"},
		{"topology", nil, nil, "topology", topo, harness.UserNoAccess, "noaccess@nestor-test", "kubeconfig: in " + stack},
		{"empty KUBECONFIG is not set", []string{"KUBECONFIG="}, nil, "topology", topo, harness.UserNoAccess, "noaccess@nestor-test", "kubeconfig: in " + stack},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			r := w.run(tc.env, append(append(base, tc.flags...), "-o", "json")...)
			wantCode(t, r, 0)
			doc := decodePreview(t, r)
			if doc.Target == nil || doc.Target.Source != tc.source || !slices.Equal(doc.Target.Kubeconfig, []string{tc.path}) ||
				doc.Target.Context != tc.context || doc.Target.Endpoint != c.URL {
				t.Fatalf("target = %+v, want source %s, kubeconfig %s, context %s", doc.Target, tc.source, tc.path, tc.context)
			}
			wantReadOnlyUser(t, r.audit[0], tc.user)
			if len(r.audit[1]) != 0 {
				t.Errorf("the other apiserver was read: %v", r.audit[1])
			}

			r = w.run(tc.env, append(base, tc.flags...)...)
			wantCode(t, r, 0)
			wantLine(t, "target line", r.stdout, `^Target: `+quote(c.URL)+`\s+context `+quote(tc.context)+`\s+kubeconfig `+quote(tc.path)+` \(from `+quote(tc.detail)+`\)$`)
		})
	}

	// A KUBECONFIG list: client-go's first-wins merge. Both files define the
	// cluster nestor-test; the first file's server and current-context win.
	first := w.kubeconfig(c, w.path("kc", "list-first.config"), harness.IdentityReadOnly, "")
	second := w.kubeconfig(other, w.path("kc", "list-second.config"), harness.IdentityAdmin, "")
	t.Run("KUBECONFIG list first wins", func(t *testing.T) {
		w := w.in(t)
		list := "KUBECONFIG=" + first + ":" + second
		r := w.run([]string{list}, append(base, "-o", "json")...)
		wantCode(t, r, 0)
		doc := decodePreview(t, r)
		if doc.Target == nil || doc.Target.Source != "KUBECONFIG" || !slices.Equal(doc.Target.Kubeconfig, []string{first, second}) ||
			doc.Target.Endpoint != c.URL || doc.Target.Context != "readonly@nestor-test" {
			t.Fatalf("target = %+v, want KUBECONFIG [%s %s], endpoint %s (first file's), context readonly@nestor-test", doc.Target, first, second, c.URL)
		}
		wantReadOnlyUser(t, r.audit[0], harness.UserReadOnly)
		if len(r.audit[1]) != 0 {
			t.Errorf("the second file's server was read: %v", r.audit[1])
		}
	})
	t.Run("KUBECONFIG list reversed", func(t *testing.T) {
		w := w.in(t)
		r := w.run([]string{"KUBECONFIG=" + second + ":" + first}, base...)
		// The first file now names the other apiserver: --no-input (no
		// terminal) refuses it, naming both endpoints, before any request.
		wantCode(t, r, 1)
		wantContains(t, "refusal", r.stderr, other.URL, c.URL)
		if n := len(r.audit[0]) + len(r.audit[1]); n != 0 {
			t.Errorf("nestor sent %d requests to a refused target: %v %v", n, r.audit[0], r.audit[1])
		}
	})

	t.Run("empty current-context", func(t *testing.T) {
		w := w.in(t)
		noCtx := w.path("kc", "no-context.config")
		w.kubeconfig(c, noCtx, harness.IdentityReadOnly, "")
		b, err := os.ReadFile(noCtx)
		if err != nil {
			t.Fatal(err)
		}
		text := replaceLine(t, string(b), "current-context:", `""`)
		w.writeFile(noCtx, []byte(text))
		for _, how := range [][]string{{"--kubeconfig", noCtx}} {
			r := w.run(nil, append(base, how...)...)
			wantCode(t, r, 1)
			wantContains(t, "error", r.stderr, noCtx, "current-context")
			if r.stdout != "" {
				t.Errorf("no report expected on stdout, got:\n%s", r.stdout)
			}
		}
		r := w.run([]string{"KUBECONFIG=" + noCtx}, base...)
		wantCode(t, r, 1)
		wantContains(t, "error", r.stderr, noCtx, "current-context")
		if n := len(r.audit[0]); n != 0 {
			t.Errorf("requests sent although the kubeconfig names no context: %v", r.audit[0])
		}
	})

	t.Run("missing file", func(t *testing.T) {
		w := w.in(t)
		missing := w.path("kc", "missing.config")
		r := w.run(nil, append(base, "--kubeconfig", missing)...)
		wantCode(t, r, 1)
		wantContains(t, "error", r.stderr, missing, "does not exist", "--kubeconfig")
		r = w.run([]string{"KUBECONFIG=" + missing}, base...)
		wantCode(t, r, 1)
		wantContains(t, "error", r.stderr, missing, "does not exist", "KUBECONFIG")
	})
}

// benchWorld is a world with stacks/bench.yaml (the shipped example) and,
// when withKubeconfig, its bench kubeconfig (read-only identity of c) where
// the stack expects it.
func benchWorld(t *testing.T, c *harness.Cluster, withKubeconfig bool, others ...*harness.Cluster) *world {
	t.Helper()
	w := newWorld(t, append([]*harness.Cluster{c}, others...)...)
	w.benchStack()
	if withKubeconfig {
		w.kubeconfig(c, w.benchKubeconfig(), harness.IdentityReadOnly, "")
	}
	return w
}

// The bench stack with the limactl stand-in (lima-node1 Running, lima-node2
// Stopped) and the bench cluster: PLAN is "start VM lima-node2"; without the
// bench kubeconfig the nodes are not readable (unknown), not zero. The
// limactl output is accepted in its three forms, and KUBECONFIG in the
// environment is never used for a lima stack.
func TestPreviewBenchLima(t *testing.T) {
	bench := sharedFixtureCluster(t, benchFixture)
	prod := sharedFixtureCluster(t, healthyFixture)
	stray := "KUBECONFIG=" // set below: a kubeconfig of the prod cluster, which must be ignored
	w := benchWorld(t, bench, true, prod)
	stray += w.kubeconfig(prod, w.path("kc", "stray.config"), harness.IdentityAdmin, "")
	args := []string{"preview", "--stack", "bench", "--stacks", w.Stacks, "--detailed-exitcode"}

	for _, rec := range []string{"bench-node2-stopped.jsonl", "bench-node2-stopped-pretty.json", "bench-node2-stopped-array.json"} {
		t.Run(rec, func(t *testing.T) {
			w := w.in(t)
			w.LimaOutput = limaRecording(t, rec)
			w.resetLimaLog()
			r := w.run([]string{stray}, append(args, "-o", "json")...)
			wantCode(t, r, 2)
			doc := decodePreview(t, r)
			steps := doc.changeSteps()
			if len(steps) != 1 || steps[0].Kind != "start-vm" || steps[0].Target != "lima-node2" {
				t.Fatalf("plan steps = %+v, want exactly start-vm lima-node2", doc.Plan.Steps)
			}
			if doc.Actual.VMs == nil || !doc.Actual.VMs.Known || len(doc.Actual.VMs.Value) != 2 ||
				doc.Actual.VMs.Value[0].Name != "lima-node1" || doc.Actual.VMs.Value[0].Status != "Running" ||
				doc.Actual.VMs.Value[1].Name != "lima-node2" || doc.Actual.VMs.Value[1].Status != "Stopped" {
				t.Errorf("actual.vms = %+v, want lima-node1 Running, lima-node2 Stopped", doc.Actual.VMs)
			}
			if !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 2 {
				t.Errorf("nodes = %+v, want the bench cluster's 2 nodes", doc.Actual.Nodes)
			}
			if doc.Target == nil || doc.Target.Source != "bench" || !slices.Equal(doc.Target.Kubeconfig, []string{w.benchKubeconfig()}) {
				t.Errorf("target = %+v, want the bench kubeconfig %s", doc.Target, w.benchKubeconfig())
			}
			if calls := w.limaCalls(); !slices.Equal(calls, []string{"list --json"}) {
				t.Errorf("limactl calls = %q, want exactly one `limactl list --json`", calls)
			}
			wantReadOnlyUser(t, r.audit[0], harness.UserReadOnly)
			if len(r.audit[1]) != 0 {
				t.Errorf("KUBECONFIG's cluster was read for a lima stack: %v", r.audit[1])
			}
		})
	}

	t.Run("human view", func(t *testing.T) {
		w := w.in(t)
		w.LimaOutput = limaRecording(t, "bench-node2-stopped.jsonl")
		r := w.run(nil, args...)
		wantCode(t, r, 2)
		wantLine(t, "target", r.stdout, `^Target: the Lima bench \(limactl\) and its kubeconfig `+quote(w.benchKubeconfig())+`$`)
		wantLine(t, "vm1", r.stdout, `^\s+VM lima-node1\s+Running$`)
		wantLine(t, "vm2", r.stdout, `^\s+VM lima-node2\s+Stopped$`)
		wantLine(t, "nodes", r.stdout, `^\s+nodes\s+2 registered, 2 Ready$`)
		wantLine(t, "plan", r.stdout, `^\s+1\. ~ start-vm lima-node2\s+\(VM is Stopped\)$`)
		wantLine(t, "summary", r.stdout, `^Plan: 1 to change \(1 start-vm\), 0 undeclared, 0 unknown\.`)
	})

	t.Run("no bench kubeconfig", func(t *testing.T) {
		w2 := benchWorld(t, bench, false)
		r := w2.run(nil, "preview", "--stack", "bench", "--stacks", w2.Stacks, "--detailed-exitcode", "-o", "json")
		wantCode(t, r, 1) // parts of ACTUAL unknown
		doc := decodePreview(t, r)
		if doc.Actual.Nodes.Known || !strings.Contains(doc.Actual.Nodes.Reason, "bench kubeconfig") {
			t.Errorf("nodes = %+v, want unknown naming the missing bench kubeconfig", doc.Actual.Nodes)
		}
		for _, s := range doc.Plan.Steps {
			if s.Kind == "join-node" || s.Kind == "install" || s.Kind == "bootstrap" {
				t.Errorf("plan proposes %s %s although the nodes could not be read", s.Kind, s.Target)
			}
		}
		if steps := doc.changeSteps(); len(steps) != 1 || steps[0].Kind != "start-vm" || steps[0].Target != "lima-node2" {
			t.Errorf("plan steps = %+v, want exactly start-vm lima-node2", doc.Plan.Steps)
		}
		if len(r.audit[0]) != 0 {
			t.Errorf("the bench cluster was read without its kubeconfig: %v", r.audit[0])
		}

		r = w2.run(nil, "preview", "--stack", "bench", "--stacks", w2.Stacks)
		wantCode(t, r, 0)
		// One cause, said once: the server's line says why, the nodes'
		// line names it.
		wantLine(t, "server unknown", r.stdout, `^\s+server\s+unknown \(no bench kubeconfig at `+quote(w2.benchKubeconfig())+`.*\)$`)
		wantLine(t, "nodes unknown", r.stdout, `^\s+nodes\s+unknown \(as server\)$`)
		wantNotContains(t, "nodes", r.stdout, "0 registered", "0 Ready")
	})
}

// The no-permission identity: the refused probes are unknown (forbidden), the
// plan installs nothing it could not see, and --detailed-exitcode gives 1.
func TestPreviewNoAccessIdentity(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	w, _ := dirqualWorld(t, c, harness.IdentityNoAccess)
	args := []string{"preview", "--stack", "dirqual", "--stacks", w.Stacks, "--detailed-exitcode"}

	r := w.run(nil, append(args, "-o", "json")...)
	wantCode(t, r, 1)
	doc := decodePreview(t, r)
	if doc.Actual.Nodes.Known || !strings.Contains(doc.Actual.Nodes.Reason, "forbidden") {
		t.Errorf("nodes = %+v, want unknown (forbidden)", doc.Actual.Nodes)
	}
	for _, l := range dirqualLayers {
		if h, why := doc.layer(t, l); h != "unknown" || !strings.Contains(why, "forbidden") {
			t.Errorf("layer %s: %s (%s), want unknown (forbidden …)", l, h, why)
		}
	}
	if doc.Actual.Storage.Known || !strings.Contains(doc.Actual.Storage.Reason, "forbidden") {
		t.Errorf("storage = %+v, want unknown (forbidden)", doc.Actual.Storage)
	}
	for _, s := range doc.Plan.Steps {
		switch s.Kind {
		case "install", "join-node", "bootstrap", "migrate-backend", "repair":
			t.Errorf("plan proposes %s %s on what could not be seen", s.Kind, s.Target)
		}
	}
	if doc.Summary.Unknown == 0 || doc.Summary.InSync || len(doc.Plan.Unknowns) == 0 {
		t.Errorf("summary = %+v, unknowns %v: want unknowns counted, not in sync", doc.Summary, doc.Plan.Unknowns)
	}
	forbidden := 0
	for _, e := range r.audit[0] {
		if e.User != harness.UserNoAccess {
			t.Errorf("request %s not made as the no-access identity", e)
		}
		if e.Code == 403 {
			forbidden++
		}
	}
	if forbidden == 0 {
		t.Errorf("no forbidden request in the audit log: the probes did not try")
	}

	r = w.run(nil, args...)
	wantCode(t, r, 1)
	wantLine(t, "nodes", r.stdout, `^\s+nodes\s+unknown \(.*forbidden.*\)$`)
	wantLine(t, "layer", r.stdout, `^\s+cnpg\s+unknown\s+\(.*forbidden.*\)$`)
	wantLine(t, "plan unknown", r.stdout, `^\s+\?\s+unknown \(layer cnpg: .*forbidden.*\)$`)
	wantLine(t, "summary", r.stdout, `^Plan: 0 to change, 0 undeclared, [1-9][0-9]* unknown\. Not in sync`)
	wantNotContains(t, "no-access preview", r.stdout, "absent", "+ install")
}

// An endpoint that does not answer: a closed loopback port (connection
// refused) and a blackhole (accepts, never answers): preview ends within the
// timeout, exit 1, with a message naming the endpoint.
func TestPreviewUnreachableEndpoint(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture) // for its CA and credentials only

	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "https://" + addr
	}()

	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	done := make(chan struct{})
	go func() {
		for {
			conn, err := hole.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() { // hold the connection, read nothing back, answer nothing
				defer conns.Done()
				<-done
				conn.Close()
			}()
		}
	}()
	t.Cleanup(func() { hole.Close(); close(done); conns.Wait() })
	blackhole := "https://" + hole.Addr().String()

	for _, tc := range []struct {
		name, endpoint, timeout, says string
		limit                         time.Duration
	}{
		{"closed port", closed, "5s", "unreachable", 5 * time.Second},
		{"blackhole", blackhole, "2s", "timed out after 2s", 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.dirqualStack(tc.endpoint, "~/.kube/dirqual.config")
			w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, tc.endpoint)
			for _, extra := range [][]string{nil, {"-o", "json"}, {"--detailed-exitcode"}} {
				r := w.run(nil, append([]string{"preview", "--stack", "dirqual", "--stacks", w.Stacks, "--timeout", tc.timeout}, extra...)...)
				wantCode(t, r, 1)
				if r.took > tc.limit {
					t.Errorf("preview took %v, want it to end within %v", r.took, tc.limit)
				}
				wantContains(t, "error", r.stderr, "cannot read the target "+tc.endpoint, tc.says)
				wantNoReport(t, r, "unreachable")
			}
		})
	}
}
