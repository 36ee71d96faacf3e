package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"nestor.dev/nestor/tests/harness"
)

// smokeAgent is the user agent of the smoke test's read-only client; the
// audit log is filtered on it.
const smokeAgent = "nestor-harness-smoke/1.0"

func fixture(name string) string {
	return filepath.Join("..", "testdata", "clusters", name)
}

// clientFor returns a clientset built from kubeconfig the way a user's tool
// builds one (explicit path, nothing read from HOME), with user agent ua.
func clientFor(t *testing.T, kubeconfig, ua string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("load kubeconfig %s: %v", kubeconfig, err)
	}
	cfg.UserAgent = ua
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestSmoke proves the harness works end to end: start a cluster, load
// dirqual-healthy.yaml, list the nodes as the read-only identity (4 Ready,
// with kubelet versions), find that list in the audit log, be refused a
// create as the read-only identity, and leave no process behind.
func TestSmoke(t *testing.T) {
	begin := time.Now()
	c := harness.StartT(t, harness.Options{})
	startTook := time.Since(begin)
	pids, dir := c.PIDs(), c.Dir
	if len(pids) != 2 {
		t.Fatalf("PIDs() = %v, want etcd and kube-apiserver", pids)
	}

	begin = time.Now()
	if err := c.LoadFixture(fixture("dirqual-healthy.yaml")); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	loadTook := time.Since(begin)
	t.Logf("cluster start: %v; dirqual-healthy.yaml load: %v", startTook.Round(time.Millisecond), loadTook.Round(time.Millisecond))
	if loadTook > 30*time.Second {
		t.Errorf("loading dirqual-healthy.yaml took %v; a fixture must load in seconds", loadTook)
	}

	ctx := context.Background()
	ro := clientFor(t, c.ReadOnly, smokeAgent)
	nodes, err := ro.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list nodes as read-only: %v", err)
	}
	if len(nodes.Items) != 4 {
		t.Fatalf("read-only sees %d nodes, want 4", len(nodes.Items))
	}
	for i, n := range nodes.Items {
		want := "dirqual" + strconv.Itoa(i+1)
		if n.Name != want {
			t.Errorf("node %d is %q, want %q", i, n.Name, want)
		}
		if !nodeReady(&n) {
			t.Errorf("node %s is not Ready: %+v", n.Name, n.Status.Conditions)
		}
		if got := n.Status.NodeInfo.KubeletVersion; got != "v1.37.2" {
			t.Errorf("node %s kubelet version %q, want v1.37.2", n.Name, got)
		}
		if ip := internalIP(&n); ip != "10.67.2.1"+strconv.Itoa(i+1) {
			t.Errorf("node %s InternalIP %q, want 10.67.2.1%d", n.Name, ip, i+1)
		}
		_, cp := n.Labels["node-role.kubernetes.io/control-plane"]
		if cp != (n.Name == "dirqual1") {
			t.Errorf("node %s control-plane label = %v", n.Name, cp)
		}
	}

	events, err := c.AuditEvents(smokeAgent)
	if err != nil {
		t.Fatal(err)
	}
	if !hasEvent(events, "list", "/api/v1/nodes", harness.UserReadOnly, 200) {
		t.Errorf("audit log has no 200 list of /api/v1/nodes by %s; events of %s: %v", harness.UserReadOnly, smokeAgent, events)
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "smoke"}, Data: map[string]string{"a": "b"}}
	_, err = ro.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("create ConfigMap as read-only: err = %v, want 403 Forbidden", err)
	}
	events, err = c.AuditEvents(smokeAgent)
	if err != nil {
		t.Fatal(err)
	}
	if !hasEvent(events, "create", "/api/v1/namespaces/default/configmaps", harness.UserReadOnly, 403) {
		t.Errorf("audit log has no refused (403) create by %s: %v", harness.UserReadOnly, events)
	}
	for _, e := range events {
		if e.Verb != "list" && e.Verb != "create" {
			t.Errorf("unexpected request of the smoke client: %v", e)
		}
	}

	t.Run("dirqual fixture looks healthy", func(t *testing.T) { checkDirqualHealthy(t, c) })

	if err := c.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	assertGone(t, pids, dir)
}

