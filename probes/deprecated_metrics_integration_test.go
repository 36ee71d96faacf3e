package probes

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"nestor.dev/nestor/tests/harness"
)

// TestDeprecatedAPIMetricsRealServer reads a real kube-apiserver's /metrics
// after a request to a deprecated API (core v1 Endpoints, deprecated in 1.33
// with no removal planned: k8s.io/api core/v1's lifecycle), as the admin
// identity, and checks that the parser finds the series and the server's
// start. Skipped with -short.
func TestDeprecatedAPIMetricsRealServer(t *testing.T) {
	before := time.Now()
	c := harness.StartT(t, harness.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := c.AdminConfig()
	cfg.WarningHandler = rest.NoWarnings{} // the deprecation warning is expected
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Endpoints("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("listing endpoints: %v", err)
	}
	hc, err := rest.HTTPClientFor(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	start := time.Now()
	got, err := ParseDeprecatedAPIMetrics(resp.Body, 0)
	if err != nil {
		t.Fatalf("parsing the real /metrics: %v", err)
	}
	t.Logf("read %d bytes of /metrics in %v; %d deprecated API series", got.BytesRead, time.Since(start).Round(time.Millisecond), len(got.Requests))
	want := DeprecatedAPIRequest{Version: "v1", Resource: "endpoints"}
	if !got.RequestsComplete || !slices.Contains(got.Requests, want) {
		t.Errorf("requests %+v (complete %v): want %+v among them", got.Requests, got.RequestsComplete, want)
	}
	if !got.WindowKnown || got.WindowStart.Before(before.Add(-time.Second)) || got.WindowStart.After(time.Now()) {
		t.Errorf("window start %v (known %v): want the server's start, after %v", got.WindowStart, got.WindowKnown, before)
	}
	if got.Truncated {
		t.Errorf("truncated at %d bytes", got.Limit)
	}
}
