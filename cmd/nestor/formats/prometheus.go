package formats

import (
	"io"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/topology"
)

// PrometheusOptions are what the exposition says beside the reports.
type PrometheusOptions struct {
	// ReadAt is when the read finished (nestor_read_timestamp_seconds).
	ReadAt time.Time
}

// The metric names of -o prometheus, stable: README.md ("-o prometheus")
// lists them with their labels and alert rules. Every series has the label
// stack; a stack without a report has nestor_read_success 0 and
// nestor_read_timestamp_seconds only.
const (
	metricReadSuccess   = "nestor_read_success"
	metricReadTimestamp = "nestor_read_timestamp_seconds"
	metricInSync        = "nestor_in_sync"
	metricChanges       = "nestor_plan_changes"
	metricUndeclared    = "nestor_plan_undeclared"
	metricWaiting       = "nestor_plan_waiting"
	metricUnknown       = "nestor_plan_unknown"
	metricFindings      = "nestor_findings"
	metricLayers        = "nestor_layers"
	metricNodesDeclared = "nestor_nodes_declared"
	metricNodesRegister = "nestor_nodes_registered"
	metricNodesReady    = "nestor_nodes_ready"
	metricPoolsDeclared = "nestor_pools_declared"
	metricServerInfo    = "nestor_server_version_info"
	metricEndOfSupport  = "nestor_end_of_support_timestamp_seconds"
	metricHeadroomUsed  = "nestor_headroom_used"
	metricHeadroomLimit = "nestor_headroom_limit"
)

var metricHelp = map[string]string{
	metricReadSuccess:   "1 when nestor read the stack and made its report (parts may still be unknown: nestor_plan_unknown), 0 when it read nothing (no target, every read failed: unknown, invalid, refused, unreachable); status says which.",
	metricReadTimestamp: "When the read finished, in Unix seconds.",
	metricInSync:        "1 when the stack is in sync with its topology: no change, nothing unknown, nothing waiting, a verified plan.",
	metricChanges:       "Plan steps that would change the cluster, by step kind.",
	metricUndeclared:    "Nodes, pools and layers found on the cluster but not declared (information, not changes).",
	metricWaiting:       "Objects the provider is moving (creating, updating, upgrading, scaling): not in sync, not changes.",
	metricUnknown:       "Parts of the actual state that could not be read.",
	metricFindings:      "Findings (versions, support calendars, the provider's objects), by severity.",
	metricLayers:        "Declared layers by state as read now (healthy, degraded, absent, unknown).",
	metricNodesDeclared: "Nodes the topology declares.",
	metricNodesRegister: "Nodes registered in the cluster (absent when the nodes could not be read).",
	metricNodesReady:    "Registered nodes whose Ready condition is True (absent when the nodes could not be read).",
	metricPoolsDeclared: "Node pools the topology declares (kapsule).",
	metricServerInfo:    "1, with the API server's version (kapsule: the cluster's) as labels; absent when not read.",
	metricHeadroomUsed:  "A managed cluster's use of a limit of its offer, by measure (nodes now, at the pools' maxima, at the declared maxima; etcd's size, the file as allocated: an upper bound), in unit; absent when not read.",
	metricHeadroomLimit: "The offer's limit a headroom measure is judged against, in unit: max_nodes or max_etcd_size of the cluster type limit_of names (the running type's, or for the declared maxima the declared scaleway.type's); absent when not read.",
	metricEndOfSupport:  "End of support of the minor the API server (kapsule: the cluster) runs, in Unix seconds: source=upstream from nestor's embedded Kubernetes calendar, source=provider from the provider's API; estimated=true when upstream has published no date.",
}

// WritePrometheus writes d in the Prometheus text exposition format
// (version 0.0.4), as node_exporter's textfile collector reads it: a gauge
// per metric of README.md's list, drawn from each stack's report; a stack
// without one has nestor_read_success 0 (see writePrometheus).
func WritePrometheus(w io.Writer, d action.Documents, o PrometheusOptions) error {
	return writePrometheus(w, d.Docs(), o)
}

// families collects gauges by metric name.
type families map[string]*dto.MetricFamily

// gauge adds a sample of metric name with the label pairs (name, value,
// name, value…).
func (fs families) gauge(name string, v float64, labels ...string) {
	mf, ok := fs[name]
	if !ok {
		mf = &dto.MetricFamily{Name: proto.String(name), Help: proto.String(metricHelp[name]), Type: dto.MetricType_GAUGE.Enum()}
		fs[name] = mf
	}
	m := &dto.Metric{Gauge: &dto.Gauge{Value: proto.Float64(v)}}
	for i := 0; i+1 < len(labels); i += 2 {
		m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(labels[i]), Value: proto.String(labels[i+1])})
	}
	sort.Slice(m.Label, func(i, j int) bool { return m.Label[i].GetName() < m.Label[j].GetName() })
	mf.Metric = append(mf.Metric, m)
}

