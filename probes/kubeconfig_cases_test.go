package probes

// Kubeconfigs shaped like the ones operators really have, each standing for
// a kind of fault (testdata/kubeconfig, every address, name, token and
// certificate replaced): IPv6 endpoints, auth providers, errors that must
// name the endpoint, expired client certificates, KUBECONFIG lists. Each
// kind is tested on the handed file and on variants written here.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"nestor.dev/nestor/topology"
)

// The placeholders of the handed files: base64 of "-----FAKE …-----", not PEM.
const (
	fakeCAData   = "LS0tLS1GQUtFIENBLS0tLS0K"
	fakeCertData = "LS0tLS1GQUtFIENMSUVOVCBDRVJULS0tLS0K"
	fakeKeyData  = "LS0tLS1GQUtFIENMSUVOVCBLRVktLS0tLQo="
)

// handed returns the text of testdata/kubeconfig/NAME with each pair of
// repl (old, new) replaced; it fails when an old text is not there.
func handed(t *testing.T, name string, repl ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kubeconfig", name))
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
	return s
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// realPKI replaces the placeholders of a handed file by a real CA and a
// client certificate valid now, signed by it.
func realPKI(t *testing.T) []string {
	ca := newTestCA(t)
	client := newTestClientCert(t, ca, "kubernetes-admin", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	return []string{fakeCAData, b64(ca.CertPEM), fakeCertData, b64(client.CertPEM), fakeKeyData, b64(client.KeyPEM)}
}

func loadFile(t *testing.T, path string) (*Target, error) {
	t.Helper()
	return LoadTargetWith(Kubeconfig{Paths: []string{path}, Source: SourceFlag, Detail: "--kubeconfig on the command line"},
		LoadOptions{UserAgent: "nestor/test"})
}

func wantAll(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q does not contain %q", what, got, w)
		}
	}
}

// --- kind 1: endpoint identity compares addresses ------------------------

// The handed kubeconfig writes 2001:db8::10 compressed, the topology
// uncompressed: one address, so the non-interactive check passes; every
// other spelling of it too (either side), and another address is refused
// naming both as written.
func TestCheckEndpointIPv6Spellings(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "ipv6-bracketed.yaml"), handed(t, "ipv6-bracketed.yaml", realPKI(t)...))
	tg, err := loadFile(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Endpoint != "https://[2001:db8::10]:6443" {
		t.Fatalf("Endpoint = %q", tg.Endpoint)
	}
	topo := func(endpoint string) *topology.Topology {
		return &topology.Topology{Path: "/s/v6lab.yaml", Name: "v6lab", TargetKind: topology.TargetProd, Endpoint: endpoint}
	}
	for _, declared := range []string{
		"https://[2001:db8:0:0:0:0:0:10]:6443", // the handed topology
		"https://[2001:DB8::10]:6443",
		"https://[2001:0db8:0000:0000:0000:0000:0000:0010]:6443/",
		"HTTPS://[2001:db8:0::0:10]:6443",
	} {
		if err := CheckEndpoint(topo(declared), tg); err != nil {
			t.Errorf("declared %s: %v", declared, err)
		}
	}

	// The kubeconfig side in other spellings, against the compressed topology.
	for _, server := range []string{"https://[2001:0DB8:0:0:0:0:0:0010]:6443", "https://[2001:db8::0:10]:6443/"} {
		p := writeFile(t, filepath.Join(dir, "other.yaml"), handed(t, "ipv6-bracketed.yaml", append(realPKI(t), "https://[2001:db8::10]:6443", server)...))
		tg, err := loadFile(t, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckEndpoint(topo("https://[2001:db8::10]:6443"), tg); err != nil {
			t.Errorf("server %s: %v", server, err)
		}
	}

	// Truly different: refused, both named as written.
	for _, declared := range []string{"https://[2001:db8::11]:6443", "https://[2001:db8:0:0:0:0:0:10]:6444", "https://[2001:db8:1::10]:6443"} {
		err := CheckEndpoint(topo(declared), tg)
		var mm *EndpointMismatchError
		if !errors.As(err, &mm) {
			t.Errorf("declared %s: err = %v, want a mismatch", declared, err)
			continue
		}
		wantAll(t, "mismatch", err.Error(), declared, "https://[2001:db8::10]:6443", path, "/s/v6lab.yaml")
	}
}

// An IPv6 server without brackets: the error names the endpoint as
// written, the file, and the URL to write instead.
func TestLoadTargetIPv6WithoutBrackets(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ server, hint string }{
		{"https://2001:db8:6:0:0:0:0:10:6443", "an IPv6 literal needs brackets: https://[2001:db8:6:0:0:0:0:10]:6443"}, // handed
		{"2001:DB8:0:0:0:0:0:10:6443", "an IPv6 literal needs brackets: https://[2001:DB8:0:0:0:0:0:10]:6443"},
		{"https://2001:db8::10:6443/k8s", "an IPv6 literal needs brackets: https://[2001:db8::10]:6443/k8s (or https://[2001:db8::10:6443]/k8s"},
		{"https://::1", "an IPv6 literal needs brackets: https://[::1]"},
	} {
		text := handed(t, "ipv6-unbracketed.yaml", "https://2001:db8:6:0:0:0:0:10:6443", tc.server)
		path := writeFile(t, filepath.Join(dir, "kc.yaml"), text)
		_, err := loadFile(t, path)
		if err == nil {
			t.Errorf("server %s: no error", tc.server)
			continue
		}
		wantAll(t, "server "+tc.server, err.Error(), path, `context "v6lab-admin@v6lab"`, "endpoint "+tc.server, `cluster "v6lab"`, tc.hint)
	}

	// The same for a topology endpoint: reaching CheckEndpoint (stacks.Load
	// refuses it earlier, with the same hint), it names the topology file.
	tg := &Target{Endpoint: "https://[2001:db8::10]:6443", Kubeconfig: Kubeconfig{Paths: []string{"/k/kc"}}}
	err := CheckEndpoint(&topology.Topology{Path: "/s/v6lab.yaml", Name: "v6lab", Endpoint: "https://2001:db8:0:0:0:0:0:10:6443"}, tg)
	if err == nil {
		t.Fatal("unbracketed topology endpoint: no error")
	}
	wantAll(t, "topology endpoint", err.Error(), "/s/v6lab.yaml", "an IPv6 literal needs brackets: https://[2001:db8:0:0:0:0:0:10]:6443")
}

