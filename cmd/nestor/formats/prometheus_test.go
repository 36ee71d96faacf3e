package formats

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"nestor.dev/nestor/tests/golden"
	"nestor.dev/nestor/topology"
)

// formatsGoldenDir holds the machine formats drawn from the fixtures.
const formatsGoldenDir = "../../../tests/testdata/golden/formats"

// checkGolden compares got with formatsGoldenDir/name byte for byte (-update
// rewrites it). dir, the fixtures' temporary folder, is written DIR there.
func checkGolden(t *testing.T, name, dir string, got []byte) {
	t.Helper()
	got = bytes.ReplaceAll(got, []byte(dir), []byte("DIR"))
	golden.Check(t, filepath.Join(formatsGoldenDir, name), got)
}

func prometheusFleet(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WritePrometheus(&b, fixtureFleet(t, dir), PrometheusOptions{ReadAt: fixtureReadAt}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sample returns the value of metric name whose labels include want, and
// whether there is one.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	mf, ok := fams[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range mf.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		return m.GetGauge().GetValue(), true
	}
	return 0, false
}

// TestPrometheusParsesBack reads the fleet's exposition back with expfmt's
// parser and checks the values against the fixtures: read success per
// stack, in sync, changes by kind, waiting, unknown, layers by state, nodes,
// the server version label, the ends of support, the read's time; a failed
// stack has nestor_read_success 0 and no other gauge but the time.
func TestPrometheusParsesBack(t *testing.T) {
	dir := t.TempDir()
	data := prometheusFleet(t, dir)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	eol137 := float64(time.Date(2027, 10, 28, 0, 0, 0, 0, time.UTC).Unix())
	eolProvider := float64(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC).Unix())
	eol135 := float64(time.Date(2027, 2, 28, 0, 0, 0, 0, time.UTC).Unix())
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{metricReadSuccess, map[string]string{"stack": "dirqual", "status": "read"}, 1},
		{metricReadSuccess, map[string]string{"stack": "apps"}, 1},
		{metricReadSuccess, map[string]string{"stack": "edge", "status": "refused"}, 0},
		{metricReadSuccess, map[string]string{"stack": "broken", "status": "invalid"}, 0},
		{metricReadTimestamp, map[string]string{"stack": "edge"}, float64(fixtureReadAt.Unix())},
		{metricInSync, map[string]string{"stack": "dirqual"}, 0},
		{metricChanges, map[string]string{"stack": "dirqual", "kind": "upgrade-node"}, 3},
		{metricChanges, map[string]string{"stack": "dirqual", "kind": "repair"}, 1},
		{metricChanges, map[string]string{"stack": "dirqual", "kind": "install"}, 0},
		{metricChanges, map[string]string{"stack": "apps", "kind": "replace-node"}, 1},
		{metricUndeclared, map[string]string{"stack": "dirqual"}, 2},
		{metricWaiting, map[string]string{"stack": "apps"}, 1},
		{metricUnknown, map[string]string{"stack": "dirqual"}, 1},
		{metricFindings, map[string]string{"stack": "dirqual", "severity": "error"}, 1},
		{metricLayers, map[string]string{"stack": "dirqual", "state": "degraded"}, 1},
		{metricLayers, map[string]string{"stack": "dirqual", "state": "unknown"}, 1},
		{metricLayers, map[string]string{"stack": "dirqual", "state": "healthy"}, 1},
		{metricNodesDeclared, map[string]string{"stack": "dirqual"}, 2},
		{metricNodesRegister, map[string]string{"stack": "dirqual"}, 3},
		{metricNodesReady, map[string]string{"stack": "dirqual"}, 2},
		{metricPoolsDeclared, map[string]string{"stack": "apps"}, 2},
		{metricServerInfo, map[string]string{"stack": "dirqual", "version": "v1.37.2", "minor": "1.37"}, 1},
		{metricServerInfo, map[string]string{"stack": "apps", "version": "1.35.3", "minor": "1.35"}, 1},
		{metricEndOfSupport, map[string]string{"stack": "dirqual", "source": "upstream", "minor": "1.37", "estimated": "false"}, eol137},
		{metricEndOfSupport, map[string]string{"stack": "apps", "source": "upstream", "minor": "1.35"}, eol135},
		{metricEndOfSupport, map[string]string{"stack": "apps", "source": "provider", "minor": "1.35"}, eolProvider},
	} {
		got, ok := sample(fams, c.name, c.labels)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for name, mf := range fams {
		if mf.GetType() != dto.MetricType_GAUGE || mf.GetHelp() == "" {
			t.Errorf("%s: type %v, help %q", name, mf.GetType(), mf.GetHelp())
		}
		for _, m := range mf.GetMetric() {
			if m.TimestampMs != nil {
				t.Errorf("%s has a timestamp: the textfile collector refuses it", name)
			}
		}
		if name == metricReadSuccess || name == metricReadTimestamp {
			continue
		}
		for _, failed := range []string{"edge", "broken"} {
			if _, ok := sample(fams, name, map[string]string{"stack": failed}); ok {
				t.Errorf("%s has a sample for %s, which was not read", name, failed)
			}
		}
	}
	if _, ok := sample(fams, metricNodesRegister, map[string]string{"stack": "apps"}); ok {
		t.Error("apps' nodes were not read, yet nestor_nodes_registered says a number")
	}
	checkGolden(t, "fleet.prom", dir, data)
}

