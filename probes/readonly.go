package probes

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// WriteRefusedError is returned by the ReadOnly transport for a request whose
// method could change something on the server.
type WriteRefusedError struct {
	Method string
	// Path is the request path (no host, no query: nothing secret).
	Path string
}

func (e *WriteRefusedError) Error() string {
	return fmt.Sprintf("nestor refused to send %s %s: read commands only send GET, HEAD and OPTIONS", e.Method, e.Path)
}

// HostRefusedError is returned by a pinned read-only transport (ReadOnlyTo)
// for a request to another scheme or host than the target's endpoint: the
// request, and the credentials client-go put on it, never leave the process.
type HostRefusedError struct {
	Method string
	// Host is where the request was going, Endpoint where nestor reads
	// from; both "scheme://host:port", without user info or path.
	Host, Endpoint string
}

func (e *HostRefusedError) Error() string {
	return fmt.Sprintf("nestor refused to send %s to %s: it reads only from the target's endpoint %s", e.Method, e.Host, e.Endpoint)
}

// RedirectRefusedError is the error of a read the API server answered with
// a redirect (3xx with a Location). nestor never follows one: client-go
// would send the target's credentials to the new location, and ACTUAL would
// describe another cluster.
type RedirectRefusedError struct {
	// From is the endpoint that answered, To where it redirected; both
	// "scheme://host:port", without user info or path.
	From, To string
}

func (e *RedirectRefusedError) Error() string {
	return fmt.Sprintf("the API server %s redirected to %s: nestor does not follow redirects (they would carry its credentials to another server)", e.From, e.To)
}

// RefuseRedirect is the CheckRedirect of every http.Client the probes build
// (net/http calls it before following a 3xx; its error ends the request).
func RefuseRedirect(req *http.Request, via []*http.Request) error {
	from := ""
	if len(via) > 0 {
		from = HostKey(via[len(via)-1].URL)
	}
	return &RedirectRefusedError{From: from, To: HostKey(req.URL)}
}

// HostKey is u's "scheme://host:port", scheme and host lower-cased and the
// default port (443 for https, 80 for http) made explicit; user info, path
// and query are dropped. "" for a nil URL.
func HostKey(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	host := strings.ToLower(u.Hostname())
	if port == "" {
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// ReadOnlyTo returns a client-go transport.WrapperFunc that lets only GET,
// HEAD and OPTIONS requests reach the network — any other method gets a
// *WriteRefusedError and is never sent (its body is closed): ARCHITECTURE.md "What
// never writes means" — and, in addition, pins the target:
//   - a request whose scheme and host (compared as hostKey:
//     case-insensitive, default port explicit) are not endpoint's gets a
//     *HostRefusedError and is never sent — any URL that is not the
//     target's API server never receives nestor's request or credentials;
//   - an answer that is a redirect (301, 302, 303, 307, 308 with a
//     Location) is closed and becomes a *RedirectRefusedError naming both
//     hosts, so no HTTP client above ever follows it;
//   - at most MaxInFlightPerHost requests to the endpoint are in flight
//     at once in the process (a request waits for a slot, or for its
//     context's end).
//
// endpoint must be the absolute base URL of the target
// (rest.DefaultServerUrlFor).
func ReadOnlyTo(endpoint *url.URL) func(http.RoundTripper) http.RoundTripper {
	pin := HostKey(endpoint)
	return func(rt http.RoundTripper) http.RoundTripper {
		if rt == nil {
			rt = http.DefaultTransport
		}
		return &readOnlyTransport{next: rt, pin: pin}
	}
}

// redirectOf returns the refusal of resp when it is a redirect net/http
// would follow (301, 302, 303, 307 or 308 with a Location), else nil.
func redirectOf(req *http.Request, resp *http.Response) *RedirectRefusedError {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil
	}
	to := "a Location nestor cannot parse"
	if u, err := req.URL.Parse(loc); err == nil {
		to = HostKey(u)
	}
	return &RedirectRefusedError{From: HostKey(req.URL), To: to}
}

type readOnlyTransport struct {
	next http.RoundTripper
	// pin is the only "scheme://host:port" requests may go to; "" for any.
	pin string
}

func (t *readOnlyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions:
		if t.pin == "" {
			return t.next.RoundTrip(req)
		}
		if got := HostKey(req.URL); got != t.pin {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			m := req.Method
			if m == "" {
				m = http.MethodGet
			}
			return nil, &HostRefusedError{Method: m, Host: got, Endpoint: t.pin}
		}
		release, err := acquireSlot(req, t.pin)
		if err != nil {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, err
		}
		resp, err := t.next.RoundTrip(req)
		if err != nil {
			release()
			return resp, err
		}
		if rr := redirectOf(req, resp); rr != nil {
			_ = resp.Body.Close()
			release()
			return nil, rr
		}
		if resp.Body == nil || resp.Body == http.NoBody || req.Method == http.MethodHead {
			// No body to read: nothing would ever free the slot.
			release()
			return resp, nil
		}
		resp.Body = &slotBody{ReadCloser: resp.Body, release: release}
		return resp, nil
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	path := ""
	if req.URL != nil {
		path = req.URL.Path
	}
	return nil, &WriteRefusedError{Method: req.Method, Path: path}
}

// WrappedRoundTripper lets client-go's utilnet see the transport underneath
// (for CancelRequest and connection tracking).
func (t *readOnlyTransport) WrappedRoundTripper() http.RoundTripper { return t.next }
