package probes

import (
	"context"
	"net"
	"sync"
	"time"
)

// connSet dials a Target's connections and keeps them, so that Target.Close
// can end them when the stack has been read. client-go keeps its
// transports in a process-wide cache and net/http keeps idle connections
// for its IdleConnTimeout (90 s, utilnet.SetTransportDefaults): without
// this, a fleet would hold every stack's connection — a socket, its TLS
// buffers, an HTTP/2 read loop — until it exits, so the open files would
// grow with the number of stacks read, not with the number read at once.
//
// It is the Target's rest.Config.Dial: client-go then builds the Target a
// transport of its own rather than one from its cache (each build wraps
// Dial in a new DialHolder, whose address is part of the cache key:
// k8s.io/client-go/rest/transport.go and transport/cache.go), and the
// copies of the Target share the clients built once (Target.clients).
type connSet struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	dialer net.Dialer
}

// newConnSet returns an empty set that dials as client-go's default
// transport does (net.Dialer with a 30 s timeout and 30 s TCP keep-alive,
// k8s.io/client-go/transport/cache.go); the request's context bounds each
// dial as well.
func newConnSet() *connSet {
	return &connSet{conns: map[net.Conn]struct{}{}, dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
}

// dial opens a connection and keeps it until it is closed; once the set is
// closed it dials nothing and returns net.ErrClosed (a dial that was under
// way then is closed as soon as it connects).
func (s *connSet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	c, err := s.dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: c, set: s}
	s.conns[tc] = struct{}{}
	return tc, nil
}

// close closes every connection of the set and refuses new ones; it
// returns how many were open. Safe to call more than once.
func (s *connSet) close() int {
	s.mu.Lock()
	conns := s.conns
	s.conns, s.closed = map[net.Conn]struct{}{}, true
	s.mu.Unlock()
	for c := range conns {
		c.(*trackedConn).Conn.Close()
	}
	return len(conns)
}

// trackedConn leaves its set when it is closed by its user.
type trackedConn struct {
	net.Conn
	set  *connSet
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.set.mu.Lock()
		delete(c.set.conns, c)
		c.set.mu.Unlock()
	})
	return c.Conn.Close()
}