// checkDirqualHealthy checks that LoadFixture applied what a healthy dirqual
// looks like: workload availability, the default StorageClass, CRDs and
// custom resources with their status.
func checkDirqualHealthy(t *testing.T, c *harness.Cluster) {
	ctx := context.Background()
	cs := c.AdminClient()

	deps, err := cs.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, d := range deps.Items {
		found[d.Namespace+"/"+d.Name] = true
		if d.Spec.Replicas == nil || d.Status.AvailableReplicas != *d.Spec.Replicas || d.Status.AvailableReplicas == 0 {
			t.Errorf("Deployment %s/%s: %d available of %v", d.Namespace, d.Name, d.Status.AvailableReplicas, d.Spec.Replicas)
		}
	}
	for _, want := range []string{
		"kube-system/cilium-operator", "rook-ceph/rook-ceph-operator", "cnpg-system/cnpg-controller-manager",
		"monitoring/kube-prometheus-stack-operator", "monitoring/kube-prometheus-stack-grafana",
		"monitoring/kube-prometheus-stack-kube-state-metrics", "argocd/argocd-server", "argocd/argocd-repo-server",
		"argocd/argocd-applicationset-controller", "argocd/argocd-redis", "argocd/argocd-dex-server",
		"argocd/argocd-notifications-controller", "registry/registry",
	} {
		if !found[want] {
			t.Errorf("Deployment %s missing", want)
		}
	}

	dss, err := cs.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dsFound := map[string]bool{}
	for _, d := range dss.Items {
		dsFound[d.Namespace+"/"+d.Name] = true
		if d.Status.DesiredNumberScheduled != 4 || d.Status.NumberReady != 4 || d.Status.NumberAvailable != 4 {
			t.Errorf("DaemonSet %s/%s status %+v, want 4 desired/ready/available", d.Namespace, d.Name, d.Status)
		}
	}
	for _, want := range []string{"kube-system/cilium", "monitoring/kube-prometheus-stack-prometheus-node-exporter"} {
		if !dsFound[want] {
			t.Errorf("DaemonSet %s missing", want)
		}
	}

	for _, name := range []string{"monitoring/prometheus-kube-prometheus-stack-prometheus", "argocd/argocd-application-controller"} {
		ns, n, _ := strings.Cut(name, "/")
		s, err := cs.AppsV1().StatefulSets(ns).Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Errorf("StatefulSet %s: %v", name, err)
			continue
		}
		if s.Status.ReadyReplicas != 1 || s.Status.AvailableReplicas != 1 {
			t.Errorf("StatefulSet %s status %+v, want 1 ready and available", name, s.Status)
		}
	}

	sc, err := cs.StorageV1().StorageClasses().Get(ctx, "rook-ceph-block", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Provisioner != "rook-ceph.rbd.csi.ceph.com" || sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Errorf("StorageClass rook-ceph-block: provisioner %q, annotations %v", sc.Provisioner, sc.Annotations)
	}

	crds, err := c.AdminDynamic().Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, u := range crds.Items {
		_, g, _ := strings.Cut(u.GetName(), ".")
		groups[g]++
	}
	for _, g := range []string{"cilium.io", "ceph.rook.io", "postgresql.cnpg.io", "monitoring.coreos.com", "argoproj.io"} {
		if groups[g] < 3 {
			t.Errorf("CRD group %s has %d CRDs, want at least 3 (all: %v)", g, groups[g], groups)
		}
	}

	ceph, err := c.AdminDynamic().Resource(schema.GroupVersionResource{Group: "ceph.rook.io", Version: "v1", Resource: "cephclusters"}).Namespace("rook-ceph").Get(ctx, "rook-ceph", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("CephCluster rook-ceph (a custom resource in the same file as its CRD): %v", err)
	}
	if phase, _, _ := unstructured.NestedString(ceph.Object, "status", "phase"); phase != "Ready" {
		t.Errorf("CephCluster status.phase = %q, want Ready (status applied through the subresource)", phase)
	}
}

