package formats

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"

	// The official SARIF 2.1.0 schema, as go-sarif carries it: imported
	// so that its module is a dependency of these tests (and downloaded
	// with them); sarifSchemaText reads the schema from its source.
	_ "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// sarifSchemaPackage is the package of github.com/owenrumney/go-sarif
// (v3.3.1, The Unlicense) whose schema.go holds, as the constant schema,
// OASIS's SARIF 2.1.0 JSON schema (its "id":
// https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json).
const sarifSchemaPackage = "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

// sarifSchema compiles the SARIF 2.1.0 schema read from go-sarif's source
// in the module cache (never a copy in this repository), with format
// assertions on (uri, date-time…).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	pkg, err := build.Import(sarifSchemaPackage, ".", build.FindOnly)
	if err != nil {
		t.Fatalf("finding %s: %v", sarifSchemaPackage, err)
	}
	path := filepath.Join(pkg.Dir, "schema.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "schema" && len(vs.Values) == 1 {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				text, err = strconv.Unquote(lit.Value)
			}
		}
		return true
	})
	if err != nil || !strings.Contains(text, `"id": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"`) {
		t.Fatalf("%s: no SARIF 2.1.0 schema constant (%v)", path, err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateSARIF(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return s.Validate(inst)
}

// sarifDocs are the documents the SARIF tests check: a preview, a
// kapsule preview, a mixed fleet, and the failures (a refusal, an
// invalid topology, no stack at all).
func sarifDocs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	o := SARIFOptions{ToolVersion: "v0.1.0-test", ToolSemanticVersion: "0.1.0-test", InformationURI: "https://nestor.dev/nestor", RunbookURI: "https://nestor.dev/nestor/RUNBOOK.md", SourceRoot: dir}
	out := map[string][]byte{}
	add := func(name string, write func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.Bytes()
	}
	prod, kap, fleet := fixtureProd(t, dir), fixtureKapsule(t, dir), fixtureFleet(t, dir)
	add("preview", func(b *bytes.Buffer) error { return WriteSARIF(b, prod, o) })
	add("kapsule", func(b *bytes.Buffer) error { return WriteSARIF(b, kap, o) })
	add("fleet", func(b *bytes.Buffer) error { return WriteSARIF(b, fleet, o) })
	for _, s := range fleet.Stacks {
		if s.Report == nil {
			f := &action.Failure{Name: s.Name, File: s.File, TargetKind: s.TargetKind, Outcome: s.Outcome, Err: s.Err, Topology: s.Topology}
			add("failure-"+s.Name, func(b *bytes.Buffer) error { return WriteSARIF(b, f, o) })
		}
	}
	none := action.NewFailure(nil, os.ErrNotExist)
	add("failure-nothing", func(b *bytes.Buffer) error { return WriteSARIF(b, none, o) })
	return out
}

// TestSARIFValidatesAgainstSchema: every document validates against the
// official SARIF 2.1.0 schema, and the validator is live (a document
// with a wrong version and a result without a message fails).
func TestSARIFValidatesAgainstSchema(t *testing.T) {
	s := sarifSchema(t)
	for name, data := range sarifDocs(t, t.TempDir()) {
		if err := validateSARIF(t, s, data); err != nil {
			t.Errorf("%s does not validate: %v\n%s", name, err, data)
		}
	}
	for _, bad := range []string{
		`{"version": "2.0.0", "runs": []}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "nestor"}}, "results": [{"ruleId": "x"}]}]}`,
	} {
		if validateSARIF(t, s, []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// sarifDoc is the part of a SARIF log the tests read back.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name, Version, InformationURI string
				Rules                         []struct {
					ID               string `json:"id"`
					ShortDescription struct{ Text string }
					FullDescription  struct{ Text string }
					Help             struct{ Text string }
					HelpURI          string `json:"helpUri"`
				}
			}
		}
		AutomationDetails  struct{ ID string }
		OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
		Invocations        []struct {
			ExecutionSuccessful        bool
			ToolExecutionNotifications []struct {
				Level     string
				Message   struct{ Text string }
				Locations []sarifTestLocation
			}
		}
		Results []struct {
			RuleID              string `json:"ruleId"`
			RuleIndex           int    `json:"ruleIndex"`
			Level               string
			Message             struct{ Text string }
			Locations           []sarifTestLocation
			PartialFingerprints map[string]string
			Properties          struct{ Stack, Key, Reason string }
		}
	}
}

type sarifTestLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		}
		Region struct{ StartLine, StartColumn, EndLine, EndColumn int }
	}
}

func decodeSARIF(t *testing.T, data []byte) sarifDoc {
	t.Helper()
	var d sarifDoc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(d.Runs))
	}
	return d
}

