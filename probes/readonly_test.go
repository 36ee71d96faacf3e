package probes

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestReadOnlyTransport(t *testing.T) {
	var hits atomic.Int32
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		methods = append(methods, r.Method)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	client := &http.Client{Transport: pinnedTo(t, srv.URL)}

	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
		req, err := http.NewRequest(m, srv.URL+"/api/v1/nodes", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s refused: %v", m, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", m, resp.StatusCode)
		}
	}
	if hits.Load() != 3 {
		t.Fatalf("server saw %d requests, want 3", hits.Load())
	}

	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "CONNECT", "WATCH"} {
		body := &closeRecorder{Reader: strings.NewReader(`{"kind":"Namespace"}`)}
		req, err := http.NewRequest(m, srv.URL+"/api/v1/namespaces?dryRun=All", body)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pinnedTo(t, srv.URL).RoundTrip(req)
		var wr *WriteRefusedError
		if !errors.As(err, &wr) {
			t.Fatalf("%s: err = %v, want *WriteRefusedError", m, err)
		}
		if wr.Method != m || wr.Path != "/api/v1/namespaces" {
			t.Errorf("%s: refusal names %s %s", m, wr.Method, wr.Path)
		}
		if !body.closed {
			t.Errorf("%s: request body not closed", m)
		}
		if got := Classify(err); !strings.HasPrefix(got, "refused by nestor: nestor refused to send "+m) {
			t.Errorf("Classify = %q", got)
		}
	}
	if hits.Load() != 3 {
		t.Errorf("a refused request reached the server: %d requests, methods %v", hits.Load(), methods)
	}
}

// TestReadOnlyToPinsTheEndpoint: with net/http's default redirect policy
// (follow), a pinned transport still sends nothing to another host: the
// redirect answer is refused, and a request addressed elsewhere never
// leaves. The endpoint's host matches case-insensitively, default port or
// not.
func TestReadOnlyToPinsTheEndpoint(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, other.URL+"/api", http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer target.Close()
	base, _ := url.Parse(strings.ToUpper(target.URL[:4]) + target.URL[4:]) // "HTTP://127.0.0.1:PORT"
	client := &http.Client{Transport: ReadOnlyTo(base)(http.DefaultTransport)}

	resp, err := client.Get(target.URL + "/api/v1/nodes")
	if err != nil {
		t.Fatalf("GET on the endpoint: %v", err)
	}
	resp.Body.Close()

	_, err = client.Get(target.URL + "/moved")
	var rr *RedirectRefusedError
	if !errors.As(err, &rr) || rr.From != target.URL || rr.To != other.URL {
		t.Errorf("redirect: err = %v, want a RedirectRefusedError from %s to %s", err, target.URL, other.URL)
	}
	if got := Classify(err); got != "refused by nestor: the API server "+target.URL+" redirected to "+other.URL+
		": nestor does not follow redirects (they would carry its credentials to another server)" {
		t.Errorf("Classify(redirect) = %q", got)
	}

	_, err = client.Get(other.URL + "/api/v1/nodes")
	var hr *HostRefusedError
	if !errors.As(err, &hr) || hr.Host != other.URL || hr.Endpoint != target.URL || hr.Method != http.MethodGet {
		t.Errorf("other host: err = %v, want a HostRefusedError", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other host received %d requests", n)
	}
}

// TestRefuseRedirect is the http.Client guard the probes' clients carry
// behind the pinned transport.
func TestRefuseRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	}))
	defer target.Close()
	client := &http.Client{Transport: pinnedTo(t, target.URL), CheckRedirect: RefuseRedirect}
	_, err := client.Get(target.URL + "/version")
	var rr *RedirectRefusedError
	if !errors.As(err, &rr) || rr.From != target.URL || rr.To != other.URL {
		t.Errorf("err = %v, want a RedirectRefusedError from %s to %s", err, target.URL, other.URL)
	}
	if elsewhere.Load() != 0 {
		t.Error("the redirect was followed")
	}
}

func TestHostKey(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://Api.Example":            "https://api.example:443",
		"https://api.example:443/x?y=1":  "https://api.example:443",
		"http://u:secret@10.0.0.1/":      "http://10.0.0.1:80",
		"https://[FD00::1]:6443/k8s/c-1": "https://[fd00::1]:6443",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := HostKey(u); got != want {
			t.Errorf("HostKey(%s) = %q, want %q", in, got, want)
		}
	}
}

// pinnedTo is the read-only transport pinned to the test server at base.
func pinnedTo(t *testing.T, base string) http.RoundTripper {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return ReadOnlyTo(u)(http.DefaultTransport)
}
