package e2e

// End-to-end proofs for kubeconfigs shaped like the ones operators really
// have (probes/testdata/kubeconfig): the built binary against a real
// kube-apiserver. Every run goes through world.run, which also proves
// nothing was written (the world's files byte-identical, kubeconfigs
// included) and only get/list/watch were sent.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"nestor.dev/nestor/tests/harness"
)

// The placeholders of the handed kubeconfigs (base64 of "-----FAKE …-----").
const (
	fakeCAData   = "LS0tLS1GQUtFIENBLS0tLS0K"
	fakeCertData = "LS0tLS1GQUtFIENMSUVOVCBDRVJULS0tLS0K"
	fakeKeyData  = "LS0tLS1GQUtFIENMSUVOVCBLRVktLS0tLQo="
)

// handedKubeconfig returns probes/testdata/kubeconfig/NAME with each pair of
// repl (old, new) replaced; it fails when an old text is not there.
func handedKubeconfig(t *testing.T, name string, repl ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "probes", "testdata", "kubeconfig", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(repl); i += 2 {
		if !strings.Contains(s, repl[i]) {
			t.Fatalf("%s has no %q to replace", name, repl[i])
		}
		s = strings.ReplaceAll(s, repl[i], repl[i+1])
	}
	return []byte(s)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// identityCert returns the client certificate and key the harness made for
// identity (read back from its kubeconfig).
func identityCert(t *testing.T, c *harness.Cluster, identity string) (cert, key []byte) {
	t.Helper()
	path := map[string]string{harness.IdentityAdmin: c.Admin, harness.IdentityReadOnly: c.ReadOnly, harness.IdentityNoAccess: c.NoAccess}[identity]
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.AuthInfos[identity]
	return a.ClientCertificateData, a.ClientKeyData
}

// --- kind 1: IPv6 endpoints compared as addresses -------------------------

// A real API server on ::1. The kubeconfig and the topology write the
// address differently (compressed, uncompressed, zero-padded, either side):
// --no-input accepts it and reads the cluster through that very spelling. A
// different address is refused naming both, an unbracketed one gets the
// URL to write; neither sends anything.
func TestKubeconfigIPv6Endpoint(t *testing.T) {
	c := harness.StartT(t, harness.Options{BindAddress: "::1"})
	if err := c.LoadFixture(clusterFixture(t, healthyFixture)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.URL, "https://[::1]:") {
		t.Fatalf("cluster URL %s, want https://[::1]:PORT", c.URL)
	}
	port := c.Port

	for _, tc := range []struct{ name, server, declared string }{
		{"topology uncompressed", c.URL, fmt.Sprintf("https://[0:0:0:0:0:0:0:1]:%d", port)},
		{"topology zero-padded, trailing slash", c.URL, fmt.Sprintf("https://[0000:0000:0000:0000:0000:0000:0000:0001]:%d/", port)},
		{"kubeconfig uncompressed", fmt.Sprintf("https://[0:0:0:0:0:0:0:1]:%d", port), c.URL},
		{"kubeconfig zero-padded, topology partly compressed", fmt.Sprintf("https://[0000::0001]:%d", port), fmt.Sprintf("HTTPS://[0:0::0:1]:%d", port)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, c)
			w.dirqualStack(tc.declared, "~/.kube/dirqual.config")
			w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, tc.server)
			r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input", "-o", "json")
			wantCode(t, r, 0)
			doc := decodePreview(t, r)
			if doc.Target == nil || doc.Target.EndpointMatches == nil || !*doc.Target.EndpointMatches || doc.Target.Endpoint != tc.server {
				t.Errorf("target = %+v, want %s matching %s", doc.Target, tc.server, tc.declared)
			}
			if !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 4 {
				t.Errorf("nodes = %+v, want the 4 dirqual nodes read over IPv6", doc.Actual.Nodes)
			}
		})
	}

	t.Run("another address is refused, both named, nothing sent", func(t *testing.T) {
		w := newWorld(t, c)
		declared := fmt.Sprintf("https://[0:0:0:0:0:0:0:2]:%d", port)
		stack := w.dirqualStack(declared, "~/.kube/dirqual.config")
		w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, "")
		r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
		wantCode(t, r, 1)
		wantContains(t, "refusal", r.stderr, "refusing: the target is not stack dirqual", c.URL, declared, stack)
		if len(r.audit[0]) != 0 {
			t.Errorf("requests sent to a refused target: %v", r.audit[0])
		}
	})

	t.Run("kubeconfig server without brackets: the URL to write, nothing sent", func(t *testing.T) {
		w := newWorld(t, c)
		w.dirqualStack(c.URL, "~/.kube/dirqual.config")
		server := fmt.Sprintf("https://0:0:0:0:0:0:0:1:%d", port)
		kc := w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, server)
		r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
		wantCode(t, r, 1)
		wantContains(t, "error", r.stderr, kc, "endpoint "+server, fmt.Sprintf("an IPv6 literal needs brackets: https://[0:0:0:0:0:0:0:1]:%d", port))
		if len(r.audit[0]) != 0 {
			t.Errorf("requests sent: %v", r.audit[0])
		}
	})

	t.Run("topology endpoint without brackets: the URL to write", func(t *testing.T) {
		w := newWorld(t, c)
		stack := w.dirqualStack(fmt.Sprintf("https://::1:%d", port), "~/.kube/dirqual.config")
		w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, "")
		r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
		wantCode(t, r, 1)
		wantContains(t, "error", r.stderr, stack, fmt.Sprintf("an IPv6 literal needs brackets: https://[::1]:%d", port))
		if len(r.audit[0]) != 0 {
			t.Errorf("requests sent: %v", r.audit[0])
		}
	})
}

