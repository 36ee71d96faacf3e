package topology

// The fuzz target of the topology parser (the one of the kubeconfig:
// insertion is in edit_fuzz_test.go). Run one target with
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s ./topology
//
// (tests/fuzz.sh runs them all). Without -fuzz, `go test` runs each target
// on its seeds and on the inputs kept under testdata/fuzz/FuzzX/, so every
// input that once failed stays a regression test.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fuzzPath is the path every fuzzed topology is parsed as. The seeds are
// renamed to its base name ("fuzz"), so that the valid ones stay valid and
// the fuzzer starts from topologies that parse.
const fuzzPath = "stacks/fuzz.yaml"

var seedNameRE = regexp.MustCompile(`(?m)^name:[ \t]*[^\s#]+`)

// topologySeeds returns every YAML file the repository keeps as test data
// (the topology fixtures, the example stacks, the test clusters, the
// operators' files copied under testdata/seeds), with `name:` set to fuzz,
// each also with CRLF and with CR line ends (YAML reads both), with a BOM and
// without its final newline.
func topologySeeds(f *testing.F) [][]byte {
	f.Helper()
	var files []string
	for _, pattern := range []string{
		"testdata/*.yaml",
		"testdata/seeds/*",
		"../stacks/examples/*.yaml",
		"../tests/testdata/clusters/*.yaml",
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		f.Fatalf("only %d seed files found: %v", len(files), files)
	}
	var seeds [][]byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		data = seedNameRE.ReplaceAll(data, []byte("name: fuzz"))
		lf := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		seeds = append(seeds,
			data,
			bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n")),
			bytes.ReplaceAll(lf, []byte("\n"), []byte("\r")),
			append(append([]byte{}, utf8BOM...), data...),
			bytes.TrimRight(data, "\r\n"),
		)
	}
	return seeds
}

// FuzzParse: Parse never panics; every error is an Errors whose entries
// name the file, a line inside it, a column on that line (YAML syntax
// errors: the line, see syntaxError) and a fix; Parse is deterministic (same
// bytes, same topology or the same error text); a topology that parses,
// written back as YAML, parses to the same topology.
func FuzzParse(f *testing.F) {
	for _, s := range topologySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := Parse(fuzzPath, data)
		tp2, err2 := Parse(fuzzPath, data)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("Parse is not deterministic: %v, then %v", err, err2)
		}
		if err != nil {
			if err.Error() != err2.Error() {
				t.Fatalf("Parse is not deterministic:\n%v\nthen:\n%v", err, err2)
			}
			if tp != nil {
				t.Fatalf("Parse returned a topology with its error: %+v", tp)
			}
			checkErrorPositions(t, data, err)
			return
		}
		if !reflect.DeepEqual(tp, tp2) {
			t.Fatalf("Parse is not deterministic:\n%+v\nthen:\n%+v", tp, tp2)
		}
		checkPositions(t, data, tp)
		again := renderTopology(t, tp)
		tp3, err := Parse(fuzzPath, again)
		if err != nil {
			t.Fatalf("the topology parsed from\n%q\nwritten back as\n%s\ndoes not parse: %v", data, again, err)
		}
		// The load warnings are the same, at their new positions.
		if a, b := warningsAnywhere(tp), warningsAnywhere(tp3); !reflect.DeepEqual(a, b) {
			t.Fatalf("written back and parsed again, the topology differs:\n%+v\n%+v", a, b)
		}
	})
}

