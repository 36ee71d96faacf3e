package probes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"

	"nestor.dev/nestor/topology"
)

// The API server's gauges of its storage's size: the database file etcd
// allocated, which compaction does not shrink (a defragmentation does).
const (
	// metricStorageSize is k8s.io/apiserver pkg/storage/etcd3/metrics
	// storageSizeDescription ("Size of the storage database file physically
	// allocated in bytes"), from Kubernetes 1.28 (kubernetes/kubernetes
	// #118812): one series per storage cluster, label storage_cluster_id.
	metricStorageSize = "apiserver_storage_size_bytes"
	// metricStorageDBTotal is its predecessor, deprecated in 1.28: one
	// series per etcd endpoint, label endpoint.
	metricStorageDBTotal = "apiserver_storage_db_total_size_in_bytes"
)

// storageFamilies are the families ParseStorageSize keeps; it has enough
// once the current gauge was seen (the exposition lists families by name,
// the older one first).
var storageFamilies = familySet{
	keep:   func(name string) bool { return name == metricStorageSize || name == metricStorageDBTotal },
	enough: func(seen map[string]bool) bool { return seen[metricStorageSize] },
}

// NoStorageMetricError: the exposition was read and carries neither storage
// gauge (an API server that does not expose it, or whose storage monitor
// failed: the collector then writes no sample).
type NoStorageMetricError struct {
	// Truncated: the byte bound Limit stopped the read first.
	Truncated bool
	Limit     int64
}

func (e *NoStorageMetricError) Error() string {
	s := "the API server's /metrics has no " + metricStorageSize + " (nor " + metricStorageDBTotal + ", before Kubernetes 1.28)"
	if e.Truncated {
		s += " in its first " + byteText(e.Limit)
	}
	return s
}

// ParseStorageSize reads r, a Prometheus text exposition (what
// kube-apiserver's /metrics serves to Accept: text/plain), within limit
// bytes (DeprecatedMetricsLimit when limit <= 0), and returns the size of
// the API server's storage: apiserver_storage_size_bytes when the
// exposition has it, else apiserver_storage_db_total_size_in_bytes; the
// largest of its series (one per storage cluster, or per etcd endpoint
// before 1.28), and how many there were. The kept lines are parsed by
// Prometheus' expfmt (keepFamilies, the reader of
// ParseDeprecatedAPIMetrics). Errors: a line that does not parse (named by
// its number), a family of another type than gauge or untyped, a series
// listed twice or whose value is not a size in bytes, neither family in
// what was read (*NoStorageMetricError).
func ParseStorageSize(r io.Reader, limit int64) (topology.StorageSize, error) {
	if limit <= 0 {
		limit = DeprecatedMetricsLimit
	}
	ex, err := keepFamilies(r, limit, storageFamilies)
	if err != nil {
		return topology.StorageSize{}, err
	}
	fams, err := ex.parse()
	if err != nil {
		return topology.StorageSize{}, err
	}
	for _, name := range []string{metricStorageSize, metricStorageDBTotal} {
		if mf := fams[name]; mf != nil && len(mf.GetMetric()) > 0 {
			return storageSize(mf)
		}
	}
	return topology.StorageSize{}, &NoStorageMetricError{Truncated: ex.truncated, Limit: limit}
}

// storageSize is the largest series of a storage gauge family.
func storageSize(mf *dto.MetricFamily) (topology.StorageSize, error) {
	if err := gaugeFamily(mf); err != nil {
		return topology.StorageSize{}, err
	}
	out := topology.StorageSize{Metric: mf.GetName()}
	seen := map[string]bool{}
	for _, m := range mf.GetMetric() {
		var labels []string
		for _, lp := range m.GetLabel() {
			labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
		}
		sort.Strings(labels)
		id := SanitizeName(strings.Join(labels, ","))
		if seen[id] {
			return topology.StorageSize{}, fmt.Errorf("metrics: %s lists {%s} twice", mf.GetName(), id)
		}
		seen[id] = true
		v := sampleValue(m)
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v >= math.MaxInt64 || v != math.Trunc(v) {
			return topology.StorageSize{}, fmt.Errorf("metrics: %s{%s} is %v, not a size in bytes", mf.GetName(), id, v)
		}
		out.Series++
		if b := uint64(v); b > out.Bytes {
			out.Bytes = b
		}
	}
	return out, nil
}

// ReadStorageSize reads the size of the cluster's storage from its API
// server's /metrics (GET, streamed, ParseStorageSize), within what is left
// of the stack's one deadline and the target's bound, through the target's
// read-only transport. Unknown with the reason when there is no target
// (notReadReason), when the read fails (failReason: "forbidden (…
// nonResourceURLs: ["/metrics"])", "timed out after 10s"), when the
// exposition is refused (answer-refused) or carries no storage gauge
// (not-reported).
func (op *Opened) ReadStorageSize(ctx context.Context) topology.Fact[topology.StorageSize] {
	c, err := op.Target.clients()
	if op.Target == nil || err != nil {
		return topology.UnknownFact[topology.StorageSize](op.notReadReason(err).Prefixed("/metrics was not read: "))
	}
	bctx, cancel, budget := op.Target.bound(ctx)
	defer cancel()
	body, err := c.stream(bctx, pathMetrics, acceptMetrics, nil)
	if err != nil {
		return topology.UnknownFact[topology.StorageSize](failReason(bctx, budget, err).Prefixed("/metrics: "))
	}
	defer body.Close()
	size, err := ParseStorageSize(body, DeprecatedMetricsLimit)
	var none *NoStorageMetricError
	switch {
	case errors.As(err, &none):
		return topology.UnknownFact[topology.StorageSize](topology.Because(topology.ReasonNotReported, none.Error()))
	case err != nil && bctx.Err() != nil:
		return topology.UnknownFact[topology.StorageSize](failReason(bctx, budget, err).Prefixed("/metrics: "))
	case err != nil:
		return topology.UnknownFact[topology.StorageSize](topology.Because(topology.ReasonAnswerRefused, "/metrics: "+Sanitize(err.Error())))
	}
	return topology.KnownFact(size)
}