// An IPv4-mapped IPv6 address is the IPv4 address: a kubeconfig that writes
// [::ffff:127.0.0.1] reaches the server the topology declares as
// 127.0.0.1, and nestor says so (and reads it through that spelling).
func TestKubeconfigIPv4MappedEndpoint(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	w := newWorld(t, c)
	w.dirqualStack(c.URL, "~/.kube/dirqual.config")
	server := fmt.Sprintf("https://[::ffff:127.0.0.1]:%d", c.Port)
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, server)
	r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input", "-o", "json")
	wantCode(t, r, 0)
	doc := decodePreview(t, r)
	if doc.Target == nil || doc.Target.EndpointMatches == nil || !*doc.Target.EndpointMatches {
		t.Errorf("target = %+v, want %s matching %s", doc.Target, server, c.URL)
	}
	if !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 4 {
		t.Errorf("nodes = %+v", doc.Actual.Nodes)
	}
	if len(r.audit[0]) == 0 {
		t.Error("no request reached 127.0.0.1 through [::ffff:127.0.0.1]")
	}
}

// --- kind 2 through the binary: auth providers ----------------------------

// issuerStub is an OpenID Connect issuer answering refreshes with a new
// id-token; it counts them.
type issuerStub struct {
	srv   *httptest.Server
	mu    sync.Mutex
	count int
}

func startIssuer(t *testing.T) *issuerStub {
	is := &issuerStub{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "token_endpoint": is.srv.URL + "/token"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Form.Get("refresh_token") != "the-refresh-token" {
			http.Error(w, "bad refresh", 400)
			return
		}
		is.mu.Lock()
		is.count++
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "x", "token_type": "Bearer", "expires_in": 3600,
			"refresh_token": "rotated", "id_token": idToken(time.Now().Add(time.Hour))})
	})
	is.srv = httptest.NewTLSServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuerStub) refreshes() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.count
}

// idToken is an unsigned JWT expiring at exp (the oidc auth-provider reads
// exp only; the API server would verify it).
func idToken(exp time.Time) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"RS256"}`)) + "." + enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":"dev","exp":%d}`, exp.Unix()))) + ".c2ln"
}

// The handed oidc kubeconfig pointed at the real API server, its id-token
// expired: nestor refreshes it at the issuer as kubectl would, and writes
// nothing back (world.run compares every file of the world, the kubeconfig
// and its folder included). This API server has no OIDC authenticator, so
// the refreshed token is refused (401): the read is unknown, and says so.
func TestKubeconfigOIDCNeverWritesBack(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	is := startIssuer(t)
	issuerCA := []byte("-----BEGIN CERTIFICATE-----\n" + b64(is.srv.Certificate().Raw) + "\n-----END CERTIFICATE-----\n")
	w := newWorld(t, c)
	w.dirqualStack(c.URL, "~/.kube/dirqual.config")
	kc := filepath.Join(w.Home, ".kube", "dirqual.config")
	w.writeFile(kc, handedKubeconfig(t, "oidc-auth-provider.yaml",
		fakeCAData, b64(c.CAData),
		"https://k8s-api.lab.example:6443", c.URL,
		"FAKE.ID.TOKEN", idToken(time.Now().Add(-time.Hour)),
		"FAKE-refresh-token", "the-refresh-token",
		"https://sso.lab.example/dex", is.srv.URL+"\n        idp-certificate-authority-data: "+b64(issuerCA)))

	r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
	wantCode(t, r, 1)
	wantContains(t, "error", r.stderr, "cannot read the target "+c.URL, "unauthorized")
	if n := is.refreshes(); n == 0 {
		t.Error("the expired id-token was not refreshed at the issuer")
	}
	for _, e := range r.audit[0] {
		if e.Code != 401 {
			t.Errorf("request %s: want 401 (no OIDC on this API server)", e)
		}
	}
}

