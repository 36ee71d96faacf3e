package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// AuditEvent is one request as the apiserver's audit log recorded it at
// stage ResponseComplete.
type AuditEvent struct {
	// Verb is the Kubernetes verb (get, list, watch, create, patch, update,
	// delete…) for resource requests, the lower-case HTTP method otherwise.
	Verb string
	// RequestURI is the path and query, e.g. "/api/v1/nodes?limit=500".
	RequestURI string
	UserAgent  string
	// User is the authenticated user name (UserReadOnly…).
	User string
	// Code is the HTTP status code of the response (403 when refused).
	Code int
}

// String renders e as "VERB URI -> CODE (USER, AGENT)" for test messages.
func (e AuditEvent) String() string {
	return fmt.Sprintf("%s %s -> %d (%s, %s)", e.Verb, e.RequestURI, e.Code, e.User, e.UserAgent)
}

// barrierUserAgent marks the harness's audit barrier requests.
const barrierUserAgent = HarnessUserAgent + "-audit-barrier"

// AuditEvents returns, in log order, the completed requests (stage
// ResponseComplete) whose user agent starts with userAgentPrefix ("" for
// all). The log is written in blocking mode; to be sure that every request
// answered before the call is in it, AuditEvents first sends a barrier
// request (GET /version as admin, its own user agent, never returned) and
// reads until that request appears (10 s at most). It errors when the log
// cannot be read or the barrier never shows.
func (c *Cluster) AuditEvents(userAgentPrefix string) ([]AuditEvent, error) {
	token := strconv.FormatUint(c.barrier.Add(1), 10)
	marker := "nestor-test-audit-barrier=" + token
	req, err := http.NewRequest(http.MethodGet, c.URL+"/version?"+marker, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", barrierUserAgent)
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("audit barrier request: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	deadline := time.Now().Add(10 * time.Second)
	for {
		events, seen, err := c.readAudit(userAgentPrefix, marker)
		if err != nil || seen {
			return events, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("audit log %s: the barrier request (%s) was not recorded within 10s", c.AuditLog, marker)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readAudit parses the audit log and returns the ResponseComplete events
// whose user agent has prefix (barrier requests excluded), and whether the
// barrier request carrying marker has been recorded.
func (c *Cluster) readAudit(prefix, marker string) ([]AuditEvent, bool, error) {
	f, err := os.Open(c.AuditLog)
	if err != nil {
		return nil, false, fmt.Errorf("read audit log: %w", err)
	}
	defer f.Close()
	events := []AuditEvent{}
	seen := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		var raw struct {
			Stage      string `json:"stage"`
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			UserAgent  string `json:"userAgent"`
			User       struct {
				Username string `json:"username"`
			} `json:"user"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			// A line being written while we read is incomplete: stop there,
			// the caller reads again until the barrier shows.
			break
		}
		if raw.Stage != "ResponseComplete" {
			continue
		}
		if raw.UserAgent == barrierUserAgent {
			if strings.HasSuffix(raw.RequestURI, marker) {
				seen = true
			}
			continue
		}
		if !strings.HasPrefix(raw.UserAgent, prefix) {
			continue
		}
		ev := AuditEvent{Verb: raw.Verb, RequestURI: raw.RequestURI, UserAgent: raw.UserAgent, User: raw.User.Username}
		if raw.ResponseStatus != nil {
			ev.Code = raw.ResponseStatus.Code
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, false, fmt.Errorf("read audit log %s line %d: %w", c.AuditLog, line+1, err)
	}
	return events, seen, nil
}
