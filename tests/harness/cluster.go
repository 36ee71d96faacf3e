package harness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Identities a test can hand to nestor: names for WriteKubeconfig.
const (
	// IdentityAdmin is in group system:masters: it may do anything.
	IdentityAdmin = "admin"
	// IdentityReadOnly may get/list/watch what a preview reads (ReadOnlyRules).
	IdentityReadOnly = "readonly"
	// IdentityNoAccess is authenticated but bound to nothing: every resource
	// request is forbidden (discovery and /version stay open, as on any cluster).
	IdentityNoAccess = "noaccess"
)

// User names the apiserver sees for each identity (the CN of its client
// certificate); audit events carry them in AuditEvent.User.
const (
	UserAdmin    = "nestor-test-admin"
	UserReadOnly = "nestor-test-readonly"
	UserNoAccess = "nestor-test-noaccess"
)

// ClusterName is the cluster name in every kubeconfig the harness writes;
// contexts are named IDENTITY@ClusterName ("admin@nestor-test").
const ClusterName = "nestor-test"

// HarnessUserAgent is the user agent of the harness's own admin requests
// (readiness, RBAC set-up, fixture loading, AdminClient…), so tests can tell
// them from nestor's. It deliberately does not start with "nestor".
const HarnessUserAgent = "test-cluster-harness"

// StartTimeout bounds how long Start waits for /readyz.
const StartTimeout = 60 * time.Second

type identity struct {
	name   string
	user   string
	groups []string
}

var identities = []identity{
	{IdentityAdmin, UserAdmin, []string{"system:masters"}},
	{IdentityReadOnly, UserReadOnly, nil},
	{IdentityNoAccess, UserNoAccess, nil},
}

// Options configure Start.
type Options struct {
	// BindAddress is the address kube-apiserver listens on: "127.0.0.1" when
	// empty; "0.0.0.0" listens on every address, so a test can also reach
	// the server on 127.0.0.2 (the serving certificate covers 127.0.0.1,
	// 127.0.0.2, ::1 and localhost). etcd always listens on 127.0.0.1.
	BindAddress string
	// APIServerArgs are more kube-apiserver flags, after the harness's own
	// (a later flag wins): "--runtime-config=resource.k8s.io/v1beta1=true"
	// serves a group version the default configuration does not.
	APIServerArgs []string
}

// Cluster is a running etcd + kube-apiserver pair. Its exported fields are
// set by Start and read-only afterwards. Stop (or the cleanup StartT
// registers) ends both processes and removes Dir.
type Cluster struct {
	// URL is the API server's address, https://127.0.0.1:PORT (the bind
	// address instead of 127.0.0.1 when one other than 0.0.0.0 is given).
	URL string
	// Port is the API server's secure port.
	Port int
	// Dir is the temporary folder holding certificates, etcd's data, logs,
	// the audit log and the kubeconfigs; Stop removes it.
	Dir string
	// CAData is the PEM certificate of the CA that signed the serving and
	// client certificates.
	CAData []byte
	// Admin, ReadOnly and NoAccess are kubeconfig files (in Dir) for the
	// three identities: standalone, certificates embedded, server URL,
	// current-context IDENTITY@nestor-test.
	Admin, ReadOnly, NoAccess string
	// AuditLog is the path of the apiserver's audit log (JSON lines).
	AuditLog string

	pki          *pki
	etcd         *process
	apiserver    *process
	adminConfig  *rest.Config
	adminClient  kubernetes.Interface
	adminDynamic dynamic.Interface
	httpClient   *http.Client // admin identity, raw HTTP (readyz, audit barrier)
	barrier      atomic.Uint64

	stopOnce sync.Once
	stopErr  error
}

// StartT starts a cluster for the test t and registers its Stop with
// t.Cleanup, so both processes end and the temporary folder goes even when
// the test fails. It fails the test (t.Fatal) when the cluster cannot start —
// missing binaries included, with the hint to run tests/k8sbin/build.sh —
// and skips it in -short mode.
func StartT(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real kube-apiserver + etcd; skipped in -short mode")
	}
	start := time.Now()
	c, err := Start(opts)
	if err != nil {
		t.Fatalf("start test cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop test cluster: %v", err)
		}
	})
	t.Logf("test cluster %s ready in %v (dir %s)", c.URL, time.Since(start).Round(time.Millisecond), c.Dir)
	return c
}

// Start starts etcd and kube-apiserver from BinDir on free loopback ports in
// a new temporary folder, waits until /readyz answers ok (StartTimeout),
// creates the read-only ClusterRole and its binding, and writes the three
// kubeconfigs. It returns the running cluster; the caller must call Stop.
// On error nothing is left behind (processes stopped, folder removed); the
// error says which process failed and quotes the end of its log. A start
// that lost a race for a free port is retried (three attempts in all).
func Start(opts Options) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		c, err := start(bin, opts)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