// writePrometheus encodes the gauges of docs with expfmt, families sorted
// by name. No sample carries a timestamp (the textfile collector refuses
// them); the read's time is the gauge nestor_read_timestamp_seconds.
func writePrometheus(w io.Writer, docs []action.StackDoc, o PrometheusOptions) error {
	fs := families{}
	for _, d := range docs {
		if d.Name == "" {
			// No stack was chosen (interrupted before one was): a series
			// labelled stack="" would be about nothing.
			continue
		}
		stack := []string{"stack", d.Name}
		fs.gauge(metricReadTimestamp, float64(o.ReadAt.UnixMilli())/1000, stack...)
		switch {
		case d.Failed():
			fs.gauge(metricReadSuccess, 0, "stack", d.Name, "status", string(d.Outcome))
			continue
		case !d.Report.Judged():
			// Nothing was read: what the topology declares is known, every
			// series of ACTUAL or of the (unverified) plan is absent.
			fs.gauge(metricReadSuccess, 0, "stack", d.Name, "status", string(d.Outcome))
			declaredGauges(fs, d.Report)
			continue
		}
		fs.gauge(metricReadSuccess, 1, "stack", d.Name, "status", "read")
		gauges(fs, d.Report)
	}
	names := make([]string, 0, len(fs))
	for n := range fs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := expfmt.MetricFamilyToText(w, fs[n]); err != nil {
			return err
		}
	}
	return nil
}

// changeKinds are the step kinds that change a cluster, each always
// written (0 when the plan has none), so an alert's series never vanish.
func changeKinds() []string {
	var out []string
	for _, ri := range FindingRules() {
		if k, ok := strings.CutPrefix(ri.ID, "step/"); ok && k != string(topology.StepUndeclared) {
			out = append(out, k)
		}
	}
	return out
}

// gauges adds r's gauges to fs.
func gauges(fs families, r *action.Report) {
	stack := r.Stack.Name
	s := r.Summary
	fs.gauge(metricInSync, boolGauge(s.InSync), "stack", stack)
	for _, k := range changeKinds() {
		fs.gauge(metricChanges, float64(s.ByKind[k]), "stack", stack, "kind", k)
	}
	fs.gauge(metricUndeclared, float64(s.Undeclared), "stack", stack)
	fs.gauge(metricWaiting, float64(s.Waiting), "stack", stack)
	fs.gauge(metricUnknown, float64(s.Unknown), "stack", stack)
	bySeverity := map[topology.Severity]int{}
	for _, f := range r.Plan.Findings {
		bySeverity[f.Severity]++
	}
	for _, sev := range []topology.Severity{topology.SeverityInfo, topology.SeverityWarning, topology.SeverityError} {
		fs.gauge(metricFindings, float64(bySeverity[sev]), "stack", stack, "severity", string(sev))
	}
	byHealth := r.LayerCounts()
	for _, h := range topology.LayerHealths {
		fs.gauge(metricLayers, float64(byHealth[h]), "stack", stack, "state", string(h))
	}
	declaredGauges(fs, r)
	if n := r.Actual.Nodes; n.Known && !r.Actual.NoTarget {
		fs.gauge(metricNodesRegister, float64(len(n.Value)), "stack", stack)
		fs.gauge(metricNodesReady, float64(topology.CountReady(n.Value)), "stack", stack)
	}
	if server, ok := r.ClusterVersion(); ok {
		fs.gauge(metricServerInfo, 1, "stack", stack, "version", server.Raw, "minor", server.MinorString())
		if sup, ok := r.SupportOf(server); ok && sup.Dated() {
			e := sup.Entry
			fs.gauge(metricEndOfSupport, float64(e.EndOfLife.Unix()), "stack", stack, "source", "upstream", "minor", e.Minor, "estimated", boolLabel(e.Estimated))
		}
		if eol, ok := providerEndOfLife(r); ok {
			fs.gauge(metricEndOfSupport, float64(eol.Unix()), "stack", stack, "source", "provider", "minor", server.MinorString(), "estimated", "false")
		}
	}
	headroomGauges(fs, stack, r.Plan.Headroom)
}

// headroomGauges adds a managed cluster's headroom, each figure of each
// measure only when it was read (a figure not read is absent, never 0).
func headroomGauges(fs families, stack string, h *topology.Headroom) {
	if h == nil {
		return
	}
	for _, m := range h.Measures {
		if m.Used.Known {
			fs.gauge(metricHeadroomUsed, float64(m.Used.Value), "stack", stack, "measure", m.Name, "unit", m.Unit)
		}
		if m.Limit.Known {
			fs.gauge(metricHeadroomLimit, float64(m.Limit.Value), "stack", stack, "measure", m.Name, "unit", m.Unit, "limit_of", m.LimitOf)
		}
	}
}

// declaredGauges adds what the topology declares, known whether or not
// anything was read: its nodes, or its pools.
func declaredGauges(fs families, r *action.Report) {
	if r.Desired.DeclaresPools() {
		fs.gauge(metricPoolsDeclared, float64(len(r.Desired.Pools)), "stack", r.Stack.Name)
	} else {
		fs.gauge(metricNodesDeclared, float64(len(r.Desired.Nodes)), "stack", r.Stack.Name)
	}
}

// providerEndOfLife is the provider's end of life of the cluster's version
// (a managed cluster): its entry in the provider's version list
// (KapsuleObserved.VersionEntry).
func providerEndOfLife(r *action.Report) (time.Time, bool) {
	k := r.Actual.Kapsule
	if k == nil || !k.Cluster.Known {
		return time.Time{}, false
	}
	e, ok := k.VersionEntry(kube.ParseVersion(k.Cluster.Value.Version))
	if !ok || e.EndOfLifeAt == nil {
		return time.Time{}, false
	}
	return *e.EndOfLifeAt, true
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