// TestPrometheusPromtool runs `promtool check metrics` (Debian's
// prometheus package) on the exposition: the metrics' names, help and
// types pass Prometheus' own linter; and `promtool check rules` on the alert
// rules README.md gives. Skipped when promtool is not installed.
func TestPrometheusPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install prometheus)")
	}
	data := prometheusFleet(t, t.TempDir())
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	// The alert rules README.md gives for these metrics.
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```yaml\ngroups:\n")
	rules, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no alert rules block (```yaml groups:)")
	}
	path := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(path, []byte("groups:\n"+rules), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("SUCCESS: %d rules found", strings.Count(rules, "- alert:"))
	if out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput(); err != nil || !strings.Contains(string(out), want) {
		t.Errorf("promtool check rules on README's alert rules: %v\n%s", err, out)
	}
	cmd = exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader("# TYPE nestor_bad counter\nnestor_bad 1\n")
	if out, err := cmd.CombinedOutput(); err == nil && len(out) == 0 {
		t.Error("promtool accepts a counter without _total: the check is not live")
	}
}

// TestPrometheusMetricsInREADME: every metric nestor writes is listed in
// README.md's table, by its name.
func TestPrometheusMetricsInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range metricHelp {
		if !bytes.Contains(readme, []byte("`"+name+"`")) {
			t.Errorf("README.md does not list %s", name)
		}
	}
}

// A headroom figure is a series only when it was read: a limit the offer
// did not give is absent (never 0), and a stack without a managed offer
// has no headroom series at all.
func TestPrometheusHeadroom(t *testing.T) {
	pct := 3
	fs := families{}
	headroomGauges(fs, "apps", &topology.Headroom{Type: "kapsule", WarnPercent: 80, Measures: []topology.HeadroomMeasure{
		{Name: topology.MeasureNodes, Unit: "nodes", Used: topology.KnownFact[uint64](4), Limit: topology.KnownFact[uint64](150), LimitOf: "kapsule", Percent: &pct},
		{Name: topology.MeasureNodesDeclared, Unit: "nodes", Used: topology.KnownFact[uint64](20), Limit: topology.KnownFact[uint64](500), LimitOf: "kapsule-dedicated-8"},
		{Name: topology.MeasureEtcd, Unit: "bytes", Used: topology.KnownFact[uint64](52428800), Limit: topology.UnknownFact[uint64](topology.Because(topology.ReasonForbidden, "forbidden"))},
	}})
	headroomGauges(fs, "dirqual", nil)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{metricHeadroomUsed, map[string]string{"stack": "apps", "measure": "nodes", "unit": "nodes"}, 4},
		{metricHeadroomLimit, map[string]string{"stack": "apps", "measure": "nodes", "unit": "nodes", "limit_of": "kapsule"}, 150},
		{metricHeadroomLimit, map[string]string{"stack": "apps", "measure": "nodes_at_declared_max", "limit_of": "kapsule-dedicated-8"}, 500},
		{metricHeadroomUsed, map[string]string{"stack": "apps", "measure": "etcd", "unit": "bytes"}, 52428800},
	} {
		if got, ok := sample(fs, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if _, ok := sample(fs, metricHeadroomLimit, map[string]string{"measure": "etcd"}); ok {
		t.Errorf("etcd's limit was not read, yet %s has a series for it", metricHeadroomLimit)
	}
	for name, mf := range fs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "stack" && l.GetValue() != "apps" {
					t.Errorf("%s has a series for stack %s, which has no headroom", name, l.GetValue())
				}
			}
		}
	}
}
