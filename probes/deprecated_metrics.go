package probes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The two metric families ParseDeprecatedAPIMetrics keeps.
const (
	// metricDeprecatedAPIs is the API server's gauge of deprecated APIs
	// requested since it started (k8s.io/apiserver pkg/endpoints/metrics,
	// deprecatedRequestGauge, STABLE): one series per group, version,
	// resource, subresource and removed_release, set to 1 by each request
	// to a deprecated API (the kind's APILifecycleDeprecated release is the
	// server's minor or older, k8s.io/apiserver pkg/endpoints/deprecation).
	// removed_release is "MAJOR.MINOR", or "" when no removal is planned.
	metricDeprecatedAPIs = "apiserver_requested_deprecated_apis"
	// metricProcessStart is the Prometheus process collector's
	// process_start_time_seconds (seconds since the Unix epoch), which
	// every Kubernetes component exposes (k8s.io/component-base
	// metrics/legacyregistry).
	metricProcessStart = "process_start_time_seconds"
)

// DeprecatedMetricsLimit is the most ParseDeprecatedAPIMetrics reads of an
// exposition when given no limit: 16 MiB, several times a large API
// server's /metrics.
const DeprecatedMetricsLimit int64 = 16 << 20

// maxMetricsLine bounds one line of the exposition the parser keeps; a
// longer line of another family is skipped unread.
const maxMetricsLine = 64 << 10

// DeprecatedAPIRequest is one series of apiserver_requested_deprecated_apis:
// a deprecated API some client requested since the window's start. Values
// come from the server: non-printable characters are escaped (sanitizeName).
type DeprecatedAPIRequest struct {
	// Group is "" for the core group.
	Group   string `json:"group"`
	Version string `json:"version"`
	// Resource is the plural resource name ("flowschemas").
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// RemovedRelease is "MAJOR.MINOR", "" when the API server knows of no
	// planned removal.
	RemovedRelease string `json:"removed_release,omitempty"`
}

// DeprecatedAPIMetrics is what an API server's /metrics says of deprecated
// API use.
type DeprecatedAPIMetrics struct {
	// Requests are the series read, sorted by group, version, resource,
	// subresource.
	Requests []DeprecatedAPIRequest `json:"requests"`
	// RequestsComplete is true when Requests is the whole family: read to
	// its end, or the whole exposition read without it (no deprecated API
	// requested in the window). False when the byte bound came first.
	RequestsComplete bool `json:"requests_complete"`
	// WindowKnown is true when process_start_time_seconds was read; then
	// WindowStart is the API server's start, the earliest the gauge can
	// remember. A DELETE /metrics (k8s.io/component-base
	// metrics.HandlerWithReset, which kube-apiserver installs) empties the
	// gauge without moving it, and each API server of a highly available
	// control plane keeps its own: the window is that of the one server
	// that answered, at most this long.
	WindowKnown bool      `json:"window_known"`
	WindowStart time.Time `json:"window_start,omitzero"`
	// Truncated is true when the read stopped at Limit bytes before both
	// families were had.
	Truncated bool  `json:"truncated"`
	Limit     int64 `json:"limit"`
	// BytesRead is how much of the stream was read.
	BytesRead int64 `json:"bytes_read"`
}

// ParseDeprecatedAPIMetrics reads r, a Prometheus text exposition (format
// 0.0.4, what kube-apiserver's /metrics serves to Accept: text/plain), and
// keeps the series of apiserver_requested_deprecated_apis and the value of
// process_start_time_seconds. It reads no more than limit bytes
// (DeprecatedMetricsLimit when limit <= 0), and stops as soon as both
// families have been read and a line of another family follows (the format
// keeps a family's lines together); the result says what was had
// (RequestsComplete, WindowKnown, Truncated). The kept lines are parsed by
// Prometheus' expfmt.
//
// The error names the line: a kept line that does not parse or is longer
// than 64 KiB; a family of another type than gauge (or untyped); a series
// of the deprecated-API gauge listed twice (the same five labels), or with a
// value other than 1, the only one the API server sets; more than one
// process_start_time_seconds, or one that is not a time after the epoch; a
// read error of r.
func ParseDeprecatedAPIMetrics(r io.Reader, limit int64) (DeprecatedAPIMetrics, error) {
	if limit <= 0 {
		limit = DeprecatedMetricsLimit
	}
	res := DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{}, Limit: limit}
	ex, err := keepFamilies(r, limit, deprecatedFamilies)
	res.BytesRead, res.Truncated = ex.bytesRead, ex.truncated
	if err != nil {
		return res, err
	}
	fams, err := ex.parse()
	if err != nil {
		return res, err
	}
	if mf := fams[metricDeprecatedAPIs]; mf != nil {
		reqs, err := deprecatedRequests(mf)
		if err != nil {
			return res, err
		}
		res.Requests = reqs
	}
	if mf := fams[metricProcessStart]; mf != nil {
		start, err := processStart(mf)
		if err != nil {
			return res, err
		}
		res.WindowStart, res.WindowKnown = start, true
	}
	res.RequestsComplete = ex.completed[metricDeprecatedAPIs] || (ex.eof && !ex.truncated)
	return res, nil
}

