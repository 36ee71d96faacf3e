package probes

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestTargetCloseEndsItsConnections: a Target's connection stays open
// after its reads (net/http keeps it idle for reuse) until Close, which ends
// it on the server's side too; a read after Close dials nothing.
func TestTargetCloseEndsItsConnections(t *testing.T) {
	var mu sync.Mutex
	state := map[http.ConnState]int{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]string{"gitVersion": "v1.37.2"})
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		mu.Lock()
		state[s]++
		mu.Unlock()
	}
	srv.StartTLS()
	defer srv.Close()
	count := func(s http.ConnState) int {
		mu.Lock()
		defer mu.Unlock()
		return state[s]
	}

	tg := targetAt(t, srv.URL, 5*time.Second)
	if ver, _ := ReadNodes(context.Background(), tg); !ver.Known {
		t.Fatalf("version unknown: %s", ver.Reason)
	}
	// ReadNodes sends /version and the nodes at once: both may dial, and
	// HTTP/2 keeps one of the two connections, closing the other.
	open := func() int { return count(http.StateNew) - count(http.StateClosed) }
	deadline := time.Now().Add(5 * time.Second)
	for open() > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	opened := count(http.StateNew)
	if n := open(); n != 1 {
		t.Fatalf("after the reads: %d connections open (%d opened), want 1 (kept idle for reuse)", n, opened)
	}
	tg.Close()
	deadline = time.Now().Add(5 * time.Second)
	for count(http.StateClosed) < opened && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if closed := count(http.StateClosed); closed != opened {
		t.Fatalf("after Close the server saw %d of %d connections closed, want all", closed, opened)
	}
	if ver, _ := ReadNodes(context.Background(), tg); ver.Known {
		t.Errorf("a read after Close found the version %q, want it unknown (no connection)", ver.Value)
	}
	if n := count(http.StateNew); n != opened {
		t.Errorf("a read after Close opened %d connections, want none", n-opened)
	}
	tg.Close() // twice: nothing happens
	var none *Target
	none.Close()
}