// checkErrorPositions checks that err is an Errors whose entries each name
// fuzzPath, a line of data (or the line after its last, where the file
// ends), a column on that line, a message and a fix.
func checkErrorPositions(t *testing.T, data []byte, err error) {
	t.Helper()
	es := AsErrors(err)
	if len(es) == 0 {
		t.Fatalf("error %q (%T) is not a topology.Errors", err, err)
	}
	// YAML 1.1's line breaks, as yaml.v3 counts lines.
	lines := yamlBreakRE.Split(string(bytes.TrimPrefix(data, utf8BOM)), -1)
	for _, e := range es {
		if e.File != fuzzPath {
			t.Errorf("%q: File = %q, want %q", e, e.File, fuzzPath)
		}
		if e.Msg == "" || e.Fix == "" {
			t.Errorf("%q: no message or no fix", e)
		}
		if e.Line < 1 || e.Line > len(lines) {
			t.Errorf("%q: line %d is not a line of the file (%d lines)", e, e.Line, len(lines))
			continue
		}
		if e.Column == 0 && isSyntaxError(e) {
			continue // the YAML library gives the line only (see syntaxError)
		}
		width := utf8.RuneCountInString(lines[e.Line-1])
		if e.Column < 1 || e.Column > width+1 {
			t.Errorf("%q: column %d is not on line %d (%d characters)", e, e.Column, e.Line, width)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

var yamlBreakRE = regexp.MustCompile("\r\n|\r|\n|\u0085|\u2028|\u2029")

func isSyntaxError(e *Error) bool {
	return strings.HasPrefix(e.Msg, "invalid YAML")
}

// renderTopology writes tp back as a topology file: its JSON form (whose
// keys are the file's keys) without path, through yaml.v3's encoder so that
// every string is quoted as YAML needs.
func renderTopology(t *testing.T, tp *Topology) []byte {
	t.Helper()
	j, err := json.Marshal(tp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "path")
	delete(m, "warnings") // said by Parse, not written in the file
	out, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// warningPosition is the FILE:LINE:COL: prefix of a load warning.
var warningPosition = regexp.MustCompile(`^[^:]*:\d+:\d+: `)

// warningsAnywhere returns a copy of tp whose load warnings have lost their
// position (the same topology written another way warns at other lines).
func warningsAnywhere(tp *Topology) *Topology {
	c := *tp
	c.Warnings, c.Positions = nil, nil // the keys move too (checkPositions checks them)
	for _, w := range tp.Warnings {
		c.Warnings = append(c.Warnings, warningPosition.ReplaceAllString(w, ""))
	}
	return &c
}

// TestParseSyntaxErrorLines: a YAML syntax error names the line it is on,
// in every way yaml.v3 words it: a scanner error on the first line (its
// message has no line), a scanner error further down, a parser error (its
// message counts lines from 0), an unclosed flow sequence (the line where it
// opens), an alias of an unknown anchor (with its column).
func TestParseSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"scanner, first line", `name: "fuzz`, `stacks/fuzz.yaml:1: invalid YAML: found unexpected end of stream`},
		{"scanner, first line, CRLF", "name: a: b\r\ntarget_kind: prod\r\n", `stacks/fuzz.yaml:1: invalid YAML: mapping values are not allowed in this context`},
		{"scanner, line 3", "name: fuzz\ntarget_kind: prod\nbackend: a: b\n", `stacks/fuzz.yaml:3: invalid YAML: mapping values are not allowed in this context`},
		{"scanner, tab indent", "name: fuzz\nnodes:\n\t- a\n", `stacks/fuzz.yaml:3:1: invalid YAML: a tab indents this line (found character that cannot start any token) (indent with spaces: YAML does not allow tabs in indentation)`},
		{"scanner, tab after spaces, CRLF", "name: fuzz\r\nnodes:\r\n  \t- a\r\n", `stacks/fuzz.yaml:3:3: invalid YAML: a tab indents this line`},
		{"scanner, tab indent, CR line ends", "name: fuzz\rnodes:\r\t- a\r", `stacks/fuzz.yaml:3:1: invalid YAML: a tab indents this line`},
		{"parser, line 2", "- a\nb: c\n", `stacks/fuzz.yaml:2: invalid YAML: did not find expected '-' indicator`},
		{"parser, line 4", "name: fuzz\ntarget_kind: |\n  prod\n bad\n", `stacks/fuzz.yaml:4: invalid YAML: did not find expected key`},
		{"flow sequence not closed", "name: fuzz\ntarget_kind: prod\nlayers: [a, b\n", `stacks/fuzz.yaml:3: invalid YAML: did not find expected ',' or ']'`},
		{"unknown anchor", "name: fuzz\ntarget_kind: prod\nlayers: [a, \"*nope\", *nope]\n", `stacks/fuzz.yaml:3:22: invalid YAML: unknown anchor 'nope' referenced (define the anchor &nope before this alias, or fix the name)`},
		{"unknown anchor after a CR line end", "name: fuzz\rtarget_kind: prod\rlayers:\r- *nope\r", `stacks/fuzz.yaml:4:3: invalid YAML: unknown anchor 'nope' referenced`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(fuzzPath, []byte(tc.data))
			es := AsErrors(err)
			if len(es) != 1 || !strings.HasPrefix(es[0].Error(), tc.want) {
				t.Fatalf("Parse(%q):\n%v\nwant:\n%s", tc.data, err, tc.want)
			}
		})
	}
}