// TestIdentitiesAndAddresses starts a cluster listening on every address
// and checks the kubeconfigs (any loopback spelling verifies TLS, the
// read-only identity reads, the no-access one is refused, the server
// reports the real version), the bench fixture, fixture errors, and that
// Stop may be called twice.
func TestIdentitiesAndAddresses(t *testing.T) {
	c := harness.StartT(t, harness.Options{BindAddress: "0.0.0.0"})
	ctx := context.Background()
	if want := "https://127.0.0.1:" + strconv.Itoa(c.Port); c.URL != want {
		t.Errorf("URL = %q, want %q", c.URL, want)
	}

	for _, id := range []struct{ path, context string }{
		{c.Admin, "admin@nestor-test"}, {c.ReadOnly, "readonly@nestor-test"}, {c.NoAccess, "noaccess@nestor-test"},
	} {
		cfg, err := clientcmd.LoadFromFile(id.path)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.CurrentContext != id.context || cfg.Clusters["nestor-test"] == nil || cfg.Clusters["nestor-test"].Server != c.URL {
			t.Errorf("%s: current-context %q, clusters %v", id.path, cfg.CurrentContext, cfg.Clusters)
		}
		if st, err := os.Stat(id.path); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, err %v; want 0600", id.path, st.Mode(), err)
		}
	}

	port := strconv.Itoa(c.Port)
	for _, server := range []string{"HTTPS://127.0.0.1:" + port + "/", "https://localhost:" + port, "https://127.0.0.2:" + port} {
		path := filepath.Join(t.TempDir(), "kubeconfig")
		if err := c.WriteKubeconfig(path, harness.IdentityReadOnly, server); err != nil {
			t.Fatal(err)
		}
		if _, err := clientFor(t, path, "addr-test").CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("read-only via %s: %v", server, err)
		}
	}
	if err := c.WriteKubeconfig(filepath.Join(t.TempDir(), "k"), "root", c.URL); err == nil {
		t.Error("WriteKubeconfig accepted an unknown identity")
	}

	no := clientFor(t, c.NoAccess, "noaccess-test")
	if _, err := no.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list nodes as no-access: err = %v, want Forbidden", err)
	}
	v, err := no.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version as no-access: %v", err)
	}
	if v.GitVersion != harness.K8sVersion {
		t.Errorf("server reports %q, want %s (version stamped by tests/k8sbin/build.sh)", v.GitVersion, harness.K8sVersion)
	}

	ro := clientFor(t, c.ReadOnly, "ro-test")
	if _, err := ro.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list secrets as read-only: err = %v, want Forbidden (secrets are not in the read-only rules)", err)
	}
	admin := clientFor(t, c.Admin, "admin-test")
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "made-by-admin"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("create namespace as admin: %v", err)
	}

	if err := c.LoadFixture(fixture("bench-two-nodes.yaml")); err != nil {
		t.Fatalf("load bench fixture: %v", err)
	}
	nodes, err := ro.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		if nodeReady(&n) {
			names = append(names, n.Name)
		}
	}
	if strings.Join(names, ",") != "lima-node1,lima-node2" {
		t.Errorf("Ready bench nodes = %v, want lima-node1, lima-node2", names)
	}
	sc, err := ro.StorageV1().StorageClasses().Get(ctx, "local-path", metav1.GetOptions{})
	if err != nil || sc.Provisioner != "rancher.io/local-path" || sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Errorf("StorageClass local-path: %v, %v", sc, err)
	}
	ds, err := ro.AppsV1().DaemonSets("kube-flannel").Get(ctx, "kube-flannel-ds", metav1.GetOptions{})
	if err != nil || ds.Status.NumberAvailable != 2 {
		t.Errorf("DaemonSet kube-flannel-ds: %v (err %v), want 2 available", ds.Status, err)
	}

	events, err := c.AuditEvents("admin-test")
	if err != nil {
		t.Fatal(err)
	}
	if !hasEvent(events, "create", "/api/v1/namespaces", harness.UserAdmin, 201) {
		t.Errorf("audit log lacks the admin's namespace create: %v", events)
	}

	t.Run("fixture errors", func(t *testing.T) { checkFixtureErrors(t, c) })

	pids, dir := c.PIDs(), c.Dir
	for i := 0; i < 2; i++ { // Stop is idempotent; StartT's cleanup calls it once more
		if err := c.Stop(); err != nil {
			t.Fatalf("stop #%d: %v", i+1, err)
		}
	}
	assertGone(t, pids, dir)
}

