package probes

import (
	"errors"
	"io"
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

// The storage gauges as kube-apiserver writes them: from 1.28,
// apiserver_storage_size_bytes with one series per storage cluster
// (k8s.io/apiserver pkg/storage/etcd3/metrics, label storage_cluster_id);
// before, apiserver_storage_db_total_size_in_bytes per etcd endpoint.
const storageSizeFamily = `# HELP apiserver_storage_size_bytes [STABLE] Size of the storage database file physically allocated in bytes.
# TYPE apiserver_storage_size_bytes gauge
apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 4.1836544e+07
`

const storageDBTotalFamily = `# HELP apiserver_storage_db_total_size_in_bytes [ALPHA] Total size of the storage database file physically allocated in bytes.
# TYPE apiserver_storage_db_total_size_in_bytes gauge
apiserver_storage_db_total_size_in_bytes{endpoint="https://127.0.0.1:2379"} 3.3554432e+07
apiserver_storage_db_total_size_in_bytes{endpoint="https://10.0.0.2:2379"} 3.5651584e+07
`

// errAfter is a stream that fails once its text is read: a parser that
// stops early never sees the failure.
type errAfter struct{ r io.Reader }

func (e errAfter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("the rest of the stream was read")
	}
	return n, err
}

func TestParseStorageSize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want topology.StorageSize
		err  string
	}{
		{name: "1.28 and later", in: apiserverHead + deprecatedFamily + storageSizeFamily + processFamily + tailFamilies,
			want: topology.StorageSize{Bytes: 41836544, Metric: "apiserver_storage_size_bytes", Series: 1}},
		{name: "before 1.28: the largest endpoint", in: apiserverHead + storageDBTotalFamily + processFamily,
			want: topology.StorageSize{Bytes: 35651584, Metric: "apiserver_storage_db_total_size_in_bytes", Series: 2}},
		{name: "both (1.28): the current gauge", in: apiserverHead + storageDBTotalFamily + storageSizeFamily + processFamily,
			want: topology.StorageSize{Bytes: 41836544, Metric: "apiserver_storage_size_bytes", Series: 1}},
		{name: "two storage clusters: the largest", in: storageSizeFamily + `apiserver_storage_size_bytes{storage_cluster_id="etcd-1"} 5e+07` + "\n",
			want: topology.StorageSize{Bytes: 50000000, Metric: "apiserver_storage_size_bytes", Series: 2}},
		{name: "untyped, last line without newline", in: "apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\"} 1234",
			want: topology.StorageSize{Bytes: 1234, Metric: "apiserver_storage_size_bytes", Series: 1}},
		{name: "neither", in: apiserverHead + deprecatedFamily + processFamily, err: "the API server's /metrics has no apiserver_storage_size_bytes (nor apiserver_storage_db_total_size_in_bytes, before Kubernetes 1.28)"},
		{name: "a family with no sample", in: "# TYPE apiserver_storage_size_bytes gauge\n" + processFamily, err: "has no apiserver_storage_size_bytes"},
		{name: "a series twice", in: storageSizeFamily + `apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 5` + "\n", err: `apiserver_storage_size_bytes lists {storage_cluster_id="etcd-0"} twice`},
		{name: "negative", in: `apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} -1` + "\n", err: "is -1, not a size in bytes"},
		{name: "not whole", in: `apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 1.5` + "\n", err: "is 1.5, not a size in bytes"},
		{name: "NaN", in: `apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} NaN` + "\n", err: "is NaN, not a size in bytes"},
		{name: "a counter", in: "# TYPE apiserver_storage_size_bytes counter\napiserver_storage_size_bytes 5\n", err: "apiserver_storage_size_bytes is a counter, not a gauge"},
		{name: "a line that does not parse", in: apiserverHead + "apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\" 5\n", err: "metrics line 4:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStorageSize(strings.NewReader(tc.in), 0)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err == "" && got != tc.want:
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The read stops at the first family after the current gauge: the rest of
// the exposition is never read (a stream that fails after it is not seen).
func TestParseStorageSizeStopsEarly(t *testing.T) {
	r := errAfter{strings.NewReader(apiserverHead + storageSizeFamily + processFamily + tailFamilies)}
	got, err := ParseStorageSize(r, 0)
	if err != nil || got.Bytes != 41836544 {
		t.Fatalf("got %+v, %v", got, err)
	}
	// Without the current gauge, the whole stream is read, its failure said.
	_, err = ParseStorageSize(errAfter{strings.NewReader(apiserverHead + storageDBTotalFamily + processFamily)}, 0)
	if err == nil || !strings.Contains(err.Error(), "reading the metrics") {
		t.Errorf("error %v, want the stream's", err)
	}
}

// Past the byte bound, nothing more is read and the missing gauge says so.
func TestParseStorageSizeBound(t *testing.T) {
	in := apiserverHead + strings.Repeat(tailFamilies, 10) + storageSizeFamily
	_, err := ParseStorageSize(strings.NewReader(in), int64(len(apiserverHead)+20))
	var none *NoStorageMetricError
	if !errors.As(err, &none) || !none.Truncated || !strings.Contains(err.Error(), "in its first") {
		t.Errorf("error %v, want a truncated NoStorageMetricError", err)
	}
}