// --- kind 2: auth providers ----------------------------------------------

// gcp and azure were removed from Kubernetes clients: one error in words,
// naming the endpoint and the exec plugin that replaces it, no credential
// shown, and nothing run (the gcp provider ran cmd-path).
func TestLoadTargetRemovedAuthProvider(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := writeFile(t, filepath.Join(dir, "gcloud"), "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	azure := `apiVersion: v1
kind: Config
clusters:
- name: aks
  cluster: {server: "https://aks-example.hcp.westeurope.azmk8s.example:443", certificate-authority-data: ` + fakeCAData + `}
contexts:
- name: aks
  context: {cluster: aks, user: clusterUser_rg_aks}
current-context: aks
users:
- name: clusterUser_rg_aks
  user:
    auth-provider:
      name: azure
      config:
        access-token: ` + secretToken + `
        apiserver-id: 00000000-0000-0000-0000-000000000001
        client-id: 00000000-0000-0000-0000-000000000002
        config-mode: "1"
        environment: AzurePublicCloud
        tenant-id: 00000000-0000-0000-0000-000000000003
`
	for _, tc := range []struct {
		name, text, endpoint string
		want                 []string
	}{
		{"handed gcp", handed(t, "gcp-auth-provider.yaml", "/usr/lib/google-cloud-sdk/bin/gcloud", script, "FAKE-ya29-access-token", secretToken),
			"https://203.0.113.41", []string{`auth-provider "gcp"`, "removed from Kubernetes clients", "v1.26", "gke-gcloud-auth-plugin", "nothing was run"}},
		{"gcp with a token only", handed(t, "gcp-auth-provider.yaml", "cmd-path: /usr/lib/google-cloud-sdk/bin/gcloud", "scopes: openid", "FAKE-ya29-access-token", secretToken),
			"https://203.0.113.41", []string{`auth-provider "gcp"`, "removed from Kubernetes clients", "gke-gcloud-auth-plugin"}},
		{"azure", azure, "https://aks-example.hcp.westeurope.azmk8s.example:443",
			[]string{`auth-provider "azure"`, "removed from Kubernetes clients", "v1.26", "kubelogin", "nothing was run"}},
		{"a provider Kubernetes never had", strings.Replace(azure, "name: azure", "name: openstack", 1), "https://aks-example.hcp.westeurope.azmk8s.example:443",
			[]string{`auth-provider "openstack"`, "Kubernetes clients do not have", "exec credential plugin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "kc.yaml"), tc.text)
			_, err := loadFile(t, path)
			if err == nil {
				t.Fatal("no error")
			}
			wantAll(t, "error", err.Error(), append([]string{path, "endpoint " + tc.endpoint}, tc.want...)...)
			if strings.Contains(err.Error(), "no Auth Provider found") || strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("want one sentence of nestor's, got %q", err)
			}
			assertNoSecret(t, err)
			if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the provider's command ran (%s exists)", marker)
			}
		})
	}
}

// jwt returns an unsigned JWT whose exp is exp: what the oidc provider
// reads of an id-token (it never verifies the signature, the API server does).
func jwt(sub string, exp time.Time) string {
	enc := base64.RawURLEncoding
	payload, _ := json.Marshal(map[string]any{"iss": "test", "sub": sub, "exp": exp.Unix()})
	return enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc.EncodeToString(payload) + ".c2ln"
}

// issuer is an OpenID Connect provider for the tests: discovery and a token
// endpoint that answers a refresh with a new id-token.
type issuer struct {
	srv        *httptest.Server
	newIDToken string
	mu         sync.Mutex
	refreshes  []string // the refresh tokens presented
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{newIDToken: jwt("refreshed", time.Now().Add(time.Hour))}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]string{"issuer": is.srv.URL, "token_endpoint": is.srv.URL + "/token"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost || r.Form.Get("grant_type") != "refresh_token" {
			http.Error(w, "bad request", 400)
			return
		}
		is.mu.Lock()
		is.refreshes = append(is.refreshes, r.Form.Get("refresh_token"))
		is.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": "unused", "token_type": "Bearer", "expires_in": 3600,
			"refresh_token": "rotated-refresh-token", "id_token": is.newIDToken})
	})
	is.srv = httptest.NewTLSServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) seen() []string {
	is.mu.Lock()
	defer is.mu.Unlock()
	return append([]string{}, is.refreshes...)
}

// bearerAPI is the fake API server recording the bearer token of each request.
type bearerAPI struct {
	fakeAPI
	srv     *httptest.Server
	mu      sync.Mutex
	bearers []string
}

func newBearerAPI(t *testing.T) *bearerAPI {
	a := &bearerAPI{}
	a.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.bearers = append(a.bearers, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		a.mu.Unlock()
		a.fakeAPI.ServeHTTP(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *bearerAPI) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string{}, a.bearers...)
}

// oidcKubeconfig is a kubeconfig for api whose user authenticates with the
// oidc auth-provider of issuerURL (trusting caPEM), with idToken and a
// refresh token.
func oidcKubeconfig(api *httptest.Server, issuerURL string, caPEM []byte, clientID, idToken string) string {
	apiCA := pemOf(api)
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: lab-oidc
  cluster: {server: %q, certificate-authority-data: %s}
contexts:
- name: lab-oidc
  context: {cluster: lab-oidc, namespace: team-a, user: example-dev@lab.example}
current-context: lab-oidc
users:
- name: example-dev@lab.example
  user:
    auth-provider:
      name: oidc
      config:
        client-id: %s
        client-secret: %s
        id-token: %s
        idp-issuer-url: %s
        idp-certificate-authority-data: %s
        refresh-token: the-refresh-token
`, api.URL, b64(apiCA), clientID, secretToken, idToken, issuerURL, b64(caPEM))
}

