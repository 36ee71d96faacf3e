package bench

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// Answer is one recorded answer of an API server: its status code, its
// headers (Content-Length dropped: the replay sets it) and its body, bytes
// as they came (Content-Encoding kept).
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Recording holds answers by request (RequestKey). It is safe for
// concurrent use.
type Recording struct {
	mu      sync.RWMutex
	answers map[string]*Answer
}

// NewRecording returns an empty recording.
func NewRecording() *Recording { return &Recording{answers: map[string]*Answer{}} }

// Len returns the number of recorded answers.
func (r *Recording) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.answers)
}

// Keys returns the recorded requests' keys, sorted.
func (r *Recording) Keys() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	keys := make([]string, 0, len(r.answers))
	for k := range r.answers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (r *Recording) get(key string) (*Answer, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.answers[key]
	return a, ok
}

func (r *Recording) put(key string, a *Answer) {
	r.mu.Lock()
	r.answers[key] = a
	r.mu.Unlock()
}

// RequestKey is what makes two requests the same for a Recording: "METHOD
// PATH?QUERY Accept: ACCEPT", the query's parameters sorted (url.Values
// Encode), so the order a client writes them in does not matter while every
// value does. A paginated list replays because the continue token is part
// of the query: the second page is asked for with the token the recorded
// first page carried.
func RequestKey(r *http.Request) string {
	q := r.URL.RawQuery
	if v, err := url.ParseQuery(q); err == nil {
		q = v.Encode()
	}
	return fmt.Sprintf("%s %s?%s Accept: %s", r.Method, r.URL.Path, q, r.Header.Get("Accept"))
}

// ServerCerts are a test cluster's PEM files a stand-in serves with: its
// serving certificate and key, and the CA that signed them and the clients'
// certificates.
type ServerCerts struct {
	CA, Cert, Key []byte
}

// ClusterCerts reads c's serving certificate, key and CA from its folder
// (apiserver.crt, apiserver.key, ca.crt: the files tests/harness writes for
// kube-apiserver), so a stand-in answers the cluster's own kubeconfigs: the
// certificate verifies against their CA, their client certificates against
// its. It returns an error naming a file it cannot read.
func ClusterCerts(c *harness.Cluster) (ServerCerts, error) {
	var s ServerCerts
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{"ca.crt", &s.CA}, {"apiserver.crt", &s.Cert}, {"apiserver.key", &s.Key}} {
		b, err := os.ReadFile(filepath.Join(c.Dir, f.name))
		if err != nil {
			return ServerCerts{}, fmt.Errorf("stand-in certificates: %w", err)
		}
		*f.dst = b
	}
	return s, nil
}

// Upstream is where a recording stand-in forwards what it has not
// recorded: the API server's URL, the CA of its certificate, and the
// identity it presents (PEM client certificate and key).
type Upstream struct {
	URL                       string
	CA, ClientCert, ClientKey []byte
}

// UpstreamFor returns the Upstream of c read as its read-only identity
// (harness.UserReadOnly, a client certificate signed by c's CA for a day).
func UpstreamFor(c *harness.Cluster) (*Upstream, error) {
	now := time.Now()
	cert, key, err := c.SignClientCert(harness.UserReadOnly, nil, now.Add(-time.Hour), now.Add(24*time.Hour))
	if err != nil {
		return nil, err
	}
	return &Upstream{URL: c.URL, CA: c.CAData, ClientCert: cert, ClientKey: key}, nil
}

// StandIn is an HTTPS server (HTTP/2 by ALPN, or HTTP/1.1) that answers
// requests from a Recording, with a test cluster's serving certificate and
// a check of client certificates: one signed by the cluster's CA is
// required (the harness's kubeconfigs carry one; kube-apiserver itself only
// asks for one, since it also takes tokens). While recording (an Upstream given) it forwards what it
// lacks to the API server and keeps the answer; once Freeze is called, or
// when started without an Upstream, a request it lacks is answered 404 with
// a Status saying so, and counted (Misses): never anything made up.
type StandIn struct {
	// URL is https://HOST:PORT.
	URL string

	rec      *Recording
	srv      *http.Server
	ln       net.Listener
	client   *http.Client // nil: replay only
	upstream string
	frozen   atomic.Bool
	served   atomic.Int64
	forwards atomic.Int64
	mu       sync.Mutex
	missN    int
	misses   []string // the first maxMissesKept
	logging  bool
	arrivals []Arrival
}

// Arrival is one request as a logging stand-in received it.
type Arrival struct {
	At  time.Time
	Key string // RequestKey
}

// maxMissesKept bounds the missed keys a StandIn keeps for its report.
const maxMissesKept = 20

// forwardLimit bounds one forwarded answer's body (a recording holds
// nestor's reads of a test cluster: pages of at most 500 items).
const forwardLimit = 64 << 20

// StartStandIn serves rec on listen (host:port, port 0 for a free one)
// with certs. With up non-nil it records (see StandIn). It returns the
// running stand-in, or an error when the certificates do not parse or the
// address cannot be listened on.
func StartStandIn(listen string, certs ServerCerts, rec *Recording, up *Upstream) (*StandIn, error) {
	pair, err := tls.X509KeyPair(certs.Cert, certs.Key)
	if err != nil {
		return nil, fmt.Errorf("stand-in serving certificate: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certs.CA) {
		return nil, fmt.Errorf("stand-in: the client CA is not PEM certificates")
	}
	s := &StandIn{rec: rec}
	if up != nil {
		upPool := x509.NewCertPool()
		if !upPool.AppendCertsFromPEM(up.CA) {
			return nil, fmt.Errorf("stand-in: the upstream CA is not PEM certificates")
		}
		id, err := tls.X509KeyPair(up.ClientCert, up.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("stand-in upstream identity: %w", err)
		}
		s.upstream = up.URL
		s.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			TLSClientConfig:    &tls.Config{RootCAs: upPool, Certificates: []tls.Certificate{id}, MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2:  true,
			DisableCompression: true, // pass the body as the server sent it
		}}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	s.ln = ln
	s.URL = "https://" + ln.Addr().String()
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{pair},
			ClientCAs:    pool,
			ClientAuth:   tls.RequireAndVerifyClientCert,
			MinVersion:   tls.VersionTLS12,
		},
	}
	go s.srv.ServeTLS(ln, "", "")
	return s, nil
}

// Freeze ends recording: from now on a request the recording lacks is a
// miss.
func (s *StandIn) Freeze() { s.frozen.Store(true) }

// Served returns how many requests the stand-in has answered from the
// recording (forwarded ones and misses not counted).
func (s *StandIn) Served() int64 { return s.served.Load() }

// Forwarded returns how many requests it forwarded while recording.
func (s *StandIn) Forwarded() int64 { return s.forwards.Load() }

// Misses returns how many requests the recording lacked after Freeze (or
// in a replay-only stand-in), and the first of their keys (RequestKey, at
// most 20).
func (s *StandIn) Misses() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.missN, append([]string(nil), s.misses...)
}

// StartLog starts logging the requests the stand-in receives (StopLog
// returns them), forgetting any logged before.
func (s *StandIn) StartLog() {
	s.mu.Lock()
	s.logging, s.arrivals = true, nil
	s.mu.Unlock()
}

// StopLog stops logging and returns the requests received since StartLog,
// in arrival order.
func (s *StandIn) StopLog() []Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.arrivals
	s.logging, s.arrivals = false, nil
	return a
}

// Close stops the server at once.
func (s *StandIn) Close() error {
	if s.client != nil {
		s.client.CloseIdleConnections()
	}
	return s.srv.Close()
}

func (s *StandIn) serve(w http.ResponseWriter, r *http.Request) {
	key := RequestKey(r)
	s.mu.Lock()
	if s.logging {
		s.arrivals = append(s.arrivals, Arrival{At: time.Now(), Key: key})
	}
	s.mu.Unlock()
	if a, ok := s.rec.get(key); ok {
		s.served.Add(1)
		writeAnswer(w, a)
		return
	}
	if s.client == nil || s.frozen.Load() {
		s.mu.Lock()
		s.missN++
		if len(s.misses) < maxMissesKept {
			s.misses = append(s.misses, key)
		}
		s.mu.Unlock()
		writeMiss(w, key)
		return
	}
	a, err := s.forward(r)
	if err != nil {
		http.Error(w, "stand-in: forward "+key+": "+err.Error(), http.StatusBadGateway)
		return
	}
	s.forwards.Add(1)
	s.rec.put(key, a)
	writeAnswer(w, a)
}

// forward sends r (method, path, query, Accept, Accept-Encoding, User-Agent)
// to the upstream API server and returns its answer.
func (s *StandIn) forward(r *http.Request) (*Answer, error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, s.upstream+r.URL.RequestURI(), nil)
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Accept", "Accept-Encoding", "User-Agent"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, forwardLimit+1))
	if err != nil {
		return nil, err
	}
	if len(body) > forwardLimit {
		return nil, fmt.Errorf("answer larger than %d bytes", forwardLimit)
	}
	h := resp.Header.Clone()
	h.Del("Content-Length")
	return &Answer{Status: resp.StatusCode, Header: h, Body: body}, nil
}

func writeAnswer(w http.ResponseWriter, a *Answer) {
	for k, v := range a.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// writeMiss answers a request the recording lacks: 404 with a
// metav1.Status, so a client reads it as the API server's refusal and its
// message says why.
func writeMiss(w http.ResponseWriter, key string) {
	body, _ := json.Marshal(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "reason": "NotFound", "code": http.StatusNotFound,
		"message": "stand-in: no recorded answer for " + key,
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(bytes.TrimSpace(body))
}
