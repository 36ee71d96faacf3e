package probes

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// An exposition shaped as kube-apiserver writes it (client_golang's text
// format 0.0.4, families sorted by name, component-base's "[STABLE]" /
// "[ALPHA]" help prefixes): the deprecated-API gauge as k8s.io/apiserver
// pkg/endpoints/metrics defines it, a histogram between the two kept
// families, and process_start_time_seconds after them.
const apiserverHead = `# HELP aggregator_discovery_aggregation_count_total [ALPHA] Counter of number of times discovery was aggregated
# TYPE aggregator_discovery_aggregation_count_total counter
aggregator_discovery_aggregation_count_total 12
`

const deprecatedFamily = `# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.
# TYPE apiserver_requested_deprecated_apis gauge
apiserver_requested_deprecated_apis{group="",removed_release="",resource="endpoints",subresource="",version="v1"} 1
apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1
apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="status",version="v1beta3"} 1
`

const middleFamilies = `# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1",le="0.005"} 3
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1",le="+Inf"} 4
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 0.0431
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 4
# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 1432
`

const processFamily = `# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.76450112e+09
`

const tailFamilies = `# HELP process_virtual_memory_bytes [ALPHA] Virtual memory size in bytes.
# TYPE process_virtual_memory_bytes gauge
process_virtual_memory_bytes 1.4e+09
`

var (
	reqEndpoints  = DeprecatedAPIRequest{Group: "", Version: "v1", Resource: "endpoints"}
	reqFlow       = DeprecatedAPIRequest{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Resource: "flowschemas", RemovedRelease: "1.32"}
	reqFlowStatus = DeprecatedAPIRequest{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Resource: "flowschemas", Subresource: "status", RemovedRelease: "1.32"}
	started       = time.Unix(1764501120, 0).UTC()
)

