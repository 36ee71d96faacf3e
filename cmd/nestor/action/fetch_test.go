package action

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/probes/prod"
	"nestor.dev/nestor/stacks"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/ssh"
	"nestor.dev/nestor/topology"
)

// fakeAPIServer answers what the guard reads (/version, the node list) over
// TLS, refuses anything else, and counts requests by method.
func fakeAPIServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("the API server got a %s %s", r.Method, r.URL)
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/version":
			_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
		case "/api/v1/nodes":
			// nestor asks for the API server's server-side Table of nodes
			// (the node printer's columns, in its order).
			if !strings.Contains(r.Header.Get("Accept"), "as=Table") {
				http.Error(w, "this fake serves nodes as a Table only", http.StatusNotAcceptable)
				return
			}
			_, _ = w.Write([]byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},
"columnDefinitions":[{"name":"Name","type":"string"},{"name":"Status","type":"string"},{"name":"Roles","type":"string"},{"name":"Age","type":"string"},{"name":"Version","type":"string"},{"name":"Internal-IP","type":"string"}],
"rows":[{"cells":["lab1","Ready","control-plane","5m","v1.37.2","10.0.0.1"]},{"cells":["lab2","Ready","<none>","5m","v1.37.2","10.0.0.2"]}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// kubeconfigFor returns a kubeconfig for srv reached at server, user name
// user, with a token credential.
func kubeconfigFor(t *testing.T, srv *httptest.Server, server, user string) []byte {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["lab"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: "SECRET-TOKEN-" + user}
	cfg.Contexts[user+"@lab"] = &clientcmdapi.Context{Cluster: "lab", AuthInfo: user}
	cfg.CurrentContext = user + "@lab"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sshServing returns a Runner standing in for ssh that prints data, and
// records the arguments it was given; any other program is not installed
// (ansible-inventory among them: the inventory is read by nestor's reader).
func sshServing(data []byte, got *[]string) probes.Runner {
	return func(_ context.Context, name string, args ...string) ([]byte, []byte, error) {
		if name != "ssh" {
			return nil, nil, fmt.Errorf("%s: %w", name, exec.ErrNotFound)
		}
		*got = append([]string{name}, args...)
		return data, nil, nil
	}
}

type fetchFixture struct {
	dir, home, topo, kc string
	srv                 *httptest.Server
}

func newFetchFixture(t *testing.T, endpoint func(srv *httptest.Server) string) *fetchFixture {
	t.Helper()
	f := &fetchFixture{dir: t.TempDir(), home: t.TempDir(), srv: fakeAPIServer(t)}
	f.kc = filepath.Join(f.home, ".kube", "lab.config")
	ep := endpoint(f.srv)
	body := "# lab\nname: lab\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\n"
	if ep != "" {
		body += "endpoint: " + ep + "\n"
	}
	body += "inventory: hosts.yaml\nnodes:\n  - {name: lab1, role: control-plane, address: 127.0.0.1, user: topo-user, port: 2200, key: keys/topo}\n  - {name: lab2, role: worker}\n"
	f.topo = writeStack(t, f.dir, "lab", body)
	inv := "all:\n  vars:\n    ansible_user: inv-user\n  children:\n    cp:\n      vars:\n        ansible_port: 2222\n        ansible_ssh_common_args: -o UserKnownHostsFile=/kh\n      hosts:\n        lab1:\n    other:\n      hosts:\n        ansible-only:\n          ansible_host: 192.0.2.7\n"
	if err := os.WriteFile(filepath.Join(f.dir, "hosts.yaml"), []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fetchFixture) load(t *testing.T) *topology.Topology {
	t.Helper()
	tp, err := stacks.Load(f.topo)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestFetchTargetPrecedence(t *testing.T) {
	f := newFetchFixture(t, func(*httptest.Server) string { return "" })
	tp := f.load(t)
	fo, _, err := ssh.NodeSettings(context.Background(), tp, "lab1", FetchOptions{}, ssh.NodeEnv{Home: f.home, Interactive: false})
	if err != nil {
		t.Fatal(err)
	}
	// inventory beats the topology's node; the address is the topology's.
	if fo.Host != "127.0.0.1" || fo.Address != "127.0.0.1" || fo.User != "inv-user" || fo.Port != 2222 ||
		fo.CommonArgs != "-o UserKnownHostsFile=/kh" || fo.IdentityFile != filepath.Join(f.dir, "keys/topo") {
		t.Errorf("from inventory + topology: %+v", fo)
	}
	// flags beat both
	fo, _, err = ssh.NodeSettings(context.Background(), tp, "lab1", FetchOptions{User: "flag-user", Port: 22, Identity: "~/id", RemotePath: "/k3s"}, ssh.NodeEnv{Home: f.home, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if fo.User != "flag-user" || fo.Port != 22 || fo.IdentityFile != filepath.Join(f.home, "id") || fo.RemotePath != "/k3s" || !fo.Interactive {
		t.Errorf("flags: %+v", fo)
	}
	// a host only the inventory knows: its ansible_host, no topology address.
	fo, _, err = ssh.NodeSettings(context.Background(), tp, "ansible-only", FetchOptions{}, ssh.NodeEnv{Home: f.home, Interactive: false})
	if err != nil || fo.Host != "192.0.2.7" || fo.Address != "192.0.2.7" || fo.User != "inv-user" {
		t.Errorf("inventory-only host: %+v %v", fo, err)
	}
	// a node only the topology knows: a note, the topology's settings.
	fo, notes, err := ssh.NodeSettings(context.Background(), tp, "lab2", FetchOptions{}, ssh.NodeEnv{Home: f.home, Interactive: false})
	if err != nil || fo.Host != "lab2" || len(notes) != 1 || !strings.Contains(notes[0], `has no host "lab2"`) {
		t.Errorf("topology-only node: %+v %q %v", fo, notes, err)
	}
	// unknown everywhere: both lists.
	_, _, err = ssh.NodeSettings(context.Background(), tp, "nope", FetchOptions{}, ssh.NodeEnv{Home: f.home, Interactive: false})
	if err == nil || !strings.Contains(err.Error(), "(nodes: lab1, lab2)") || !strings.Contains(err.Error(), "hosts it knows: ansible-only, lab1") {
		t.Errorf("unknown node: %v", err)
	}
}

func TestFetchDestination(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	c, _, _ := testConfig(t, map[string]string{"HOME": home}, false, nil)
	tp, err := stacks.Load(writeStack(t, dir, "lab", prodNoKubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := (Fetch{Config: c}).fetchDestination(tp); err == nil || !strings.Contains(err.Error(), "kubeconfig: ~/.kube/lab.config") {
		t.Errorf("no kubeconfig: %v", err)
	}
	dest, kc, err := Fetch{Config: withKubeconfig(c, "~/x.config")}.fetchDestination(tp)
	if err != nil || dest != filepath.Join(home, "x.config") || kc.Source != probes.SourceFlag {
		t.Errorf("flag: %s %+v %v", dest, kc, err)
	}
	tp.Kubeconfig = "~/.kube/lab.config"
	if _, _, err := (Fetch{Config: withKubeconfig(c, "/other")}).fetchDestination(tp); err == nil || !strings.Contains(err.Error(), "is not the stack's kubeconfig:") {
		t.Errorf("flag differs: %v", err)
	}
	dest, kc, err = Fetch{Config: withKubeconfig(c, filepath.Join(home, ".kube/lab.config"))}.fetchDestination(tp)
	if err != nil || dest != filepath.Join(home, ".kube", "lab.config") || kc.Source != probes.SourceTopology {
		t.Errorf("same path: %s %+v %v", dest, kc, err)
	}
}

func TestFetchKubeconfig(t *testing.T) {
	f := newFetchFixture(t, func(srv *httptest.Server) string { return srv.URL })
	tp := f.load(t)
	data := kubeconfigFor(t, f.srv, f.srv.URL, "admin")

	// First fetch, non-interactive: written 0600 in a 0700 folder, access proven.
	c, _, errOut := testConfig(t, map[string]string{"HOME": f.home}, false, nil)
	var args []string
	c.Exec = sshServing(data, &args)
	var shown []TargetPart
	var proven probes.GuardView
	c.ShowTarget = func(v probes.GuardView, part TargetPart) { shown, proven = append(shown, part), v }
	if err := (Fetch{Config: withTimeout(c, 5*time.Second)}).fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{}); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// The target is shown once, as the record of the access proven, with
	// the nodes read.
	if len(shown) != 1 || shown[0] != TargetProven || !proven.Nodes.Known || len(proven.Nodes.Value) != 2 {
		t.Errorf("target shown %v, nodes %+v", shown, proven.Nodes)
	}
	wantArgs := "ssh -o BatchMode=yes -i " + filepath.Join(f.dir, "keys/topo") + " -p 2222 -o UserKnownHostsFile=/kh -o ConnectTimeout=10 -- inv-user@127.0.0.1 sudo -n cat -- '/etc/kubernetes/admin.conf'"
	if got := strings.Join(args, " "); got != wantArgs {
		t.Errorf("ssh args\n got %s\nwant %s", got, wantArgs)
	}
	got, err := os.ReadFile(f.kc)
	if err != nil || string(got) != string(data) {
		t.Fatalf("written: %v", err)
	}
	if st, _ := os.Stat(f.kc); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(f.kc)); st.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", st.Mode().Perm())
	}
	for _, want := range []string{"Wrote " + f.kc + " (mode 0600).", "Access proven: " + f.srv.URL + " answers with 2 node(s)."} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut.String(), "SECRET-TOKEN") {
		t.Errorf("the credential was printed")
	}

	// Again, the same bytes: unchanged.
	c, _, errOut = testConfig(t, map[string]string{"HOME": f.home}, false, nil)
	c.Exec = sshServing(data, &args)
	if err := (Fetch{Config: withTimeout(c, 5*time.Second)}).fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), f.kc+" unchanged") {
		t.Errorf("identical: %s", errOut)
	}

	// A different kubeconfig, non-interactive: never replaced.
	other := kubeconfigFor(t, f.srv, f.srv.URL, "ops")
	c, _, errOut = testConfig(t, map[string]string{"HOME": f.home}, false, nil)
	c.Exec = sshServing(other, &args)
	err = Fetch{Config: withTimeout(c, 5*time.Second)}.fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{})
	if err == nil || !strings.Contains(err.Error(), "--no-input never replaces") || !strings.Contains(err.Error(), "user     admin → ops") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("different, no input: %v", err)
	}
	if got, _ := os.ReadFile(f.kc); string(got) != string(data) {
		t.Errorf("replaced without confirmation")
	}

	// Interactive: declining leaves it; accepting replaces it, then the guard asks.
	pr := &scriptedPrompter{t: t, answers: []scripted{{contains: "Replace " + f.kc, yes: false}}}
	c, _, _ = testConfig(t, map[string]string{"HOME": f.home}, true, pr)
	c.Exec = sshServing(other, &args)
	if err := (Fetch{Config: withTimeout(c, 5*time.Second)}).fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{}); err == nil {
		t.Errorf("declined: no error")
	}
	if got, _ := os.ReadFile(f.kc); string(got) != string(data) {
		t.Errorf("replaced though declined")
	}
	pr = &scriptedPrompter{t: t, answers: []scripted{{contains: "Replace", yes: true}, {contains: "Is this the stack lab?", yes: true}}}
	c, _, errOut = testConfig(t, map[string]string{"HOME": f.home}, true, pr)
	c.Exec = sshServing(other, &args)
	if err := (Fetch{Config: withTimeout(c, 5*time.Second)}).fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{}); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if got, _ := os.ReadFile(f.kc); string(got) != string(other) {
		t.Errorf("not replaced though confirmed")
	}
	if len(pr.answers) != 0 {
		t.Errorf("questions not asked: %+v", pr.answers)
	}
}