func start(bin string, opts Options) (c *Cluster, err error) {
	bind := opts.BindAddress
	if bind == "" {
		bind = "127.0.0.1"
	}
	bindIP := net.ParseIP(bind)
	if bindIP == nil {
		return nil, fmt.Errorf("harness.Options.BindAddress %q is not an IP address (use 127.0.0.1 or 0.0.0.0)", bind)
	}
	host := bind
	if bindIP.IsUnspecified() {
		host = "127.0.0.1"
	}

	dir, err := os.MkdirTemp("", "nestor-test-cluster-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{Dir: dir, AuditLog: filepath.Join(dir, "audit.log")}
	defer func() {
		if err != nil {
			_ = c.Stop()
			c = nil
		}
	}()

	if c.pki, err = newPKI(); err != nil {
		return c, err
	}
	if err = c.pki.writeFiles(dir); err != nil {
		return c, err
	}
	c.CAData = c.pki.CA.CertPEM
	if err = os.WriteFile(filepath.Join(dir, "audit-policy.yaml"), []byte(auditPolicy), 0o644); err != nil {
		return c, err
	}

	ports, err := freePorts([]string{"127.0.0.1", "127.0.0.1", bind})
	if err != nil {
		return c, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	c.Port = ports[2]
	c.URL = "https://" + net.JoinHostPort(host, strconv.Itoa(c.Port))

	c.etcd, err = startProcess("etcd", filepath.Join(bin, "etcd"), []string{
		"--name=nestor-test",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + etcdURL,
		"--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=nestor-test=" + peerURL,
		"--initial-cluster-state=new",
		"--unsafe-no-fsync", // test data: durability is not needed, speed is
		"--log-level=warn",
	}, filepath.Join(dir, "etcd.log"))
	if err != nil {
		return c, err
	}
	deadline := time.Now().Add(StartTimeout)
	if err = waitEtcd(c.etcd, etcdURL, deadline); err != nil {
		return c, err
	}

	c.apiserver, err = startProcess("kube-apiserver", filepath.Join(bin, "kube-apiserver"), append([]string{
		"--etcd-servers=" + etcdURL,
		"--secure-port=" + strconv.Itoa(c.Port),
		"--bind-address=" + bind,
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none", // a loopback advertise address is refused otherwise
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + filepath.Join(dir, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(dir, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(dir, "ca.crt"),
		"--service-account-key-file=" + filepath.Join(dir, "sa.key"),
		"--service-account-signing-key-file=" + filepath.Join(dir, "sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--authorization-mode=RBAC",
		// No controller-manager creates service accounts here; the
		// ServiceAccount admission plugin would refuse every Pod.
		"--disable-admission-plugins=ServiceAccount",
		"--audit-log-path=" + c.AuditLog,
		"--audit-policy-file=" + filepath.Join(dir, "audit-policy.yaml"),
		"--audit-log-mode=blocking", // events are written before the response ends
		"--audit-log-format=json",
		"--profiling=false",
	}, opts.APIServerArgs...), filepath.Join(dir, "kube-apiserver.log"))
	if err != nil {
		return c, err
	}

	if err = c.initClients(); err != nil {
		return c, err
	}
	if err = c.waitReady(deadline); err != nil {
		return c, err
	}
	if err = c.setupRBAC(); err != nil {
		return c, err
	}
	for _, k := range []struct {
		path *string
		id   string
	}{{&c.Admin, IdentityAdmin}, {&c.ReadOnly, IdentityReadOnly}, {&c.NoAccess, IdentityNoAccess}} {
		*k.path = filepath.Join(dir, "kubeconfig-"+k.id)
		if err = c.WriteKubeconfig(*k.path, k.id, c.URL); err != nil {
			return c, err
		}
	}
	return c, nil
}

// auditPolicy records every request at level Metadata (verb, URI, user,
// user agent, response code; no bodies), skipping the RequestReceived stage.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// freePorts returns one free TCP port per host. All listeners are open at
// once, so the ports differ; a process may still take one before the server
// binds it (Start retries then).
func freePorts(hosts []string) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for _, h := range hosts {
		l, err := net.Listen("tcp", net.JoinHostPort(h, "0"))
		if err != nil {
			return nil, fmt.Errorf("find a free port on %s: %w", h, err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitEtcd polls etcd's /health until it reports healthy, the process dies
// or the deadline passes.
func waitEtcd(p *process, url string, deadline time.Time) error {
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(url + "/health")
		if err == nil {
			var h struct{ Health string }
			_ = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if h.Health == "true" {
				return nil
			}
		}
		if p.exited() {
			return p.failure("exited before it answered /health")
		}
		if time.Now().After(deadline) {
			return p.failure(fmt.Sprintf("did not answer /health within %v", StartTimeout))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitReady polls the apiserver's /readyz as admin until it answers 200,
// the process dies or the deadline passes.
func (c *Cluster) waitReady(deadline time.Time) error {
	last := ""
	for {
		req, _ := http.NewRequest(http.MethodGet, c.URL+"/readyz", nil)
		req.Header.Set("User-Agent", HarnessUserAgent)
		resp, err := c.httpClient.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		if c.apiserver.exited() {
			return c.apiserver.failure("exited before /readyz answered ok")
		}
		if time.Now().After(deadline) {
			return c.apiserver.failure(fmt.Sprintf("not ready within %v (last /readyz: %s)", StartTimeout, last))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// initClients builds the admin rest.Config, typed and dynamic clients and
// raw HTTP client. Client-side rate limiting is raised so loading a fixture
// is bound by the server, not by client-go's default 5 requests/s.
func (c *Cluster) initClients() error {
	admin := c.pki.Clients[IdentityAdmin]
	c.adminConfig = &rest.Config{
		Host:      c.URL,
		UserAgent: HarnessUserAgent,
		QPS:       1000,
		Burst:     2000,
		Timeout:   30 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   c.CAData,
			CertData: admin.CertPEM,
			KeyData:  admin.KeyPEM,
		},
	}
	var err error
	if c.adminClient, err = kubernetes.NewForConfig(rest.CopyConfig(c.adminConfig)); err != nil {
		return err
	}
	if c.adminDynamic, err = dynamic.NewForConfig(rest.CopyConfig(c.adminConfig)); err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAData)
	cert, err := tls.X509KeyPair(admin.CertPEM, admin.KeyPEM)
	if err != nil {
		return err
	}
	c.httpClient = &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs:      pool,
			Certificates: []tls.Certificate{cert},
			MinVersion:   tls.VersionTLS12,
		}},
	}
	return nil
}

// AdminConfig returns a fresh copy of the admin identity's rest.Config
// (user agent HarnessUserAgent, rate limits raised); the caller may change it.
func (c *Cluster) AdminConfig() *rest.Config { return rest.CopyConfig(c.adminConfig) }

// AdminClient returns a typed client-go clientset acting as the admin
// identity (user agent HarnessUserAgent).
func (c *Cluster) AdminClient() kubernetes.Interface { return c.adminClient }

// AdminDynamic returns a dynamic client acting as the admin identity (user
// agent HarnessUserAgent).
func (c *Cluster) AdminDynamic() dynamic.Interface { return c.adminDynamic }

// WriteKubeconfig writes to path (0600, parent folders created) a standalone
// kubeconfig for identity (IdentityAdmin, IdentityReadOnly or
// IdentityNoAccess) that points at server — any spelling a test needs, e.g.
// "HTTPS://127.0.0.1:PORT/" or "https://localhost:PORT" — with the CA and
// the client certificate embedded, one context IDENTITY@nestor-test, and
// current-context set to it. It returns an error for an unknown identity or
// a failed write.
func (c *Cluster) WriteKubeconfig(path, identity, server string) error {
	kp, ok := c.pki.Clients[identity]
	if !ok {
		return fmt.Errorf("harness: unknown identity %q (want %q, %q or %q)", identity, IdentityAdmin, IdentityReadOnly, IdentityNoAccess)
	}
	ctx := identity + "@" + ClusterName
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ClusterName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: c.CAData}
	cfg.AuthInfos[identity] = &clientcmdapi.AuthInfo{ClientCertificateData: kp.CertPEM, ClientKeyData: kp.KeyPEM}
	cfg.Contexts[ctx] = &clientcmdapi.Context{Cluster: ClusterName, AuthInfo: identity}
	cfg.CurrentContext = ctx
	return clientcmd.WriteToFile(*cfg, path)
}

// PIDs returns the process ids of etcd and kube-apiserver (each the leader
// of its own process group), for tests that check nothing outlives Stop.
func (c *Cluster) PIDs() []int {
	var pids []int
	for _, p := range []*process{c.etcd, c.apiserver} {
		if p != nil {
			pids = append(pids, p.cmd.Process.Pid)
		}
	}
	return pids
}

// Stop ends kube-apiserver, then etcd (SIGTERM to each process group,
// SIGKILL after 5 s), waits until both are reaped, and removes Dir with
// everything in it. It may be called any number of times; later calls
// return the first call's result (an error only when Dir could not be
// removed).
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		if c.httpClient != nil {
			c.httpClient.CloseIdleConnections()
		}
		for _, p := range []*process{c.apiserver, c.etcd} {
			if p != nil {
				p.stop(5 * time.Second)
			}
		}
		if c.Dir != "" {
			if err := os.RemoveAll(c.Dir); err != nil {
				c.stopErr = fmt.Errorf("remove test cluster folder: %w", err)
			}
		}
	})
	return c.stopErr
}

// opContext returns a context bounding one harness operation to a minute.
func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 60*time.Second)
}