func TestParseDeprecatedAPIMetrics(t *testing.T) {
	full := apiserverHead + deprecatedFamily + middleFamilies + processFamily + tailFamilies
	tests := []struct {
		name     string
		in       string
		limit    int64
		want     DeprecatedAPIMetrics
		wantRead int64 // -1: the whole input
	}{
		{
			name: "both families, the read stops after them",
			in:   full,
			want: DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true,
				WindowKnown: true, WindowStart: started},
			wantRead: int64(len(full) - len(tailFamilies)),
		},
		{
			name:     "no deprecated API requested: the family is absent, known once the whole stream is read",
			in:       apiserverHead + middleFamilies + processFamily + tailFamilies,
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{}, RequestsComplete: true, WindowKnown: true, WindowStart: started},
			wantRead: -1,
		},
		{
			name:     "no process start: the window is unknown",
			in:       apiserverHead + deprecatedFamily + middleFamilies,
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true},
			wantRead: -1,
		},
		{
			name: "the bound before the deprecated family ends: incomplete, truncated",
			in:   full,
			// The head, the family's two comment lines and its first sample.
			limit:    int64(len(apiserverHead) + strings.Index(deprecatedFamily, "apiserver_requested_deprecated_apis{group=\"flow")),
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints}, Truncated: true},
			wantRead: int64(len(apiserverHead) + strings.Index(deprecatedFamily, "apiserver_requested_deprecated_apis{group=\"flow")),
		},
		{
			name:     "the bound in the middle of a line: the line is not read",
			in:       full,
			limit:    int64(len(apiserverHead) + strings.Index(deprecatedFamily, "apiserver_requested_deprecated_apis{group=\"flow") + 10),
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints}, Truncated: true},
			wantRead: int64(len(apiserverHead) + strings.Index(deprecatedFamily, "apiserver_requested_deprecated_apis{group=\"flow") + 10),
		},
		{
			name:  "the bound after the deprecated family, before the process start: requests complete, window unknown",
			in:    full,
			limit: int64(len(apiserverHead + deprecatedFamily + middleFamilies)),
			want: DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true,
				Truncated: true},
			wantRead: int64(len(apiserverHead + deprecatedFamily + middleFamilies)),
		},
		{
			name:     "a stream exactly as long as the bound is whole",
			in:       apiserverHead + deprecatedFamily,
			limit:    int64(len(apiserverHead + deprecatedFamily)),
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true},
			wantRead: -1,
		},
		{
			name: "the last line without its newline",
			in:   apiserverHead + deprecatedFamily + strings.TrimSuffix(processFamily, "\n"),
			want: DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true,
				WindowKnown: true, WindowStart: started},
			wantRead: -1,
		},
		{
			name: "untyped families, labels in another order, a missing label is empty, extra labels ignored, a fractional start",
			in: "apiserver_requested_deprecated_apis{version=\"v1beta3\",resource=\"flowschemas\",group=\"flowcontrol.apiserver.k8s.io\",removed_release=\"1.32\",instance=\"a\"} 1\n" +
				"process_start_time_seconds 1764501120.25\n",
			want: DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqFlow}, RequestsComplete: true,
				WindowKnown: true, WindowStart: started.Add(250 * time.Millisecond)},
			wantRead: -1,
		},
		{
			name: "a very long line of another family is skipped",
			in:   "# HELP big a long one\nbig{x=\"" + strings.Repeat("y", 3*maxMetricsLine) + "\"} 1\n" + deprecatedFamily + processFamily + tailFamilies,
			want: DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true,
				WindowKnown: true, WindowStart: started},
			wantRead: int64(len("# HELP big a long one\nbig{x=\"" + strings.Repeat("y", 3*maxMetricsLine) + "\"} 1\n" + deprecatedFamily + processFamily)),
		},
		{
			name:     "a very long line of another family running past the bound",
			in:       deprecatedFamily + "big{x=\"" + strings.Repeat("y", 3*maxMetricsLine) + "\"} 1\n" + processFamily,
			limit:    int64(len(deprecatedFamily) + 2*maxMetricsLine),
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{reqEndpoints, reqFlow, reqFlowStatus}, RequestsComplete: true, Truncated: true},
			wantRead: int64(len(deprecatedFamily) + 2*maxMetricsLine),
		},
		{
			name:     "empty stream",
			in:       "",
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{}, RequestsComplete: true},
			wantRead: 0,
		},
		{
			name:     "a name that only starts like a kept one is another family",
			in:       "apiserver_requested_deprecated_apis_total{group=\"\"} 3\nprocess_start_time_seconds_x 4\n" + processFamily,
			want:     DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{}, RequestsComplete: true, WindowKnown: true, WindowStart: started},
			wantRead: -1,
		},
		{
			name: "label values with control characters are escaped",
			in:   "apiserver_requested_deprecated_apis{group=\"evil\\n\x1b[2J\",version=\"v1\",resource=\"x\"} 1\n",
			want: DeprecatedAPIMetrics{Requests: []DeprecatedAPIRequest{{Group: `evil\n\x1b[2J`, Version: "v1", Resource: "x"}},
				RequestsComplete: true},
			wantRead: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDeprecatedAPIMetrics(strings.NewReader(tt.in), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Limit = tt.limit
			if want.Limit <= 0 {
				want.Limit = DeprecatedMetricsLimit
			}
			want.BytesRead = tt.wantRead
			if tt.wantRead < 0 {
				want.BytesRead = int64(len(tt.in))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestParseDeprecatedAPIMetricsRefuses(t *testing.T) {
	series := `apiserver_requested_deprecated_apis{group="",removed_release="",resource="endpoints",subresource="",version="v1"} 1` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"the same series twice", deprecatedFamily + series,
			`apiserver_requested_deprecated_apis lists group="",version="v1",resource="endpoints",subresource="",removed_release="" twice`},
		{"the same five labels twice, an extra label apart",
			`apiserver_requested_deprecated_apis{group="",version="v1",resource="endpoints",instance="a"} 1` + "\n" +
				`apiserver_requested_deprecated_apis{group="",version="v1",resource="endpoints",instance="b"} 1` + "\n",
			"lists group=\"\",version=\"v1\",resource=\"endpoints\",subresource=\"\",removed_release=\"\" twice"},
		{"a value other than 1",
			`apiserver_requested_deprecated_apis{group="",version="v1",resource="endpoints"} 2` + "\n",
			"is 2; the API server sets only 1"},
		{"a counter", "# TYPE apiserver_requested_deprecated_apis counter\n" + series, "apiserver_requested_deprecated_apis is a counter, not a gauge"},
		{"two process starts", "process_start_time_seconds{a=\"1\"} 1.7e9\nprocess_start_time_seconds{a=\"2\"} 1.8e9\n",
			"2 samples of process_start_time_seconds, one expected"},
		{"a process start before the epoch", "process_start_time_seconds -5\n", "process_start_time_seconds is -5, not a time after the Unix epoch"},
		{"a process start that is not a number", "process_start_time_seconds NaN\n", "process_start_time_seconds is NaN"},
		{"a kept line that does not parse, with its line in the stream", apiserverHead + "apiserver_requested_deprecated_apis{group=\"\" 1\n",
			"metrics line 4: "},
		{"a kept line longer than the line bound", "apiserver_requested_deprecated_apis{group=\"" + strings.Repeat("g", maxMetricsLine) + "\"} 1\n",
			"metrics line 1 (apiserver_requested_deprecated_apis) is longer than 64 KiB"},
		{"a second TYPE line for a kept family",
			"# TYPE process_start_time_seconds gauge\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1.7e9\n",
			"metrics line 2: second TYPE line for metric name \"process_start_time_seconds\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDeprecatedAPIMetrics(strings.NewReader(tt.in), 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// A read error of the stream is an error, not a short exposition.
func TestParseDeprecatedAPIMetricsReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader(deprecatedFamily), errReader{errors.New("connection reset by peer")})
	_, err := ParseDeprecatedAPIMetrics(r, 0)
	if err == nil || !strings.Contains(err.Error(), "connection reset by peer") {
		t.Fatalf("error %v, want the read error", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// The reader is never read past the bound (+1 byte, to tell a stream of
// exactly the bound from a longer one).
func TestParseDeprecatedAPIMetricsReadsNoMoreThanTheBound(t *testing.T) {
	src := &countingReader{r: strings.NewReader(apiserverHead + strings.Repeat(middleFamilies, 1000))}
	got, err := ParseDeprecatedAPIMetrics(src, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || got.RequestsComplete || src.n > 4097 {
		t.Fatalf("truncated %v, complete %v, %d bytes read from the source; want true, false, at most 4097", got.Truncated, got.RequestsComplete, src.n)
	}
}

func TestLineFamily(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# HELP go_goroutines Number of goroutines.\n", "go_goroutines"},
		{"# TYPE go_goroutines gauge\n", "go_goroutines"},
		{"# some comment\n", ""},
		{"#\n", ""},
		{"\n", ""},
		{"go_goroutines 12\n", "go_goroutines"},
		{"go_goroutines\t12\n", "go_goroutines"},
		{"a_bucket{le=\"1\"} 3\n", "a_bucket"},
		{"no_newline 1", "no_newline"},
		{"{\"utf8.name\"} 1\n", ""},
	}
	for _, tt := range tests {
		if got := lineFamily([]byte(tt.in)); got != tt.want {
			t.Errorf("lineFamily(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkParseDeprecatedAPIMetrics parses an exposition of about 4 MiB
// (twice a fresh kube-apiserver's /metrics) whose process start comes last,
// so the whole stream is read; it reports the bytes per second.
func BenchmarkParseDeprecatedAPIMetrics(b *testing.B) {
	in := apiserverHead + deprecatedFamily + strings.Repeat(middleFamilies, 4<<20/len(middleFamilies)) + processFamily
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := ParseDeprecatedAPIMetrics(strings.NewReader(in), 0)
		if err != nil || !got.WindowKnown || len(got.Requests) != 3 {
			b.Fatalf("%+v, %v", got, err)
		}
	}
}
