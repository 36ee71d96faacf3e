package probes

import (
	"io"
	"net/http"
	"sync"
)

// MaxInFlightPerHost bounds the requests nestor has in flight to one host
// (scheme://host:port), across the process: a fleet's stacks on one API
// server take turns beyond it, so that nestor never asks more of a server
// at once than one connection may carry by the server's default
// (SETTINGS_MAX_CONCURRENT_STREAMS, RFC 9113 section 6.5.2; kube-apiserver's
// default is 100 per connection, k8s.io/apiserver pkg/server/secure_serving.go).
// The value was measured with tests/bench/net.sh (32 stacks on 4 API
// servers) when the stacks of one server shared client-go's cached
// transport, and so their HTTP/2 connections: beyond a connection's
// streams Go's client dials another, a TLS handshake the server pays for
// each; 100 opened 22–38 connections per fleet, 90 opened 111–191, and no
// bound 751–1,614 (BENCHMARKS.md, "fleet over the network"). Each stack now
// reads through a connection of its own (Target.Close's connection set), so
// the bound no longer saves a dial; it still bounds the server's load from
// one nestor, and has not been measured again since. A preview of the
// benchmarks' fixture has ~70 requests in flight at most (its first wave,
// the workload lists, the upgrade reads), so it does not wait for a slot.
const MaxInFlightPerHost = 100

// hostSlots holds a semaphore per host key (HostKey): a request holds a
// slot from before it is sent until its body is read to its end or closed.
var hostSlots sync.Map // string → chan struct{}

func slotsOf(host string) chan struct{} {
	if s, ok := hostSlots.Load(host); ok {
		return s.(chan struct{})
	}
	s, _ := hostSlots.LoadOrStore(host, make(chan struct{}, MaxInFlightPerHost))
	return s.(chan struct{})
}

// acquireSlot waits for a slot of host, or for req's context to end (its
// error). It returns the slot's release, which may be called more than once.
func acquireSlot(req *http.Request, host string) (func(), error) {
	s := slotsOf(host)
	if err := acquire(req.Context(), s); err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { <-s }), nil
}

// slotBody is a response body that releases its request's slot at its end
// (EOF or a read error) or when closed, whichever comes first.
type slotBody struct {
	io.ReadCloser
	release func()
}

func (b *slotBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *slotBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