// path resolves a location's URI: %SRCROOT% from the run, or a file: URI.
func (l sarifTestLocation) path(t *testing.T, d sarifDoc) string {
	t.Helper()
	a := l.PhysicalLocation.ArtifactLocation
	uri := a.URI
	if a.URIBaseID != "" {
		base, ok := d.Runs[0].OriginalURIBaseIDs[a.URIBaseID]
		if !ok || !strings.HasSuffix(base.URI, "/") {
			t.Fatalf("uriBaseId %q: %+v", a.URIBaseID, d.Runs[0].OriginalURIBaseIDs)
		}
		uri = base.URI + uri
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("location %q: not a file URI (%v)", uri, err)
	}
	return u.Path
}

// TestSARIFGitHubRequirements checks what GitHub code scanning requires
// beyond the schema ("SARIF support for code scanning"): $schema and
// version; a tool name and rules, each with an id, a short and a full
// description and help text, none empty, descriptions at most 1,024
// characters; each result with a message, a location with a region (start
// line and column, end line and column) and a primaryLocationLineHash; at
// most 25,000 results; one run; relative URIs under %SRCROOT%.
func TestSARIFGitHubRequirements(t *testing.T) {
	dir := t.TempDir()
	for name, data := range sarifDocs(t, dir) {
		d := decodeSARIF(t, data)
		run := d.Runs[0]
		if d.Schema == "" || d.Version != "2.1.0" || run.Tool.Driver.Name != "nestor" || run.Tool.Driver.Version != "v0.1.0-test" || run.AutomationDetails.ID == "" {
			t.Errorf("%s: header %q %q %+v %q", name, d.Schema, d.Version, run.Tool.Driver.Name, run.AutomationDetails.ID)
		}
		rules := run.Tool.Driver.Rules
		if len(rules) != len(FindingRules()) {
			t.Errorf("%s: %d rules, want every rule (%d)", name, len(rules), len(FindingRules()))
		}
		for _, r := range rules {
			if r.ID == "" || r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" ||
				len(r.ShortDescription.Text) > 1024 || len(r.FullDescription.Text) > 1024 {
				t.Errorf("%s: rule %+v", name, r)
			}
			if want := "https://nestor.dev/nestor/RUNBOOK.md#" + strings.ReplaceAll(r.ID, "/", "-"); r.HelpURI != want {
				t.Errorf("%s: rule %s helpUri %q, want %q", name, r.ID, r.HelpURI, want)
			}
		}
		for _, res := range run.Results {
			if res.Message.Text == "" || len(res.Locations) != 1 || res.PartialFingerprints["primaryLocationLineHash"] == "" {
				t.Errorf("%s: result %+v", name, res)
				continue
			}
			if rules[res.RuleIndex].ID != res.RuleID {
				t.Errorf("%s: ruleIndex %d is %s, not %s", name, res.RuleIndex, rules[res.RuleIndex].ID, res.RuleID)
			}
			loc := res.Locations[0].PhysicalLocation
			if loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || strings.Contains(loc.ArtifactLocation.URI, ":") {
				t.Errorf("%s: %q is not relative to %%SRCROOT%%", name, loc.ArtifactLocation.URI)
			}
			if r := loc.Region; r.StartLine < 1 || r.StartColumn < 1 || r.EndLine != r.StartLine || r.EndColumn <= r.StartColumn {
				t.Errorf("%s: %s region %+v", name, res.RuleID, r)
			}
		}
		if len(run.Results) > sarifMaxResults {
			t.Errorf("%s: %d results", name, len(run.Results))
		}
		failed := strings.HasPrefix(name, "failure") || name == "fleet"
		inv := run.Invocations[0]
		if inv.ExecutionSuccessful == failed || failed != (len(inv.ToolExecutionNotifications) > 0) {
			t.Errorf("%s: executionSuccessful %v with notifications %+v", name, inv.ExecutionSuccessful, inv.ToolExecutionNotifications)
		}
	}
}

