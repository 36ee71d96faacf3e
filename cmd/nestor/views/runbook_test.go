package views

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/prod"
	"nestor.dev/nestor/topology"
)

// versionsReport is preview's report of a prod cluster whose API server is
// server and whose kubelets are kubelets, the topology declaring version
// ("" for none), judged at asOf.
func versionsReport(version, server string, asOf time.Time, kubelets ...string) *action.Report {
	return versionsReportWithout("", version, server, asOf, kubelets...)
}

// versionsReportWithout is versionsReport with node undeclared registered
// but not declared in the topology.
func versionsReportWithout(undeclared, version, server string, asOf time.Time, kubelets ...string) *action.Report {
	topo := goldenTopology()
	topo.Kubernetes.Version = version
	topo.Nodes, topo.Layers, topo.Backend = nil, nil, ""
	var nodes []topology.NodeState
	for i, k := range kubelets {
		name := string(rune('a'+i)) + "1"
		if name != undeclared {
			topo.Nodes = append(topo.Nodes, topology.Node{Name: name, Role: topology.RoleControlPlane})
		}
		nodes = append(nodes, topology.NodeState{Name: name, Ready: true, ReadyStatus: "True", Roles: []string{"control-plane"}, KubeletVersion: k})
	}
	obs := &topology.Observed{ServerVersion: topology.KnownFact(server), Nodes: topology.KnownFact(nodes),
		Layers: []topology.LayerState{}, Storage: topology.KnownFact(topology.StorageState{})}
	obs.DeriveVersions()
	return action.NewReport(prod.Kind{}, &probes.Opened{Topology: topo}, obs, asOf)
}

// TestRunbookQuotesTheFindings: each line RUNBOOK.md §8 quotes (a PLAN or
// FINDINGS line, … for the versions and names) is a line preview prints
// for a cluster in that state, and its kind column is the kind of the
// finding printed so (-o json's kind).
func TestRunbookQuotesTheFindings(t *testing.T) {
	data, err := os.ReadFile("../../../RUNBOOK.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(data)
	sec = sec[strings.Index(sec, "## 8. "):]
	sec = sec[:strings.Index(sec, "\n## 9. ")]
	nov := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	reports := []*action.Report{
		versionsReport("1.35", "v1.37.2", nov, "v1.37.2"),
		versionsReport("1.36", "v1.36.3", nov, "v1.36.3", "v1.37.1"),
		versionsReport("", "v1.37.2", nov, "v1.36.4", "v1.34.1", "v1.38.0", "", "v1.33.0"),
		versionsReport("1.37", "v1.30.2", nov, "v1.30.2"),
		versionsReport("", "v1.10.2", nov, "v1.10.2"),
		versionsReport("1.37", "v1.37.2", time.Date(2027, 9, 1, 0, 0, 0, 0, time.UTC), "v1.37.2"),
		versionsReport("", "v1.99.0", nov, "v1.99.0"),
		versionsReport("1.37", "v1.36.2", nov, "v1.36.2"),
		versionsReport("1.38", "v1.37.2", nov, "v1.37.2", "v1.34.1"),
		versionsReportWithout("b1", "1.38", "v1.37.2", nov, "v1.37.2", "v1.34.1"),
	}
	type line struct{ text, kind string }
	var printed []line
	for _, r := range reports {
		var b bytes.Buffer
		renderPlan(&b, r, palette{}, false)
		for _, l := range strings.Split(b.String(), "\n") {
			kind := "step"
			for _, f := range r.Plan.Findings {
				if strings.HasSuffix(l, f.Subject.Text+": "+f.Message) {
					kind = string(f.Kind)
				}
			}
			printed = append(printed, line{l, kind})
		}
	}
	quote := regexp.MustCompile("`([^`]+)`")
	rows := 0
	for _, row := range strings.Split(sec, "\n") {
		cells := strings.Split(row, " | ")
		if !strings.HasPrefix(row, "| `") || len(cells) < 4 {
			continue
		}
		rows++
		kind := strings.Trim(cells[1], "` ")
		for _, q := range quote.FindAllStringSubmatch(cells[0], -1) {
			pat := regexp.QuoteMeta(q[1])
			pat = strings.ReplaceAll(pat, "…", ".*")
			pat = strings.ReplaceAll(pat, `1\.X`, `1\.\d+`)
			pat = strings.ReplaceAll(pat, "NODE", `\S+`)
			re := regexp.MustCompile(pat)
			found := false
			for _, p := range printed {
				if re.MatchString(p.text) && p.kind == kind {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("RUNBOOK §8 quotes %q (%s), which no line preview prints says", q[1], kind)
			}
		}
	}
	if rows < 10 {
		t.Errorf("%d rows read in RUNBOOK §8", rows)
	}
}
