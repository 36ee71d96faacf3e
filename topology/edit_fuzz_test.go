package topology

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FuzzSetKubeconfig: SetKubeconfig never panics; on a topology that
// parses, it either refuses for a stated reason (a kubeconfig: already set,
// a flow-style top level) or returns the file with exactly one line added
// (or one value filled in), every other byte kept (line ends, BOM), which
// parses to the same topology with Kubeconfig set (a lima stack: refused by
// Parse exactly for its top-level kubeconfig:); a second insertion changes
// nothing.
func FuzzSetKubeconfig(f *testing.F) {
	values := []string{"~/.kube/fuzz.config", "kube config #1.yaml", "C:\\kube\\x", "'quoted'", "- dash", "null", "1.30", "a: b", "\ttab", "é/ü"}
	for i, s := range topologySeeds(f) {
		f.Add(s, values[i%len(values)])
	}
	f.Add([]byte("name: fuzz\ntarget_kind: prod\nkubeconfig:   # fill me\n"), "~/.kube/fuzz.config")
	f.Add([]byte("name: fuzz\ntarget_kind: prod\n\"kubeconfig\": ''\r\n"), "~/.kube/fuzz.config")
	f.Add([]byte("# only comments\n"), "~/.kube/fuzz.config")
	f.Fuzz(func(t *testing.T, data []byte, value string) {
		if value == "" || !utf8.ValidString(value) {
			return // refused before any edit: see TestSetKubeconfigErrors
		}
		out, err := SetKubeconfig(data, value)
		if err == nil && out == nil {
			t.Fatalf("no output and no error")
		}
		if err != nil && out != nil {
			t.Fatalf("output with an error: %v", err)
		}
		tp, perr := Parse(fuzzPath, data)
		if perr != nil {
			return // no promise on a file that does not parse, but no panic
		}
		if err != nil {
			var top yaml.Node
			_ = yaml.Unmarshal(bytes.TrimPrefix(data, utf8BOM), &top)
			flow := len(top.Content) > 0 && top.Content[0].Style&yaml.FlowStyle != 0
			switch {
			case tp.Kubeconfig != "" && strings.Contains(err.Error(), "already set"):
			case flow && strings.Contains(err.Error(), "flow mapping"):
			default:
				t.Fatalf("SetKubeconfig refused a topology that parses:\n%q\n%v", data, err)
			}
			return
		}
		checkOneLineEdit(t, data, out)
		if bytes.HasPrefix(data, utf8BOM) != bytes.HasPrefix(out, utf8BOM) {
			t.Fatalf("the BOM was not kept: %q → %q", data, out)
		}
		tp2, err := Parse(fuzzPath, out)
		if tp.TargetKind == TargetLima {
			es := AsErrors(err)
			if len(es) != 1 || es[0].Field != "kubeconfig" {
				t.Fatalf("lima stack with kubeconfig: inserted: want the one lima error, got %v", err)
			}
		} else {
			if err != nil {
				t.Fatalf("the edited file does not parse:\n%q\n%v", out, err)
			}
			want, got := *tp, *tp2
			want.Kubeconfig = value
			want.Positions, got.Positions = nil, nil // the inserted line moves the keys below it
			if !reflect.DeepEqual(&want, &got) {
				t.Fatalf("the edited file parses to another topology:\n%+v\nwant\n%+v", &got, &want)
			}
		}
		out2, err := SetKubeconfig(out, value)
		if err == nil || out2 != nil || !strings.Contains(err.Error(), "already set") {
			t.Fatalf("a second insertion: %q, %v; want it refused as already set", out2, err)
		}
	})
}

