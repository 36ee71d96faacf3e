package kapsule

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/probes/internal/probetest"
	"nestor.dev/nestor/stacks"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/tests/scwstub"
	"nestor.dev/nestor/topology"

	k8s "github.com/scaleway/scaleway-sdk-go/api/k8s/v1"
)

const (
	testAccessKey = "SCWABCDEFGHJKMNPQRST"
	testSecretKey = "d3c1a2b4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
)

func kapsuleStack(t *testing.T, apiURL, extra string) *topology.Topology {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "lyneko-apps.yaml")
	src := "name: lyneko-apps\ntarget_kind: kapsule\nscaleway:\n  region: fr-par\n  cluster_id: " + scwstub.ClusterID + "\n"
	if apiURL != "" {
		src += "  api_url: " + apiURL + "\n"
	}
	src += extra + "pools:\n  - {name: default, node_type: PRO2-XXS, size: 3}\n  - {name: burst, node_type: PRO2-S, autoscaling: {min: 0, max: 5}}\nlayers: [traefik]\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := stacks.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func kvEnv(kv ...string) probes.Env {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return probetest.EnvOf(m)
}

func startStub(t *testing.T) *scwstub.Stub {
	s := scwstub.Start(scwstub.Options{Region: "fr-par", ClusterID: scwstub.ClusterID, SecretKey: testSecretKey})
	t.Cleanup(s.Close)
	s.Serve(scwstub.Typical("fr-par", "https://"+scwstub.ClusterID+".api.k8s.fr-par.scw.cloud:6443"))
	return s
}

func openKapsule(t *testing.T, tp *topology.Topology, env probes.Env, timeout time.Duration) (*topology.Observed, error) {
	t.Helper()
	op, err := probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{Env: env, Home: t.TempDir(), UserAgent: "nestor/test", Timeout: timeout})
	if err != nil {
		return nil, err
	}
	obs, _, err := op.Read(context.Background(), probes.ReadAll)
	return obs, err
}

// The provider part, read through the real SDK against the stand-in: every
// page, GET only, never the kubeconfig route, the SDK's /metadata answered.
func TestKapsuleReadHealthy(t *testing.T) {
	defer func(n int) { providerPageSize = n }(providerPageSize)
	providerPageSize = 2
	s := startStub(t)
	obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey), 0)
	if err != nil {
		t.Fatal(err)
	}
	k := obs.Kapsule
	if !k.Cluster.Known || k.Cluster.Value.Status != "ready" || k.Cluster.Value.Version != "1.35.3" || k.Cluster.Value.CNI != "cilium" {
		t.Fatalf("cluster = %+v", k.Cluster)
	}
	if !k.Pools.Known || len(k.Pools.Value) != 2 || !k.Nodes.Known || len(k.Nodes.Value) != 4 {
		t.Fatalf("pools %+v nodes %+v", k.Pools, k.Nodes)
	}
	if !k.Versions.Known || len(k.Versions.Value) != 3 || k.Versions.Value[1].EndOfLifeAt == nil {
		t.Errorf("versions = %+v", k.Versions)
	}
	if !strings.Contains(k.InCluster, "no kubeconfig") || obs.ServerVersion.Known || obs.Layers[0].Health != topology.Unknown {
		t.Errorf("in-cluster part: %q %+v %+v", k.InCluster, obs.ServerVersion, obs.Layers)
	}
	// No kubeconfig declared: nothing to read the cluster through, said
	// with the no-target code.
	if obs.ServerVersion.Code != topology.ReasonNoTarget || obs.Layers[0].Code != topology.ReasonNoTarget {
		t.Errorf("in-cluster codes: server version %q, layer %q, want %q", obs.ServerVersion.Code, obs.Layers[0].Code, topology.ReasonNoTarget)
	}
	pages := 0
	for _, r := range s.Log() {
		if r.Method != "GET" || strings.HasSuffix(r.Path, "/kubeconfig") {
			t.Errorf("request %s %s", r.Method, r.Path)
		}
		if r.UserAgent != "nestor/test" {
			t.Errorf("user agent %q", r.UserAgent)
		}
		if strings.HasSuffix(r.Path, "/nodes") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("nodes read in %d pages, want 2 (4 nodes, page size 2)", pages)
	}
	if s.Reads("metadata") == 0 {
		t.Errorf("the SDK's /metadata was not asked: the stand-in does not see what the SDK sends")
	}
	p := plan.Build(kapsuleStack(t, s.URL, ""), obs, Rules{}, plan.Options{})
	if p.Changes() != 0 || len(p.Waiting) != 0 {
		t.Errorf("plan = %+v", p)
	}
}

