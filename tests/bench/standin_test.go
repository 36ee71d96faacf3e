package bench

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nestor.dev/nestor/tests/harness"
)

func TestRequestKey(t *testing.T) {
	mk := func(target, accept string) string {
		r, err := http.NewRequest(http.MethodGet, "https://x"+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		return RequestKey(r)
	}
	table := "application/json;as=Table;v=v1;g=meta.k8s.io"
	if a, b := mk("/api/v1/nodes?limit=500&includeObject=None", table), mk("/api/v1/nodes?includeObject=None&limit=500", table); a != b {
		t.Errorf("the order of query parameters changed the key: %q vs %q", a, b)
	}
	for _, other := range []string{
		mk("/api/v1/nodes?includeObject=None&limit=500&continue=abc", table),
		mk("/api/v1/nodes?includeObject=None&limit=500", "application/json"),
		mk("/api/v1/nodes?includeObject=None&limit=499", table),
		mk("/api/v1/namespaces?includeObject=None&limit=500", table),
	} {
		if other == mk("/api/v1/nodes?includeObject=None&limit=500", table) {
			t.Errorf("%q has the key of a different request", other)
		}
	}
}

// readOnlyClient returns an HTTP client with c's read-only identity that
// trusts c's CA, as a kubeconfig of c would make.
func readOnlyClient(t *testing.T, c *harness.Cluster, withCert bool) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAData)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withCert {
		up, err := UpstreamFor(c)
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.X509KeyPair(up.ClientCert, up.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}}
}

// page is one page of a paginated namespace list as a client sees it.
type page struct {
	status int
	proto  string
	body   string
	names  []string
	cont   string
}

// listNamespaces reads every page of GET /api/v1/namespaces?limit=limit
// from base with client, following continue.
func listNamespaces(t *testing.T, client *http.Client, base string, limit int) []page {
	t.Helper()
	var pages []page
	cont := ""
	for i := 0; i < 50; i++ {
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/namespaces?"+q.Encode(), nil)
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		p := page{status: resp.StatusCode, proto: resp.Proto, body: string(body)}
		if resp.StatusCode != 200 {
			return append(pages, p)
		}
		var l corev1.NamespaceList
		if err := json.Unmarshal(body, &l); err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		for _, n := range l.Items {
			p.names = append(p.names, n.Name)
		}
		p.cont = l.Continue
		pages = append(pages, p)
		if l.Continue == "" {
			return pages
		}
		cont = l.Continue
	}
	t.Fatal("more than 50 pages")
	return nil
}

// TestStandInRecordsAndReplays records a paginated list (37 namespaces in
// pages of 10) through a recording stand-in in front of a real API server,
// then replays it from a replay-only stand-in and checks: the same pages,
// byte for byte, over HTTP/2, the continue tokens chaining as they did; a
// request the recording lacks answered 404 with a Status and counted; a
// client without a certificate refused; the cluster's own CA verifying the
// stand-in. Skipped in -short.
func TestStandInRecordsAndReplays(t *testing.T) {
	c := harness.StartT(t, harness.Options{})
	ctx := context.Background()
	for i := 0; i < 33; i++ { // plus default, kube-system, kube-public, kube-node-lease
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("tenant-%02d", i)}}
		if _, err := c.AdminClient().CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	certs, err := ClusterCerts(c)
	if err != nil {
		t.Fatal(err)
	}
	up, err := UpstreamFor(c)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecording()
	recorder, err := StartStandIn("127.0.0.1:0", certs, rec, up)
	if err != nil {
		t.Fatal(err)
	}
	defer recorder.Close()
	client := readOnlyClient(t, c, true)
	recorded := listNamespaces(t, client, recorder.URL, 10)
	if len(recorded) != 4 || recorded[0].status != 200 {
		t.Fatalf("recorded %d pages (first status %d), want 4 pages of 37 namespaces", len(recorded), recorded[0].status)
	}
	if int(recorder.Forwarded()) != 4 || rec.Len() != 4 {
		t.Fatalf("forwarded %d, recorded %d answers, want 4 and 4", recorder.Forwarded(), rec.Len())
	}

	standin, err := StartStandIn("127.0.0.2:0", certs, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer standin.Close()
	replayed := listNamespaces(t, client, standin.URL, 10)
	if len(replayed) != len(recorded) {
		t.Fatalf("replayed %d pages, recorded %d", len(replayed), len(recorded))
	}
	seen := map[string]bool{}
	for i := range replayed {
		r, w := replayed[i], recorded[i]
		if r.status != 200 || r.body != w.body || r.cont != w.cont {
			t.Errorf("page %d: replayed status %d, %d bytes, continue %q; recorded %d bytes, continue %q", i+1, r.status, len(r.body), r.cont, len(w.body), w.cont)
		}
		if r.proto != "HTTP/2.0" {
			t.Errorf("page %d came over %s, want HTTP/2.0", i+1, r.proto)
		}
		for _, n := range r.names {
			seen[n] = true
		}
	}
	if len(seen) != 37 {
		t.Errorf("the replayed pages hold %d distinct namespaces, want 37", len(seen))
	}
	if n, _ := standin.Misses(); n != 0 || standin.Served() != 4 {
		t.Errorf("served %d, missed %d, want 4 and 0", standin.Served(), n)
	}

	miss := listNamespaces(t, client, standin.URL, 11)
	if len(miss) != 1 || miss[0].status != http.StatusNotFound || !strings.Contains(miss[0].body, `"kind":"Status"`) || !strings.Contains(miss[0].body, "limit=11") {
		t.Errorf("a request not recorded: got %d pages, first %d %s; want one 404 Status naming it", len(miss), miss[0].status, miss[0].body)
	}
	recorder.Freeze()
	if again := listNamespaces(t, client, recorder.URL, 12); again[0].status != http.StatusNotFound || recorder.Forwarded() != 4 {
		t.Errorf("a frozen recorder answered %d and has forwarded %d, want 404 and still 4", again[0].status, recorder.Forwarded())
	}
	for _, s := range []*StandIn{standin, recorder} {
		if n, keys := s.Misses(); n != 1 || len(keys) != 1 {
			t.Errorf("%s: Misses() = %d %q, want 1", s.URL, n, keys)
		}
	}

	if _, err := readOnlyClient(t, c, false).Get(standin.URL + "/version"); err == nil {
		t.Errorf("a client without a certificate was answered")
	}
}