// checkFixtureErrors checks that a bad fixture fails with the file, the
// line of the document, its kind and name, and that its valid objects are
// created all the same.
func checkFixtureErrors(t *testing.T, c *harness.Cluster) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	data := `# a comment-only document is skipped
---
apiVersion: v1
kind: ConfigMap
metadata: {name: fine, namespace: default}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: orphan, namespace: nowhere}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: x, image: x}]}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	err := c.LoadFixture(path)
	if err == nil {
		t.Fatal("LoadFixture accepted a Deployment in a missing namespace and an unknown kind")
	}
	for _, want := range []string{path + ":7: Deployment nowhere/orphan: create:", path + ":16: Gadget g: the server does not serve example.com/v1, Kind=Gadget"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := c.AdminClient().CoreV1().ConfigMaps("default").Get(context.Background(), "fine", metav1.GetOptions{}); err != nil {
		t.Errorf("the valid object of the file was not created: %v", err)
	}
}

// TestBinDirMissing checks the error that sends a developer to build.sh.
// It needs no binaries, so it also runs in -short mode.
func TestBinDirMissing(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("NESTOR_TEST_BIN", empty)
	_, err := harness.BinDir()
	if err == nil || !strings.Contains(err.Error(), "tests/k8sbin/build.sh") || !strings.Contains(err.Error(), empty) ||
		!strings.Contains(err.Error(), "etcd, kube-apiserver") {
		t.Fatalf("BinDir() error = %v, want one naming %s, the missing binaries and tests/k8sbin/build.sh", err, empty)
	}
	if _, err := harness.Start(harness.Options{}); err == nil || !strings.Contains(err.Error(), "tests/k8sbin/build.sh") {
		t.Fatalf("Start() error = %v, want the build.sh hint", err)
	}

	t.Setenv("NESTOR_TEST_BIN", "")
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	_, err = harness.BinDir()
	if want := filepath.Join(xdg, "nestor-test", harness.K8sVersion); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("BinDir() with XDG_CACHE_HOME error = %v, want it to look in %s", err, want)
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func internalIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// hasEvent reports whether events holds a request with verb, a URI whose
// path is path, user and code.
func hasEvent(events []harness.AuditEvent, verb, path, user string, code int) bool {
	for _, e := range events {
		p, _, _ := strings.Cut(e.RequestURI, "?")
		if e.Verb == verb && p == path && e.User == user && e.Code == code {
			return true
		}
	}
	return false
}

// assertGone checks that no process of a stopped cluster is left: each pid
// is gone, no process mentions the cluster folder, and the folder is removed.
func assertGone(t *testing.T, pids []int, dir string) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after Stop (kill -0: %v)", pid, err)
		}
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), dir) {
			t.Errorf("process %s still runs with the cluster folder: %s", p.Name(), strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster folder %s still exists (stat: %v)", dir, err)
	}
}
