// Package faultproxy is an HTTPS proxy on loopback in front of the test
// cluster's real kube-apiserver (tests/harness) that injects faults, for
// nestor's end-to-end tests of hostile servers: per route (method, path
// prefix, query) a test sets at any time an answer status with Retry-After,
// a silent request, a body dripped byte by byte, cut, stalled or corrupted,
// a repeated or endless pagination, a huge page that ignores limit, a
// redirect, a GOAWAY that closes the connection mid-stream, or the proxy's
// death mid-read; per connection, a refused, silent or stalled TLS
// handshake.
//
// The proxy terminates TLS with a serving certificate of its own CA
// (harness.NewServingPair) and speaks HTTP/2 (h2 by ALPN, as client-go
// asks) or HTTP/1.1. It forwards to the API server as one identity (a
// client certificate the test gives), so a kubeconfig pointing at the proxy
// (WriteKubeconfig) reads the real cluster with that identity's rights;
// the audit log still shows the client's user agent. Every request and
// connection is logged (Log) with the fault applied, and Await lets a test
// sequence events on what the proxy received rather than on sleeps.
package faultproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"nestor.dev/nestor/tests/harness"
)

// Options configure Start.
type Options struct {
	// Upstream is the API server's URL (https://127.0.0.1:PORT).
	Upstream string
	// UpstreamCA is the PEM CA that signed the API server's certificate.
	UpstreamCA []byte
	// ClientCert and ClientKey (PEM) are the identity the proxy presents to
	// the API server on every forwarded request.
	ClientCert, ClientKey []byte
}

// ForCluster returns the Options of a proxy in front of c that reads as
// user in groups: a client certificate for them is signed by c's CA, valid
// from an hour ago for a day (kube-apiserver reads CN as the user and O as
// the groups). For c's read-only identity pass harness.UserReadOnly and no
// group (its ClusterRoleBinding names the user).
func ForCluster(c *harness.Cluster, user string, groups []string) (Options, error) {
	now := time.Now()
	cert, key, err := c.SignClientCert(user, groups, now.Add(-time.Hour), now.Add(24*time.Hour))
	if err != nil {
		return Options{}, err
	}
	return Options{Upstream: c.URL, UpstreamCA: c.CAData, ClientCert: cert, ClientKey: key}, nil
}

// Request is one logged request or connection.
type Request struct {
	// Time is when the request (or connection) arrived.
	Time time.Time
	// Conn numbers the connection it came on (from 1, in accept order).
	Conn int
	// Method, Path and Query (raw) of the request; all "" for a
	// connection entry.
	Method, Path, Query string
	// Host is the request's Host (the redirect listener's address for a
	// request that followed a Redirect).
	Host string
	// Proto is "HTTP/2.0" or "HTTP/1.1"; for a connection entry "tcp".
	Proto     string
	UserAgent string
	// Fault is what the proxy did: "" forwarded untouched, a Fault's
	// String, or for a connection entry "conn: " and its ConnFault.
	Fault string
}

func (r Request) String() string {
	if r.Proto == "tcp" {
		return fmt.Sprintf("%s conn %d %s", r.Time.Format("15:04:05.000"), r.Conn, r.Fault)
	}
	s := fmt.Sprintf("%s conn %d %s %s %s", r.Time.Format("15:04:05.000"), r.Conn, r.Proto, r.Method, r.Path)
	if r.Query != "" {
		s += "?" + r.Query
	}
	if r.Fault != "" {
		s += " [" + r.Fault + "]"
	}
	return s
}

