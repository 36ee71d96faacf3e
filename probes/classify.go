package probes

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"nestor.dev/nestor/topology"
)

// TimeoutError is a read that did not finish within its bound (KubeOptions.
// Timeout or the context's deadline).
type TimeoutError struct {
	// After is the bound that was reached.
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	return "timed out after " + e.After.String()
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// StoppedError is a read stopped by its context: its words are the
// operator's, "interrupted" for a cancelled context (Ctrl-C, SIGTERM: an
// operator reads "context canceled" as the kubeconfig's context) and "timed
// out" for a deadline reached. errors.Is(err, context.Canceled) (or
// DeadlineExceeded) still holds through Unwrap.
type StoppedError struct{ Err error }

func (e *StoppedError) Error() string { return StopWords(e.Err) }

func (e *StoppedError) Unwrap() error { return e.Err }

// Stopped wraps ctx's error err (nil stays nil) in a *StoppedError.
func Stopped(err error) error {
	if err == nil {
		return nil
	}
	return &StoppedError{Err: err}
}

// StopWords says why a context ended, in the operator's words:
// "interrupted" (context.Canceled), "timed out" (context.DeadlineExceeded),
// else the error's own text.
func StopWords(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case err == nil:
		return ""
	}
	return err.Error()
}

// forbiddenRE reads the user, verb, resource, group and namespace out of the
// API server's RBAC refusal (k8s.io/apiserver's authorization filter:
// `nodes is forbidden: User "x" cannot list resource "nodes" in API group ""
// at the cluster scope`).
var forbiddenRE = regexp.MustCompile(`User "([^"]*)" cannot (\S+) resource "([^"]*)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]*)")?`)

// forbiddenPathRE reads the user, verb and path out of the refusal of a
// non-resource URL (`forbidden: User "x" cannot get path "/metrics"`).
var forbiddenPathRE = regexp.MustCompile(`User "([^"]*)" cannot (\S+) path "([^"]*)"`)

// Classify turns the error of one probe into the short reason shown after
// "unknown" in ACTUAL (ARCHITECTURE.md "Truth": a forbidden or timed-out probe is unknown
// with its reason, never absent). Shapes:
//
//	forbidden (user X cannot list nodes)
//	forbidden (user X cannot list deployments.apps in namespace cnpg-system)
//	unauthorized (the API server refused the credentials)
//	timed out after 10s
//	unreachable: dial tcp 127.0.0.1:1: connect: connection refused
//	TLS: x509: certificate signed by unknown authority
//	refused by nestor: … (a write, a request to another host or a
//	redirect the read-only transport or client stopped)
//
// Anything else gives the API server's reason and message, or the error's
// own text without the "Get URL:" prefix. It returns "" for a nil error. The
// text never contains a credential: API server messages name users, not
// secrets, and URLs carry no token. Control characters from the server
// (escape sequences…) are removed (sanitize): the text is safe to print.
func Classify(err error) string {
	return Explain(err).Text
}

// Explain is Classify with the reason's code: why err kept a part from
// being read, from the closed set of topology.ReasonCode, and the same
// words as Classify. A nil error is the zero Why.
func Explain(err error) topology.Why {
	if err == nil {
		return topology.Why{}
	}
	code, text := classify(err)
	return topology.Because(code, Sanitize(text))
}

