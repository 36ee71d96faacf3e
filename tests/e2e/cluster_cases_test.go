package e2e

// End-to-end proofs of three kinds of real-world cluster states and Lima
// listings, each with the operator's own file and variants of it (other
// distributions, spellings, formats), run with the built binary against the
// real kube-apiserver harness (and the limactl stand-in):
//
//   - node roles and states: every distribution's spelling of the
//     control-plane role counts; Ready=Unknown and Ready=False are shown
//     with the cluster's reason; a cordoned node is SchedulingDisabled;
//     discover's draft validates and reads back in sync;
//   - several default StorageClasses: the one Kubernetes uses (the newest,
//     not the first by name), all of them named, a warning;
//   - limactl listings with errors: Broken instances show limactl's errors,
//     stray entries are never VMs and never shown with a blank status.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/tests/harness"
)

// casesDoc is the part of the preview -o json document these tests read.
type casesDoc struct {
	Actual struct {
		VMs *fact[[]struct {
			Name   string   `json:"name"`
			Status string   `json:"status"`
			Errors []string `json:"errors"`
		}] `json:"vms"`
		NotVMs []struct {
			Name   string   `json:"name"`
			Errors []string `json:"errors"`
		} `json:"not_vms"`
		Nodes   fact[[]casesNode] `json:"nodes"`
		Storage fact[struct {
			Class         string   `json:"class"`
			Provisioner   string   `json:"provisioner"`
			Backend       string   `json:"backend"`
			OtherDefaults []string `json:"other_defaults"`
			Warning       string   `json:"warning"`
		}] `json:"storage"`
	} `json:"actual"`
	Plan struct {
		Steps    []planStep  `json:"steps"`
		Unknowns []jsonClaim `json:"unknowns"`
	} `json:"plan"`
}

type casesNode struct {
	Name          string   `json:"name"`
	Ready         bool     `json:"ready"`
	ReadyStatus   string   `json:"ready_status"`
	ReadyReason   string   `json:"ready_reason"`
	ReadyMessage  string   `json:"ready_message"`
	Unschedulable bool     `json:"unschedulable"`
	Roles         []string `json:"roles"`
}

func decodeCases(t *testing.T, r result) casesDoc {
	t.Helper()
	var d casesDoc
	if err := jsonDecode(r.stdout, &d); err != nil {
		t.Fatalf("stdout is not the JSON document: %v\n%s", err, r)
	}
	return d
}