func pemOf(s *httptest.Server) []byte {
	return []byte("-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString(s.Certificate().Raw) + "\n-----END CERTIFICATE-----\n")
}

// snapshotDir returns every entry of dir: name → mode and content hash.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			snap[p] = "dir " + st.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		snap[p] = st.Mode().String() + " " + hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func snapshotDiff(before, after map[string]string) []string {
	var d []string
	for p, b := range before {
		if a, ok := after[p]; !ok {
			d = append(d, "removed "+p)
		} else if a != b {
			d = append(d, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			d = append(d, "created "+p)
		}
	}
	sort.Strings(d)
	return d
}

// The oidc auth-provider is read as kubectl reads it, and nothing is ever
// written back: its id-token expired, it refreshes it at the issuer (a
// local server) and uses the new one, and the kubeconfig's folder is
// byte-identical afterwards. The control (client-go given a ConfigAccess,
// as kubectl is) shows the same refresh does write the file: the snapshot
// would see a write-back.
func TestOIDCAuthProviderNeverWritesBack(t *testing.T) {
	// The handed file loads (its placeholder CA swapped for a real one).
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "oidc-auth-provider.yaml"), handed(t, "oidc-auth-provider.yaml", realPKI(t)[:2]...))
	tg, err := loadFile(t, path)
	if err != nil {
		t.Fatalf("handed oidc kubeconfig: %v", err)
	}
	if tg.Config.AuthProvider == nil || tg.Config.AuthProvider.Name != "oidc" || tg.Config.AuthConfigPersister != nil {
		t.Errorf("auth-provider %+v, persister %v: want oidc and no persister", tg.Config.AuthProvider, tg.Config.AuthConfigPersister)
	}
	if tg.Endpoint != "https://k8s-api.lab.example:6443" {
		t.Errorf("Endpoint = %q", tg.Endpoint)
	}

	t.Run("expired id-token refreshed at the issuer, file unchanged", func(t *testing.T) {
		is, api := newIssuer(t), newBearerAPI(t)
		dir := t.TempDir()
		path := writeFile(t, filepath.Join(dir, "kubeconfig"), oidcKubeconfig(api.srv, is.srv.URL, pemOf(is.srv), "nestor-test", jwt("old", time.Now().Add(-time.Hour))))
		before := snapshotDir(t, dir)
		tg, err := loadFile(t, path)
		if err != nil {
			t.Fatal(err)
		}
		ver, _ := ReadNodes(context.Background(), tg)
		if !ver.Known || ver.Value != "v1.37.2" {
			t.Fatalf("version = %+v", ver)
		}
		if got := is.seen(); len(got) != 1 || got[0] != "the-refresh-token" {
			t.Errorf("issuer saw refreshes %q, want one with the kubeconfig's refresh-token", got)
		}
		for _, b := range api.seen() {
			if b != is.newIDToken {
				t.Errorf("API server got bearer %q, want the refreshed id-token", b)
			}
		}
		if d := snapshotDiff(before, snapshotDir(t, dir)); len(d) > 0 {
			t.Errorf("the kubeconfig folder changed: %q", d)
		}
	})

	t.Run("control: client-go with a ConfigAccess writes the refreshed token back", func(t *testing.T) {
		is, api := newIssuer(t), newBearerAPI(t)
		dir := t.TempDir()
		path := writeFile(t, filepath.Join(dir, "kubeconfig"), oidcKubeconfig(api.srv, is.srv.URL, pemOf(is.srv), "kubectl-like", jwt("old", time.Now().Add(-time.Hour))))
		before := snapshotDir(t, dir)
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
		rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, cfg.CurrentContext, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		hc, err := rest.HTTPClientFor(rc)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Get(api.srv.URL + "/version")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if d := snapshotDiff(before, snapshotDir(t, dir)); len(d) == 0 {
			t.Error("with a ConfigAccess the refreshed token was not written: this test could not see a write-back")
		}
		if b, _ := os.ReadFile(path); !strings.Contains(string(b), is.newIDToken) {
			t.Error("the written kubeconfig does not hold the refreshed id-token")
		}
	})

	t.Run("unreachable issuer: unknown with the reason, nothing sent, file unchanged", func(t *testing.T) {
		api := newBearerAPI(t)
		closed := httptest.NewTLSServer(http.NotFoundHandler())
		closedURL := closed.URL
		closed.Close()
		dir := t.TempDir()
		path := writeFile(t, filepath.Join(dir, "kubeconfig"), oidcKubeconfig(api.srv, closedURL+"/dex", pemOf(api.srv), "nestor-test", jwt("old", time.Now().Add(-time.Hour))))
		before := snapshotDir(t, dir)
		tg, err := loadFile(t, path)
		if err != nil {
			t.Fatal(err)
		}
		ver, nodes := ReadNodes(context.Background(), tg)
		if ver.Known || nodes.Known {
			t.Fatalf("read succeeded without a token: %+v %+v", ver, nodes)
		}
		wantAll(t, "reason", ver.Reason, strings.TrimPrefix(closedURL, "https://"))
		if got := api.seen(); len(got) != 0 {
			t.Errorf("requests reached the API server without a token: %d", len(got))
		}
		if d := snapshotDiff(before, snapshotDir(t, dir)); len(d) > 0 {
			t.Errorf("the kubeconfig folder changed: %q", d)
		}
	})

	t.Run("valid id-token used as it is, the issuer never asked", func(t *testing.T) {
		is, api := newIssuer(t), newBearerAPI(t)
		dir := t.TempDir()
		token := jwt("current", time.Now().Add(time.Hour))
		path := writeFile(t, filepath.Join(dir, "kubeconfig"), oidcKubeconfig(api.srv, is.srv.URL, pemOf(is.srv), "nestor-test", token))
		before := snapshotDir(t, dir)
		tg, err := loadFile(t, path)
		if err != nil {
			t.Fatal(err)
		}
		if ver, _ := ReadNodes(context.Background(), tg); !ver.Known {
			t.Fatalf("version = %+v", ver)
		}
		if got := is.seen(); len(got) != 0 {
			t.Errorf("the issuer was asked to refresh a valid token: %q", got)
		}
		if got := api.seen(); len(got) == 0 || got[0] != token {
			t.Errorf("API server got bearers %q, want the kubeconfig's id-token", got)
		}
		if d := snapshotDiff(before, snapshotDir(t, dir)); len(d) > 0 {
			t.Errorf("the kubeconfig folder changed: %q", d)
		}
	})
}