// deprecatedFamilies are the families ParseDeprecatedAPIMetrics keeps: it
// has what it needs once it has seen both.
var deprecatedFamilies = familySet{
	keep:   func(name string) bool { return name == metricDeprecatedAPIs || name == metricProcessStart },
	enough: func(seen map[string]bool) bool { return seen[metricDeprecatedAPIs] && seen[metricProcessStart] },
}

// familySet says which families of an exposition a parser keeps (keep)
// and when it has enough of them (enough, given the families seen so far):
// the read then stops at the next line of a family it does not keep, the
// format keeping a family's lines together.
type familySet struct {
	keep   func(name string) bool
	enough func(seen map[string]bool) bool
}

// exposition is what keepFamilies had of an exposition: the lines of the
// kept families (their samples and their # HELP and # TYPE lines, each
// with its newline), the line number in the stream of each kept line, and
// how the read ended.
type exposition struct {
	kept  []byte
	lines []int
	// eof: the whole stream was read, within the bound.
	eof bool
	// completed are the families whose lines were all read: a line of
	// another family followed them, or the stream ended after them.
	completed map[string]bool
	// bytesRead is how much of the stream was read; truncated says the
	// bound stopped the read before the set had enough.
	bytesRead int64
	truncated bool
}

// parse parses the kept lines with Prometheus' expfmt; the error names the
// line of the stream that does not parse.
func (ex exposition) parse() (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(ex.kept))
	if err != nil {
		var pe expfmt.ParseError
		if errors.As(err, &pe) && pe.Line >= 1 && pe.Line <= len(ex.lines) {
			return nil, fmt.Errorf("metrics line %d: %s", ex.lines[pe.Line-1], Sanitize(pe.Msg))
		}
		return nil, fmt.Errorf("metrics: %s", Sanitize(err.Error()))
	}
	return fams, nil
}

// keepFamilies reads r line by line, within limit bytes, and keeps the
// lines of the families fs keeps, until fs has enough and a line of
// another family follows, the stream ends, or the bound is reached (see
// exposition). Errors: a kept line longer than maxMetricsLine, a read
// error of r.
func keepFamilies(r io.Reader, limit int64, fs familySet) (exposition, error) {
	var (
		kept    bytes.Buffer
		lineNos []int
		ex      = exposition{completed: map[string]bool{}}
		// seen: the families met; cur: the family of the last line read.
		seen = map[string]bool{}
		cur  string
	)
	done := func() exposition {
		ex.kept, ex.lines = kept.Bytes(), lineNos
		return ex
	}
	counting := &countingReader{r: io.LimitReader(r, limit+1)}
	br := bufio.NewReaderSize(counting, maxMetricsLine)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		long := errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !long && !errors.Is(err, io.EOF) {
			ex.bytesRead = counting.n
			return ex, fmt.Errorf("reading the metrics: %v", err)
		}
		consumed := counting.n - int64(br.Buffered())
		if consumed > limit {
			// The line runs past the bound: it is not read.
			ex.truncated, ex.bytesRead = true, limit
			return done(), nil
		}
		name := lineFamily(line)
		if name != "" && name != cur {
			if cur != "" {
				ex.completed[cur] = true
			}
			cur = name
			if fs.enough(seen) && !fs.keep(name) {
				ex.bytesRead = consumed - int64(len(line))
				return done(), nil
			}
			seen[name] = true
		}
		keep := fs.keep(name)
		if long {
			if keep {
				ex.bytesRead = consumed
				return ex, fmt.Errorf("metrics line %d (%s) is longer than %d KiB", lineNo, name, maxMetricsLine>>10)
			}
			switch err := skipLine(br, counting, limit); {
			case errors.Is(err, errBound):
				ex.truncated, ex.bytesRead = true, limit
				return done(), nil
			case err != nil:
				ex.bytesRead = counting.n
				return ex, fmt.Errorf("reading the metrics: %v", err)
			}
			continue
		}
		if keep {
			kept.Write(line)
			lineNos = append(lineNos, lineNo)
			if errors.Is(err, io.EOF) && len(line) > 0 {
				// The stream ended cleanly after a last line without its
				// newline: the line is whole.
				kept.WriteByte('\n')
			}
		}
		if errors.Is(err, io.EOF) {
			ex.bytesRead = counting.n
			ex.eof = true
			if cur != "" {
				ex.completed[cur] = true
			}
			return done(), nil
		}
	}
}

var errBound = errors.New("byte bound reached")