// Proxy is a running fault proxy. Its exported fields are set by Start.
type Proxy struct {
	// URL is https://127.0.0.1:PORT.
	URL string
	// CAData is the PEM CA certificate a client must trust.
	CAData []byte
	// RedirectURL is https://127.0.0.2:PORT, a second listener of the
	// proxy (serving the same faults and log) that Redirect points to.
	RedirectURL string

	opts     Options
	user     string // CN of the upstream identity, for 403 messages
	addr     string
	upstream *url.URL
	tr       *http.Transport
	rp       *httputil.ReverseProxy
	tlsCfg   *tls.Config
	h1       *http.Server
	h1ln     *chanListener
	h2       *http2.Server

	mu       sync.Mutex
	ln       net.Listener // nil while refusing
	redirLn  net.Listener
	conn     ConnFault
	faults   []routeFault
	hits     map[int]int // per faults entry id: how many times applied
	nextID   int
	conns    map[*connInfo]struct{}
	nconn    int
	log      []Request
	changed  chan struct{} // closed and replaced on each log append
	closed   chan struct{}
	wg       sync.WaitGroup
	closeErr error
	once     sync.Once
}

type routeFault struct {
	id    int
	route Route
	fault Fault
}

// connInfo is one accepted connection.
type connInfo struct {
	id  int
	raw net.Conn
	h2  *h2Conn // nil on HTTP/1.1
}

// Start starts a proxy in front of o.Upstream on a free port of 127.0.0.1
// (and its redirect listener on 127.0.0.2), forwarding every request
// untouched until faults are set. It returns an error when the
// certificates do not parse or no port can be had; the caller must Close
// the proxy.
func Start(o Options) (*Proxy, error) {
	up, err := url.Parse(o.Upstream)
	if err != nil || up.Scheme != "https" || up.Host == "" {
		return nil, fmt.Errorf("faultproxy: upstream %q is not an https URL", o.Upstream)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(o.UpstreamCA) {
		return nil, errors.New("faultproxy: the upstream CA is not a PEM certificate")
	}
	client, err := tls.X509KeyPair(o.ClientCert, o.ClientKey)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: the client certificate: %w", err)
	}
	user := ""
	if b, _ := pem.Decode(o.ClientCert); b != nil {
		if c, err := x509.ParseCertificate(b.Bytes); err == nil {
			user = c.Subject.CommonName
		}
	}
	serving, err := harness.NewServingPair("nestor-faultproxy")
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		CAData: serving.CAPEM, opts: o, user: user, upstream: up,
		conn: ConnNormal, hits: map[int]int{}, conns: map[*connInfo]struct{}{},
		changed: make(chan struct{}), closed: make(chan struct{}),
	}
	p.tr = &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{client}, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		DisableCompression:  true, // bodies are rewritten: keep them identity-encoded
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     30 * time.Second,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Header.Del("Accept-Encoding")
			pr.Out.Header.Del("Authorization")
		},
		Transport:      p.tr,
		ErrorLog:       quietLog(),
		FlushInterval:  -1, // every write reaches the client at once (Drip)
		ModifyResponse: p.modifyResponse,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeStatus(w, r, p.user, http.StatusBadGateway, 0, "faultproxy: upstream: "+err.Error())
		},
	}
	p.tlsCfg = &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"h2", "http/1.1"},
		ClientAuth:   tls.RequestClientCert, // the client's identity is not checked: the proxy has its own
		MinVersion:   tls.VersionTLS12,
	}
	p.h1ln = newChanListener()
	p.h1 = &http.Server{Handler: http.HandlerFunc(p.serveHTTP), ConnContext: p.connContext, ErrorLog: quietLog()}
	p.h2 = &http2.Server{}
	if err := http2.ConfigureServer(p.h1, p.h2); err != nil {
		return nil, err
	}
	p.wg.Add(1)
	go func() { defer p.wg.Done(); _ = p.h1.Serve(p.h1ln) }()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p.ln, p.addr = ln, ln.Addr().String()
	p.URL = "https://" + p.addr
	if rl, err := net.Listen("tcp", "127.0.0.2:0"); err == nil {
		p.redirLn = rl
		p.RedirectURL = "https://" + rl.Addr().String()
		p.serve(rl)
	}
	p.serve(ln)
	return p, nil
}

// StartT starts a proxy for t (failing it when the proxy cannot start) and
// registers its Close with t.Cleanup; on failure of t the request log is
// printed.
func StartT(t testing.TB, o Options) *Proxy {
	t.Helper()
	p, err := Start(o)
	if err != nil {
		t.Fatalf("start the fault proxy: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("fault proxy %s log:\n%s", p.URL, p.LogText())
		}
		p.Close()
	})
	return p
}

