package faultproxy

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Kind names what a Fault does to the requests it matches.
type Kind string

// The route faults. Each is made by the constructor of the same name, which
// says what the client sees.
const (
	KindStatus          Kind = "status"
	KindHang            Kind = "hang"
	KindDrip            Kind = "drip"
	KindCut             Kind = "cut"
	KindStall           Kind = "stall"
	KindInvalidJSON     Kind = "invalid-json"
	KindInvalidProtobuf Kind = "invalid-protobuf"
	KindRepeatToken     Kind = "repeat-token"
	KindRepeatItems     Kind = "repeat-items"
	KindHugeTable       Kind = "huge-table"
	KindEndlessPages    Kind = "endless-pages"
	KindRedirect        Kind = "redirect"
	KindGoAway          Kind = "goaway"
	KindKill            Kind = "kill"
)

// Fault is what the proxy does to a request instead of, or on top of,
// forwarding it. Make one with a constructor (Status, Hang, Drip…); Times
// limits it to the first matching requests.
type Fault struct {
	Kind Kind
	// Code, RetryAfter and Message are KindStatus's answer.
	Code       int
	RetryAfter time.Duration
	Message    string
	// After is how many bytes of the real body are sent before KindCut,
	// KindStall, KindGoAway and KindKill act (-1: half of the body).
	After int
	// Every is KindDrip's pause before each byte.
	Every time.Duration
	// Rows is KindHugeTable's row count.
	Rows int
	// Location is KindRedirect's target ("" : the proxy's redirect
	// listener on 127.0.0.2, same path and query).
	Location string
	// N, when above 0, applies the fault to the first N matching requests
	// only (a page sequence's follow-up requests do not count); later ones
	// are forwarded untouched.
	N int
}

// Times returns f limited to the first n matching requests.
func (f Fault) Times(n int) Fault { f.N = n; return f }

// String names the fault as the request log shows it ("status 503
// retry-after 1s", "cut after 100 bytes").
func (f Fault) String() string {
	switch f.Kind {
	case KindStatus:
		s := fmt.Sprintf("status %d", f.Code)
		if f.RetryAfter > 0 {
			s += fmt.Sprintf(" retry-after %v", f.RetryAfter)
		}
		return s
	case KindDrip:
		return fmt.Sprintf("drip a byte every %v", f.Every)
	case KindCut, KindStall, KindGoAway, KindKill:
		if f.After < 0 {
			return string(f.Kind) + " after half the body"
		}
		return fmt.Sprintf("%s after %d bytes", f.Kind, f.After)
	case KindHugeTable:
		return fmt.Sprintf("huge table of %d rows", f.Rows)
	}
	return string(f.Kind)
}

// Status answers code with a metav1.Status body shaped like the API
// server's (kind Status, status Failure, the reason of the code, a message
// like the server's own: for 403 the RBAC refusal naming the proxy's
// upstream user, verb list and the path's resource) and, when retryAfter is
// above 0, a Retry-After header in whole seconds (at least 1) with
// details.retryAfterSeconds, as the server's max-in-flight and
// priority-and-fairness filters answer 429. client-go retries an answer
// with Retry-After (429, or 5xx) up to 10 times, sleeping that long.
func Status(code int, retryAfter time.Duration) Fault {
	return Fault{Kind: KindStatus, Code: code, RetryAfter: retryAfter}
}

// StatusMessage is Status with the Status body's message given.
func StatusMessage(code int, retryAfter time.Duration, message string) Fault {
	return Fault{Kind: KindStatus, Code: code, RetryAfter: retryAfter, Message: message}
}

// Hang reads the request and never answers (no status line, no headers)
// until the client gives up or the proxy closes.
func Hang() Fault { return Fault{Kind: KindHang} }

// Drip forwards the real answer (status and headers at once) and then its
// body one byte at a time, pausing every before each.
func Drip(every time.Duration) Fault { return Fault{Kind: KindDrip, Every: every} }

// Cut forwards the real answer, its Content-Length unchanged, and aborts
// the stream after after bytes of the body (-1: half): HTTP/2 RST_STREAM
// (INTERNAL_ERROR), the connection closed on HTTP/1.1.
func Cut(after int) Fault { return Fault{Kind: KindCut, After: after} }

// Stall forwards the real answer and stops sending after after bytes of
// its body (-1: half), holding the stream open until the client gives up
// or the proxy closes.
func Stall(after int) Fault { return Fault{Kind: KindStall, After: after} }

// InvalidJSON answers 200, Content-Type application/json, with the first
// half of the real body followed by bytes that are no JSON.
func InvalidJSON() Fault { return Fault{Kind: KindInvalidJSON} }

// InvalidProtobuf answers 200, Content-Type
// application/vnd.kubernetes.protobuf, with the API server's protobuf
// envelope magic ("k8s\x00") followed by bytes that are no protobuf
// message — whatever the client asked for.
func InvalidProtobuf() Fault { return Fault{Kind: KindInvalidProtobuf} }

