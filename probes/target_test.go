package probes

import (
	"context"
	"errors"
	"io/fs"
	"nestor.dev/nestor/probes/internal/probetest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const secretToken = probetest.SecretToken

var (
	writeFile      = probetest.WriteFile
	kubeconfigText = probetest.KubeconfigText
)

func assertNoSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), secretToken) {
		t.Errorf("error shows a credential: %v", err)
	}
}

func TestLoadTargetErrors(t *testing.T) {
	dir := t.TempDir()
	noCurrent := writeFile(t, filepath.Join(dir, "nocurrent.yaml"), kubeconfigText("",
		map[string]string{"c1": "https://10.0.0.1:6443"}, map[string][2]string{"ctx1": {"c1", "u1"}}))
	noCluster := writeFile(t, filepath.Join(dir, "nocluster.yaml"), kubeconfigText("phantom",
		map[string]string{"c1": "https://10.0.0.1:6443"}, map[string][2]string{"phantom": {"gone", "u1"}}))
	noUser := writeFile(t, filepath.Join(dir, "nouser.yaml"), kubeconfigText("ctx1",
		map[string]string{"c1": "https://10.0.0.1:6443"}, map[string][2]string{"ctx1": {"c1", "missing-user"}}))
	garbage := writeFile(t, filepath.Join(dir, "garbage.yaml"), "clusters: [this is: not: a kubeconfig\n")
	missing := filepath.Join(dir, "absent", "admin.conf")

	tests := []struct {
		name    string
		kc      Kubeconfig
		context string
		want    []string
	}{
		{"missing file from KUBECONFIG", Kubeconfig{Paths: []string{missing}, Source: SourceEnv},
			"", []string{"kubeconfig " + missing + " (from KUBECONFIG) does not exist", "nestor discover --cp NODE"}},
		{"missing file from topology", Kubeconfig{Paths: []string{missing}, Source: SourceTopology, Detail: "kubeconfig: in /s/dirqual.yaml"},
			"", []string{missing, "(from the topology's kubeconfig:)", "nestor discover --cp NODE", "/s/dirqual.yaml"}},
		{"missing second file of a list", Kubeconfig{Paths: []string{noCurrent, missing}, Source: SourceEnv},
			"", []string{missing, "does not exist"}},
		{"empty current-context", Kubeconfig{Paths: []string{noCurrent}, Source: SourceFlag},
			"", []string{noCurrent, "has no current-context", "--context", "ctx1"}},
		{"--context not defined", Kubeconfig{Paths: []string{noCurrent}, Source: SourceFlag},
			"other", []string{noCurrent, `context "other" (--context) is not defined`, "ctx1"}},
		{"context naming a missing cluster", Kubeconfig{Paths: []string{noCluster}, Source: SourceFlag},
			"", []string{noCluster, `context "phantom" names cluster "gone"`, "c1"}},
		{"context naming a missing user", Kubeconfig{Paths: []string{noUser}, Source: SourceFlag},
			"", []string{noUser, `names user "missing-user"`}},
		{"not a kubeconfig", Kubeconfig{Paths: []string{garbage}, Source: SourceFlag},
			"", []string{garbage, "(from --kubeconfig) is not a valid kubeconfig"}},
		{"no kubeconfig at all", Kubeconfig{Source: SourceNone, Detail: "no --kubeconfig, no KUBECONFIG"},
			"", []string{"no kubeconfig to load", "no KUBECONFIG"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := LoadTargetWith(tc.kc, LoadOptions{Context: tc.context, UserAgent: "nestor/test"})
			if err == nil {
				t.Fatalf("LoadTarget = %+v, want an error", tg)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			assertNoSecret(t, err)
		})
	}
}

func TestLoadTargetFirstWinsMerge(t *testing.T) {
	dir := t.TempDir()
	// a: no current-context; defines cluster "shared" (server A) and
	// context "x" → shared.
	a := writeFile(t, filepath.Join(dir, "a.yaml"), kubeconfigText("",
		map[string]string{"shared": "https://a.example:6443"},
		map[string][2]string{"x": {"shared", "ua"}}))
	// b: current-context "x"; defines "shared" (server B), context "x" →
	// onlyb, context "y" → onlyb.
	b := writeFile(t, filepath.Join(dir, "b.yaml"), kubeconfigText("x",
		map[string]string{"shared": "https://b.example:6443", "onlyb": "https://onlyb.example:6443"},
		map[string][2]string{"x": {"onlyb", "ub"}, "y": {"onlyb", "ub"}}))

	kc := Kubeconfig{Paths: []string{a, b}, Source: SourceEnv}
	tg, err := LoadTargetWith(kc, LoadOptions{Context: "", UserAgent: "nestor/test"})
	if err != nil {
		t.Fatal(err)
	}
	// current-context from b (first non-empty), context x from a (first
	// definition), cluster shared from a.
	if tg.Context != "x" || tg.Cluster != "shared" || tg.AuthInfo != "ua" || tg.Endpoint != "https://a.example:6443" {
		t.Errorf("merge a,b: got context %q cluster %q user %q endpoint %q", tg.Context, tg.Cluster, tg.AuthInfo, tg.Endpoint)
	}

	// client-go's own merge of the same list must agree (loading rules used
	// here in the test only, with an explicit precedence list).
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: []string{a, b}}
	cgo, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	if cgo.CurrentContext != tg.Context || cgo.Contexts["x"].Cluster != tg.Cluster || cgo.Clusters["shared"].Server != tg.Endpoint {
		t.Errorf("client-go merges to context %q cluster %q server %q; nestor to %q %q %q",
			cgo.CurrentContext, cgo.Contexts["x"].Cluster, cgo.Clusters["shared"].Server, tg.Context, tg.Cluster, tg.Endpoint)
	}

	// Reversed order: b's definitions win.
	tg, err = LoadTargetWith(Kubeconfig{Paths: []string{b, a}, Source: SourceEnv}, LoadOptions{UserAgent: "nestor/test"})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Context != "x" || tg.Cluster != "onlyb" || tg.Endpoint != "https://onlyb.example:6443" {
		t.Errorf("merge b,a: got context %q cluster %q endpoint %q", tg.Context, tg.Cluster, tg.Endpoint)
	}

	// --context overrides current-context.
	tg, err = LoadTargetWith(kc, LoadOptions{Context: "y", UserAgent: "nestor/test"})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Context != "y" || tg.Endpoint != "https://onlyb.example:6443" {
		t.Errorf("--context y: got context %q endpoint %q", tg.Context, tg.Endpoint)
	}
}