// TestSARIFLocationOpensTheKey: each result's location, read back from the
// file it names, is the line and column where the key it concerns is
// written: the node, layer or pool name, the version key, …; a refusal's
// notification points at endpoint:, an invalid topology's at its error.
func TestSARIFLocationOpensTheKey(t *testing.T) {
	dir := t.TempDir()
	docs := sarifDocs(t, dir)
	d := decodeSARIF(t, docs["fleet"])
	if len(d.Runs[0].Results) < 10 {
		t.Fatalf("%d results", len(d.Runs[0].Results))
	}
	keyText := func(key string) string {
		if i := strings.Index(key, "/"); i >= 0 {
			return key[i+1:]
		}
		return key[strings.LastIndex(key, ".")+1:]
	}
	at := func(loc sarifTestLocation) string {
		data, err := os.ReadFile(loc.path(t, d))
		if err != nil {
			t.Fatal(err)
		}
		r := loc.PhysicalLocation.Region
		line := []rune(strings.Split(string(data), "\n")[r.StartLine-1])
		end := len(line)
		if r.EndColumn > 0 {
			end = r.EndColumn - 1
		}
		if r.StartColumn < 1 || end > len(line) || r.StartColumn-1 > end {
			t.Fatalf("region %+v is not on line %q", r, string(line))
		}
		return string(line[r.StartColumn-1 : end])
	}
	noReport := 0
	for _, res := range d.Runs[0].Results {
		key := res.Properties.Key
		if res.RuleID == RuleNoReport {
			// A stack that could not be judged: an error result where its
			// problem is (the invalid topology's line and column).
			// problem is: the invalid topology's line and column, the
			// refused stack's endpoint.
			noReport++
			got := at(res.Locations[0])
			switch {
			case res.Level != LevelError:
				t.Errorf("no-report result %+v: level %s, want error", res, res.Level)
			case res.Properties.Stack == "broken" && (got == "" || !strings.HasPrefix("Bad_Node", got)):
				t.Errorf("broken's no-report result at %q, want its Bad_Node", got)
			case res.Properties.Stack == "edge" && (key != topology.KeyEndpoint || !strings.HasPrefix(got, "e")):
				t.Errorf("edge's no-report result at %q (key %s), want its endpoint", got, key)
			case res.Properties.Stack != "broken" && res.Properties.Stack != "edge":
				t.Errorf("no-report result for %s, which has a report", res.Properties.Stack)
			}
			continue
		}
		tp, err := stacks.Load(res.Locations[0].path(t, d))
		if err != nil {
			t.Fatal(err)
		}
		// A key not written (an undeclared node, no backend:) falls back
		// to its list, or to name.
		_, located, _ := Position(tp, key)
		want := keyText(located)
		if (key == "nodes/dirqual9" && located != "nodes") || (key == "layers/cert-manager" && located != "layers") || (key == "backend" && res.Properties.Stack == "apps" && located != "name") {
			t.Errorf("%s located at %s", key, located)
		}
		if got := at(res.Locations[0]); got != want {
			t.Errorf("%s (%s, key %s): the file holds %q there, want %q", res.RuleID, res.Properties.Stack, key, got, want)
		}
	}
	if noReport != 2 {
		t.Errorf("%d no-report results, want broken's and edge's", noReport)
	}
	notes := d.Runs[0].Invocations[0].ToolExecutionNotifications
	if len(notes) != 2 {
		t.Fatalf("notifications %+v, want broken's and edge's", notes)
	}
	for _, n := range notes {
		switch {
		case strings.Contains(n.Message.Text, "Bad_Node"):
			if got := at(n.Locations[0]); !strings.HasPrefix(got, "Bad_Node") {
				t.Errorf("the invalid topology's notification points at %q", got)
			}
		case strings.HasPrefix(n.Message.Text, "edge: refused: "):
			if got := at(n.Locations[0]); got != "endpoint" {
				t.Errorf("the refusal points at %q, want endpoint", got)
			}
		default:
			t.Errorf("notification %+v", n)
		}
	}
}

// TestSARIFFingerprintsStable: the fingerprints do not change when the
// numbers in the messages change or the file's lines move (a re-run does
// not open new alerts), and differ between results of one stack.
func TestSARIFFingerprintsStable(t *testing.T) {
	prints := func(r *action.Report) (map[string]bool, []string) {
		var b bytes.Buffer
		if err := WriteSARIF(&b, r, SARIFOptions{}); err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		var list []string
		for _, res := range decodeSARIF(t, b.Bytes()).Runs[0].Results {
			fp := res.PartialFingerprints["primaryLocationLineHash"]
			set[fp] = true
			list = append(list, fp)
		}
		return set, list
	}
	dir := t.TempDir()
	first, list := prints(fixtureProd(t, dir))
	if len(first) != len(list) || len(list) < 8 {
		t.Fatalf("%d fingerprints for %d results: not all distinct", len(first), len(list))
	}
	// The next read: other numbers in the reasons, two lines added at the
	// top of the file.
	dir2 := t.TempDir()
	r := fixtureProd(t, dir2)
	if err := os.WriteFile(r.Stack.File, []byte("# moved\n# down\n"+prodTopologyText), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := stacks.Load(r.Stack.File)
	if err != nil {
		t.Fatal(err)
	}
	obs := r.Actual
	obs.Layers[1].Reason = "rook-ceph/rook-ceph-osd-1 0/3 available"
	r2 := action.NewReport(kindOf(tp), &probes.Opened{Topology: tp}, obs, fixtureAsOf.AddDate(0, 0, 3))
	second, _ := prints(r2)
	for fp := range first {
		if !second[fp] {
			t.Errorf("fingerprint %s is gone after the numbers and lines changed", fp)
		}
	}
}