func classify(err error) (topology.ReasonCode, string) {
	var re *RetryError
	if errors.As(err, &re) {
		return topology.ReasonServerError, re.Error()
	}
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return topology.ReasonAnswerRefused, tl.Error()
	}
	var ie *InconsistentError
	if errors.As(err, &ie) {
		return topology.ReasonAnswerRefused, ie.Error()
	}
	var ar *AnswerRefusedError
	if errors.As(err, &ar) {
		return topology.ReasonAnswerRefused, ar.Error()
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		return topology.ReasonTimedOut, te.Error()
	}
	var wr *WriteRefusedError
	if errors.As(err, &wr) {
		return topology.ReasonRefused, "refused by nestor: " + wr.Error()
	}
	var rr *RedirectRefusedError
	if errors.As(err, &rr) {
		return topology.ReasonRefused, "refused by nestor: " + rr.Error()
	}
	var hr *HostRefusedError
	if errors.As(err, &hr) {
		return topology.ReasonRefused, "refused by nestor: " + hr.Error()
	}
	if apierrors.IsForbidden(err) {
		return topology.ReasonForbidden, forbiddenReason(err)
	}
	if apierrors.IsUnauthorized(err) {
		return topology.ReasonUnauthorized, "unauthorized (the API server refused the credentials)"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return topology.ReasonTimedOut, StopWords(err)
	}
	if errors.Is(err, context.Canceled) {
		return topology.ReasonInterrupted, StopWords(err) + " (nestor was stopped before this read finished)"
	}
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		return topology.ReasonTLS, "TLS: " + cve.Err.Error()
	}
	var uae x509.UnknownAuthorityError
	if errors.As(err, &uae) {
		return topology.ReasonTLS, "TLS: " + uae.Error()
	}
	var he x509.HostnameError
	if errors.As(err, &he) {
		return topology.ReasonTLS, "TLS: " + he.Error()
	}
	var cie x509.CertificateInvalidError
	if errors.As(err, &cie) {
		return topology.ReasonTLS, "TLS: " + cie.Error()
	}
	var rhe tls.RecordHeaderError
	if errors.As(err, &rhe) {
		return topology.ReasonTLS, "TLS: the server did not answer with TLS (an http:// endpoint?)"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return topology.ReasonUnreachable, "unreachable: " + dnsErr.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return topology.ReasonTimedOut, "timed out: " + innerText(err)
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return topology.ReasonUnreachable, "unreachable: " + op.Error()
	}
	if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
		return topology.ReasonTimedOut, "timed out (the API server gave up): " + innerText(err)
	}
	if apierrors.IsNotFound(err) {
		var st apierrors.APIStatus
		errors.As(err, &st)
		return topology.ReasonNotServed, "notfound: " + st.Status().Message
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		reason := string(s.Reason)
		if reason == "" {
			reason = fmt.Sprintf("HTTP %d", s.Code)
		}
		return topology.ReasonServerError, fmt.Sprintf("%s: %s", strings.ToLower(reason), s.Message)
	}
	return topology.ReasonFailed, innerText(err)
}

// forbiddenReason shortens an RBAC refusal to "forbidden (user X cannot
// VERB RESOURCE[.GROUP][ in namespace NS])".
func forbiddenReason(err error) string {
	msg := err.Error()
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		msg = st.Status().Message
	}
	m := forbiddenRE.FindStringSubmatch(msg)
	if m == nil {
		if p := forbiddenPathRE.FindStringSubmatch(msg); p != nil {
			return fmt.Sprintf("forbidden (user %s cannot %s path %s)", p[1], p[2], p[3])
		}
		return "forbidden (" + msg + ")"
	}
	res := m[3]
	if m[4] != "" {
		res += "." + m[4]
	}
	out := fmt.Sprintf("forbidden (user %s cannot %s %s", m[1], m[2], res)
	if m[5] != "" {
		out += " in namespace " + m[5]
	}
	return out + ")"
}

// innerText is the error's text without net/url's `Get "URL": ` prefix.
func innerText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err.Error()
	}
	return err.Error()
}

// failReason classifies the error of a probe run under a bounded context:
// when the bound was reached it is a timeout, whatever error the transport
// returned on the way.
//
// The error itself decides, not the context's state when the reason is
// written: a 403 that came back at once stays "forbidden" even if another
// read later used up the budget. An API status (403, 404, 410…) is never a
// timeout; a transport error while the context is done is one.
func failReason(ctx context.Context, budget time.Duration, err error) topology.Why {
	var status apierrors.APIStatus
	var retry *RetryError
	if errors.As(err, &retry) {
		return Explain(err) // what the server answered, not the deadline
	}
	isStatus := errors.As(err, &status)
	timedOut := errors.Is(err, context.DeadlineExceeded) ||
		strings.Contains(err.Error(), "would exceed context deadline") || // client-go's rate limiter
		(!isStatus && errors.Is(ctx.Err(), context.DeadlineExceeded))
	if timedOut {
		return Explain(&TimeoutError{After: budget, Err: err})
	}
	return Explain(err)
}