func TestFetchKubeconfigRefusals(t *testing.T) {
	f := newFetchFixture(t, func(*httptest.Server) string { return "https://10.9.9.9:6443" })
	tp := f.load(t)

	// The fetched server is not the declared endpoint: --no-input writes nothing.
	c, _, _ := testConfig(t, map[string]string{"HOME": f.home}, false, nil)
	var args []string
	c.Exec = sshServing(kubeconfigFor(t, f.srv, f.srv.URL, "admin"), &args)
	err := Fetch{Config: withTimeout(c, 5*time.Second)}.fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{})
	if err == nil || !strings.Contains(err.Error(), "nothing written") || !strings.Contains(err.Error(), "declares endpoint: https://10.9.9.9:6443") {
		t.Errorf("endpoint mismatch: %v", err)
	}
	// ssh fails: its message and exit code, nothing written.
	c.Exec = func(ctx context.Context, name string, _ ...string) ([]byte, []byte, error) {
		if name != "ssh" {
			return nil, nil, fmt.Errorf("%s: %w", name, exec.ErrNotFound)
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", "echo 'Permission denied (publickey).' >&2; exit 255")
		var se strings.Builder
		cmd.Stderr = &se
		err := cmd.Run()
		return nil, []byte(se.String()), err
	}
	err = Fetch{Config: withTimeout(c, 5*time.Second)}.fetchKubeconfig(context.Background(), &Stack{Topology: tp, Kind: prod.Kind{}}, "lab1", FetchOptions{})
	if err == nil || !strings.Contains(err.Error(), "(exit 255):\n  Permission denied (publickey).") || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("ssh failure: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(f.kc)); !os.IsNotExist(err) {
		t.Errorf("~/.kube was created: %v", err)
	}
}

