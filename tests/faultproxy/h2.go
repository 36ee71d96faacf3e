package faultproxy

import (
	"crypto/tls"
	"encoding/binary"
	"sync"
)

// The frame types and flag h2Conn watches (RFC 9113 section 6): DATA,
// HEADERS, RST_STREAM, GOAWAY, and END_STREAM on DATA and HEADERS.
const (
	h2FrameData      = 0x0
	h2FrameHeaders   = 0x1
	h2FrameRSTStream = 0x3
	h2FrameGoAway    = 0x7
	h2FlagEndStream  = 0x1
)

// h2ClientPreface is what a client writes before its first frame (RFC 9113
// section 3.4).
const h2ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// h2Conn is a server's HTTP/2 connection that follows the frames on it
// (RFC 9113 section 4.1: a 9-byte header — 24-bit length, type, flags,
// stream id — then the payload) in both directions: it closes goaway once
// the server has written a whole GOAWAY frame, and it knows which streams
// the client opened (its HEADERS) that the server has not ended yet
// (END_STREAM on the server's HEADERS or DATA, or a RST_STREAM either way)
// and how many DATA bytes the server wrote on each. GoAway uses them to
// close the connection under its own stream alone, after the bytes it let
// through are on the wire.
type h2Conn struct {
	*tls.Conn

	mu      sync.Mutex
	in, out frameScanner
	open    map[uint32]int // stream → DATA bytes the server wrote on it
	once    sync.Once
	goaway  chan struct{}
}

func newH2Conn(c *tls.Conn) *h2Conn {
	return &h2Conn{Conn: c, goaway: make(chan struct{}), open: map[uint32]int{},
		in: frameScanner{skip: len(h2ClientPreface)}}
}

// ConnectionState lets the HTTP/2 server check the TLS version and cipher,
// as it does for a *tls.Conn.
func (c *h2Conn) ConnectionState() tls.ConnectionState { return c.Conn.ConnectionState() }

func (c *h2Conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.in.scan(b[:n], nil, func(f frame) {
		switch {
		case f.typ == h2FrameHeaders:
			if _, ok := c.open[f.stream]; !ok {
				c.open[f.stream] = 0
			}
		case f.typ == h2FrameRSTStream:
			delete(c.open, f.stream)
		}
	})
	c.mu.Unlock()
	return n, err
}

func (c *h2Conn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.mu.Lock()
	c.out.scan(b[:n], func(f frame, k int) {
		if f.typ == h2FrameData {
			if sent, ok := c.open[f.stream]; ok {
				c.open[f.stream] = sent + k
			}
		}
	}, func(f frame) {
		switch {
		case f.typ == h2FrameGoAway:
			c.once.Do(func() { close(c.goaway) })
		case f.typ == h2FrameRSTStream,
			(f.typ == h2FrameData || f.typ == h2FrameHeaders) && f.flags&h2FlagEndStream != 0:
			delete(c.open, f.stream)
		}
	})
	c.mu.Unlock()
	return n, err
}

// alone reports whether at most one stream the client opened is still not
// ended by the server, and, when one is, whether the server has written at
// least sent DATA bytes on it: then closing the connection ends that
// stream only, after those bytes.
func (c *h2Conn) alone(sent int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.open) > 1 {
		return false
	}
	for _, n := range c.open {
		return n >= sent
	}
	return true
}

// frame is a frame's header.
type frame struct {
	typ, flags byte
	stream     uint32
}

// frameScanner follows the frame boundaries of one direction of a
// connection, after skip bytes that are no frame (the client's preface).
type frameScanner struct {
	skip   int
	hdr    [9]byte
	hn     int // bytes of hdr read
	remain int // payload bytes of the current frame still to come
	cur    frame
}

// scan follows b: payload gets each run of payload bytes of the current
// frame (nil: not wanted), done each frame once whole.
func (s *frameScanner) scan(b []byte, payload func(frame, int), done func(frame)) {
	for len(b) > 0 {
		if s.skip > 0 {
			k := min(s.skip, len(b))
			s.skip -= k
			b = b[k:]
			continue
		}
		if s.hn < len(s.hdr) {
			k := copy(s.hdr[s.hn:], b)
			s.hn += k
			b = b[k:]
			if s.hn < len(s.hdr) {
				return
			}
			s.remain = int(binary.BigEndian.Uint32(append([]byte{0}, s.hdr[:3]...)))
			s.cur = frame{typ: s.hdr[3], flags: s.hdr[4], stream: binary.BigEndian.Uint32(s.hdr[5:9]) & 0x7fffffff}
		} else {
			k := min(s.remain, len(b))
			if payload != nil {
				payload(s.cur, k)
			}
			s.remain -= k
			b = b[k:]
		}
		if s.hn == len(s.hdr) && s.remain == 0 {
			done(s.cur)
			s.hn = 0
		}
	}
}