// --- kind 3: errors about a kubeconfig name its endpoint ------------------

func TestLoadTargetErrorsNameTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	client := newTestClientCert(t, ca, "admin", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	other := newTestClientCert(t, ca, "admin", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	garbageCA := writeFile(t, filepath.Join(dir, "pki", "garbage-ca.crt"), "this is not a certificate\n")
	realCA := writeFile(t, filepath.Join(dir, "pki", "ca.crt"), string(ca.CertPEM))

	kc := func(server, cluster, user string) string {
		return "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n  cluster:\n    server: " + server + "\n" + cluster +
			"contexts:\n- name: x\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user:\n" + user
	}
	certData := "    client-certificate-data: " + b64(client.CertPEM) + "\n    client-key-data: " + b64(client.KeyPEM) + "\n"
	for _, tc := range []struct {
		name, text, endpoint string
		want                 []string
	}{
		{"handed minikube: certificate files not on this machine", handed(t, "minikube-absolute-paths.yaml"), "https://192.0.2.49:8443",
			[]string{"/home/example-user/.minikube/ca.crt", "/home/example-user/.minikube/profiles/minikube/client.crt",
				"/home/example-user/.minikube/profiles/minikube/client.key", "not on this machine", "nestor discover --cp NODE"}},
		{"relative certificate files missing", kc("https://192.0.2.50:6443", "    certificate-authority: pki/none.crt\n",
			"    client-certificate: pki/admin.crt\n    client-key: pki/admin.key\n"), "https://192.0.2.50:6443",
			[]string{filepath.Join(dir, "pki", "none.crt"), filepath.Join(dir, "pki", "admin.crt"), "not on this machine"}},
		{"unreadable CA file", kc("https://192.0.2.51:6443", "    certificate-authority: "+garbageCA+"\n", certData), "https://192.0.2.51:6443",
			[]string{"unable to load root certificates"}},
		{"CA data that is not PEM", kc("https://[2001:db8::51]:6443", "    certificate-authority-data: "+fakeCAData+"\n", certData), "https://[2001:db8::51]:6443",
			[]string{"unable to load root certificates"}},
		{"certificate and key that do not match", kc("https://api.lab.example:6443", "    certificate-authority: "+realCA+"\n",
			"    client-certificate-data: "+b64(client.CertPEM)+"\n    client-key-data: "+b64(other.KeyPEM)+"\n"), "https://api.lab.example:6443",
			[]string{"private key does not match public key"}},
		{"certificate without key", kc("https://192.0.2.52:6443", "    certificate-authority: "+realCA+"\n",
			"    client-certificate-data: "+b64(client.CertPEM)+"\n"), "https://192.0.2.52:6443",
			[]string{"client-key-data or client-key must be specified"}},
		{"insecure and a CA", kc("https://192.0.2.53:6443", "    certificate-authority: "+realCA+"\n    insecure-skip-tls-verify: true\n", certData), "https://192.0.2.53:6443",
			[]string{"insecure"}},
		{"user not defined", strings.Replace(kc("https://192.0.2.54:6443", "", certData), "user: u}", "user: ghost}", 1), "https://192.0.2.54:6443",
			[]string{`names user "ghost"`}},
		{"both an exec plugin and an auth-provider", kc("https://192.0.2.55:6443", "    certificate-authority: "+realCA+"\n",
			"    exec: {apiVersion: client.authentication.k8s.io/v1, command: get-token}\n    auth-provider: {name: oidc, config: {client-id: x, idp-issuer-url: 'https://idp.example'}}\n"),
			"https://192.0.2.55:6443", []string{"authProvider cannot be provided in combination with an exec plugin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "kubeconfig"), tc.text)
			_, err := loadFile(t, path)
			if err == nil {
				t.Fatal("no error")
			}
			wantAll(t, "error", err.Error(), append([]string{path, "endpoint " + tc.endpoint}, tc.want...)...)
			assertNoSecret(t, err)
		})
	}
}

// A missing exec plugin is only found when it is run (on the first
// request, as kubectl): the read is unknown with client-go's words and the
// install hint, and nothing reaches the server.
func TestExecPluginMissingIsUnknownWithTheHint(t *testing.T) {
	api := newBearerAPI(t)
	path := writeFile(t, filepath.Join(t.TempDir(), "kubeconfig"), fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: x
clusters:
- name: c
  cluster: {server: %q, certificate-authority-data: %s}
contexts:
- name: x
  context: {cluster: c, user: u}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: example-auth-plugin-not-installed
      installHint: install example-auth-plugin from the platform team's page
      interactiveMode: Never
`, api.srv.URL, b64(pemOf(api.srv))))
	tg, err := loadFile(t, path)
	if err != nil {
		t.Fatal(err)
	}
	ver, _ := ReadNodes(context.Background(), tg)
	if ver.Known {
		t.Fatal("read succeeded without the plugin")
	}
	wantAll(t, "reason", ver.Reason, "example-auth-plugin-not-installed", "not found", "install example-auth-plugin")
	if n := len(api.seen()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// --- kind 4: expired client certificates ---------------------------------

func TestLoadTargetExpiredClientCertificate(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	now := time.Now()
	expired := newTestClientCert(t, ca, "kubernetes-admin", now.Add(-366*24*time.Hour), now.Add(-24*time.Hour-time.Minute))
	future := newTestClientCert(t, ca, "kubernetes-admin", now.Add(48*time.Hour), now.Add(400*24*time.Hour))
	valid := newTestClientCert(t, ca, "kubernetes-admin", now.Add(-time.Hour), now.Add(time.Hour))
	writeFile(t, filepath.Join(dir, "pki", "admin.crt"), string(expired.CertPEM)+string(ca.CertPEM)) // leaf then chain
	writeFile(t, filepath.Join(dir, "pki", "admin.key"), string(expired.KeyPEM))
	date := expired.cert.NotAfter.UTC().Format("2006-01-02 15:04:05 UTC")

	swap := func(cert, key string) []string {
		return []string{fakeCAData, b64(ca.CertPEM), fakeCertData, cert, fakeKeyData, key}
	}
	fileForm := []string{fakeCAData, b64(ca.CertPEM),
		"client-certificate-data: " + fakeCertData, "client-certificate: pki/admin.crt",
		"client-key-data: " + fakeKeyData, "client-key: pki/admin.key"}
	for _, tc := range []struct {
		name string
		repl []string
		want []string
	}{
		{"handed admin.conf, certificate data", swap(b64(expired.CertPEM), b64(expired.KeyPEM)),
			[]string{"expired on " + date, "(1 day ago)", "from client-certificate-data", "CN=kubernetes-admin"}},
		{"certificate file with its chain, relative path", fileForm,
			[]string{"expired on " + date, "from client-certificate " + filepath.Join(dir, "pki", "admin.crt")}},
		{"not valid yet", swap(b64(future.CertPEM), b64(future.KeyPEM)),
			[]string{"is not valid before " + future.cert.NotBefore.UTC().Format("2006-01-02 15:04:05 UTC"), "clock"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "admin.conf"), handed(t, "expired-client-cert.yaml", tc.repl...))
			_, err := loadFile(t, path)
			var ce *CertificateValidityError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a CertificateValidityError", err)
			}
			wantAll(t, "error", err.Error(), append([]string{path, "endpoint https://192.0.2.10:6443", `user "kubernetes-admin"`, "401 Unauthorized"}, tc.want...)...)
			if !strings.Contains(tc.name, "not valid yet") {
				wantAll(t, "error", err.Error(), "kubeadm certs renew admin.conf", "nestor discover --cp NODE")
			}
		})
	}

	t.Run("valid certificate loads; judged at o.Now", func(t *testing.T) {
		path := writeFile(t, filepath.Join(dir, "admin.conf"), handed(t, "expired-client-cert.yaml", swap(b64(valid.CertPEM), b64(valid.KeyPEM))...))
		kc := Kubeconfig{Paths: []string{path}, Source: SourceFlag}
		if _, err := LoadTargetWith(kc, LoadOptions{}); err != nil {
			t.Fatalf("valid certificate: %v", err)
		}
		later := valid.cert.NotAfter.Add(time.Second)
		_, err := LoadTargetWith(kc, LoadOptions{Now: func() time.Time { return later }})
		var ce *CertificateValidityError
		if !errors.As(err, &ce) || !ce.Now.Equal(later) {
			t.Errorf("judged a second after NotAfter: err = %v", err)
		}
	})

	t.Run("expired certificate beside a token: the server may take the token", func(t *testing.T) {
		text := handed(t, "expired-client-cert.yaml", swap(b64(expired.CertPEM), b64(expired.KeyPEM))...) + "    token: " + secretToken + "\n"
		path := writeFile(t, filepath.Join(dir, "admin.conf"), text)
		if _, err := loadFile(t, path); err != nil {
			t.Errorf("with a token as well: %v", err)
		}
	})
}

// --- kind 5: KUBECONFIG lists behave as kubectl's ------------------------

// kubectlView is what client-go's own loading rules (kubectl's) make of a
// KUBECONFIG list: the current context, its server and its user's token.
func kubectlView(t *testing.T, list string) (ctx, server, token string) {
	t.Helper()
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(list)}
	cfg, err := rules.Load()
	if err != nil {
		t.Fatalf("client-go loading rules: %v", err)
	}
	c := cfg.Contexts[cfg.CurrentContext]
	if c == nil {
		t.Fatalf("client-go: no context %q", cfg.CurrentContext)
	}
	return cfg.CurrentContext, cfg.Clusters[c.Cluster].Server, cfg.AuthInfos[c.AuthInfo].Token
}

func TestKubeconfigListAsKubectl(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("testdata", "kubeconfig", "merge"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, "merge")
	realCA := b64(newTestCA(t).CertPEM)
	for _, f := range []string{"00-prefs.yaml", "a.yaml", "b.yaml"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		// The placeholder CA swapped for a real one (it is parsed on load).
		writeFile(t, filepath.Join(dir, f), strings.ReplaceAll(string(b), fakeCAData, realCA))
	}
	writeFile(t, filepath.Join(dir, "empty.yaml"), "")
	at := func(name string) string { return filepath.Join(dir, name) }
	join := func(entries ...string) string { return strings.Join(entries, string(filepath.ListSeparator)) }

	for _, tc := range []struct {
		name      string
		list      string
		paths     []string
		warnings  []string
		context   string
		endpoint  string
		userToken string
	}{
		{"handed: 00-prefs.yaml:missing.yaml::a.yaml:b.yaml", join(at("00-prefs.yaml"), at("missing.yaml"), "", at("a.yaml"), at("b.yaml")),
			[]string{at("00-prefs.yaml"), at("a.yaml"), at("b.yaml")},
			[]string{"KUBECONFIG entry " + at("missing.yaml") + " does not exist: skipped", "KUBECONFIG entry 3 of 5 is empty"},
			"lab-b", "https://198.51.100.22:6443", "fake-token-from-a"},
		{"missing first and last, separators at both ends, ~ and a duplicate", join("", "~/gone.yaml", "~/merge/00-prefs.yaml", at("a.yaml"), at("00-prefs.yaml"), at("b.yaml"), at("gone/too.yaml"), ""),
			[]string{at("00-prefs.yaml"), at("a.yaml"), at("b.yaml")},
			[]string{"KUBECONFIG entry 1 of 8 is empty", "KUBECONFIG entry " + filepath.Join(home, "gone.yaml") + " does not exist: skipped",
				"KUBECONFIG entry " + at("gone/too.yaml") + " does not exist: skipped", "KUBECONFIG entry 8 of 8 is empty"},
			"lab-b", "https://198.51.100.22:6443", "fake-token-from-a"},
		{"an empty file, and b before a: b's definitions win", join(at("empty.yaml"), at("b.yaml"), at("missing.yaml"), at("a.yaml")),
			[]string{at("b.yaml"), at("a.yaml")},
			[]string{"KUBECONFIG entry " + at("empty.yaml") + " is an empty file: skipped", "KUBECONFIG entry " + at("missing.yaml") + " does not exist: skipped"},
			"lab-a", "https://203.0.113.99:6443", "fake-token-from-b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc, err := ResolveKubeconfig(ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": tc.list}), Home: home})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(kc.Paths, tc.paths) || kc.Source != SourceEnv {
				t.Errorf("Paths = %q (source %s), want %q", kc.Paths, kc.Source, tc.paths)
			}
			if len(kc.Warnings) != len(tc.warnings) {
				t.Errorf("Warnings = %q, want %d", kc.Warnings, len(tc.warnings))
			}
			for i, w := range tc.warnings {
				if i < len(kc.Warnings) && !strings.Contains(kc.Warnings[i], w) {
					t.Errorf("Warnings[%d] = %q, want it to contain %q", i, kc.Warnings[i], w)
				}
			}
			tg, err := LoadTargetWith(kc, LoadOptions{Context: "", UserAgent: "nestor/test"})
			if err != nil {
				t.Fatal(err)
			}
			if tg.Context != tc.context || tg.Endpoint != tc.endpoint || tg.Config.BearerToken != tc.userToken {
				t.Errorf("context %q endpoint %q (token from a? %v), want %q %q %q", tg.Context, tg.Endpoint, tg.Config.BearerToken == "fake-token-from-a", tc.context, tc.endpoint, tc.userToken)
			}
			// kubectl's own rules on the same list (missing files included):
			// the same answer.
			expanded := strings.ReplaceAll(tc.list, "~", home)
			ctx, server, token := kubectlView(t, expanded)
			if ctx != tg.Context || server != tg.Endpoint || token != tg.Config.BearerToken {
				t.Errorf("client-go reads context %q server %q, nestor %q %q (tokens equal: %v)", ctx, server, tg.Context, tg.Endpoint, token == tg.Config.BearerToken)
			}
		})
	}

	// Every entry missing (or empty): loading is an error naming them and
	// the fix, never a fall back to the topology's kubeconfig: or
	// ~/.kube/config.
	writeFile(t, filepath.Join(home, ".kube", "config"), kubeconfigText("c", map[string]string{"c": "https://10.0.0.1:6443"}, map[string][2]string{"c": {"c", "u"}}))
	topo := &topology.Topology{Path: filepath.Join(dir, "s.yaml"), Name: "s", TargetKind: topology.TargetProd, Kubeconfig: "a.yaml"}
	for _, tc := range []struct {
		list string
		want []string
	}{
		{at("missing.yaml"), []string{"kubeconfig " + at("missing.yaml") + " (from KUBECONFIG) does not exist", "unset KUBECONFIG"}},
		{join(at("missing.yaml"), "", at("gone.yaml")), []string{"KUBECONFIG lists no kubeconfig that exists (" + at("missing.yaml") + ", " + at("gone.yaml") + ")", "unset KUBECONFIG"}},
		{join(at("empty.yaml"), at("missing.yaml")), []string{"kubeconfig " + at("missing.yaml") + " (from KUBECONFIG) does not exist", "unset KUBECONFIG"}},
	} {
		kc, err := ResolveKubeconfig(ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": tc.list}), Home: home, Topology: topo})
		if err != nil || kc.Source != SourceEnv {
			t.Errorf("KUBECONFIG=%s: %+v, %v", tc.list, kc, err)
			continue
		}
		for _, w := range kc.Warnings {
			if strings.Contains(w, "does not exist: skipped") || strings.Contains(w, "empty file: skipped") {
				t.Errorf("KUBECONFIG=%s: warning %q, but nothing is skipped when nothing is left", tc.list, w)
			}
		}
		_, err = LoadTargetWith(kc, LoadOptions{Context: "", UserAgent: "nestor/test"})
		if err == nil {
			t.Errorf("KUBECONFIG=%s: loaded", tc.list)
			continue
		}
		wantAll(t, "KUBECONFIG="+tc.list, err.Error(), tc.want...)
	}

	// The priority rules do not change: --kubeconfig beats a KUBECONFIG with
	// missing entries (which is then not looked at: no warning).
	kc, err := ResolveKubeconfig(ResolveOptions{Flag: at("b.yaml"), Env: envOf(map[string]string{"KUBECONFIG": join(at("missing.yaml"), at("a.yaml"))}), Home: home})
	if err != nil || kc.Source != SourceFlag || len(kc.Warnings) != 0 || !reflect.DeepEqual(kc.Paths, []string{at("b.yaml")}) {
		t.Errorf("flag with a KUBECONFIG list: %+v, %v", kc, err)
	}
	// A folder in the list is kept, and loading it fails as it does for kubectl.
	kc, err = ResolveKubeconfig(ResolveOptions{Env: envOf(map[string]string{"KUBECONFIG": join(at("a.yaml"), dir)}), Home: home})
	if err != nil || len(kc.Paths) != 2 {
		t.Fatalf("folder entry: %+v, %v", kc, err)
	}
	if _, err := LoadTargetWith(kc, LoadOptions{Context: "", UserAgent: "nestor/test"}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("loading a folder: err = %v", err)
	}
}

// The date is said in UTC, with how long ago.
func TestCertificateValidityErrorWords(t *testing.T) {
	notAfter := time.Date(2025, 11, 30, 9, 15, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{notAfter.Add(time.Hour), "expired on 2025-11-30 08:15:00 UTC (less than a day ago)"},
		{notAfter.Add(30 * time.Hour), "expired on 2025-11-30 08:15:00 UTC (1 day ago)"},
		{notAfter.Add(365 * 24 * time.Hour), "expired on 2025-11-30 08:15:00 UTC (365 days ago)"},
	} {
		e := &CertificateValidityError{User: "kubernetes-admin", From: "client-certificate-data", Subject: "CN=kubernetes-admin,O=kubeadm:cluster-admins",
			NotBefore: notAfter.Add(-365 * 24 * time.Hour), NotAfter: notAfter, Now: tc.now}
		if !strings.Contains(e.Error(), tc.want) {
			t.Errorf("now %v: %q does not say %q", tc.now, e, tc.want)
		}
	}
}
