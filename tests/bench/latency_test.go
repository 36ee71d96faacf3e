package bench

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"
)

// echoServer accepts connections on loopback and writes back what it
// reads until the client's end, then closes.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func startProxy(t *testing.T, upstream string, d time.Duration) *LatencyProxy {
	t.Helper()
	p, err := StartLatencyProxy("127.0.0.1:0", upstream, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestLatencyProxyPassesBytesInOrder sends 2 MiB of random bytes in writes
// of random sizes through the proxy to an echo server and checks that the
// same bytes come back in the same order, and that the client's half close
// reaches the server (the echo ends, the client reads EOF).
func TestLatencyProxyPassesBytesInOrder(t *testing.T) {
	p := startProxy(t, echoServer(t), 2*time.Millisecond)
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := make([]byte, 2<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(r.Uint32())
	}
	go func() {
		for rest := want; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(70000))
			if _, err := c.Write(rest[:n]); err != nil {
				return
			}
			rest = rest[n:]
		}
		c.(*net.TCPConn).CloseWrite()
	}()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read back: %v (after %d bytes)", err, len(got))
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("got %d bytes back, want %d; first difference at byte %d", len(got), len(want), i)
	}
	if n := len(p.Accepts()); n != 1 {
		t.Errorf("Accepts() has %d entries, want 1", n)
	}
}

// roundTrip sends one byte through a new connection to p and returns how
// long until the echo came back.
func roundTrip(t *testing.T, p *LatencyProxy) time.Duration {
	t.Helper()
	start := time.Now()
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte{42}); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// TestLatencyProxyDelays checks that no byte comes back sooner than the
// delays allow: a round trip at one-way d takes at least 2d, and with the
// TCP handshake paid at least 4d (a loaded machine can only make them
// longer, so these lower bounds cannot flake). A delay set later applies to
// new connections only.
func TestLatencyProxyDelays(t *testing.T) {
	const d = 40 * time.Millisecond
	p := startProxy(t, echoServer(t), d)
	if rt := roundTrip(t, p); rt < 2*d {
		t.Errorf("round trip at one-way %v took %v, want at least %v", d, rt, 2*d)
	}
	p.SetConnectRTT(true)
	if rt := roundTrip(t, p); rt < 4*d {
		t.Errorf("round trip at one-way %v with the handshake paid took %v, want at least %v", d, rt, 4*d)
	}
	p.SetConnectRTT(false)
	p.SetOneWay(3 * d)
	if rt := roundTrip(t, p); rt < 6*d {
		t.Errorf("round trip after SetOneWay(%v) took %v, want at least %v", 3*d, rt, 6*d)
	}
	if n := len(p.Accepts()); n != 3 {
		t.Errorf("Accepts() has %d entries, want 3", n)
	}
	p.ResetAccepts()
	if n := len(p.Accepts()); n != 0 {
		t.Errorf("after ResetAccepts, Accepts() has %d entries", n)
	}
}
