package e2e

// End-to-end proofs of the machine formats: the built binary, the real API
// servers of the fleet proofs, every format with the same exit codes, each
// SARIF result located at its key in the real stack file, the textfile
// written whole.

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestFleetMachineFormats(t *testing.T) {
	healthy := sharedFixtureCluster(t, healthyFixture)
	drifted := sharedFixtureCluster(t, benchFixture)
	w := fleetWorld(t, healthy, drifted)

	text := w.run(nil, "fleet", "--stacks", w.Stacks, "--detailed-exitcode")
	for _, format := range []string{"sarif", "junit", "prometheus", "markdown", "ics"} {
		r := w.run(nil, "fleet", "--stacks", w.Stacks, "--detailed-exitcode", "-o", format)
		if r.code != text.code {
			t.Errorf("-o %s: exit %d, text exits %d", format, r.code, text.code)
		}
	}

	// SARIF: each result's location, opened in the stack file it names,
	// holds the key it concerns (or, for an undeclared thing, its list).
	s := w.run(nil, "fleet", "--stacks", w.Stacks, "-o", "sarif")
	wantCode(t, s, 0)
	var log struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Invocations        []struct{ ExecutionSuccessful bool }
			Results            []struct {
				RuleID    string `json:"ruleId"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn, EndColumn int }
					}
				}
				Properties struct{ Stack, Key string }
			}
		}
	}
	if err := json.Unmarshal([]byte(s.stdout), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("-o sarif: %v\n%s", err, s.stdout)
	}
	run := log.Runs[0]
	if run.Invocations[0].ExecutionSuccessful {
		t.Error("executionSuccessful with refused, unreachable and invalid stacks")
	}
	drift := 0
	noReport := map[string]bool{}
	for _, res := range run.Results {
		loc := res.Locations[0].PhysicalLocation
		uri := loc.ArtifactLocation.URI
		if base := loc.ArtifactLocation.URIBaseID; base != "" {
			uri = run.OriginalURIBaseIDs[base].URI + uri
		}
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "file" {
			t.Fatalf("%s: location %q", res.RuleID, uri)
		}
		data, err := os.ReadFile(u.Path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		r := loc.Region
		if r.StartLine < 1 || r.StartLine > len(lines) || r.EndColumn < r.StartColumn {
			t.Errorf("%s %s: region %+v", res.Properties.Stack, res.RuleID, r)
			continue
		}
		got := string([]rune(lines[r.StartLine-1])[r.StartColumn-1 : r.EndColumn-1])
		key := res.Properties.Key
		if res.RuleID == "no-report" {
			// A stack that could not be judged is a result where its
			// problem is: an invalid topology's line and column (the
			// message names them), a refused one's endpoint.
			at := fmt.Sprintf(":%d:%d:", r.StartLine, r.StartColumn)
			if got == "" || (res.Properties.Stack == "broken" && !strings.Contains(res.Message.Text, at)) {
				t.Errorf("%s no-report at line %d col %d (%q): %s", res.Properties.Stack, r.StartLine, r.StartColumn, got, res.Message.Text)
			}
			noReport[res.Properties.Stack] = true
			continue
		}
		want := key[strings.LastIndexAny(key, "/.")+1:]
		if got != want && !(strings.Contains(key, "/") && got == key[:strings.Index(key, "/")]) && got != "name" {
			t.Errorf("%s %s (key %s): %s line %d holds %q there", res.Properties.Stack, res.RuleID, key, u.Path, r.StartLine, got)
		}
		if res.Properties.Stack == "drifted" {
			drift++
		}
	}
	if drift == 0 {
		t.Errorf("no result for the drifted stack:\n%s", s.stdout)
	}
	for _, stack := range []string{"broken", "closed", "noep"} {
		if !noReport[stack] {
			t.Errorf("no no-report result for %s, which has no report (code scanning shows results, not notifications)", stack)
		}
	}

	// JUnit: a suite per stack.
	j := w.run(nil, "fleet", "--stacks", w.Stacks, "-o", "junit")
	var suites struct {
		Suites []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(j.stdout), &suites); err != nil || len(suites.Suites) != 7 {
		t.Errorf("-o junit: %v, %d suites\n%s", err, len(suites.Suites), j.stdout)
	}

	// Prometheus into a textfile: written whole, the failed stacks at 0.
	dir := t.TempDir()
	prom := filepath.Join(dir, "nestor.prom")
	p := w.run(nil, "fleet", "--stacks", w.Stacks, "-o", "prometheus", "--output-file", prom)
	wantCode(t, p, 0)
	if p.stdout != "" {
		t.Errorf("stdout with --output-file: %q", p.stdout)
	}
	f, err := os.Open(prom)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	success := map[string]float64{}
	for _, m := range fams["nestor_read_success"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "stack" {
				success[l.GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	for stack, want := range map[string]float64{"healthy": 1, "drifted": 1, "closed": 0, "noep": 0, "broken": 0} {
		if got, ok := success[stack]; !ok || got != want {
			t.Errorf("nestor_read_success{stack=%q} = %v (%v), want %v", stack, got, ok, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the textfile folder holds %v", entries)
	}
}