// A gcp auth-provider is refused in words, naming the endpoint and the exec
// plugin that replaces it; its command is never run and nothing is sent.
func TestKubeconfigRemovedAuthProvider(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	w := newWorld(t, c)
	w.dirqualStack(c.URL, "~/.kube/dirqual.config")
	outside := t.TempDir()
	marker := filepath.Join(outside, "gcloud-ran")
	script := filepath.Join(outside, "gcloud")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.writeFile(filepath.Join(w.Home, ".kube", "dirqual.config"), handedKubeconfig(t, "gcp-auth-provider.yaml",
		fakeCAData, b64(c.CAData), "https://203.0.113.41", c.URL, "/usr/lib/google-cloud-sdk/bin/gcloud", script))
	r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
	wantCode(t, r, 1)
	wantContains(t, "error", r.stderr, "endpoint "+c.URL, `auth-provider "gcp"`, "removed from Kubernetes clients", "v1.26", "gke-gcloud-auth-plugin")
	wantNotContains(t, "error", r.stderr, "FAKE-ya29-access-token", "no Auth Provider found")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the gcp provider's cmd-path was run")
	}
	if len(r.audit[0]) != 0 {
		t.Errorf("requests sent: %v", r.audit[0])
	}
}

// --- kind 3: errors about a kubeconfig name the endpoint ------------------

func TestKubeconfigErrorsNameTheEndpoint(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	cert, key := identityCert(t, c, harness.IdentityReadOnly)
	minikube := handedKubeconfig(t, "minikube-absolute-paths.yaml", "https://192.0.2.49:8443", c.URL)
	userCert := "    client-certificate-data: " + b64(cert) + "\n    client-key-data: " + b64(key) + "\n"
	kubeconfig := func(cluster, user string) []byte {
		return []byte("apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: " + c.URL + "\n" + cluster +
			"contexts:\n- name: lab\n  context: {cluster: lab, user: op}\nusers:\n- name: op\n  user:\n" + user)
	}
	for _, tc := range []struct {
		name string
		text []byte
		want []string
	}{
		{"handed minikube: certificate files not on this machine", minikube,
			[]string{"/home/example-user/.minikube/ca.crt", "/home/example-user/.minikube/profiles/minikube/client.key", "not on this machine"}},
		{"a CA file that is not a certificate", kubeconfig("    certificate-authority: pki/ca.crt\n", userCert),
			[]string{"unable to load root certificates"}},
		{"a relative client certificate that is missing", kubeconfig("    certificate-authority-data: "+b64(c.CAData)+"\n",
			"    client-certificate: pki/op.crt\n    client-key: pki/op.key\n"), []string{"pki/op.crt", "not on this machine"}},
		{"an exec plugin that is not installed", kubeconfig("    certificate-authority-data: "+b64(c.CAData)+"\n",
			"    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: example-auth-plugin\n      interactiveMode: Never\n"+
				"      installHint: ask the platform team for example-auth-plugin\n"),
			[]string{"example-auth-plugin not found", "ask the platform team for example-auth-plugin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, c)
			w.dirqualStack(c.URL, "~/.kube/dirqual.config")
			kc := filepath.Join(w.Home, ".kube", "dirqual.config")
			w.writeFile(kc, tc.text)
			w.writeFile(filepath.Join(w.Home, ".kube", "pki", "ca.crt"), []byte("not a certificate\n"))
			r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
			wantCode(t, r, 1)
			wantContains(t, "error", r.stderr, append([]string{kc, c.URL}, tc.want...)...)
			if len(r.audit[0]) != 0 {
				t.Errorf("requests sent: %v", r.audit[0])
			}
		})
	}
}

// --- kind 4: expired client certificates ----------------------------------