func TestDraftTopology(t *testing.T) {
	dir := t.TempDir()
	tp, err := stacks.Load(writeStack(t, dir, "lab", "name: lab\ntarget_kind: prod\nkubeconfig: ~/.kube/lab.config\nbackend: ceph\nlayers:\n  - cilium\n  - rook-ceph\n  - name: mlflow\n    detect: {deployment: mlflow/mlflow}\n  - argocd\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &DiscoverReport{
		Target:        &TargetInfo{Endpoint: "https://10.0.0.1:6443", Source: "topology"},
		ServerVersion: topology.KnownFact("v1.37.2+k3s1"),
		Nodes: topology.KnownFact([]topology.NodeState{
			{Name: "cp1", Roles: []string{"control-plane"}, InternalIP: "10.0.0.1"},
			{Name: "w1", Roles: []string{}, InternalIP: "10.0.0.2"},
			{Name: "w2", Roles: []string{}},
		}),
		DefaultStorage: topology.KnownFact(topology.StorageState{Class: "rook-ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Backend: "rook-ceph"}),
		Layers: []topology.LayerState{
			{Name: "cilium", Declared: true, Health: topology.Healthy},
			{Name: "mlflow", Declared: true, Health: topology.Healthy},
			{Name: "rook-ceph", Declared: true, Health: topology.Degraded},
			{Name: "cnpg", Health: topology.Healthy},
		},
		NotFound: []topology.LayerState{{Name: "argocd", Declared: true, Health: topology.Absent, Reason: "no CRD group argoproj.io"}},
		ReadAt:   time.Date(2026, 12, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)), // 2026-11-30 in UTC
	}
	draft := draftTopology(tp, r, "lab", "")
	if !strings.Contains(string(draft), "(read-only) on 2026-11-30. Review it") {
		t.Errorf("the draft does not say the day of the read (UTC):\n%s", draft)
	}
	dt, err := topology.Parse(filepath.Join(dir, "lab.yaml"), draft)
	if err != nil {
		t.Fatalf("%v\n%s", err, draft)
	}
	var names []string
	for _, l := range dt.Layers {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "cilium,rook-ceph,mlflow,cnpg" || dt.Layers[2].Detect == nil || dt.Layers[2].Detect.Deployment != "mlflow/mlflow" {
		t.Errorf("layers %v\n%s", names, draft)
	}
	if dt.Kubernetes.Version != "1.37" || dt.Backend != "ceph" || dt.Endpoint != "https://10.0.0.1:6443" || dt.Kubeconfig != "~/.kube/lab.config" {
		t.Errorf("draft %+v", dt)
	}
	if len(dt.Nodes) != 3 || dt.Nodes[0].Role != "control-plane" || dt.Nodes[1].Role != "worker" || dt.Nodes[1].Address != "10.0.0.2" || dt.Nodes[2].Address != "" {
		t.Errorf("nodes %+v", dt.Nodes)
	}
	if !strings.Contains(string(draft), "# argocd (declared in lab.yaml): absent — no CRD group argoproj.io") {
		t.Errorf("the absent declared layer is not noted:\n%s", draft)
	}

	// Nothing known: comments, never a guess.
	r2 := &DiscoverReport{
		Target:         &TargetInfo{Endpoint: "https://10.0.0.1:6443"},
		ServerVersion:  topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "forbidden")),
		Nodes:          topology.UnknownFact[[]topology.NodeState](topology.Because(topology.ReasonFailed, "forbidden")),
		DefaultStorage: topology.UnknownFact[topology.StorageState](topology.Because(topology.ReasonFailed, "forbidden")),
	}
	draft = draftTopology(tp, r2, "other", "")
	if _, err := topology.Parse(filepath.Join(dir, "other.yaml"), draft); err != nil {
		t.Fatalf("%v\n%s", err, draft)
	}
	for _, want := range []string{"# nodes: unknown (forbidden)", "# backend: default StorageClass unknown (forbidden)", "layers: []"} {
		if !strings.Contains(string(draft), want) {
			t.Errorf("draft lacks %q:\n%s", want, draft)
		}
	}
}

// The JSON document keeps its format version and facts' shape.
func TestDiscoverReportJSON(t *testing.T) {
	r := DiscoverReport{FormatVersion: DiscoverFormatVersion, Layers: []topology.LayerState{}, NotFound: []topology.LayerState{}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"format_version":1`, `"layers":[]`, `"namespaces":{"known":false`, `"crd_groups"`, `"storage_classes"`, `"default_storage"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
}

// A draft validates for clusters whose nodes have cloud names (dotted) and
// whose control plane is no registered node (managed): every cluster nestor
// can read drafts a valid topology.
func TestDraftValidatesForCloudNamesAndNoControlPlane(t *testing.T) {
	dir := t.TempDir()
	tp, err := stacks.Load(writeStack(t, dir, "eks", "name: eks\ntarget_kind: prod\nkubeconfig: ~/.kube/eks.config\nnodes:\n  - {name: w, role: control-plane}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &DiscoverReport{
		Target:        &TargetInfo{Endpoint: "https://abc.gr7.eu-west-1.eks.amazonaws.example", Source: "topology"},
		ServerVersion: topology.KnownFact("v1.30.4-eks-a737599"),
		Nodes: topology.KnownFact([]topology.NodeState{
			{Name: "ip-10-0-0-1.eu-west-1.compute.internal", Roles: []string{}, InternalIP: "10.0.0.1"},
			{Name: "ip-10-0-0-2.eu-west-1.compute.internal", Roles: []string{}, InternalIP: "10.0.0.2"},
		}),
		DefaultStorage: topology.KnownFact(topology.StorageState{}),
	}
	draft, err := Draft(&Stack{Topology: tp, Kind: prod.Kind{}}, r, "", "")
	if err != nil {
		t.Fatalf("%v", err)
	}
	dt, err := topology.Parse(filepath.Join(dir, "eks.yaml"), draft)
	if err != nil || len(dt.Nodes) != 2 || dt.Kubernetes.Version != "1.30" {
		t.Fatalf("draft %+v %v\n%s", dt, err, draft)
	}
}
