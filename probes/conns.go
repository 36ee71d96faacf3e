package probes

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/connrotation"
)

// connSet dials a Target's connections and keeps track of them (client-go's
// connrotation tracker), so that Target.Close can end them when the stack
// has been read. net/http keeps an idle connection for its IdleConnTimeout
// (90 s, utilnet.SetTransportDefaults), its read loop keeping the transport
// alive with it: without this, a fleet would hold the connection of every
// stack read so far — a socket, its TLS buffers, an HTTP/2 read loop — so
// its open files would grow with the number of stacks read, not with the
// number read at once.
//
// It is the Target's rest.Config.Dial: client-go then builds the Target a
// transport of its own rather than one from its cache (each build wraps
// Dial in a new DialHolder, whose address is part of the cache key:
// k8s.io/client-go/rest/transport.go and transport/cache.go), and the
// copies of the Target share the clients built once (Target.clients).
type connSet struct {
	closed atomic.Bool
	dialer *connrotation.Dialer
}

// newConnSet returns an empty set that dials as client-go's default
// transport does (net.Dialer with a 30 s timeout and 30 s TCP keep-alive,
// k8s.io/client-go/transport/cache.go); the request's context bounds each
// dial as well.
func newConnSet() *connSet {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return &connSet{dialer: connrotation.NewDialer(d.DialContext)}
}

// dial opens a connection and tracks it until it is closed. Once the set
// is closed it dials nothing and returns net.ErrClosed; a dial that was
// under way then is closed as soon as it connects.
func (s *connSet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	if s.closed.Load() {
		return nil, net.ErrClosed
	}
	c, err := s.dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	if s.closed.Load() {
		c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

// close closes every connection of the set and refuses new ones. Safe to
// call more than once.
func (s *connSet) close() {
	s.closed.Store(true)
	s.dialer.CloseAll()
}
