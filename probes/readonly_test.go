package probes

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
	client := &http.Client{Transport: ReadOnly(http.DefaultTransport)}

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
		_, err = ReadOnly(http.DefaultTransport).RoundTrip(req)
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