func TestLoadTargetConfig(t *testing.T) {
	dir := t.TempDir()
	// The CA is parsed when the target is loaded (a broken one is refused
	// before any request), so it is a real one.
	writeFile(t, filepath.Join(dir, "pki", "ca.crt"), string(newTestCA(t).CertPEM))
	path := writeFile(t, filepath.Join(dir, "kubeconfig"), `apiVersion: v1
kind: Config
current-context: ctx
clusters:
- name: c
  cluster:
    server: https://10.67.2.11:6443
    certificate-authority: pki/ca.crt
contexts:
- name: ctx
  context: {cluster: c, user: u}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: get-token
      interactiveMode: IfAvailable
`)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kc := Kubeconfig{Paths: []string{path}, Source: SourceTopology}
	tg, err := LoadTargetWith(kc, LoadOptions{Context: "", UserAgent: "nestor/v9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	c := tg.Config
	if c.Host != "https://10.67.2.11:6443" || tg.Endpoint != "https://10.67.2.11:6443" {
		t.Errorf("Host %q Endpoint %q", c.Host, tg.Endpoint)
	}
	if want := filepath.Join(dir, "pki", "ca.crt"); c.CAFile != want {
		t.Errorf("CAFile = %q, want %q (relative to the kubeconfig's folder)", c.CAFile, want)
	}
	if c.UserAgent != "nestor/v9.9.9" || c.QPS >= 0 { // no client-side rate limiter
		t.Errorf("UserAgent %q QPS %v", c.UserAgent, c.QPS)
	}
	if c.ContentType != "application/vnd.kubernetes.protobuf" || !strings.HasPrefix(c.AcceptContentTypes, "application/vnd.kubernetes.protobuf,") {
		t.Errorf("ContentType %q Accept %q", c.ContentType, c.AcceptContentTypes)
	}
	if c.ExecProvider == nil || !c.ExecProvider.StdinUnavailable {
		t.Errorf("exec plugin not told stdin is unavailable: %+v", c.ExecProvider)
	}
	if c.WrapTransport == nil {
		t.Error("no transport wrapper: the read-only transport is not installed")
	}

	interactive, err := LoadTargetWith(kc, LoadOptions{UserAgent: "nestor/x", Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if interactive.Config.ExecProvider == nil || interactive.Config.ExecProvider.StdinUnavailable {
		t.Errorf("interactive: exec plugin told stdin is unavailable")
	}

	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("LoadTarget changed the kubeconfig file")
	}
}

// TestLoadTargetTransportIsReadOnly builds a client from a loaded target and
// checks, against a local HTTPS server, that reads go out with nestor's user
// agent and writes never leave the process.
func TestLoadTargetTransportIsReadOnly(t *testing.T) {
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+" "+r.UserAgent())
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	}))
	defer srv.Close()

	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "kc"), kubeconfigText("ctx",
		map[string]string{"c": srv.URL}, map[string][2]string{"ctx": {"c", "u"}}))
	tg, err := LoadTargetWith(Kubeconfig{Paths: []string{path}, Source: SourceFlag}, LoadOptions{UserAgent: "nestor/test"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(tg.Config)
	cfg.GroupVersion = nil
	cfg.NegotiatedSerializer = nil
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(srv.URL + "/api/v1/nodes")
	if err != nil {
		t.Fatalf("GET through the target's client: %v", err)
	}
	resp.Body.Close()
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		req, _ := http.NewRequestWithContext(context.Background(), m, srv.URL+"/api/v1/namespaces", strings.NewReader("{}"))
		_, err := hc.Do(req)
		var wr *WriteRefusedError
		if !errors.As(err, &wr) {
			t.Errorf("%s: err = %v, want a WriteRefusedError", m, err)
		}
	}
	if len(got) != 1 || got[0] != "GET /api/v1/nodes nestor/test" {
		t.Errorf("server saw %q, want only the GET with nestor's user agent", got)
	}
}