// skipLine reads and drops the rest of a line longer than br's buffer. It
// returns errBound when the bound is reached first, and nil at the line's
// end or at the end of the stream.
func skipLine(br *bufio.Reader, counting *countingReader, limit int64) error {
	for {
		_, err := br.ReadSlice('\n')
		if counting.n-int64(br.Buffered()) > limit {
			return errBound
		}
		switch {
		case err == nil || errors.Is(err, io.EOF):
			return nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return err
		}
	}
}

// lineFamily returns the metric family a line of the text format belongs
// to: the name of a sample line, the name a # HELP or # TYPE line
// describes, "" for a blank line or another comment. A sample of a
// histogram or summary (name_bucket, name_sum, name_count) is named as
// written, which is enough here: every kept family is a gauge.
func lineFamily(line []byte) string {
	s := bytes.TrimLeft(line, " \t")
	if rest, ok := bytes.CutPrefix(s, []byte("#")); ok {
		rest = bytes.TrimLeft(rest, " \t")
		word, tail, _ := bytes.Cut(rest, []byte(" "))
		if string(word) != "HELP" && string(word) != "TYPE" {
			return ""
		}
		tail = bytes.TrimLeft(tail, " \t")
		if end := bytes.IndexAny(tail, " \t\r\n"); end >= 0 {
			tail = tail[:end]
		}
		return string(tail)
	}
	if end := bytes.IndexAny(s, "{ \t\r\n"); end >= 0 {
		s = s[:end]
	}
	return string(s)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// deprecatedRequests returns the series of the deprecated-API gauge family,
// sorted, refusing a series listed twice or valued other than 1.
func deprecatedRequests(mf *dto.MetricFamily) ([]DeprecatedAPIRequest, error) {
	if err := gaugeFamily(mf); err != nil {
		return nil, err
	}
	seen := map[DeprecatedAPIRequest]bool{}
	reqs := make([]DeprecatedAPIRequest, 0, len(mf.GetMetric()))
	for _, m := range mf.GetMetric() {
		var raw DeprecatedAPIRequest
		for _, lp := range m.GetLabel() {
			switch lp.GetName() {
			case "group":
				raw.Group = lp.GetValue()
			case "version":
				raw.Version = lp.GetValue()
			case "resource":
				raw.Resource = lp.GetValue()
			case "subresource":
				raw.Subresource = lp.GetValue()
			case "removed_release":
				raw.RemovedRelease = lp.GetValue()
			}
		}
		rec := DeprecatedAPIRequest{Group: SanitizeName(raw.Group), Version: SanitizeName(raw.Version),
			Resource: SanitizeName(raw.Resource), Subresource: SanitizeName(raw.Subresource), RemovedRelease: SanitizeName(raw.RemovedRelease)}
		if seen[raw] {
			return nil, fmt.Errorf("metrics: %s lists %s twice", metricDeprecatedAPIs, rec.labels())
		}
		seen[raw] = true
		if v := sampleValue(m); v != 1 {
			return nil, fmt.Errorf("metrics: %s{%s} is %v; the API server sets only 1", metricDeprecatedAPIs, rec.labels(), v)
		}
		reqs = append(reqs, rec)
	}
	sort.Slice(reqs, func(i, j int) bool {
		a, b := reqs[i], reqs[j]
		for _, c := range [][2]string{{a.Group, b.Group}, {a.Version, b.Version}, {a.Resource, b.Resource}, {a.Subresource, b.Subresource}, {a.RemovedRelease, b.RemovedRelease}} {
			if c[0] != c[1] {
				return c[0] < c[1]
			}
		}
		return false
	})
	return reqs, nil
}

// labels writes the series' labels as the exposition does.
func (d DeprecatedAPIRequest) labels() string {
	return fmt.Sprintf("group=%q,version=%q,resource=%q,subresource=%q,removed_release=%q",
		d.Group, d.Version, d.Resource, d.Subresource, d.RemovedRelease)
}

// processStart returns the one process_start_time_seconds sample as a time.
func processStart(mf *dto.MetricFamily) (time.Time, error) {
	if err := gaugeFamily(mf); err != nil {
		return time.Time{}, err
	}
	ms := mf.GetMetric()
	if len(ms) != 1 {
		return time.Time{}, fmt.Errorf("metrics: %d samples of %s, one expected: which start is the window's is not known", len(ms), metricProcessStart)
	}
	v := sampleValue(ms[0])
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v > 1e12 {
		return time.Time{}, fmt.Errorf("metrics: %s is %v, not a time after the Unix epoch", metricProcessStart, v)
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

// gaugeFamily refuses a family typed other than gauge or untyped.
func gaugeFamily(mf *dto.MetricFamily) error {
	switch mf.GetType() {
	case dto.MetricType_GAUGE, dto.MetricType_UNTYPED:
		return nil
	}
	return fmt.Errorf("metrics: %s is a %s, not a gauge", mf.GetName(), strings.ToLower(mf.GetType().String()))
}

func sampleValue(m *dto.Metric) float64 {
	if g := m.GetGauge(); g != nil {
		return g.GetValue()
	}
	return m.GetUntyped().GetValue()
}
