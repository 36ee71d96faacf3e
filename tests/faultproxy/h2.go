package faultproxy

import (
	"crypto/tls"
	"encoding/binary"
	"sync"
)

// The frame types h2Conn watches: DATA (RFC 9113 section 6.1) and GOAWAY
// (section 6.8).
const (
	h2FrameData   = 0x0
	h2FrameGoAway = 0x7
)

// h2Conn is a server's HTTP/2 connection that watches the frames the
// server writes (RFC 9113 section 4.1: a 9-byte header — 24-bit length,
// type, flags, stream id — then the payload; a server's side starts with a
// frame, its preface being a SETTINGS frame) and closes goaway once a
// whole GOAWAY frame has been written, so GoAway can close the connection
// right after it and not before; it counts the DATA payload written, so
// GoAway can wait for the body bytes it passed to be on the wire.
type h2Conn struct {
	*tls.Conn

	mu     sync.Mutex
	hdr    [9]byte
	hn     int // bytes of hdr read
	remain int // payload bytes of the current frame still to come
	typ    byte
	data   int // DATA payload bytes written, every stream
	once   sync.Once
	goaway chan struct{}
}

func newH2Conn(c *tls.Conn) *h2Conn { return &h2Conn{Conn: c, goaway: make(chan struct{})} }

// ConnectionState lets the HTTP/2 server check the TLS version and cipher,
// as it does for a *tls.Conn.
func (c *h2Conn) ConnectionState() tls.ConnectionState { return c.Conn.ConnectionState() }

func (c *h2Conn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.mu.Lock()
	c.scan(b[:n])
	c.mu.Unlock()
	return n, err
}

// scan follows the frame boundaries through b.
func (c *h2Conn) scan(b []byte) {
	for len(b) > 0 {
		if c.hn < len(c.hdr) {
			k := copy(c.hdr[c.hn:], b)
			c.hn += k
			b = b[k:]
			if c.hn < len(c.hdr) {
				return
			}
			c.remain = int(binary.BigEndian.Uint32(append([]byte{0}, c.hdr[:3]...)))
			c.typ = c.hdr[3]
		} else {
			k := min(c.remain, len(b))
			if c.typ == h2FrameData {
				c.data += k
			}
			c.remain -= k
			b = b[k:]
		}
		if c.hn == len(c.hdr) && c.remain == 0 {
			if c.typ == h2FrameGoAway {
				c.once.Do(func() { close(c.goaway) })
			}
			c.hn = 0
		}
	}
}

// dataWritten is how many DATA payload bytes the server has written on the
// connection so far.
func (c *h2Conn) dataWritten() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.data
}
