package faultproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"nestor.dev/nestor/tests/harness"
)

// One cluster for the package (the tests only read it): the bench
// fixture's two nodes, CRDs and StorageClass.
var (
	clusterOnce sync.Once
	cluster     *harness.Cluster
	clusterErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		_ = cluster.Stop()
	}
	os.Exit(code)
}

func testCluster(t *testing.T) *harness.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real kube-apiserver + etcd; skipped in -short mode")
	}
	clusterOnce.Do(func() {
		cluster, clusterErr = harness.Start(harness.Options{})
		if clusterErr == nil {
			clusterErr = cluster.LoadFixture(filepath.Join("..", "testdata", "clusters", "bench-two-nodes.yaml"))
		}
	})
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	return cluster
}

// proxyFor starts a proxy in front of the test cluster reading as its
// read-only user.
func proxyFor(t *testing.T) *Proxy {
	t.Helper()
	o, err := ForCluster(testCluster(t), harness.UserReadOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	return StartT(t, o)
}

// client is an HTTP client of the proxy that trusts its CA, HTTP/2 unless
// h1, and does not follow redirects.
func client(p *Proxy, h1 bool) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CAData)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: !h1, TLSHandshakeTimeout: 2 * time.Second}
	if h1 {
		tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// get sends GET path (a Table request when table) within d and returns the
// answer with its body read, or the error of the request or of the read.
func get(t *testing.T, c *http.Client, p *Proxy, path string, table bool, d time.Duration) (*http.Response, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path, nil)
	req.Header.Set("User-Agent", "faultproxy-test")
	if table {
		req.Header.Set("Accept", tableAccept)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

var nodes = Route{Path: PathNodes}

// Untouched, the proxy is the cluster: client-go through a kubeconfig
// written by WriteKubeconfig lists the fixture's nodes over HTTP/2, as the
// proxy's identity (the audit log's user), with the client's user agent.
func TestPassThroughKubeconfigHTTP2(t *testing.T) {
	c := testCluster(t)
	p := proxyFor(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := p.WriteKubeconfig(kc); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = "faultproxy-test/kubeconfig"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].Name != "lima-node1" {
		t.Fatalf("nodes through the proxy: %d, want lima-node1 and lima-node2", len(list.Items))
	}
	log := p.Log()
	var seen bool
	for _, r := range log {
		if r.Path == PathNodes {
			seen = true
			if r.Proto != "HTTP/2.0" || r.Fault != "" || r.UserAgent != cfg.UserAgent {
				t.Errorf("logged %+v, want HTTP/2.0, no fault, the client's user agent", r)
			}
		}
	}
	if !seen {
		t.Fatalf("the nodes list is not in the proxy's log:\n%s", p.LogText())
	}
	ev, err := c.AuditEvents("faultproxy-test/kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) == 0 || ev[len(ev)-1].User != harness.UserReadOnly {
		t.Errorf("audit events %v, want the list made as %s", ev, harness.UserReadOnly)
	}
}

// HTTP/1.1 clients are served too.
func TestPassThroughHTTP1(t *testing.T) {
	p := proxyFor(t)
	resp, body, err := get(t, client(p, true), p, PathVersion, false, 10*time.Second)
	if err != nil || resp.StatusCode != 200 || resp.Proto != "HTTP/1.1" || !strings.Contains(string(body), harness.K8sVersion) {
		t.Fatalf("GET /version over HTTP/1.1: %v %v %s", err, resp, body)
	}
}

// Status answers the API server's Status, with Retry-After; Times limits
// a fault to the first requests.
func TestStatusRetryAfterAndTimes(t *testing.T) {
	p := proxyFor(t)
	c := client(p, false)
	p.Set(nodes, Status(503, 2*time.Second).Times(1))
	resp, body, err := get(t, c, p, PathNodes, false, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || st.Kind != "Status" || st.Reason != metav1.StatusReasonServiceUnavailable ||
		st.Code != 503 || st.Details == nil || st.Details.RetryAfterSeconds != 2 {
		t.Errorf("answer %d %v %+v, want 503 Retry-After 2 ServiceUnavailable", resp.StatusCode, resp.Header, st)
	}
	resp, _, err = get(t, c, p, PathNodes, false, 10*time.Second)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("second request: %v %v, want the real 200 (Times(1))", err, resp)
	}

	p.Set(Route{Path: PathCRDs}, Status(403, 0))
	_, body, _ = get(t, c, p, PathCRDs, false, 10*time.Second)
	err = apierrors.FromObject(mustStatus(t, body))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "`+harness.UserReadOnly+`" cannot list resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope`) {
		t.Errorf("403: %v", err)
	}
}

func mustStatus(t *testing.T, body []byte) *metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return &st
}

// Hang holds the request: the client's deadline ends it; Await sees it.
func TestHangAndAwait(t *testing.T) {
	p := proxyFor(t)
	p.Set(nodes, Hang())
	errc := make(chan error, 1)
	go func() {
		_, _, err := get(t, client(p, false), p, PathNodes, false, 500*time.Millisecond)
		errc <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Await(ctx, nodes.Match, 1); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("held request ended with %v, want the client's deadline", err)
	}
	if l := p.Log(); l[len(l)-1].Fault != "hang" {
		t.Errorf("log %v", l)
	}
}

// Cut sends After bytes then resets the stream; Stall holds after them;
// Drip sends a byte per pause.
func TestBodyFaults(t *testing.T) {
	p := proxyFor(t)
	c := client(p, false)
	for _, h1 := range []bool{false, true} {
		p.Set(nodes, Cut(100))
		_, body, err := get(t, client(p, h1), p, PathNodes, false, 10*time.Second)
		if err == nil || len(body) != 100 {
			t.Errorf("cut (http/1.1 %v): %d bytes, err %v, want 100 bytes then an error", h1, len(body), err)
		}
	}
	p.Set(nodes, Stall(50))
	_, body, err := get(t, c, p, PathNodes, false, time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || len(body) != 50 {
		t.Errorf("stall: %d bytes, err %v, want 50 then the deadline", len(body), err)
	}
	p.Set(nodes, Drip(20*time.Millisecond))
	start := time.Now()
	_, body, err = get(t, c, p, PathNodes, false, 500*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || len(body) == 0 || len(body) > 25 {
		t.Errorf("drip: %d bytes in %v, err %v: want a few bytes, then the deadline", len(body), time.Since(start), err)
	}
}

// Corrupt bodies: no JSON, no protobuf.
func TestCorrupt(t *testing.T) {
	p := proxyFor(t)
	c := client(p, false)
	p.Set(nodes, InvalidJSON())
	resp, body, err := get(t, c, p, PathNodes, true, 10*time.Second)
	if err != nil || resp.StatusCode != 200 || json.Valid(body) || !strings.HasPrefix(string(body), `{"kind":"Table"`) {
		t.Errorf("invalid JSON: %v %d %q", err, resp.StatusCode, body)
	}
	p.Set(nodes, InvalidProtobuf())
	resp, body, err = get(t, c, p, PathNodes, true, 10*time.Second)
	if err != nil || resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" || !strings.HasPrefix(string(body), "k8s\x00") {
		t.Errorf("invalid protobuf: %v %v %q", err, resp.Header, body)
	}
}

// tablePage is what the pagination tests read of a Table page.
type tablePage struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Rows []struct {
		Cells []any `json:"cells"`
	} `json:"rows"`
}

// walk follows continue tokens from the first page, at most max pages, and
// returns every row's name and the tokens seen.
func walk(t *testing.T, p *Proxy, max int) (names, tokens []string) {
	t.Helper()
	c := client(p, false)
	q := url.Values{"limit": {"500"}, "includeObject": {"None"}}
	for i := 0; i < max; i++ {
		_, body, err := get(t, c, p, PathNodes+"?"+q.Encode(), true, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var page tablePage
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		for _, r := range page.Rows {
			names = append(names, r.Cells[0].(string))
		}
		if page.Metadata.Continue == "" {
			return names, tokens
		}
		tokens = append(tokens, page.Metadata.Continue)
		q.Set("continue", page.Metadata.Continue)
	}
	return names, tokens
}

func TestPagination(t *testing.T) {
	p := proxyFor(t)
	p.Set(nodes, RepeatItems())
	names, tokens := walk(t, p, 10)
	if fmt.Sprint(names) != "[lima-node1 lima-node2 lima-node1 lima-node2]" || len(tokens) != 1 {
		t.Errorf("repeat items: %v tokens %v, want the two nodes twice under one made-up token", names, tokens)
	}
	p.Set(nodes, RepeatToken())
	names, tokens = walk(t, p, 3)
	if len(names) != 6 || len(tokens) != 3 || tokens[0] != tokens[2] {
		t.Errorf("repeat token: %v tokens %v, want the same page and token each time", names, tokens)
	}
	p.Set(nodes, EndlessPages())
	names, tokens = walk(t, p, 5)
	if len(names) != 10 || names[9] != "lima-node2-p5" || len(tokens) != 5 || tokens[3] == tokens[4] {
		t.Errorf("endless: %v tokens %v, want new names and a new token on every page", names, tokens)
	}
}

// HugeTable: one page of N rows, the server's columns, unique names.
func TestHugeTable(t *testing.T) {
	p := proxyFor(t)
	c := client(p, false)
	_, real, err := get(t, c, p, PathNodes+"?limit=1&includeObject=None", true, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.Set(nodes, HugeTable(5000))
	_, body, err := get(t, c, p, PathNodes+"?limit=500&includeObject=None", true, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var huge, want struct {
		ColumnDefinitions json.RawMessage `json:"columnDefinitions"`
		tablePage
	}
	if err := json.Unmarshal(body, &huge); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(real, &want)
	if len(huge.Rows) != 5000 || huge.Metadata.Continue != "" || huge.Rows[4999].Cells[0] != "huge-0004999" || huge.Rows[4999].Cells[5] != "10.0.19.135" {
		t.Errorf("huge table: %d rows, continue %q, last %v", len(huge.Rows), huge.Metadata.Continue, huge.Rows[len(huge.Rows)-1].Cells)
	}
	if string(huge.ColumnDefinitions) != string(want.ColumnDefinitions) {
		t.Errorf("columns differ from the server's:\n%s\n%s", huge.ColumnDefinitions, want.ColumnDefinitions)
	}
}

// Redirect: 302 to the redirect listener, which logs what reaches it.
func TestRedirect(t *testing.T) {
	p := proxyFor(t)
	p.Set(Route{Path: PathVersion}, Redirect("").Times(1))
	resp, _, err := get(t, client(p, false), p, PathVersion, false, 10*time.Second)
	if err != nil || resp.StatusCode != 302 || resp.Header.Get("Location") != p.RedirectURL+PathVersion {
		t.Fatalf("redirect: %v %v", err, resp)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CAData)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	r2, err := hc.Get(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	l := p.Log()
	if last := l[len(l)-1]; last.Host != strings.TrimPrefix(p.RedirectURL, "https://") {
		t.Errorf("followed request logged with host %q, want the redirect listener's", last.Host)
	}
}

// GoAway: the client sees the server's GOAWAY and the closed connection;
// Kill: the proxy refuses connections until revived.
func TestGoAwayAndKill(t *testing.T) {
	p := proxyFor(t)
	c := client(p, false)
	p.Set(nodes, GoAway(64))
	_, body, err := get(t, c, p, PathNodes, false, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "GOAWAY") || len(body) != 64 {
		t.Errorf("goaway: %d bytes, err %v, want 64 then the GOAWAY error", len(body), err)
	}
	p.Set(nodes, Kill(64))
	_, _, err = get(t, c, p, PathNodes, false, 10*time.Second)
	if err == nil {
		t.Errorf("kill: no error")
	}
	_, _, err = get(t, client(p, false), p, PathVersion, false, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("after kill: %v, want connection refused", err)
	}
	if err := p.ClearAll(); err != nil {
		t.Fatal(err)
	}
	if resp, _, err := get(t, client(p, false), p, PathVersion, false, 10*time.Second); err != nil || resp.StatusCode != 200 {
		t.Errorf("revived: %v %v", err, resp)
	}
}

// Connection faults.
func TestConnFaults(t *testing.T) {
	p := proxyFor(t)
	for _, tc := range []struct {
		f    ConnFault
		want string
	}{
		{ConnRefuse, "connection refused"},
		{ConnSilent, "TLS handshake timeout"},
		{ConnStallHandshake, "TLS handshake timeout"},
		{ConnSilentAfterHandshake, "context deadline exceeded"},
	} {
		if err := p.SetConn(tc.f); err != nil {
			t.Fatal(err)
		}
		_, _, err := get(t, client(p, false), p, PathVersion, false, 3*time.Second)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.f, err, tc.want)
		}
	}
	if err := p.SetConn(ConnNormal); err != nil {
		t.Fatal(err)
	}
	if _, _, err := get(t, client(p, false), p, PathVersion, false, 10*time.Second); err != nil {
		t.Errorf("normal again: %v", err)
	}
	if n := p.Count(func(r Request) bool { return r.Fault == "conn: silent" }); n != 1 {
		t.Errorf("%d silent connections logged, want 1:\n%s", n, p.LogText())
	}
}