// Close stops the proxy: listeners and connections closed, held requests
// released, every goroutine ended. It may be called more than once.
func (p *Proxy) Close() {
	p.once.Do(func() {
		close(p.closed)
		p.mu.Lock()
		if p.ln != nil {
			p.ln.Close()
		}
		if p.redirLn != nil {
			p.redirLn.Close()
		}
		for ci := range p.conns {
			ci.raw.Close()
		}
		p.mu.Unlock()
		p.h1ln.Close()
		_ = p.h1.Close()
		p.wg.Wait()
		p.tr.CloseIdleConnections()
	})
}

// Set makes fault apply to the requests route selects from now on (a
// fault set earlier for the same route is replaced). When several routes
// match a request the one set last wins.
func (p *Proxy) Set(route Route, fault Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.faults[:0]
	for _, rf := range p.faults {
		if !sameRoute(rf.route, route) {
			kept = append(kept, rf)
		}
	}
	p.nextID++
	p.faults = append(kept, routeFault{id: p.nextID, route: route, fault: fault})
}

// Clear removes the fault of route (requests already held stay held).
func (p *Proxy) Clear(route Route) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.faults[:0]
	for _, rf := range p.faults {
		if !sameRoute(rf.route, route) {
			kept = append(kept, rf)
		}
	}
	p.faults = kept
}

// ClearAll removes every route fault and sets ConnNormal.
func (p *Proxy) ClearAll() error {
	p.mu.Lock()
	p.faults = nil
	p.mu.Unlock()
	return p.SetConn(ConnNormal)
}

func sameRoute(a, b Route) bool {
	if a.Method != b.Method || a.Path != b.Path || len(a.Query) != len(b.Query) {
		return false
	}
	for k, v := range a.Query {
		if w, ok := b.Query[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// SetConn sets what happens to every new connection (connections already
// open are kept). ConnRefuse closes the listener; any other value after it
// listens again on the same address, which fails when another process took
// the port meanwhile.
func (p *Proxy) SetConn(f ConnFault) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closed:
		return errors.New("faultproxy: closed")
	default:
	}
	p.conn = f
	switch {
	case f == ConnRefuse && p.ln != nil:
		p.ln.Close()
		p.ln = nil
	case f != ConnRefuse && p.ln == nil:
		ln, err := net.Listen("tcp", p.addr)
		if err != nil {
			return fmt.Errorf("faultproxy: listen again on %s: %w", p.addr, err)
		}
		p.ln = ln
		p.serve(ln)
	}
	return nil
}

// kill closes every connection and listener (the redirect one aside) and
// refuses new connections: the proxy died.
func (p *Proxy) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conn = ConnRefuse
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for ci := range p.conns {
		ci.raw.Close()
	}
}

// Log returns every request and connection received so far, in order.
func (p *Proxy) Log() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// LogText is Log, one entry a line.
func (p *Proxy) LogText() string {
	var b []byte
	for _, r := range p.Log() {
		b = append(b, r.String()...)
		b = append(b, '\n')
	}
	return string(b)
}

// Count returns how many logged entries match.
func (p *Proxy) Count(match func(Request) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.log {
		if match(r) {
			n++
		}
	}
	return n
}

// Await waits until at least n logged entries match (a request is logged
// when it arrives, before its fault acts: a test can wait for a request to
// be held, then act). It returns ctx's error when ctx ends first, with the
// log so far.
func (p *Proxy) Await(ctx context.Context, match func(Request) bool, n int) error {
	for {
		p.mu.Lock()
		got := 0
		for _, r := range p.log {
			if match(r) {
				got++
			}
		}
		ch := p.changed
		p.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("faultproxy: %d of %d awaited requests after %v: %w\n%s", got, n, ctx.Err(), ctx.Err(), p.LogText())
		}
	}
}

func (p *Proxy) record(r Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, r)
	close(p.changed)
	p.changed = make(chan struct{})
}