// The provider's connections end with the stack's read: none is left
// open for the rest of a fleet.
func TestKapsuleReadClosesItsConnections(t *testing.T) {
	s := startStub(t)
	if _, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey), 0); err != nil {
		t.Fatal(err)
	}
	if len(s.Log()) == 0 {
		t.Fatal("the stand-in saw no request")
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.OpenConns() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.OpenConns(); n != 0 {
		t.Errorf("%d connections to the provider's API still open after the read, want none", n)
	}
}

// A 409 transient_state is waiting, a 501 of an unknown type is unknown
// with the reason, a 5xx and a 403 too — never absent, never 0 nodes.
func TestKapsuleReadErrors(t *testing.T) {
	s := startStub(t)
	s.Script("pools", scwstub.Transient("k8s_pool", scwstub.PoolBurst, "scaling"))
	s.Script("nodes", scwstub.Unknown501())
	s.Script("versions", scwstub.ServerError(503))
	s.Script("acls", scwstub.PermissionsDenied())
	obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey), 0)
	if err != nil {
		t.Fatal(err)
	}
	k := obs.Kapsule
	if k.Transient["pools"] != "scaling" || k.Pools.Known {
		t.Errorf("pools = %+v transient %v", k.Pools, k.Transient)
	}
	if k.Nodes.Known || !strings.Contains(k.Nodes.Reason, "501") || !strings.Contains(k.Nodes.Reason, "not_implemented_yet") {
		t.Errorf("nodes = %+v", k.Nodes)
	}
	if k.Versions.Known || !strings.Contains(k.Versions.Reason, "503") || k.Versions.Code != topology.ReasonServerError {
		t.Errorf("versions = %+v", k.Versions)
	}
	if k.ACL.Known || !strings.Contains(k.ACL.Reason, "forbidden") || k.ACL.Code != topology.ReasonForbidden {
		t.Errorf("acl = %+v", k.ACL)
	}
	if k.Nodes.Code != topology.ReasonServerError {
		t.Errorf("nodes' code = %q, want %q", k.Nodes.Code, topology.ReasonServerError)
	}
	p := plan.Build(kapsuleStack(t, s.URL, ""), obs, Rules{}, plan.Options{})
	if len(p.Waiting) != 1 || !strings.Contains(strings.Join(topology.Texts(p.Unknowns), "\n"), "nodes: the provider's API answered 501") {
		t.Errorf("plan waiting %v unknowns %v", p.Waiting, p.Unknowns)
	}
	// Typed: the pools' 409 waits at the pools' key; the nodes' 501 is
	// unknown at the pools' key too, with the read's code.
	if len(p.Waiting) == 1 && (p.Waiting[0].Subject != topology.PoolsSubject() || p.Waiting[0].Subject.Key != "pools") {
		t.Errorf("waiting subject %+v, want the pools", p.Waiting[0].Subject)
	}
	var nodes []topology.UnknownPart
	for _, u := range p.Unknowns {
		if u.Subject.Kind == topology.SubjectNodes {
			nodes = append(nodes, u)
		}
	}
	if len(nodes) != 1 || nodes[0].Subject.Key != "pools" || nodes[0].Code != topology.ReasonServerError {
		t.Errorf("the nodes' unknown parts = %+v, want one at key pools, %s", nodes, topology.ReasonServerError)
	}
}