// The handed admin.conf with the harness's CA and a client certificate it
// signed that expired a day ago. The real API server refuses it (401: the
// premise, checked with a plain client); nestor refuses it before sending
// anything, naming the endpoint, the date and the fix — with the
// certificate embedded or in files, with or without a terminal. The same
// identity with a certificate valid now is read (the control).
func TestKubeconfigExpiredClientCertificate(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	now := time.Now()
	expCert, expKey, err := c.SignClientCert(harness.UserReadOnly, nil, now.Add(-366*24*time.Hour), now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	okCert, okKey, err := c.SignClientCert(harness.UserReadOnly, nil, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	block, err := x509.ParseCertificate(pemBody(t, expCert))
	if err != nil {
		t.Fatal(err)
	}
	date := block.NotAfter.UTC().Format("2006-01-02 15:04:05 UTC")

	t.Run("premise: the API server answers 401 to the expired certificate", func(t *testing.T) {
		pair, err := tls.X509KeyPair(expCert, expKey)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(c.CAData)
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}}}}
		req, _ := http.NewRequest(http.MethodGet, c.URL+"/api/v1/nodes", nil)
		req.Header.Set("User-Agent", harness.HarnessUserAgent+"-expired-premise")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("expired certificate: HTTP %d, want 401", resp.StatusCode)
		}
	})

	swap := func(cert, key []byte) []string {
		return []string{fakeCAData, b64(c.CAData), "https://192.0.2.10:6443", c.URL, fakeCertData, b64(cert), fakeKeyData, b64(key)}
	}
	files := []string{fakeCAData, b64(c.CAData), "https://192.0.2.10:6443", c.URL,
		"client-certificate-data: " + fakeCertData, "client-certificate: pki/admin.crt",
		"client-key-data: " + fakeKeyData, "client-key: pki/admin.key"}
	for _, tc := range []struct {
		name string
		repl []string
		pty  bool
	}{
		{"embedded (the handed admin.conf)", swap(expCert, expKey), false},
		{"certificate and key files, relative paths", files, false},
		{"on a terminal: refused before the confirmation's reads", swap(expCert, expKey), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, c)
			w.dirqualStack(c.URL, "~/.kube/dirqual.config")
			kc := filepath.Join(w.Home, ".kube", "dirqual.config")
			w.writeFile(kc, handedKubeconfig(t, "expired-client-cert.yaml", tc.repl...))
			w.writeFile(filepath.Join(w.Home, ".kube", "pki", "admin.crt"), expCert)
			w.writeFile(filepath.Join(w.Home, ".kube", "pki", "admin.key"), expKey)
			want := []string{kc, "endpoint " + c.URL, "expired on " + date, "kubeadm certs renew admin.conf", "nestor discover --cp NODE"}
			if tc.pty {
				r := w.runPTY(nil, func(p *ptyProc) { p.expect("kubeadm certs renew admin.conf", promptWait) },
					"preview", "--stack", "dirqual", "--stacks", w.Stacks)
				if r.code != 1 {
					t.Errorf("exit %d, want 1", r.code)
				}
				wantContains(t, "output", strings.ReplaceAll(r.output, "\r\n", "\n"), "expired on "+date, "endpoint "+c.URL)
				wantNotContains(t, "output", r.output, "Is this the stack")
				if len(r.audit[0]) != 0 {
					t.Errorf("requests sent: %v", r.audit[0])
				}
				return
			}
			r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
			wantCode(t, r, 1)
			wantContains(t, "error", r.stderr, want...)
			if len(r.audit[0]) != 0 {
				t.Errorf("requests sent: %v", r.audit[0])
			}
		})
	}

	t.Run("control: a certificate valid now is read", func(t *testing.T) {
		w := newWorld(t, c)
		w.dirqualStack(c.URL, "~/.kube/dirqual.config")
		w.writeFile(filepath.Join(w.Home, ".kube", "dirqual.config"), handedKubeconfig(t, "expired-client-cert.yaml", swap(okCert, okKey)...))
		r := w.run(nil, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input", "-o", "json")
		wantCode(t, r, 0)
		if doc := decodePreview(t, r); !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 4 {
			t.Errorf("nodes = %+v", doc.Actual.Nodes)
		}
	})
}

// pemBody returns the DER of the first PEM block of b.
func pemBody(t *testing.T, b []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatalf("not PEM: %q", b)
	}
	return block.Bytes
}

// --- kind 5: KUBECONFIG lists behave as kubectl's -------------------------