// TestParseRefusesWhatIsNotYAMLText: bytes that are not UTF-8, characters
// YAML does not allow and UTF-16/32 files are refused at their line and
// column (counted in characters, after a BOM), not as a YAML error without
// a place.
func TestParseRefusesWhatIsNotYAMLText(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"invalid UTF-8 byte", "name: fuzz\ntarget_kind: pr\xffod\n", "stacks/fuzz.yaml:2:16: byte 0xFF is not UTF-8 text (save the file as UTF-8)"},
		{"truncated UTF-8 sequence", "name: fuzz\n# caf\xc3", "stacks/fuzz.yaml:2:6: byte 0xC3 is not UTF-8 text"},
		{"column in characters", "name: fuzz\n# é ü \x01\n", "stacks/fuzz.yaml:2:7: the character U+0001 is not allowed in YAML"},
		{"NUL", "name: fu\x00zz\n", "stacks/fuzz.yaml:1:9: the character U+0000 is not allowed in YAML"},
		{"DEL", "\xef\xbb\xbfname: \x7f\n", "stacks/fuzz.yaml:1:7: the character U+007F is not allowed in YAML"},
		{"C1 control", "name: fuzz\r\ntarget_kind: \u0090\r\n", "stacks/fuzz.yaml:2:14: the character U+0090 is not allowed in YAML"},
		{"U+FFFE", "name: \uFFFE\n", "stacks/fuzz.yaml:1:7: the character U+FFFE is not allowed in YAML"},
		{"UTF-16 LE", "\xff\xfen\x00a\x00", "stacks/fuzz.yaml:1:1: the file is encoded in UTF-16 (save it as UTF-8)"},
		{"UTF-16 BE", "\xfe\xff\x00n\x00a", "stacks/fuzz.yaml:1:1: the file is encoded in UTF-16 (save it as UTF-8)"},
		{"UTF-32 LE", "\xff\xfe\x00\x00n\x00\x00\x00", "stacks/fuzz.yaml:1:1: the file is encoded in UTF-32 (save it as UTF-8)"},
		{"line breaks as YAML counts them", "name: fuzz\rtarget_kind: prod\u2028x: \x02", "stacks/fuzz.yaml:3:4: the character U+0002"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(fuzzPath, []byte(tc.data))
			es := AsErrors(err)
			if len(es) != 1 || !strings.HasPrefix(es[0].Error(), tc.want) {
				t.Fatalf("Parse(%q):\n%v\nwant:\n%s", tc.data, err, tc.want)
			}
		})
	}
	// Allowed: tab, the BOM, a no-break space, characters beyond the BMP.
	if _, err := Parse(fuzzPath, []byte("\xef\xbb\xbfname: fuzz\t# \u00a0 \U0001F600\ntarget_kind: \"prod\"\n")); err != nil {
		t.Errorf("valid text refused: %v", err)
	}
}

// TestParseMergeCycles: a merge key (<<) whose alias names a mapping that
// holds the merge is an error at the alias, wherever it is written (it
// used to recurse until the stack overflowed, killing the process).
func TestParseMergeCycles(t *testing.T) {
	const head = "name: fuzz\ntarget_kind: prod\n"
	for _, tc := range []struct{ name, data, want string }{
		{"itself", head + "kubernetes: &k {<<: *k}\n", "3:21: kubernetes: << merges *k, a mapping that holds this very merge"},
		{"in a merge list", head + "kubernetes: &k {version: \"1.36\", <<: [{}, *k]}\n", "3:43: kubernetes: << merges *k, a mapping that holds this very merge"},
		{"through a list it is in", head + "nodes: &n\n  - {name: a, role: control-plane, <<: *n}\n", "4:40: nodes[0]: << merges *n, a mapping that holds this very merge"},
		{"a list inside a merge list", head + "nodes: &n\n  - &a {name: a, role: control-plane}\n  - {<<: [*a, *n]}\n", "5:15: nodes[1]: << needs a mapping, found a list"},
		{"detect merging itself", head + "layers:\n  - {name: x, detect: &d {<<: *d}}\n", "4:31: layers[0].detect: << merges *d, a mapping that holds this very merge"},
		{"two mappings merging each other", head + "kubernetes: &k\n  version: \"1.36\"\n  <<: [&j {<<: *k}]\n", "5:16: kubernetes: << merges *k, a mapping that holds this very merge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(fuzzPath, []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q):\n%v\nwant an error containing %q", tc.data, err, tc.want)
			}
		})
	}
}

// TestParseMergeExpansionIsLinear: merge keys that alias aliases (each
// level merging the one before ten times: 10^12 pairs if expanded naively)
// are read in linear time, with the meaning YAML gives them.
func TestParseMergeExpansionIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: fuzz\ntarget_kind: prod\nlima:\n  l0: &l0 {version: \"1.36\"}\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {<<: [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	b.WriteString("kubernetes: {<<: *l12}\n")
	done := make(chan error, 1)
	go func() {
		_, err := Parse(fuzzPath, []byte(b.String()))
		done <- err
	}()
	select {
	case err := <-done:
		// lima: is refused for prod, and its l0..l12 are unknown keys; the
		// merged kubernetes: is read.
		es := AsErrors(err)
		if len(es) != 14 || es[0].Field != "lima" || !strings.Contains(err.Error(), `unknown key "l12" in lima`) {
			t.Errorf("errors:\n%v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Parse did not finish in 10s")
	}
	tp, err := Parse(fuzzPath, []byte("name: fuzz\ntarget_kind: prod\nkubernetes:\n  <<: [{version: \"1.30\"}, {version: \"1.31\"}]\n"))
	if err != nil || tp.Kubernetes.Version != "1.30" {
		t.Errorf("the first merged mapping must win: %+v, %v", tp, err)
	}
}
