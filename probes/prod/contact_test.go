package prod

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/internal/probetest"
	"nestor.dev/nestor/topology"
)

// In a terminal, a kubeconfig whose server is not the stack's endpoint: is
// shown and asked about before any request: nothing reaches that server
// until Contact says yes (No is ErrNotConfirmed; no Contact refuses it as
// the offline check does).
func TestGuardAsksBeforeContactingAnotherServer(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	kc := probetest.WriteFile(t, filepath.Join(dir, "other.config"),
		probetest.KubeconfigText("c", map[string]string{"c": srv.URL}, map[string][2]string{"c": {"c", "u"}}))
	tp := &topology.Topology{Name: "p", Path: filepath.Join(dir, "p.yaml"), TargetKind: topology.TargetProd, Endpoint: "https://10.0.0.1:6443"}
	open := func(contact func(probes.GuardView) (bool, error), shown *bool) error {
		_, err := probes.Open(context.Background(), Kind{}, tp, probes.OpenOptions{KubeconfigFlag: kc, Interactive: true, Timeout: 2e9,
			Show: func(v probes.GuardView) {
				if v.Check.Matches || v.Check.Declared != tp.Endpoint {
					t.Errorf("shown check %+v", v.Check)
				}
				*shown = true
			},
			Contact: contact,
			Confirm: func(probes.GuardView) (bool, error) { return false, nil }})
		return err
	}

	var shown bool
	err := open(func(v probes.GuardView) (bool, error) {
		if !shown || requests.Load() != 0 {
			t.Errorf("asked after %d requests (shown %v)", requests.Load(), shown)
		}
		return false, nil
	}, &shown)
	if !errors.Is(err, probes.ErrNotConfirmed) || requests.Load() != 0 {
		t.Fatalf("no: err %v, %d requests", err, requests.Load())
	}

	shown = false
	var mismatch *probes.EndpointMismatchError
	if err := open(nil, &shown); !errors.As(err, &mismatch) || requests.Load() != 0 {
		t.Fatalf("no Contact: err %v, %d requests", err, requests.Load())
	}

	shown = false
	_ = open(func(probes.GuardView) (bool, error) { return true, nil }, &shown)
	if requests.Load() == 0 {
		t.Fatal("yes: nothing was read")
	}
}