// --timeout bounds a provider that never answers.
func TestKapsuleReadTimeout(t *testing.T) {
	s := startStub(t)
	s.Script("cluster", scwstub.Answer{Hang: true})
	start := time.Now()
	obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey), 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	if obs.Kapsule.Cluster.Known || obs.Kapsule.Cluster.Reason != "timed out after 400ms" || obs.Kapsule.Pools.Known {
		t.Errorf("cluster %+v pools %+v", obs.Kapsule.Cluster, obs.Kapsule.Pools)
	}
}

// Credentials: each refusal is made before any request, and no message
// holds the secret key, whole or in part.
func TestKapsuleCredentialRefusals(t *testing.T) {
	s := startStub(t)
	tp := kapsuleStack(t, s.URL, "")
	cases := []struct {
		name string
		env  probes.Env
		want string
	}{
		{"secret with a trailing CR", kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey+"\r"), "carriage return"},
		{"keys swapped", kvEnv("SCW_ACCESS_KEY", testSecretKey, "SCW_SECRET_KEY", testAccessKey), "look swapped"},
		{"secret where the access key goes", kvEnv("SCW_ACCESS_KEY", testSecretKey, "SCW_SECRET_KEY", testSecretKey), "is a UUID"},
		{"one of the pair", kvEnv("SCW_SECRET_KEY", testSecretKey), "SCW_SECRET_KEY is exported but SCW_ACCESS_KEY is not"},
		{"legacy variable", kvEnv("SCALEWAY_ACCESS_KEY", testSecretKey), "SCALEWAY_ACCESS_KEY is exported: nestor does not read this legacy variable"},
		{"legacy token", kvEnv("SCW_TOKEN", testSecretKey), "export SCW_SECRET_KEY instead"},
		{"undeclared SCW_API_URL", kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey, "SCW_API_URL", "http://127.0.0.1:1"), "refusing: the API URL http://127.0.0.1:1 (from SCW_API_URL in the environment)"},
		// Credentials set nowhere are no target, not a refusal:
		// TestNoCredentialsIsNoTarget.
		{"SCW_CONFIG_PATH names a missing file", kvEnv("SCW_CONFIG_PATH", "/nonexistent/scw.yaml"), "SCW_CONFIG_PATH names /nonexistent/scw.yaml, which does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.ResetLog()
			_, err := openKapsule(t, tp, c.env, 0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			var ce *ScalewayCredentialsError
			if !errors.As(err, &ce) {
				t.Errorf("%T is not a *ScalewayCredentialsError", err)
			}
			assertNoSecretPart(t, err.Error(), testSecretKey)
			if strings.Contains(c.name, "SCW_CONFIG_PATH") && strings.Contains(err.Error(), "scw init") {
				t.Errorf("advises `scw init`, which writes a file nestor would then not read: %v", err)
			}
			if n := len(s.Log()); n != 0 {
				t.Errorf("%d requests sent before the refusal", n)
			}
		})
	}
}

// assertNoSecret fails when text holds the secret or any 6 of its
// characters in a row (its dashes are not counted).
func assertNoSecretPart(t *testing.T, text, secret string) {
	t.Helper()
	for i := 0; i+6 <= len(secret); i++ {
		part := secret[i : i+6]
		if strings.Contains(part, "-") {
			continue
		}
		if strings.Contains(text, part) {
			t.Errorf("the text holds %q of the secret key: %s", part, text)
		}
	}
}

// A wrong secret is answered 401: unknown with the reason, no secret in it.
func TestKapsuleUnauthorized(t *testing.T) {
	s := startStub(t)
	wrong := "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	obs, err := openKapsule(t, kapsuleStack(t, s.URL, ""), kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", wrong), 0)
	if err != nil {
		t.Fatal(err)
	}
	if obs.Kapsule.Cluster.Known || !strings.Contains(obs.Kapsule.Cluster.Reason, "unauthorized") {
		t.Errorf("cluster = %+v", obs.Kapsule.Cluster)
	}
	assertNoSecretPart(t, obs.Kapsule.Cluster.Reason, wrong)
}

