package bench

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// LatencyProxy is a TCP proxy on loopback that makes a server look far
// away: every byte it passes, in either direction, is written out one-way
// delay after it was read (the round-trip time is twice that), in the order
// it came, as fast as loopback allows otherwise. It does not look into the
// bytes: TLS passes through untouched, so the client checks the real
// server's certificate (which must cover the proxy's address: the test
// clusters' covers 127.0.0.1, 127.0.0.2, ::1 and localhost). Each
// connection keeps the delay set when it was accepted.
//
// A kernel completes a loopback connect at once, so by default the TCP
// handshake costs nothing here, unlike on a network (one round trip before
// the client may send). SetConnectRTT(true) puts it back: the bytes a client
// sends are then delivered no sooner than 1.5 round trips after the
// connection was accepted, as they would be after a real handshake.
type LatencyProxy struct {
	// Addr is the host:port the proxy listens on.
	Addr string

	ln       net.Listener
	upstream string
	oneWay   atomic.Int64 // time.Duration
	connect  atomic.Bool
	mu       sync.Mutex
	accepts  []time.Time
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup
}

// StartLatencyProxy listens on listen (host:port, port 0 for a free one)
// and forwards every connection to upstream (host:port), delaying each
// direction by oneWay. It returns the running proxy, or the listen error.
func StartLatencyProxy(listen, upstream string, oneWay time.Duration) (*LatencyProxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	p := &LatencyProxy{Addr: ln.Addr().String(), ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.oneWay.Store(int64(oneWay))
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// SetOneWay sets the one-way delay of the connections accepted from now on.
func (p *LatencyProxy) SetOneWay(d time.Duration) { p.oneWay.Store(int64(d)) }

// SetConnectRTT sets whether connections accepted from now on pay the
// round trip of a TCP handshake (see LatencyProxy).
func (p *LatencyProxy) SetConnectRTT(on bool) { p.connect.Store(on) }

// Accepts returns the times at which the proxy accepted connections, in
// accept order, since it started or since the last ResetAccepts.
func (p *LatencyProxy) Accepts() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.accepts...)
}

// ResetAccepts forgets the accept times recorded so far.
func (p *LatencyProxy) ResetAccepts() {
	p.mu.Lock()
	p.accepts = nil
	p.mu.Unlock()
}

// Close stops listening, cuts every open connection and waits for the
// proxy's goroutines to end.
func (p *LatencyProxy) Close() error {
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *LatencyProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		at := time.Now()
		d := time.Duration(p.oneWay.Load())
		notBefore := time.Time{}
		if p.connect.Load() {
			// On a network the client sends its first byte after SYN and
			// SYN-ACK (a round trip), and it arrives d later.
			notBefore = at.Add(3 * d)
		}
		p.mu.Lock()
		p.accepts = append(p.accepts, at)
		p.mu.Unlock()
		p.wg.Add(1)
		go p.handle(c.(*net.TCPConn), d, notBefore)
	}
}

func (p *LatencyProxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	p.mu.Unlock()
}

func (p *LatencyProxy) handle(client *net.TCPConn, d time.Duration, notBefore time.Time) {
	defer p.wg.Done()
	p.track(client, true)
	defer p.track(client, false)
	defer client.Close()
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	server := up.(*net.TCPConn)
	p.track(server, true)
	defer p.track(server, false)
	defer server.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); delayCopy(server, client, d, notBefore) }()
	go func() { defer wg.Done(); delayCopy(client, server, d, time.Time{}) }()
	wg.Wait()
}

// chunk is what one read returned and when it is due at the other end; a
// nil b with err set ends the stream.
type chunk struct {
	b   []byte
	due time.Time
	err error
}

// delayCopy copies src to dst, each read written d after it was read (and
// not before notBefore), in order; src's end is passed on d later as a
// half close (after any other error, by closing both).
func delayCopy(dst, src *net.TCPConn, d time.Duration, notBefore time.Time) {
	q := make(chan chunk, 256)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			due := time.Now().Add(d)
			if due.Before(notBefore) {
				due = notBefore
			}
			if n > 0 {
				q <- chunk{b: buf[:n], due: due}
			}
			if err != nil {
				q <- chunk{due: due, err: err}
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due))
		if c.err != nil {
			if !errors.Is(c.err, io.EOF) {
				dst.Close()
				src.Close()
			} else {
				dst.CloseWrite()
			}
			continue
		}
		if _, err := dst.Write(c.b); err != nil {
			src.Close() // the reader ends; drain what it queued
		}
	}
}