// checkOneLineEdit checks that out is in with one line inserted, or with
// one line changed in place, and that every other line is byte-identical,
// its line end included (lines as YAML counts them; a BOM, checked apart, is
// set aside). The inserted line ends like the file's first line; appended
// after a last line without a line end, it gives that line the file's line
// end and has none itself.
func checkOneLineEdit(t *testing.T, in, out []byte) {
	t.Helper()
	in, out = bytes.TrimPrefix(in, utf8BOM), bytes.TrimPrefix(out, utf8BOM)
	eol := "\n"
	if m := yamlBreakRE.Find(in); m != nil && (string(m) == "\r\n" || string(m) == "\r") {
		eol = string(m)
	}
	inL, outL := splitLines(string(in)), splitLines(string(out))
	k := 0
	for k < len(inL) && k < len(outL) && inL[k] == outL[k] {
		k++
	}
	switch len(outL) - len(inL) {
	case 1:
		// Inserted before line k (which may be a last line without a line
		// end, such as a trailing comment): checked below.
		inserted := isKubeconfigLine(outL[k]) && lineEnd(outL[k]) == eol && reflect.DeepEqual(inL[k:], outL[k+1:])
		if !inserted && k == len(inL)-1 && lineEnd(inL[k]) == "" {
			// Appended after a last line without a line end.
			if outL[k] != inL[k]+eol || !isKubeconfigLine(outL[k+1]) || lineEnd(outL[k+1]) != "" {
				t.Fatalf("append at the end: %q → %q", in, out)
			}
			return
		}
		if !isKubeconfigLine(outL[k]) || lineEnd(outL[k]) != eol {
			t.Fatalf("the inserted line %q is not a kubeconfig: line ending with %q (%q → %q)", outL[k], eol, in, out)
		}
		if !reflect.DeepEqual(inL[k:], outL[k+1:]) {
			t.Fatalf("lines after the insertion changed: %q → %q", in, out)
		}
	case 0:
		if k == len(inL) {
			t.Fatalf("nothing changed: %q", in)
		}
		if !reflect.DeepEqual(inL[k+1:], outL[k+1:]) {
			t.Fatalf("more than line %d changed: %q → %q", k+1, in, out)
		}
		if !isKubeconfigLine(outL[k]) || lineEnd(inL[k]) != lineEnd(outL[k]) {
			t.Fatalf("line %d: %q → %q is not a kubeconfig: value filled in", k+1, inL[k], outL[k])
		}
	default:
		t.Fatalf("the edit changed the line count by %d: %q → %q", len(outL)-len(inL), in, out)
	}
}

// splitLines cuts s into lines, each with its line end (YAML's breaks).
func splitLines(s string) []string {
	var out []string
	start := 0
	for _, m := range yamlBreakRE.FindAllStringIndex(s, -1) {
		out = append(out, s[start:m[1]])
		start = m[1]
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// lineEnd returns the line end of line l ("" for a last line without one).
func lineEnd(l string) string {
	if m := yamlBreakRE.FindStringIndex(l); m != nil && m[1] == len(l) {
		return l[m[0]:]
	}
	return ""
}

var kubeconfigLineRE = regexp.MustCompile(`^[ \t]*("kubeconfig"|'kubeconfig'|kubeconfig)[ \t]*: `)

func isKubeconfigLine(s string) bool {
	return kubeconfigLineRE.MatchString(s)
}

// TestSetKubeconfigLineBreaksAsYAMLCounts: yaml.v3 counts a lone CR, NEL,
// U+2028 and U+2029 as line breaks; the edit counts lines the same way (it
// used to count LF only, and indexed past its line table: a panic), and
// writes the file's own line end.
func TestSetKubeconfigLineBreaksAsYAMLCounts(t *testing.T) {
	const v = "~/.kube/fuzz.config"
	for _, tc := range []struct{ name, in, want string }{
		{"CR line ends", "name: fuzz\rtarget_kind: prod\rlayers: [cilium]\r", "name: fuzz\rtarget_kind: prod\rkubeconfig: ~/.kube/fuzz.config\rlayers: [cilium]\r"},
		{"CR, no final line end", "name: fuzz\rtarget_kind: prod", "name: fuzz\rtarget_kind: prod\rkubeconfig: ~/.kube/fuzz.config"},
		{"CR, last line ends", "name: fuzz\rtarget_kind: prod\r", "name: fuzz\rtarget_kind: prod\rkubeconfig: ~/.kube/fuzz.config\r"},
		{"a lone CR in a comment above", "# a\r# b\nname: fuzz\ntarget_kind: prod\nlayers: []\n", "# a\r# b\nname: fuzz\ntarget_kind: prod\nkubeconfig: ~/.kube/fuzz.config\r" + "layers: []\n"},
		{"NEL", "name: fuzz\u0085target_kind: prod\u0085layers: []\n", "name: fuzz\u0085target_kind: prod\u0085kubeconfig: ~/.kube/fuzz.config\nlayers: []\n"},
		{"U+2028 then fill in place", "name: fuzz\u2028target_kind: prod\nkubeconfig:\u2029layers: []\n", "name: fuzz\u2028target_kind: prod\nkubeconfig: ~/.kube/fuzz.config\u2029layers: []\n"},
		{"fill in place, CR", "name: fuzz\ntarget_kind: prod\nkubeconfig: ~ # later\rlayers: []\n", "name: fuzz\ntarget_kind: prod\nkubeconfig: ~/.kube/fuzz.config # later\rlayers: []\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := SetKubeconfig([]byte(tc.in), v)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got  %q\nwant %q", out, tc.want)
			}
			checkOneLineEdit(t, []byte(tc.in), out)
			tp, err := Parse(fuzzPath, out)
			if err != nil || tp.Kubeconfig != v {
				t.Errorf("the edited file: %+v, %v", tp, err)
			}
		})
	}
}
