package app

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

const repoRoot = "../../.."

// headingMatches: a citation "RUNBOOK.md § X" names heading h when h is X,
// or X is h's first word ("Kapsule" for "Kapsule (managed clusters)") or
// its number ("9" for "9. Rules of the machine outputs").
func headingMatches(x, h string) bool {
	return h == x || strings.HasPrefix(h, x+" ") || strings.HasPrefix(h, x+".")
}

// TestRunbookCitations: every "RUNBOOK.md § X" (or "RUNBOOK §X") the code,
// the example stacks and the other docs cite names a heading of
// RUNBOOK.md, so `nestor next`'s pointers lead somewhere.
func TestRunbookCitations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "RUNBOOK.md"))
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "#") {
			headings = append(headings, strings.TrimSpace(strings.TrimLeft(l, "#")))
		}
	}
	cite := regexp.MustCompile(`RUNBOOK(?:\.md)?\s*§\s*([0-9]+|[A-Za-z][A-Za-z0-9-]*)`)
	n := 0
	err = filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".work" || p == filepath.Join(repoRoot, "tests", "upstream")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".yaml")) || d.Name() == "docs_test.go" {
			return nil // this file writes the citation's pattern, not a citation
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllStringSubmatch(string(text), -1) {
			n++
			if !slices.ContainsFunc(headings, func(h string) bool { return headingMatches(m[1], h) }) {
				t.Errorf("%s cites %q: RUNBOOK.md has no such heading", p, m[0])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("%d citations found: the walk missed the code", n)
	}
}

// docSections returns docs/topology.md's tables: for each heading, the
// keys of its table's first column (`key`), in order.
func docSections(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "topology.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	cur := ""
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			cur = strings.TrimSpace(strings.TrimLeft(l, "#"))
		case row.MatchString(l):
			out[cur] = append(out[cur], row.FindStringSubmatch(l)[1])
		}
	}
	return out
}

// TestTopologyReference: docs/topology.md lists every key the loader
// accepts at every level, in its order, and nothing else
// (topology.Keys: the lists Parse checks keys against), and the layer
// catalog, name for name.
func TestTopologyReference(t *testing.T) {
	doc := docSections(t)
	for at, keys := range topology.Keys() {
		heading := "`" + at + "`"
		if at == "" {
			heading = "Top level"
		}
		if got := doc[heading]; !slices.Equal(got, keys) {
			t.Errorf("docs/topology.md %q lists %v, the loader allows %v", heading, got, keys)
		}
	}
	var names []string
	for _, l := range topology.Catalog() {
		names = append(names, l.Name)
	}
	if got := doc["The layer catalog"]; !slices.Equal(got, names) {
		t.Errorf("docs/topology.md's catalog lists %v, the catalog has %v", got, names)
	}
}

// documented returns the fields of docs/topology.md's block
// <!-- document NAME --> … <!-- end -->.
func documented(t *testing.T, name string) []string {
	t.Helper()
	s := documentedText(t, name)
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// documentedText is the block docs/topology.md marks as document name.
func documentedText(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "topology.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "<!-- document "+name+" -->")
	if i < 0 {
		t.Fatalf("docs/topology.md documents no %s", name)
	}
	s = s[i:]
	return s[:strings.Index(s, "<!-- end -->")]
}

// jsonKeys returns the top-level keys of a JSON document, sorted.
func jsonKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestDocumentsAreDocumented: the documents docs/topology.md describes
// have exactly the fields it lists: next, env, stack list, version and stack show
// as Run prints them, discover's as its model writes every field.
func TestDocumentsAreDocumented(t *testing.T) {
	w := newGoldenWorld(t)
	w.write(t, filepath.Join(w.stacks, "warned.yaml"), "name: warned\ntarget_kind: prod\nnodes:\n  - {name: w1}\nlayers: []\n")
	run := func(args ...string) []byte {
		a, out, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
		if code := Run(a, args); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.Bytes()
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for _, c := range []struct {
		doc  string
		args []string
	}{
		{"next", []string{"next", "dirqual", "-o", "json"}},
		{"env", []string{"env", "dirqual", "-o", "json"}},
		{"stack list", []string{"stack", "list", "-o", "json"}},
		{"version", []string{"version", "-o", "json"}},
	} {
		if got, want := jsonKeys(t, run(c.args...)), sorted(documented(t, c.doc)); !slices.Equal(got, want) && !(c.doc == "next" && slices.Equal(got, slices.DeleteFunc(slices.Clone(want), func(k string) bool { return k == "phase" }))) {
			t.Errorf("%s -o json has %v, docs/topology.md documents %v", c.doc, got, want)
		}
	}
	// stack show: the topology's keys, and the documented ones.
	got := jsonKeys(t, run("stack", "show", "warned", "-o", "json"))
	extra := slices.DeleteFunc(got, func(k string) bool { return slices.Contains(topology.Keys()[""], k) })
	if want := sorted(documented(t, "stack show")); !slices.Equal(extra, want) {
		t.Errorf("stack show -o json has %v beside the topology's keys, docs/topology.md documents %v", extra, want)
	}
	// The error document, every field set.
	raw, err := json.Marshal(&action.Failure{Name: "s", File: "/s/s.yaml", Outcome: action.OutcomeInvalid, Err: errors.New("bad")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonKeys(t, raw), sorted(documented(t, "error")); !slices.Equal(got, want) {
		t.Errorf("the error document has %v, docs/topology.md documents %v", got, want)
	}
	var doc struct{ Error map[string]any }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for k := range doc.Error {
		if !strings.Contains(documentedText(t, "error"), "`"+k+"`") {
			t.Errorf("the error document's error.%s is not documented", k)
		}
	}
	// discover: every field of its model (a kapsule part set, so that
	// nothing is left out as empty).
	raw, err = json.Marshal(action.DiscoverReport{Kapsule: &action.KapsuleDiscovery{}, LayersUnread: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonKeys(t, raw), sorted(documented(t, "discover")); !slices.Equal(got, want) {
		t.Errorf("discover -o json has %v, docs/topology.md documents %v", got, want)
	}
}
