package probes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Bounds of every answer the kube reader accepts: a hostile or broken API
// server must not make nestor hold more than this, nor count an item twice.
const (
	// tableRowBound is what one row of a server-side Table may take: a
	// node row without its object is about 250 bytes; a row of a CRD or a
	// namespace less.
	tableRowBound = 4 << 10
	// jsonPageBound is what one page of a JSON list may take. An object
	// in etcd is at most 1.5 MiB (kube-apiserver's default request size
	// limit); a page of workloads or status objects is far below this.
	jsonPageBound = 64 << 20
	// smallBound is what a document that is not a list may take (/version,
	// a discovery document, one object).
	smallBound = 4 << 20
	// maxListItems bounds how many items one list may accumulate over all
	// its pages.
	maxListItems = 200_000
)

// TooLargeError: an answer larger than what nestor asked for can be (a page
// bigger than its limit's rows, a document bigger than its kind); it is
// refused, not read further.
type TooLargeError struct {
	Path  string
	Bound int64
	// What says what the bound stands for ("a page of 5000 rows").
	What string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the answer to %s is larger than %s (%s): refused as an inconsistent answer", e.Path, byteText(e.Bound), e.What)
}

// InconsistentError: an answer that contradicts itself or the request (an
// item listed twice, more items than the limit asked for, a repeated
// continue token): refused, its list unknown.
type InconsistentError struct {
	Path, Why string
}

func (e *InconsistentError) Error() string {
	return fmt.Sprintf("the API server's answer to %s is inconsistent: %s", e.Path, e.Why)
}

// AnswerRefusedError: an answer nestor read whole and refused, its decoder
// saying why (an item listed twice, more items than its bound, a name that
// is no name). Classify gives the decoder's words, with the code
// answer-refused.
type AnswerRefusedError struct{ Err error }

func (e *AnswerRefusedError) Error() string { return e.Err.Error() }

func (e *AnswerRefusedError) Unwrap() error { return e.Err }

// RetryError: the API server kept asking nestor to come back later (429 Too
// Many Requests, 503 Service Unavailable, with or without Retry-After) until
// the read's bound; Err is its last answer.
type RetryError struct {
	Path    string
	Retries int
	Err     error
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("the API server asked to retry (%s) until the read's bound", statusLine(e.Err))
}

func (e *RetryError) Unwrap() error { return e.Err }

// statusLine is the HTTP status of an API error ("429 Too Many Requests").
func statusLine(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		code := int(st.Status().Code)
		if text := http.StatusText(code); text != "" {
			return fmt.Sprintf("%d %s", code, text)
		}
		return fmt.Sprintf("HTTP %d", code)
	}
	return err.Error()
}

func byteText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// retryDelay says whether err is the API server asking to come back later
// (429, 503) and after how long: its Retry-After (apierrors.SuggestsClientDelay:
// the Status' retryAfterSeconds, which kube-apiserver sets with the header),
// else one second.
func retryDelay(err error) (time.Duration, bool) {
	if !apierrors.IsTooManyRequests(err) && !apierrors.IsServiceUnavailable(err) {
		return 0, false
	}
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		return time.Duration(s) * time.Second, true
	}
	return time.Second, true
}

// get sends GET path?params with the Accept header accept (stream) and
// returns the body of a 2xx answer, read through a bound of max bytes (a
// larger answer is a *TooLargeError, and nothing more is read).
func (c *clients) get(ctx context.Context, path, accept string, params map[string]string, max int64, what string) ([]byte, error) {
	body, err := c.stream(ctx, path, accept, params)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return readBounded(body, path, max, what)
}

// stream sends GET path?params with the Accept header accept and returns
// the body of a 2xx answer, unread, for the caller to read through its own
// bound and close. client-go's own retries are off: a 429 or 503 is retried
// here after its Retry-After as long as ctx's deadline leaves room, then it
// is a *RetryError saying what the server answered. Any other answer is an
// error carrying the API server's Status (apierrors: forbidden,
// unauthorized, not found…).
func (c *clients) stream(ctx context.Context, path, accept string, params map[string]string) (io.ReadCloser, error) {
	retries := 0
	for {
		req := c.rest.Get().AbsPath(path).SetHeader("Accept", accept).MaxRetries(0)
		for k, v := range params {
			req = req.Param(k, v)
		}
		body, err := req.Stream(ctx)
		if err == nil {
			return body, nil
		}
		delay, again := retryDelay(err)
		if !again {
			return nil, err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= delay {
			return nil, &RetryError{Path: path, Retries: retries, Err: err}
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, &RetryError{Path: path, Retries: retries, Err: err}
		case <-t.C:
		}
		retries++
	}
}

// readBounded reads r to its end, or fails with a *TooLargeError once it
// holds more than max bytes.
func readBounded(r io.Reader, path string, max int64, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Bound: max, What: what}
	}
	return data, nil
}

// itemSet refuses an item listed twice over the pages of one list, and a
// list that grows beyond maxListItems.
type itemSet struct {
	path string
	seen map[string]bool
}

func newItemSet(path string) *itemSet { return &itemSet{path: path, seen: map[string]bool{}} }

// add records the item of key (a name, or namespace/name). Errors: an
// *InconsistentError when the list already holds it or holds too many.
func (s *itemSet) add(key string) error {
	if s.seen[key] {
		return &InconsistentError{Path: s.path, Why: fmt.Sprintf("it lists %s twice (a repeated page?)", key)}
	}
	if len(s.seen) >= maxListItems {
		return &InconsistentError{Path: s.path, Why: fmt.Sprintf("it lists more than %d items", maxListItems)}
	}
	s.seen[key] = true
	return nil
}