func (d casesDoc) node(t *testing.T, name string) casesNode {
	t.Helper()
	if !d.Actual.Nodes.Known {
		t.Fatalf("nodes unknown: %s", d.Actual.Nodes.Reason)
	}
	for _, n := range d.Actual.Nodes.Value {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("node %s not in actual.nodes", name)
	return casesNode{}
}

// stepsOf returns the plan's steps of kind, by target.
func (d casesDoc) stepsOf(kind string) map[string]string {
	out := map[string]string{}
	for _, s := range d.Plan.Steps {
		if s.Kind == kind {
			out[s.Target] = s.Reason
		}
	}
	return out
}

// casesCluster starts a cluster for t loaded with the fixtures of
// tests/testdata/clusters, in order.
func casesCluster(t *testing.T, fixtures ...string) *harness.Cluster {
	t.Helper()
	c := harness.StartT(t, harness.Options{})
	for _, f := range fixtures {
		if err := c.LoadFixture(clusterFixture(t, f)); err != nil {
			t.Fatalf("load %s: %v", f, err)
		}
	}
	return c
}

// prodStack writes stacks/NAME.yaml, a prod stack of c read through
// ~/.kube/NAME.config (the read-only identity) with endpoint c.URL, and the
// rest of the topology given; it returns the world.
func prodStack(t *testing.T, c *harness.Cluster, name, rest string) *world {
	t.Helper()
	w := newWorld(t, c)
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", name+".config"), harness.IdentityReadOnly, "")
	w.stackFile(name, "name: "+name+"\ntarget_kind: prod\nkubeconfig: ~/.kube/"+name+".config\nendpoint: "+c.URL+"\n"+rest)
	return w
}

// wantDraftInSync runs discover -o yaml for stack, checks the draft is a
// topology nestor accepts (discover validates its own draft and fails
// otherwise), saves it as stack "draft" and previews it: nothing to
// repair or join.
func wantDraftInSync(t *testing.T, w *world, stack string, wantLines ...string) string {
	t.Helper()
	r := w.run(nil, "discover", "--stack", stack, "--stacks", w.Stacks, "-o", "yaml", "--name", "draft")
	wantCode(t, r, 0)
	for _, l := range wantLines {
		wantLine(t, "draft", r.stdout, l)
	}
	w.stackFile("draft", r.stdout)
	r = w.run(nil, "preview", "--stack", "draft", "--stacks", w.Stacks, "-o", "json")
	wantCode(t, r, 0)
	d := decodeCases(t, r)
	for _, kind := range []string{"repair-node", "join-node"} {
		if s := d.stepsOf(kind); len(s) != 0 {
			t.Errorf("the draft read back: %s steps %v", kind, s)
		}
	}
	return r.stdout
}

// The RKE1 cluster (handed file): three nodes labelled
// node-role.kubernetes.io/controlplane=true, etcd and worker, one worker.
// The control planes are control planes: no repair-node; discover's draft
// says so and validates.
func TestCasesRKE1ControlPlaneLabel(t *testing.T) {
	c := casesCluster(t, "rke1-controlplane-label.yaml")
	w := prodStack(t, c, "rke1", `nodes:
  - {name: rke-n1, role: control-plane, address: 192.0.2.91}
  - {name: rke-n2, role: control-plane, address: 192.0.2.92}
  - {name: rke-n3, role: control-plane, address: 192.0.2.93}
  - {name: rke-w4, role: worker}
`)
	args := []string{"preview", "--stack", "rke1", "--stacks", w.Stacks}
	r := w.run(nil, append(args, "-o", "json")...)
	wantCode(t, r, 0)
	d := decodeCases(t, r)
	for _, n := range []string{"rke-n1", "rke-n2", "rke-n3"} {
		if got := d.node(t, n); !slices.Equal(got.Roles, []string{"controlplane", "etcd", "worker"}) || !got.Ready || got.ReadyStatus != "True" {
			t.Errorf("%s = %+v, want roles controlplane,etcd,worker and Ready", n, got)
		}
	}
	if s := d.stepsOf("repair-node"); len(s) != 0 {
		t.Errorf("repair-node on RKE1 control planes: %v", s)
	}
	r = w.run(nil, args...)
	wantCode(t, r, 0)
	wantLine(t, "rke-n1 row", r.stdout, `^\s+rke-n1\s+True\s+controlplane,etcd,worker\s+v1\.28\.15\s+192\.0\.2\.91$`)
	wantLine(t, "rke-w4 row", r.stdout, `^\s+rke-w4\s+True\s+worker\s+v1\.28\.15\s+192\.0\.2\.94$`)
	wantNotContains(t, "preview", r.stdout, "repair-node")

	wantDraftInSync(t, w, "rke1",
		`^\s+- \{name: rke-n1, role: control-plane, address: 192\.0\.2\.91\}$`,
		`^\s+- \{name: rke-n3, role: control-plane, address: 192\.0\.2\.93\}$`,
		`^\s+- \{name: rke-w4, role: worker, address: 192\.0\.2\.94\}$`)

	// Declared the other way round, the roles still differ.
	w.stackFile("rke1", strings.Replace(string(mustRead(t, filepath.Join(w.Stacks, "rke1.yaml"))), "{name: rke-w4, role: worker}", "{name: rke-w4, role: control-plane}", 1))
	r = w.run(nil, append(args, "-o", "json")...)
	wantCode(t, r, 0)
	if s := decodeCases(t, r).stepsOf("repair-node"); len(s) != 1 || !strings.Contains(s["rke-w4"], "declared role control-plane, the cluster's roles: worker") {
		t.Errorf("repair-node steps %v, want rke-w4 only", s)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The legacy cluster (handed file: a master labelled only
// node-role.kubernetes.io/master, a worker whose kubelet stopped posting
// status, a cordoned worker) and its neighbours (k3s, RKE2 etcd-only, kops
// kubernetes.io/role=master, Ready=False and cordoned, no Ready condition).
func TestCasesNodeRolesAndStates(t *testing.T) {
	c := casesCluster(t, "legacy-master-unreachable.yaml", "node-roles-other-distributions.yaml")
	w := prodStack(t, c, "legacy", `nodes:
  - {name: legacy-cp1, role: control-plane}
  - {name: legacy-w1, role: worker}
  - {name: legacy-w2, role: worker}
  - {name: k3s-s1, role: control-plane}
  - {name: rke2-etcd1, role: worker}
  - {name: kops-m1, role: control-plane}
  - {name: w-notready, role: worker}
  - {name: w-nostatus, role: worker}
`)
	args := []string{"preview", "--stack", "legacy", "--stacks", w.Stacks}
	r := w.run(nil, append(args, "-o", "json")...)
	wantCode(t, r, 0)
	d := decodeCases(t, r)

	for name, want := range map[string]casesNode{
		"legacy-cp1": {Ready: true, ReadyStatus: "True", Roles: []string{"master"}},
		"legacy-w1":  {ReadyStatus: "Unknown", ReadyReason: "NodeStatusUnknown", ReadyMessage: "Kubelet stopped posting node status.", Roles: []string{}},
		"legacy-w2":  {Ready: true, ReadyStatus: "True", Unschedulable: true, Roles: []string{}},
		"k3s-s1":     {Ready: true, ReadyStatus: "True", Roles: []string{"control-plane", "etcd", "master"}},
		"rke2-etcd1": {Ready: true, ReadyStatus: "True", Roles: []string{"etcd"}},
		"kops-m1":    {Ready: true, ReadyStatus: "True", Roles: []string{"master"}},
		"w-notready": {ReadyStatus: "False", ReadyReason: "KubeletNotReady", Unschedulable: true, Roles: []string{},
			ReadyMessage: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"},
		"w-nostatus": {ReadyMessage: "the node has no Ready condition (its kubelet has not posted a status)", Roles: []string{}},
	} {
		got := d.node(t, name)
		want.Name = name
		if got.Roles == nil {
			got.Roles = []string{}
		}
		if !equalNode(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	repairs := d.stepsOf("repair-node")
	wantRepairs := map[string]string{
		"legacy-w1":  "registered, Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status.",
		"w-notready": "registered, Ready=False, KubeletNotReady: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
		"w-nostatus": "registered, NotReady, the node has no Ready condition (its kubelet has not posted a status)",
	}
	if !equalMaps(repairs, wantRepairs) {
		t.Errorf("repair-node steps:\n got %q\nwant %q", repairs, wantRepairs)
	}

	// Only the nodes the Table shows NotReady were read further, one
	// restricted list each (the same "list nodes" permission as the Table).
	var details []string
	for _, e := range r.audit[0] {
		if strings.HasPrefix(e.RequestURI, "/api/v1/nodes?") && strings.Contains(e.RequestURI, "fieldSelector=") {
			details = append(details, e.RequestURI)
		}
		if strings.HasPrefix(e.RequestURI, "/api/v1/nodes/") {
			t.Errorf("a request per node object: %s", e)
		}
	}
	slices.Sort(details)
	if len(details) != 2 || !strings.Contains(details[0], "metadata.name%3Dlegacy-w1") || !strings.Contains(details[1], "metadata.name%3Dw-notready") {
		t.Errorf("node detail lists = %q, want legacy-w1 and w-notready", details)
	}

	r = w.run(nil, args...)
	wantCode(t, r, 0)
	out := r.stdout
	wantLine(t, "legacy-cp1", out, `^\s+legacy-cp1\s+True\s+master\s+v1\.37\.2\s+192\.0\.2\.81$`)
	wantLine(t, "legacy-w1", out, `^\s+legacy-w1\s+Unknown\s+<none>\s+v1\.37\.2\s+192\.0\.2\.82\s+NodeStatusUnknown: Kubelet stopped posting node status\.$`)
	wantLine(t, "legacy-w2", out, `^\s+legacy-w2\s+True,SchedulingDisabled\s+<none>\s+v1\.37\.2\s+192\.0\.2\.83$`)
	wantLine(t, "w-notready", out, `^\s+w-notready\s+False,SchedulingDisabled\s+<none>\s+v1\.33\.5\s+192\.0\.2\.104\s+KubeletNotReady: container runtime network not ready`)
	wantLine(t, "w-nostatus", out, `^\s+w-nostatus\s+NotReady\s+<none>\s+v1\.33\.5\s+192\.0\.2\.105\s+the node has no Ready condition`)
	wantLine(t, "repair legacy-w1", out, `~ repair-node legacy-w1\s+\(registered, Ready=Unknown, NodeStatusUnknown: Kubelet stopped posting node status\.\)$`)
	for _, n := range []string{"legacy-cp1", "k3s-s1", "kops-m1", "rke2-etcd1", "legacy-w2"} {
		wantNotContains(t, "plan", out, "repair-node "+n+" ")
	}

	// The draft: legacy master, k3s and kops masters are control planes, the
	// etcd-only node a worker; it validates, and reads back with only the
	// nodes that are not Ready to repair.
	r = w.run(nil, "discover", "--stack", "legacy", "--stacks", w.Stacks, "-o", "yaml", "--name", "draft")
	wantCode(t, r, 0)
	for _, l := range []string{
		`^\s+- \{name: legacy-cp1, role: control-plane, address: 192\.0\.2\.81\}$`,
		`^\s+- \{name: k3s-s1, role: control-plane, address: 192\.0\.2\.101\}$`,
		`^\s+- \{name: kops-m1, role: control-plane, address: 192\.0\.2\.103\}$`,
		`^\s+- \{name: rke2-etcd1, role: worker, address: 192\.0\.2\.102\}$`,
	} {
		wantLine(t, "draft", r.stdout, l)
	}
	w.stackFile("draft", r.stdout)
	r = w.run(nil, "preview", "--stack", "draft", "--stacks", w.Stacks, "-o", "json")
	wantCode(t, r, 0)
	if got := decodeCases(t, r).stepsOf("repair-node"); !equalMaps(got, wantRepairs) {
		t.Errorf("the draft read back: repair-node %q, want only the nodes not Ready", got)
	}

	// Many nodes not Ready (a zone lost): the condition is read for the
	// first 16 by name, one restricted list each (a list of every whole
	// Node costs ~2 s at 2,000 nodes); the others say it was not read.
	for i := 0; i < 16; i++ {
		createNotReadyNode(t, c, fmt.Sprintf("zone-b-%02d", i))
	}
	r = w.run(nil, append(args, "-o", "json")...)
	wantCode(t, r, 0)
	d = decodeCases(t, r)
	if got := d.node(t, "legacy-w1"); got.ReadyStatus != "Unknown" || got.ReadyReason != "NodeStatusUnknown" {
		t.Errorf("legacy-w1 with 18 nodes not Ready: %+v", got)
	}
	if got := d.node(t, "zone-b-13"); got.ReadyStatus != "Unknown" || got.ReadyMessage != "Kubelet stopped posting node status." {
		t.Errorf("zone-b-13: %+v", got)
	}
	want := "the Ready condition was not read: 18 nodes are not Ready, and nestor reads it for the first 16 by name only (`kubectl describe node zone-b-15` shows it)"
	if got := d.node(t, "zone-b-15"); got.Ready || got.ReadyStatus != "" || got.ReadyMessage != want {
		t.Errorf("zone-b-15: %+v, want not Ready, %q", got, want)
	}
	details = nil
	for _, e := range r.audit[0] {
		if strings.HasPrefix(e.RequestURI, "/api/v1/nodes?") && !strings.Contains(e.RequestURI, "includeObject=None") {
			if !strings.Contains(e.RequestURI, "fieldSelector=metadata.name") {
				t.Errorf("a list of every whole Node: %s", e)
			}
			details = append(details, e.RequestURI)
		}
	}
	if len(details) != 16 {
		t.Errorf("%d node detail lists, want 16: %q", len(details), details)
	}
}

// createNotReadyNode registers a node whose kubelet stopped posting status
// (Ready=Unknown, NodeStatusUnknown), as the node controller leaves it.
func createNotReadyNode(t *testing.T, c *harness.Cluster, name string) {
	t.Helper()
	ctx := context.Background()
	n, err := c.AdminClient().CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
		Message: "Kubelet stopped posting node status.", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if _, err := c.AdminClient().CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func equalNode(a, b casesNode) bool {
	return a.Name == b.Name && a.Ready == b.Ready && a.ReadyStatus == b.ReadyStatus && a.ReadyReason == b.ReadyReason &&
		a.ReadyMessage == b.ReadyMessage && a.Unschedulable == b.Unschedulable && slices.Equal(a.Roles, b.Roles)
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// loadInOrder creates the documents of fixture one after the other, each
// in a later second than the one before (creationTimestamp has a one-second
// precision).
func loadInOrder(t *testing.T, c *harness.Cluster, fixture string) {
	t.Helper()
	data := mustRead(t, clusterFixture(t, fixture))
	docs := regexp.MustCompile(`(?m)^---$`).Split(string(data), -1)
	n := 0
	for _, doc := range docs {
		if !strings.Contains(doc, "kind:") {
			continue
		}
		if n > 0 {
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond)))
		}
		if err := c.LoadManifests(fixture, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// Several default StorageClasses: the handed k3s cluster (local-path, then
// longhorn, both default) and a cluster where the newer default carries the
// beta annotation and is the last by name. The class Kubernetes uses is the
// newest; every default is named; the plan never follows the first by name;
// discover's draft says so.
func TestCasesSeveralDefaultStorageClasses(t *testing.T) {
	c := casesCluster(t)
	cs := c.AdminClient()
	ctx := context.Background()
	created := func(name string) time.Time {
		sc, err := cs.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sc.CreationTimestamp.Time
	}

	t.Run("k3s local-path then longhorn", func(t *testing.T) {
		loadInOrder(t, c, "storage-two-defaults-k3s-longhorn.yaml")
		if !created("longhorn").After(created("local-path")) {
			t.Fatalf("longhorn (%v) is not newer than local-path (%v)", created("longhorn"), created("local-path"))
		}
		defer deleteClasses(t, c, "local-path", "longhorn")
		w := prodStack(t, c, "k3s", "nodes: []\nbackend: longhorn\nlayers: [longhorn]\n")
		r := w.run(nil, "preview", "--stack", "k3s", "--stacks", w.Stacks, "-o", "json")
		wantCode(t, r, 0)
		d := decodeCases(t, r)
		s := d.Actual.Storage
		if !s.Known || s.Value.Class != "longhorn" || s.Value.Backend != "longhorn" || !slices.Equal(s.Value.OtherDefaults, []string{"local-path"}) {
			t.Errorf("storage = %+v, want longhorn (the newest), local-path also default", s)
		}
		wantContains(t, "warning", s.Value.Warning, "2 StorageClasses are marked default", "longhorn (driver.longhorn.io, created ", "local-path (rancher.io/local-path, created ", "Kubernetes uses the newest, longhorn")
		if m := d.stepsOf("migrate-backend"); len(m) != 0 {
			t.Errorf("migrate-backend planned although Kubernetes uses longhorn: %v", m)
		}

		r = w.run(nil, "preview", "--stack", "k3s", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		wantLine(t, "storage", r.stdout, `^\s+storage\s+default StorageClass longhorn \(driver\.longhorn\.io → longhorn\)$`)
		wantLine(t, "warning", r.stdout, `^\s+warning: 2 StorageClasses are marked default: longhorn .*, local-path .*; Kubernetes uses the newest, longhorn`)

		// Desired local-path: the migration names the class Kubernetes uses.
		w.stackFile("k3s", strings.Replace(string(mustRead(t, filepath.Join(w.Stacks, "k3s.yaml"))), "backend: longhorn\nlayers: [longhorn]", "backend: local-path\nlayers: [local-path]", 1))
		r = w.run(nil, "preview", "--stack", "k3s", "--stacks", w.Stacks, "-o", "json")
		wantCode(t, r, 0)
		m := decodeCases(t, r).stepsOf("migrate-backend")
		wantContains(t, "migrate-backend", m["local-path"], "desired backend local-path, cluster default StorageClass longhorn (driver.longhorn.io)", "also: local-path")

		r = w.run(nil, "discover", "--stack", "k3s", "--stacks", w.Stacks, "-o", "yaml")
		wantCode(t, r, 0)
		wantLine(t, "draft comment", r.stdout, `^# backend: 2 StorageClasses are marked default: longhorn .*Kubernetes uses the newest, longhorn`)
		wantLine(t, "draft backend", r.stdout, `^backend: longhorn$`)
		r = w.run(nil, "discover", "--stack", "k3s", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		wantLine(t, "discover warning", r.stdout, `^\s+WARNING 2 StorageClasses are marked default: longhorn `)
	})

	t.Run("ceph-rbd then microk8s-hostpath with the beta annotation", func(t *testing.T) {
		loadInOrder(t, c, "storage-beta-default-microk8s.yaml")
		defer deleteClasses(t, c, "ceph-rbd", "microk8s-hostpath", "nfs-csi")
		w := prodStack(t, c, "mk", "nodes: []\nbackend: ceph\nlayers: [rook-ceph]\n")
		r := w.run(nil, "preview", "--stack", "mk", "--stacks", w.Stacks, "-o", "json")
		wantCode(t, r, 0)
		d := decodeCases(t, r)
		s := d.Actual.Storage
		if !s.Known || s.Value.Class != "microk8s-hostpath" || s.Value.Backend != "" || !slices.Equal(s.Value.OtherDefaults, []string{"ceph-rbd"}) {
			t.Errorf("storage = %+v, want microk8s-hostpath (newest, beta annotation), ceph-rbd also default, nfs-csi (\"True\") not", s)
		}
		// The first by name, ceph-rbd, would have passed for Ceph: it is not
		// what Kubernetes uses.
		m := d.stepsOf("migrate-backend")
		wantContains(t, "migrate-backend", m["rook-ceph"], "cluster default StorageClass microk8s-hostpath (microk8s.io/hostpath)", "also: ceph-rbd")
		wantNotContains(t, "warning", s.Value.Warning, "nfs-csi")
	})
}

func deleteClasses(t *testing.T, c *harness.Cluster, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := c.AdminClient().StorageV1().StorageClasses().Delete(context.Background(), n, metav1.DeleteOptions{}); err != nil {
			t.Error(err)
		}
	}
}

// limaStack writes a lima stack named name declaring nodes (the first a
// control plane), the shipped bench example otherwise.
func limaStack(t *testing.T, w *world, name string, nodes ...string) {
	t.Helper()
	text := string(mustRead(t, filepath.Join(repoRoot(t), "stacks", "examples", "bench.yaml")))
	text = strings.Replace(text, "name: bench", "name: "+name, 1)
	var b bytes.Buffer
	for i, n := range nodes {
		role := "worker"
		if i == 0 {
			role = "control-plane"
		}
		b.WriteString("  - {name: " + n + ", role: " + role + "}\n")
	}
	text = strings.Replace(text, "  - {name: lima-node1, role: control-plane}\n  - {name: lima-node2, role: worker}\n", b.String(), 1)
	w.stackFile(name, text)
}

// noBlankVM fails when a VM line of the human view has no status.
func noBlankVM(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if regexp.MustCompile(`^\s+VM \S+\s*$`).MatchString(l) {
			t.Errorf("a VM shown with a blank status: %q", l)
		}
	}
}

// limactl listings with errors, through the limactl stand-in.
func TestCasesLimaListingsWithErrors(t *testing.T) {
	bench := sharedFixtureCluster(t, benchFixture)

	t.Run("stray files beside the instances (handed)", func(t *testing.T) {
		w := benchWorld(t, bench, true)
		w.LimaOutput = limaRecording(t, "list-stray-files.json")
		stderr := "LIMACTL_STANDIN_STDERR=" + limaRecording(t, "list-stray-files.stderr")
		args := []string{"preview", "--stack", "bench", "--stacks", w.Stacks}
		r := w.run([]string{stderr}, append(args, "-o", "json")...)
		wantCode(t, r, 0)
		d := decodeCases(t, r)
		if v := d.Actual.VMs; v == nil || !v.Known || len(v.Value) != 1 || v.Value[0].Name != "lima-node1" || v.Value[0].Status != "Running" {
			t.Errorf("vms = %+v, want lima-node1 Running only", v)
		}
		if n := d.Actual.NotVMs; len(n) != 2 || n[0].Name != "docker.yaml" || n[1].Name != "podman.yaml" ||
			!slices.Equal(n[0].Errors, []string{"open /Users/example-user/.lima/docker.yaml/lima.yaml: not a directory"}) {
			t.Errorf("not_vms = %+v, want docker.yaml and podman.yaml with their errors", n)
		}
		if c := d.stepsOf("create-vm"); len(c) != 1 || c["lima-node2"] != "declared node has no Lima VM" {
			t.Errorf("create-vm steps %v, want lima-node2 only", c)
		}
		r = w.run([]string{stderr}, args...)
		wantCode(t, r, 0)
		wantLine(t, "vm", r.stdout, `^\s+VM lima-node1\s+Running$`)
		wantLine(t, "docker.yaml", r.stdout, `^\s+not a VM docker\.yaml\s+skipped: limactl lists it, but it is no Lima instance \(open /Users/example-user/\.lima/docker\.yaml/lima\.yaml: not a directory\)$`)
		wantLine(t, "podman.yaml", r.stdout, `^\s+not a VM podman\.yaml\s+skipped: `)
		wantNotContains(t, "human view", r.stdout, "level=warning")
		if regexp.MustCompile(`(?m)^\s+VM (docker|podman)\.yaml`).MatchString(r.stdout) {
			t.Errorf("a stray file shown as a VM:\n%s", r.stdout)
		}
		noBlankVM(t, r.stdout)
	})

	t.Run("broken instances (handed)", func(t *testing.T) {
		w := newWorld(t, bench)
		w.LimaOutput = limaRecording(t, "list-broken-ndjson.json")
		limaStack(t, w, "lab", "k8s-cp", "k8s-worker", "cluster", "default")
		args := []string{"preview", "--stack", "lab", "--stacks", w.Stacks}
		r := w.run(nil, append(args, "-o", "json")...)
		wantCode(t, r, 0)
		d := decodeCases(t, r)
		starts := d.stepsOf("start-vm")
		if len(starts) != 3 || starts["k8s-worker"] != "VM is Stopped" {
			t.Errorf("start-vm steps %q, want k8s-worker, cluster, default", starts)
		}
		wantContains(t, "cluster", starts["cluster"], `VM is Broken (limactl: failed to connect to "/Users/example-user/.lima/cluster/ha.sock": stat /Users/example-user/.lima/cluster/ha.sock: no such file or directory)`, "limactl stop -f cluster")
		wantContains(t, "default", starts["default"], "VM is Broken (limactl: host agent is running but driver is not)", "limactl stop -f default")
		for _, vm := range d.Actual.VMs.Value {
			if vm.Status == "Broken" && len(vm.Errors) != 1 {
				t.Errorf("%s Broken without its error: %+v", vm.Name, vm)
			}
		}
		r = w.run(nil, args...)
		wantCode(t, r, 0)
		wantLine(t, "cluster", r.stdout, `^\s+VM cluster\s+Broken  \(failed to connect to "/Users/example-user/\.lima/cluster/ha\.sock": stat .*: no such file or directory\)$`)
		wantLine(t, "default", r.stdout, `^\s+VM default\s+Broken  \(host agent is running but driver is not\)$`)
		wantLine(t, "k8s-worker", r.stdout, `^\s+VM k8s-worker\s+Stopped$`)
		noBlankVM(t, r.stdout)
	})

	t.Run("array: a stray file named like a node, a Broken control plane", func(t *testing.T) {
		w := benchWorld(t, bench, true)
		w.LimaOutput = limaRecording(t, "bench-node2-stray-array.json")
		r := w.run(nil, "preview", "--stack", "bench", "--stacks", w.Stacks, "-o", "json")
		wantCode(t, r, 0)
		d := decodeCases(t, r)
		if v := d.Actual.VMs; v == nil || len(v.Value) != 1 || v.Value[0].Name != "lima-node1" {
			t.Errorf("vms = %+v, want lima-node1 only", v)
		}
		if len(d.Actual.NotVMs) != 2 || d.Actual.NotVMs[0].Name != "lima-node2" || d.Actual.NotVMs[1].Name != "notes.txt" {
			t.Errorf("not_vms = %+v", d.Actual.NotVMs)
		}
		wantContains(t, "start-vm", d.stepsOf("start-vm")["lima-node1"], "VM is Broken (limactl: qemu is running but host agent is not)", "limactl stop -f lima-node1")
		wantContains(t, "create-vm", d.stepsOf("create-vm")["lima-node2"], "limactl lists an entry of that name that is not a VM (limactl: open /home/op/.lima/lima-node2/lima.yaml: not a directory): move it out of the Lima folder first")
	})

	t.Run("older limactl: pretty objects, errors as Go values", func(t *testing.T) {
		w := benchWorld(t, bench, true)
		w.LimaOutput = limaRecording(t, "bench-broken-old-errors-pretty.json")
		r := w.run(nil, "preview", "--stack", "bench", "--stacks", w.Stacks)
		wantCode(t, r, 0)
		wantLine(t, "lima-node2", r.stdout, `^\s+VM lima-node2\s+Broken  \(an error without text \(limactl printed \{\}\)\)$`)
		wantLine(t, "docker.yaml", r.stdout, `^\s+not a VM docker\.yaml\s+skipped: .*\(open /home/op/\.lima/docker\.yaml/lima\.yaml: failed \(limactl gave no error text\)\)$`)
		wantLine(t, "start", r.stdout, `~ start-vm lima-node2\s+\(VM is Broken \(limactl: an error without text`)
		noBlankVM(t, r.stdout)
	})
}