// RepeatToken answers the real first page of a list with a continue token
// of the proxy's, and every request carrying that token with the same first
// page and the same token again: a server whose pagination never moves.
func RepeatToken() Fault { return Fault{Kind: KindRepeatToken} }

// RepeatItems answers the real first page of a list with a continue token
// of the proxy's, and the request carrying that token with the same first
// page again under the server's own continue token (none for a one-page
// list): the same items twice, each time under a new token.
func RepeatItems() Fault { return Fault{Kind: KindRepeatItems} }

// HugeTable ignores limit and answers a Table request with one page of rows
// rows, no continue token: the server's column definitions and first row
// (read from the server) as the template, each row given its own name
// ("huge-0000042") and, when the Table has an Internal-IP column, its own
// address. The body is streamed (about 200 bytes a row for nodes), never
// held whole. A request that is no Table request is forwarded.
func HugeTable(rows int) Fault { return Fault{Kind: KindHugeTable, Rows: rows} }

// EndlessPages answers every page of a list with the real first page's
// items renamed for that page ("NAME-p7") and a new continue token of the
// proxy's: pagination that never ends.
func EndlessPages() Fault { return Fault{Kind: KindEndlessPages} }

// Redirect answers 302 Found to location ("": the same path and query on
// the proxy's redirect listener, another host: 127.0.0.2).
func Redirect(location string) Fault { return Fault{Kind: KindRedirect, Location: location} }

// GoAway forwards the real answer with "Connection: close", which makes
// the HTTP/2 server send GOAWAY (NO_ERROR) on the stream's connection, and
// after after bytes of the body (-1: half), once that GOAWAY frame has been
// written and the connection's other streams have ended, closes the
// connection under the stream: the client sees
// "http2: server sent GOAWAY and closed the connection". On HTTP/1.1 the
// connection is closed after those bytes.
func GoAway(after int) Fault { return Fault{Kind: KindGoAway, After: after} }

// Kill forwards the real answer and after after bytes of its body (-1:
// half) the whole proxy dies: every connection and listener closed, new
// connections refused (ConnRefuse) until SetConn(ConnNormal). On HTTP/2 it
// dies once the other streams of the answer's connection have ended (at
// most 2 s, as GoAway), so that the answer that fails is this one, not one
// that happened to be in flight beside it.
func Kill(after int) Fault { return Fault{Kind: KindKill, After: after} }

// ConnFault is what the proxy does to every new connection.
type ConnFault string

const (
	// ConnNormal serves TLS and HTTP (HTTP/2 when the client offers h2).
	ConnNormal ConnFault = "normal"
	// ConnRefuse closes the listener: a connect is refused (ECONNREFUSED).
	ConnRefuse ConnFault = "refuse"
	// ConnSilent accepts the TCP connection and never sends a byte (no TLS
	// handshake) until the client closes it or the proxy closes.
	ConnSilent ConnFault = "silent"
	// ConnStallHandshake reads the client's TLS ClientHello and never
	// answers it.
	ConnStallHandshake ConnFault = "stall-handshake"
	// ConnSilentAfterHandshake completes the TLS handshake, then never
	// reads a request nor sends a byte (not even HTTP/2's SETTINGS).
	ConnSilentAfterHandshake ConnFault = "silent-after-handshake"
)

// Route selects requests: Method ("" any), Path a prefix of the request's
// path ("" any), and Query's entries each equal to the request's query
// parameter of that name (the value "*": present with any value).
type Route struct {
	Method string
	Path   string
	Query  map[string]string
}

// Paths of the lists nestor reads, for Routes.
const (
	PathNodes          = "/api/v1/nodes"
	PathNamespaces     = "/api/v1/namespaces"
	PathCRDs           = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	PathStorageClasses = "/apis/storage.k8s.io/v1/storageclasses"
	PathApps           = "/apis/apps/v1/"
	PathVersion        = "/version"
)

// Match reports whether the logged request r is one rt selects (a
// connection entry, Path "", matches only a Route with no Method, Path or
// Query).
func (rt Route) Match(r Request) bool {
	if rt.Method != "" && !strings.EqualFold(rt.Method, r.Method) {
		return false
	}
	if rt.Path != "" && !strings.HasPrefix(r.Path, rt.Path) {
		return false
	}
	if len(rt.Query) > 0 {
		q, _ := url.ParseQuery(r.Query)
		for k, v := range rt.Query {
			if !q.Has(k) || (v != "*" && q.Get(k) != v) {
				return false
			}
		}
	}
	return true
}

func (rt Route) matchHTTP(r *http.Request) bool {
	return rt.Match(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery})
}

// String is the route as "GET /api/v1/nodes?limit=500".
func (rt Route) String() string {
	m := rt.Method
	if m == "" {
		m = "*"
	}
	s := m + " " + rt.Path + "*"
	if len(rt.Query) > 0 {
		s += fmt.Sprint(rt.Query)
	}
	return s
}
