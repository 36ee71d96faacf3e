package probes

import (
	"fmt"
	"net/http"
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

// ReadOnly wraps rt so that only GET, HEAD and OPTIONS requests reach the
// network; any other method gets a *WriteRefusedError and is never sent (its
// body is closed). This is DESIGN.md "What never writes means": every client
// nestor's read commands build goes through it (rest.Config.Wrap(ReadOnly)).
// It has the shape of client-go's transport.WrapperFunc.
func ReadOnly(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &readOnlyTransport{next: rt}
}

type readOnlyTransport struct{ next http.RoundTripper }

func (t *readOnlyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions:
		return t.next.RoundTrip(req)
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