// WriteKubeconfig writes to path (0600, folders created) a standalone
// kubeconfig whose one cluster "faultproxy" is the proxy (its CA embedded),
// its user the proxy's upstream identity (certificate embedded; the proxy
// does not check it, it forwards as that identity anyway) and its
// current-context "faultproxy".
func (p *Proxy) WriteKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["faultproxy"] = &clientcmdapi.Cluster{Server: p.URL, CertificateAuthorityData: p.CAData}
	cfg.AuthInfos["faultproxy"] = &clientcmdapi.AuthInfo{ClientCertificateData: p.opts.ClientCert, ClientKeyData: p.opts.ClientKey}
	cfg.Contexts["faultproxy"] = &clientcmdapi.Context{Cluster: "faultproxy", AuthInfo: "faultproxy"}
	cfg.CurrentContext = "faultproxy"
	return clientcmd.WriteToFile(*cfg, path)
}

// serve accepts on ln until it is closed.
func (p *Proxy) serve(ln net.Listener) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			raw, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() { defer p.wg.Done(); p.handleConn(raw) }()
		}
	}()
}

func (p *Proxy) handleConn(raw net.Conn) {
	p.mu.Lock()
	select {
	case <-p.closed:
		p.mu.Unlock()
		raw.Close()
		return
	default:
	}
	p.nconn++
	ci := &connInfo{id: p.nconn, raw: raw}
	p.conns[ci] = struct{}{}
	mode := p.conn
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, ci)
		p.mu.Unlock()
	}()
	entry := Request{Time: time.Now(), Conn: ci.id, Proto: "tcp", Fault: "conn: " + string(mode)}
	if mode == ConnNormal {
		entry.Fault = "conn"
	}
	p.record(entry)

	hold := func(r io.Reader) { // until the client closes or the proxy does
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, r); close(done) }()
		select {
		case <-done:
		case <-p.closed:
		}
		raw.Close()
	}
	switch mode {
	case ConnSilent:
		hold(raw)
		return
	}
	cfg := p.tlsCfg
	timeout := 30 * time.Second
	if mode == ConnStallHandshake {
		cfg = p.tlsCfg.Clone()
		cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
			<-p.closed // the ClientHello was read; never answer it
			return nil, errors.New("faultproxy: closed")
		}
		timeout = 24 * time.Hour // until the proxy closes
	}
	tc := tls.Server(raw, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		raw.Close()
		return
	}
	if mode == ConnSilentAfterHandshake {
		hold(tc)
		return
	}
	if tc.ConnectionState().NegotiatedProtocol == "h2" {
		ci.h2 = newH2Conn(tc)
		base := context.WithValue(context.Background(), connKey{}, ci)
		p.h2.ServeConn(ci.h2, &http2.ServeConnOpts{Context: base, BaseConfig: p.h1, Handler: http.HandlerFunc(p.serveHTTP)})
		raw.Close()
		return
	}
	// HTTP/1.1: hand the connection to the HTTP/1 server, which serves it
	// until it is closed.
	done := make(chan struct{})
	hc := &h1Conn{Conn: tc, ci: ci, done: done}
	if !p.h1ln.push(hc) {
		raw.Close()
		return
	}
	select {
	case <-done:
	case <-p.closed:
	}
}

type connKey struct{}

// connContext gives an HTTP/1.1 request's context its connInfo.
func (p *Proxy) connContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*h1Conn); ok {
		return context.WithValue(ctx, connKey{}, hc.ci)
	}
	return ctx
}

// h1Conn is an HTTP/1.1 connection handed to the HTTP/1 server; done is
// closed when the server closes it.
type h1Conn struct {
	net.Conn
	ci   *connInfo
	once sync.Once
	done chan struct{}
}

func (c *h1Conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { close(c.done) })
	return err
}

// chanListener is a net.Listener whose connections are pushed to it.
type chanListener struct {
	ch     chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newChanListener() *chanListener {
	return &chanListener{ch: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *chanListener) push(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.closed:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }
