package faultproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// quietLog is the HTTP/1 server's error log: aborted streams are the
// proxy's purpose, not news.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// tokenPrefix starts every continue token the proxy makes up.
const tokenPrefix = "faultproxy-"

type appliedKey struct{}

// applied is the fault of one request, carried in its context to
// ModifyResponse.
type applied struct {
	f  Fault
	ci *connInfo
	p  *Proxy
}

// pick returns the fault of the request (and counts it), if any. A request
// carrying a continue token of the proxy's is a follow-up of the page fault
// that made it: it gets that fault whether or not N is used up.
func (p *Proxy) pick(r *http.Request) (Fault, bool) {
	followUp := strings.HasPrefix(r.URL.Query().Get("continue"), tokenPrefix)
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.faults) - 1; i >= 0; i-- {
		rf := p.faults[i]
		if !rf.route.matchHTTP(r) {
			continue
		}
		if followUp {
			return rf.fault, true
		}
		if rf.fault.N > 0 && p.hits[rf.id] >= rf.fault.N {
			continue
		}
		p.hits[rf.id]++
		return rf.fault, true
	}
	return Fault{}, false
}

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	ci, _ := r.Context().Value(connKey{}).(*connInfo)
	f, ok := p.pick(r)
	entry := Request{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Host: r.Host, Proto: r.Proto, UserAgent: r.UserAgent()}
	if ci != nil {
		entry.Conn = ci.id
	}
	if ok {
		entry.Fault = f.String()
	}
	p.record(entry)
	if !ok {
		p.rp.ServeHTTP(w, r)
		return
	}
	switch f.Kind {
	case KindStatus:
		writeStatus(w, r, p.user, f.Code, f.RetryAfter, f.Message)
	case KindHang:
		p.wait(r.Context())
	case KindRedirect:
		loc := f.Location
		if loc == "" {
			loc = p.RedirectURL + r.URL.RequestURI()
		}
		http.Redirect(w, r, loc, http.StatusFound)
	case KindInvalidJSON, KindInvalidProtobuf:
		p.corrupt(w, r, f.Kind)
	case KindRepeatToken, KindRepeatItems, KindEndlessPages:
		p.page(w, r, f.Kind)
	case KindHugeTable:
		p.hugeTable(w, r, f.Rows)
	default: // body faults: forward, and act on the body on its way
		r = r.WithContext(context.WithValue(r.Context(), appliedKey{}, &applied{f: f, ci: ci, p: p}))
		p.rp.ServeHTTP(w, r)
	}
}

// wait holds until ctx ends or the proxy closes.
func (p *Proxy) wait(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-p.closed:
	}
}

// modifyResponse puts a body fault's reader on the forwarded answer.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	a, ok := resp.Request.Context().Value(appliedKey{}).(*applied)
	if !ok {
		return nil
	}
	after := a.f.After
	if after < 0 {
		after = int(resp.ContentLength / 2)
		if resp.ContentLength < 0 {
			after = 512
		}
	}
	fr := &faultReader{body: resp.Body, a: a, ctx: resp.Request.Context(), left: after}
	if a.f.Kind == KindGoAway {
		// The HTTP/2 server sends GOAWAY on the stream's connection when a
		// response carries "Connection: close" (RFC 9113 forbids the
		// header itself; Go's server takes it as a request to shut down).
		resp.Header.Set("Connection", "close")
	}
	resp.Body = fr
	return nil
}

// errInjected ends a body the proxy cuts: ReverseProxy then aborts the
// stream (http.ErrAbortHandler).
var errInjected = errors.New("faultproxy: body cut")

// faultReader is the body of a forwarded answer under a body fault.
type faultReader struct {
	body   io.ReadCloser
	a      *applied
	ctx    context.Context
	left   int // bytes to pass before acting
	passed int // bytes passed
	acted  bool
}

func (fr *faultReader) Read(b []byte) (int, error) {
	f := fr.a.f
	if f.Kind == KindDrip {
		select {
		case <-time.After(f.Every):
		case <-fr.ctx.Done():
			return 0, fr.ctx.Err()
		case <-fr.a.p.closed:
			return 0, errInjected
		}
		return fr.body.Read(b[:min(1, len(b))])
	}
	if fr.left > 0 {
		n, err := fr.body.Read(b[:min(fr.left, len(b))])
		fr.left -= n
		fr.passed += n
		if err == io.EOF && fr.left > 0 {
			fr.left = 0 // a body shorter than After: act at its end
			err = nil
		}
		return n, err
	}
	if fr.acted {
		return 0, errInjected
	}
	fr.acted = true
	switch f.Kind {
	case KindStall:
		fr.a.p.wait(fr.ctx)
	case KindGoAway:
		if ci := fr.a.ci; ci != nil {
			if ci.h2 != nil {
				select { // the GOAWAY frame went out with the headers' write
				case <-ci.h2.goaway:
				case <-fr.ctx.Done():
				case <-fr.a.p.closed:
				}
				// The other streams the server accepted before its
				// GOAWAY end first, as a server that sends GOAWAY lets
				// them (RFC 9113 section 6.8).
				if !fr.untilAlone() {
					return 0, errInjected
				}
			}
			ci.raw.Close()
		}
		fr.a.p.wait(fr.ctx)
	case KindKill:
		// The server dies during this answer, after the others in flight
		// on its connection: the fault is this read's, whatever the
		// order the other answers would have come in.
		if ci := fr.a.ci; ci != nil && ci.h2 != nil && !fr.untilAlone() {
			return 0, errInjected
		}
		fr.a.p.kill()
		fr.a.p.wait(fr.ctx)
	}
	return 0, errInjected
}

// untilAlone waits until this stream is the only one open on its HTTP/2
// connection and the bytes passed so far, which ReverseProxy flushed and
// the server's writer sends in its own time, are on the wire, so that the
// connection dies under this stream alone, after them. At most 2 s; false
// when the proxy closed meanwhile.
func (fr *faultReader) untilAlone() bool {
	ci := fr.a.ci
	for end := time.Now().Add(2 * time.Second); !ci.h2.alone(fr.passed) && fr.ctx.Err() == nil && time.Now().Before(end); {
		select {
		case <-time.After(time.Millisecond):
		case <-fr.a.p.closed:
			return false
		}
	}
	return true
}

func (fr *faultReader) Close() error { return fr.body.Close() }

// statusReasons are the metav1.StatusReason of each code the API server
// answers (k8s.io/apimachinery/pkg/api/errors: NewForbidden,
// NewTooManyRequests, NewInternalError, NewServiceUnavailable…).
var statusReasons = map[int]metav1.StatusReason{
	http.StatusUnauthorized:        metav1.StatusReasonUnauthorized,
	http.StatusForbidden:           metav1.StatusReasonForbidden,
	http.StatusNotFound:            metav1.StatusReasonNotFound,
	http.StatusConflict:            metav1.StatusReasonConflict,
	http.StatusGone:                metav1.StatusReasonExpired,
	http.StatusTooManyRequests:     metav1.StatusReasonTooManyRequests,
	http.StatusInternalServerError: metav1.StatusReasonInternalError,
	http.StatusServiceUnavailable:  metav1.StatusReasonServiceUnavailable,
	http.StatusGatewayTimeout:      metav1.StatusReasonTimeout,
	http.StatusBadGateway:          metav1.StatusReasonInternalError,
}

// resourceOf reads the group, resource and namespace of an API path
// (/api/v1/nodes, /apis/GROUP/VERSION/namespaces/NS/RESOURCE).
func resourceOf(path string) (group, resource, ns string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group = parts[1]
		parts = parts[3:]
	default:
		return "", strings.Trim(path, "/"), ""
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	if len(parts) > 0 {
		resource = parts[0]
	}
	return group, resource, ns
}

// writeStatus answers code with a metav1.Status body as the API server
// writes one (see Status), message given or made like the server's.
func writeStatus(w http.ResponseWriter, r *http.Request, user string, code int, retryAfter time.Duration, message string) {
	group, resource, ns := resourceOf(r.URL.Path)
	qualified := resource
	if group != "" {
		qualified += "." + group
	}
	reason, ok := statusReasons[code]
	if !ok {
		reason = metav1.StatusReasonUnknown
	}
	if message == "" {
		switch code {
		case http.StatusForbidden:
			scope := "at the cluster scope"
			if ns != "" {
				scope = fmt.Sprintf("in the namespace %q", ns)
			}
			message = fmt.Sprintf("%s is forbidden: User %q cannot list resource %q in API group %q %s", qualified, user, resource, group, scope)
		case http.StatusTooManyRequests:
			message = "Too many requests, please try again later."
		case http.StatusInternalServerError:
			message = "Internal error occurred: injected by the fault proxy"
		case http.StatusServiceUnavailable:
			message = "the server is currently unable to handle the request (injected by the fault proxy)"
		default:
			message = http.StatusText(code) + " (injected by the fault proxy)"
		}
	}
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: message, Reason: reason, Code: int32(code),
		Details: &metav1.StatusDetails{Group: group, Kind: resource},
	}
	if retryAfter > 0 {
		secs := max(1, int(retryAfter.Round(time.Second)/time.Second))
		st.Details.RetryAfterSeconds = int32(secs)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	body, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