// The config file is read by nestor (a 0644 file prints nothing on
// stdout), its profiles merged over the root, the topology's profile
// chosen over the active one, SCW_PROFILE over both.
func TestKapsuleConfigFile(t *testing.T) {
	s := startStub(t)
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "scw", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	other := "SCWZZZZZZZZZZZZZZZZZ"
	data := "access_key: " + other + "\nsecret_key: 11111111-2222-4333-8444-555555555555\nactive_profile: other\nprofiles:\n  lyneko:\n    access_key: " + testAccessKey + "\n    secret_key: " + testSecretKey + "\n  other:\n    default_region: nl-ams\n"
	if err := os.WriteFile(cfg, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r, w, _ := os.Pipe()
	stdout := os.Stdout
	os.Stdout = w
	tp := kapsuleStack(t, s.URL, "  profile: lyneko\n")
	op, err := probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{Env: kvEnv(), Home: home, UserAgent: "nestor/test"})
	os.Stdout = stdout
	w.Close()
	printed, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(printed) != 0 {
		t.Errorf("printed on stdout: %q", printed)
	}
	if !stateOf(op).obs.Cluster.Known || !strings.Contains(stateOf(op).view.Credentials, "profile lyneko (scaleway.profile in") || stateOf(op).view.AccessKey != "SCWABCD…QRST" {
		t.Errorf("view = %+v", stateOf(op).view)
	}

	// SCW_PROFILE wins over scaleway.profile: "other" merges over the
	// root profile, whose secret the stand-in refuses.
	c, err := ResolveScalewayCredentials(tp, kvEnv("SCW_PROFILE", "other"), home)
	if err != nil || c.AccessKey != other || !strings.Contains(c.Source, "SCW_PROFILE") {
		t.Errorf("SCW_PROFILE: %+v %v", c, err)
	}
	if _, err := ResolveScalewayCredentials(tp, kvEnv("SCW_PROFILE", "nope"), home); err == nil || !strings.Contains(err.Error(), `profile "nope"`) {
		t.Errorf("missing profile: %v", err)
	}
}

// The interactive guard shows the provider's view and stops on No; a
// cluster the API does not give is an error there (nothing to confirm).
func TestKapsuleInteractiveGuard(t *testing.T) {
	s := startStub(t)
	tp := kapsuleStack(t, s.URL, "")
	env := kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey)
	var seen *probes.ProviderView
	_, err := probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{Env: env, Home: t.TempDir(), Interactive: true,
		Confirm: func(v probes.GuardView) (bool, error) { seen = v.Provider; return false, nil }})
	if !errors.Is(err, probes.ErrNotConfirmed) {
		t.Fatalf("err = %v, want ErrNotConfirmed", err)
	}
	if seen == nil || !seen.Cluster.Known || seen.Cluster.Value.Name != "lyneko-apps" || !seen.Pools.Known || len(seen.Nodes.Value) != 4 || seen.AccessKey != "SCWABCD…QRST" {
		t.Errorf("view = %+v", seen)
	}

	s.Script("cluster", scwstub.PermissionsDenied())
	_, err = probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{Env: env, Home: t.TempDir(), Interactive: true,
		Confirm: func(probes.GuardView) (bool, error) {
			t.Fatal("asked about a cluster that was not read")
			return false, nil
		}})
	var unread *KapsuleUnreadError
	if !errors.As(err, &unread) || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("err = %v, want a *KapsuleUnreadError", err)
	}
}