// TestLoadTargetRefusesUserInfo: a server URL with user info is refused,
// and the error shows it redacted, never the password.
func TestLoadTargetRefusesUserInfo(t *testing.T) {
	dir := t.TempDir()
	for _, server := range []string{"https://admin:hunter2@10.0.0.1:6443", "admin:hunter2@10.0.0.1:6443", "https://hunter2@10.0.0.1:6443/k8s"} {
		path := writeFile(t, filepath.Join(dir, "kc"), kubeconfigText("ctx",
			map[string]string{"c": server}, map[string][2]string{"ctx": {"c", "u"}}))
		_, err := LoadTargetWith(Kubeconfig{Paths: []string{path}, Source: SourceFlag}, LoadOptions{UserAgent: "nestor/test"})
		if err == nil {
			t.Errorf("server %s: no error", server)
			continue
		}
		assertNoSecret(t, err)
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("server %s: the error shows the password: %v", server, err)
		}
		for _, w := range []string{path, `cluster "c"`, "REDACTED@10.0.0.1:6443", "user name or password"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("server %s: error %q does not say %q", server, err, w)
			}
		}
	}
}

// A kubeconfig that cannot be read says why, and the fix when the cause is
// not its path (the process out of open files, a permission refused), as a
// topology file does (topology.ReadFix).
func TestKubeconfigReadErrorFixes(t *testing.T) {
	kc := Kubeconfig{Paths: []string{"/k/a"}, Source: SourceTopology, Detail: "a.yaml"}
	for errno, want := range map[syscall.Errno]string{
		syscall.EMFILE: "kubeconfig /k/a (from the topology's kubeconfig:) cannot be read: too many open files: the process has too many files open: raise its open-file limit (ulimit -n), or read fewer stacks at once (fleet --parallel)",
		syscall.EACCES: "kubeconfig /k/a (from the topology's kubeconfig:) cannot be read: permission denied: check the file's permissions",
		syscall.EISDIR: "kubeconfig /k/a (from the topology's kubeconfig:) cannot be read: is a directory",
	} {
		if got := loadError(kc, "/k/a", &fs.PathError{Op: "open", Path: "/k/a", Err: errno}).Error(); got != want {
			t.Errorf("%v:\n got %s\nwant %s", errno, got, want)
		}
	}
}