// The handed list KUBECONFIG=00-prefs.yaml:missing.yaml::a.yaml:b.yaml, with
// b.yaml's lab-b pointing at the real API server, a.yaml's "admin" the
// read-only identity and b.yaml's "admin" the identity with no access: the
// missing and empty entries are skipped with a warning each, the context is
// lab-b (00-prefs.yaml), its server b.yaml's, and the user a.yaml's (the
// first file to define it wins) — the nodes are read, as the read-only
// identity (the audit log says who asked).
func TestKubeconfigListKubectlRules(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	roCert, roKey := identityCert(t, c, harness.IdentityReadOnly)
	naCert, naKey := identityCert(t, c, harness.IdentityNoAccess)
	userOf := func(cert, key []byte) string {
		return "client-certificate-data: " + b64(cert) + "\n    client-key-data: " + b64(key)
	}
	w := newWorld(t, c)
	w.dirqualStack(c.URL, "~/.kube/dirqual.config")
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityNoAccess, "") // KUBECONFIG beats it
	w.writeFile(w.path("00-prefs.yaml"), handedKubeconfig(t, "merge/00-prefs.yaml"))
	w.writeFile(w.path("a.yaml"), handedKubeconfig(t, "merge/a.yaml", fakeCAData, b64(c.CAData), "token: fake-token-from-a", userOf(roCert, roKey)))
	w.writeFile(w.path("b.yaml"), handedKubeconfig(t, "merge/b.yaml", fakeCAData, b64(c.CAData),
		"https://198.51.100.22:6443", c.URL, "token: fake-token-from-b", userOf(naCert, naKey)))
	w.writeFile(w.path("empty.yaml"), nil)

	for _, tc := range []struct {
		name, list string
		warnings   []string
	}{
		{"handed list", "00-prefs.yaml:missing.yaml::a.yaml:b.yaml",
			[]string{"Warning: KUBECONFIG entry " + w.path("missing.yaml") + " does not exist: skipped", "Warning: KUBECONFIG entry 3 of 5 is empty"}},
		{"missing first, an empty file, separators at both ends", ":gone/first.yaml:00-prefs.yaml:empty.yaml:a.yaml:b.yaml:missing.yaml:",
			[]string{"Warning: KUBECONFIG entry 1 of 8 is empty", "Warning: KUBECONFIG entry " + w.path("gone", "first.yaml") + " does not exist: skipped",
				"Warning: KUBECONFIG entry " + w.path("empty.yaml") + " is an empty file: skipped",
				"Warning: KUBECONFIG entry " + w.path("missing.yaml") + " does not exist: skipped", "Warning: KUBECONFIG entry 8 of 8 is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			r := w.run([]string{"KUBECONFIG=" + tc.list}, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input", "-o", "json")
			wantCode(t, r, 0)
			if got := strings.Count(r.stderr, "Warning: KUBECONFIG"); got != len(tc.warnings) {
				t.Errorf("%d KUBECONFIG warnings, want %d:\n%s", got, len(tc.warnings), r.stderr)
			}
			wantContains(t, "warnings", r.stderr, tc.warnings...)
			doc := decodePreview(t, r)
			if doc.Target == nil || doc.Target.Context != "lab-b" || doc.Target.Endpoint != c.URL {
				t.Errorf("target = %+v, want context lab-b at %s", doc.Target, c.URL)
			}
			if !doc.Actual.Nodes.Known || len(doc.Actual.Nodes.Value) != 4 {
				t.Errorf("nodes = %+v: the user should be a.yaml's admin (read-only), not b.yaml's (no access)", doc.Actual.Nodes)
			}
			for _, e := range r.audit[0] {
				if e.User != harness.UserReadOnly {
					t.Errorf("request %s not made as a.yaml's admin (%s)", e, harness.UserReadOnly)
				}
			}
		})
	}

	t.Run("every entry missing: an error, no fall back to kubeconfig: or ~/.kube/config", func(t *testing.T) {
		w := w.in(t)
		w.kubeconfig(c, filepath.Join(w.Home, ".kube", "config"), harness.IdentityReadOnly, "")
		defer os.Remove(filepath.Join(w.Home, ".kube", "config"))
		r := w.run([]string{"KUBECONFIG=missing.yaml::gone.yaml"}, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input")
		wantCode(t, r, 1)
		wantContains(t, "error", r.stderr, "KUBECONFIG lists no kubeconfig that exists ("+w.path("missing.yaml")+", "+w.path("gone.yaml")+")", "unset KUBECONFIG")
		if len(r.audit[0]) != 0 {
			t.Errorf("requests sent: %v", r.audit[0])
		}
	})

	t.Run("--kubeconfig still beats KUBECONFIG: no warning about it", func(t *testing.T) {
		w := w.in(t)
		kc := w.kubeconfig(c, w.path("flag.yaml"), harness.IdentityReadOnly, "")
		r := w.run([]string{"KUBECONFIG=missing.yaml::a.yaml"}, "preview", "--stack", "dirqual", "--stacks", w.Stacks, "--no-input", "--kubeconfig", kc)
		wantCode(t, r, 0)
		wantNotContains(t, "stderr", r.stderr, "Warning: KUBECONFIG")
	})
}
