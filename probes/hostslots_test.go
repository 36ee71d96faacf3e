package probes

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// The requests to one host in flight at once are at most
// MaxInFlightPerHost across every client of the process; a slot is held
// until the body is read to its end or closed, and a request whose context
// ends while it waits gets the context's error without being sent.
func TestHostSlots(t *testing.T) {
	var inFlight, peak, served atomic.Int32
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		served.Add(1)
		if r.URL.Path == "/block" {
			<-gate
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	// Two clients of their own, as two stacks of a fleet on one server.
	newClient := func() *http.Client {
		tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 200}
		return &http.Client{Transport: ReadOnlyTo(u)(tr)}
	}
	a, b := newClient(), newClient()

	bodies := make(chan io.ReadCloser, MaxInFlightPerHost+1)
	errs := make(chan error, MaxInFlightPerHost+1)
	for i := 0; i < MaxInFlightPerHost+1; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		go func() {
			resp, err := c.Get(srv.URL + "/block")
			if err != nil {
				errs <- err
				return
			}
			bodies <- resp.Body
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for inFlight.Load() < MaxInFlightPerHost && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the extra request, if it were sent, would be in by now
	if got := inFlight.Load(); got != MaxInFlightPerHost {
		t.Fatalf("%d requests in flight, want %d (the bound)", got, MaxInFlightPerHost)
	}

	// A request whose context ends while it waits is never sent.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/quick", nil)
	before := served.Load()
	if _, err := a.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting request: %v, want the context's deadline", err)
	}
	if served.Load() != before {
		t.Errorf("the waiting request was sent")
	}

	// Answers released: the waiting request goes; bodies read to their end
	// free their slots without Close.
	close(gate)
	for i := 0; i < MaxInFlightPerHost+1; i++ {
		select {
		case body := <-bodies:
			if _, err := io.ReadAll(body); err != nil {
				t.Fatal(err)
			}
		case err := <-errs:
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatalf("request %d never answered: a slot was not released", i)
		}
	}
	if p := peak.Load(); p > MaxInFlightPerHost {
		t.Errorf("peak %d in flight, above the bound %d", p, MaxInFlightPerHost)
	}
	// Every slot is free again.
	if got := len(slotsOf(HostKey(u))); got != 0 {
		t.Errorf("%d slots still held after every body was read", got)
	}

	// An answer without a body (HEAD) frees its slot at once, read or not.
	for i := 0; i < MaxInFlightPerHost+10; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodHead, srv.URL+"/quick", nil)
		_, err := a.Do(req) // the body is left unread and open
		cancel()
		if err != nil {
			t.Fatalf("HEAD %d: %v (a bodiless answer kept its slot)", i, err)
		}
	}
	if got := len(slotsOf(HostKey(u))); got != 0 {
		t.Errorf("%d slots still held after the HEAD requests", got)
	}
}