// A declared project_id or endpoint: the cluster does not have is refused
// after the provider's read, naming both sides.
func TestKapsuleIdentityRefusals(t *testing.T) {
	s := startStub(t)
	env := kvEnv("SCW_ACCESS_KEY", testAccessKey, "SCW_SECRET_KEY", testSecretKey)
	for name, extra := range map[string]string{
		"project":  "  project_id: 11111111-2222-4333-8444-555555555555\n",
		"endpoint": "endpoint: https://elsewhere.example:6443\n",
	} {
		_, err := openKapsule(t, kapsuleStack(t, s.URL, extra), env, 0)
		var mm *KapsuleMismatchError
		if !errors.As(err, &mm) {
			t.Errorf("%s: err = %v, want a *KapsuleMismatchError", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "refusing:") || !strings.Contains(err.Error(), "nothing was sent to its Kubernetes API") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The provider's HTTP client never sends a request to the kubeconfig route
// (it answers a credential), nor a write, nor to another host.
func TestKapsuleHTTPClientRefusals(t *testing.T) {
	s := startStub(t)
	hc, closeIdle, err := kapsuleHTTPClient(context.Background(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer closeIdle()
	kc := s.URL + "/k8s/v1/regions/fr-par/clusters/" + scwstub.ClusterID + "/kubeconfig"
	for _, tc := range []struct {
		method, url string
		want        any
	}{
		{"GET", kc, &kubeconfigRouteError{}},
		{"GET", kc + "/", &kubeconfigRouteError{}},
		{"POST", s.URL + "/k8s/v1/regions/fr-par/clusters/" + scwstub.ClusterID + "/upgrade", &probes.WriteRefusedError{}},
		{"GET", "http://127.0.0.2:9/metadata", &probes.HostRefusedError{}},
	} {
		req, _ := http.NewRequest(tc.method, tc.url, nil)
		_, err := hc.Do(req)
		if err == nil {
			t.Errorf("%s %s was sent", tc.method, tc.url)
			continue
		}
		switch tc.want.(type) {
		case *kubeconfigRouteError:
			var e *kubeconfigRouteError
			if !errors.As(err, &e) {
				t.Errorf("%s %s: %v", tc.method, tc.url, err)
			}
		case *probes.WriteRefusedError:
			var e *probes.WriteRefusedError
			if !errors.As(err, &e) {
				t.Errorf("%s %s: %v", tc.method, tc.url, err)
			}
		case *probes.HostRefusedError:
			var e *probes.HostRefusedError
			if !errors.As(err, &e) {
				t.Errorf("%s %s: %v", tc.method, tc.url, err)
			}
		}
	}
	if n := len(s.Log()); n != 0 {
		t.Errorf("the stand-in received %d requests", n)
	}
}

// TestClusterOfURL: the provider's cluster URL is an endpoint: surrounding
// white space is trimmed and it still compares equal to the topology's,
// while the cluster's name keeps its unprintable characters, escaped.
func TestClusterOfURL(t *testing.T) {
	for _, raw := range []string{"https://6a1c2f5e.api.k8s.fr-par.scw.cloud:6443\n", "https://6a1c2f5e.api.k8s.fr-par.scw.cloud:6443\r\n", "\thttps://6a1c2f5e.api.k8s.fr-par.scw.cloud:6443"} {
		c := clusterOf(&k8s.Cluster{Name: "apps\x07", ClusterURL: raw})
		if same, err := topology.SameEndpoint(c.URL, "https://6a1c2f5e.api.k8s.fr-par.scw.cloud:6443"); err != nil || !same {
			t.Errorf("cluster URL %q → %q: same endpoint %v, %v", raw, c.URL, same, err)
		}
		if c.Name != `apps\a` {
			t.Errorf("name = %q, want apps\\a", c.Name)
		}
	}
}

// A credential plugin that is not installed: the kubeconfig's own install
// hint is kept, nestor's words added after it; without a hint, nestor's.
func TestExecPluginMissingKeepsTheHint(t *testing.T) {
	mk := func(cmd, hint string) *probes.Target {
		return &probes.Target{Config: &rest.Config{ExecProvider: &clientcmdapi.ExecConfig{Command: cmd, InstallHint: hint}}}
	}
	env := kvEnv("PATH", t.TempDir())
	got := execPluginMissing(mk("scw", "Get it at https://cli.scaleway.example/install\n"), env)
	if !strings.Contains(got, "Get it at https://cli.scaleway.example/install; install the Scaleway CLI (scw)") {
		t.Errorf("scw with a hint: %s", got)
	}
	if got := execPluginMissing(mk("kubelogin", ""), env); !strings.Contains(got, `"kubelogin" is not installed: install it, or use a kubeconfig with a token`) {
		t.Errorf("no hint: %s", got)
	}
	if got := execPluginMissing(mk("other-plugin", "brew install other-plugin"), env); !strings.HasSuffix(got, ": brew install other-plugin") {
		t.Errorf("another plugin's hint: %s", got)
	}
}

// allPages reads every page, and refuses what contradicts itself: an id
// twice (a page repeated, a page ignored), a total that changes, more items
// than the total, pages that never reach it.
func TestAllPages(t *testing.T) {
	type item struct{ ID string }
	pagesOf := func(total uint64, pages ...[]string) func(int32) ([]*item, uint64, error) {
		return func(page int32) ([]*item, uint64, error) {
			var out []*item
			if int(page) <= len(pages) {
				for _, id := range pages[page-1] {
					out = append(out, &item{id})
				}
			}
			return out, total, nil
		}
	}
	id := func(i *item) string { return i.ID }
	defer func(n int) { providerPageSize = n }(providerPageSize)
	providerPageSize = 2
	for _, tc := range []struct {
		name  string
		fetch func(int32) ([]*item, uint64, error)
		n     int
		want  string
	}{
		{"two pages", pagesOf(3, []string{"a", "b"}, []string{"c"}), 3, ""},
		{"empty", pagesOf(0), 0, ""},
		{"page ignored, total lies", pagesOf(40, []string{"a", "b"}, []string{"a", "b"}), 0, "lists a twice"},
		{"more than the total", pagesOf(1, []string{"a", "b"}), 0, "more than its total"},
		{"a page short of the total, then nothing", pagesOf(5, []string{"a", "b"}), 0, "short of its total"},
		{"total changes", func(page int32) ([]*item, uint64, error) {
			return []*item{{fmt.Sprint(page)}}, uint64(3 + page), nil
		}, 0, "total changed"},
		{"pages never reach the total", func(page int32) ([]*item, uint64, error) {
			return []*item{{fmt.Sprint(page)}}, 9, nil
		}, 0, "do not reach"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := allPages(context.Background(), "things", tc.fetch, id)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			case tc.want == "" && len(got) != tc.n:
				t.Errorf("%d items, want %d", len(got), tc.n)
			}
		})
	}
}

// Credentials set nowhere are no target, as a stack without a kubeconfig
// has: Open refuses nothing and sends nothing, the stack's NoTarget says
// what is missing, and the reading is a no-target one.
func TestNoCredentialsIsNoTarget(t *testing.T) {
	tp := kapsuleStack(t, "https://127.0.0.1:1", "")
	op, err := probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{Env: kvEnv(), Home: t.TempDir(), UserAgent: "nestor/test",
		Fix: func(*probes.NoTarget) string { return "" }})
	if err != nil {
		t.Fatalf("Open: %v, want a stack with no target", err)
	}
	if op.NoTarget == nil || op.NoTarget.Kind != probes.NoCredentials || !strings.Contains(op.NoTarget.Error(), "no Scaleway credentials") || !strings.Contains(op.NoTarget.Error(), "no scw config file") {
		t.Fatalf("NoTarget %+v, want no-credentials with the words of what is missing", op.NoTarget)
	}
	obs, _, err := op.Read(context.Background(), probes.ReadAll)
	if err != nil || !obs.NoTarget || !strings.Contains(obs.NoTargetReason, "no Scaleway credentials") {
		t.Errorf("read %+v, %v: want a no-target reading saying why", obs, err)
	}
}
