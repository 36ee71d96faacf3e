package topology

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// readScalar reads text, a YAML document holding one scalar somewhere, as
// the string value of key k.
func readScalar(t *testing.T, doc string) (string, error) {
	t.Helper()
	var v struct {
		K string `yaml:"k"`
	}
	err := yaml.Unmarshal([]byte(doc), &v)
	return v.K, err
}

// TestYAMLScalarReadsBack: every string comes back unchanged, in a block
// mapping and in a flow mapping (the discover draft writes both): every
// character of the Basic Multilingual Plane and beyond that YAML forbids raw
// (C0 and C1 controls, DEL, U+FFFE/U+FFFF), the ones YAML 1.1 parsers take
// as line breaks (NEL, LS, PS), the byte order mark, quotes, backslashes,
// indicators, and strings YAML would read as another type.
func TestYAMLScalarReadsBack(t *testing.T) {
	cases := []string{
		"~/.kube/dirqual.config", "kube config #1.yaml", "C:\\kube\\x", "'quoted'", `"dq"`, "- dash", "null", "~", "1.30",
		"true", "a: b", "\ttab", " lead", "trail ", "é/ü", "{x}", "[x]", "a,b", "&anchor", "*alias", "!tag", "%pct", "@at", "`bt",
		"line\nbreak", "cr\rx", "\x7f", "del\x7fin", "\u0085nel", "ls\u2028ps\u2029", "\ufeffbom", "\ufffe", "\uffff", "😀 emoji",
		"\x00nul", "\x1b[31mred", "\u0080\u009f", "\u00a0nbsp", "\ue000private", "\U0010FFFF",
	}
	for r := rune(0); r < 0x3100; r++ {
		cases = append(cases, string(r), "a"+string(r)+"b")
	}
	for _, s := range cases {
		q := YAMLScalar(s)
		for _, doc := range []string{"k: " + q + "\n", "{k: " + q + ", other: 1}\n", "{other: 1, k: " + q + "}"} {
			got, err := readScalar(t, doc)
			if err != nil || got != s {
				t.Errorf("YAMLScalar(%q) = %s; %q reads back as %q, %v", s, q, doc, got, err)
			}
		}
	}
}

// TestSetKubeconfigAnyValue: a value with characters YAML cannot hold raw
// is written escaped, not refused.
func TestSetKubeconfigAnyValue(t *testing.T) {
	for _, v := range []string{"\x7f", "/k/\u0085x", "/k/\u2028", "\ufeff/k", "/k/\x01"} {
		out, err := SetKubeconfig([]byte("name: fuzz\ntarget_kind: prod\n"), v)
		if err != nil {
			t.Errorf("SetKubeconfig(%q): %v", v, err)
			continue
		}
		tp, err := Parse(fuzzPath, out)
		if err != nil || tp.Kubeconfig != v {
			t.Errorf("SetKubeconfig(%q) = %q, which parses to %v, %v", v, out, tp, err)
		}
	}
}
