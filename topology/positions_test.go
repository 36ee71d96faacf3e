package topology

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// sourceAt returns the text of data at pos: from its column to the end of
// its line, or its Width characters when known. Lines break as YAML breaks
// them (CRLF, LF, CR); columns count characters.
func sourceAt(t *testing.T, data []byte, pos Position) string {
	t.Helper()
	lines := regexp.MustCompile("\r\n|\n|\r").Split(strings.TrimPrefix(string(data), "\uFEFF"), -1)
	if pos.Line < 1 || pos.Line > len(lines) {
		t.Fatalf("line %d: the file has %d lines", pos.Line, len(lines))
	}
	runes := []rune(lines[pos.Line-1])
	if pos.Column < 1 || pos.Column > len(runes) {
		t.Fatalf("line %d %q has no column %d", pos.Line, lines[pos.Line-1], pos.Column)
	}
	rest := runes[pos.Column-1:]
	if pos.Width > 0 {
		if pos.Width > len(rest) {
			t.Fatalf("line %d: width %d past the end of %q", pos.Line, pos.Width, string(rest))
		}
		rest = rest[:pos.Width]
	}
	return string(rest)
}

// TestPositionsHoldTheKey parses real files and checks, for every key kind
// a plan item can concern, that the file read at the reported line and
// column holds that key (a top-level or kubernetes key: its name; a node,
// layer or pool: its name as written, quotes included), and that no other
// key is reported.
func TestPositionsHoldTheKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		file string
		// want maps each key to the text that must stand at its position.
		want map[string]string
	}{
		{file: "testdata/valid-dirqual.yaml", want: map[string]string{
			KeyName: "name", KeyTargetKind: "target_kind", KeyKubeconfig: "kubeconfig", KeyEndpoint: "endpoint",
			KeyKubernetes: "kubernetes", KeyVersion: "version", "inventory": "inventory", KeyNodes: "nodes",
			KeyBackend: "backend", KeyLayers: "layers",
			NodeKey("dirqual1"): "dirqual1", NodeKey("dirqual2"): "dirqual2", NodeKey("dirqual3"): "dirqual3", NodeKey("dirqual4"): "dirqual4",
			LayerKey("cilium"): "cilium", LayerKey("rook-ceph"): "rook-ceph", LayerKey("cnpg"): "cnpg",
			LayerKey("kube-prometheus-stack"): "kube-prometheus-stack", LayerKey("argocd"): "argocd", LayerKey("mlflow"): "mlflow",
		}},
		{file: "testdata/valid-kapsule.yaml", want: map[string]string{
			KeyName: "name", KeyTargetKind: "target_kind", KeyScaleway: "scaleway", KeyKubeconfig: "kubeconfig", KeyEndpoint: "endpoint",
			KeyKubernetes: "kubernetes", KeyVersion: "version", KeyAutoUpgrade: "auto_upgrade", KeyPools: "pools", KeyLayers: "layers",
			PoolKey("default"): "default", PoolKey("burst"): "burst",
			LayerKey("traefik"): "traefik", LayerKey("argocd"): "argocd", LayerKey("external-secrets"): "external-secrets",
		}},
		{file: "testdata/valid-bench.yaml", want: map[string]string{
			KeyName: "name", KeyTargetKind: "target_kind", "lima": "lima", KeyNodes: "nodes", KeyBackend: "backend", KeyLayers: "layers",
			// lima-node2 merges lima-node1's mapping and overrides its name.
			NodeKey("lima-node1"): "lima-node1", NodeKey("lima-node2"): "lima-node2",
			LayerKey("flannel"): "flannel", LayerKey("local-path"): "local-path",
		}},
		{file: "testdata/valid-crlf.yaml", want: nil}, // checked below: CRLF lines
		{file: write("quoted.yaml", "\uFEFF# a BOM, quotes, a dotted node name, non-ASCII before a key\n"+
			"name: quoted\ntarget_kind: prod\nendpoint: \"https://10.0.0.1:6443\"\n"+
			"nodes:\n  - {name: \"node-a.example.com\", role: control-plane}\n  - {role: worker, name: 'node-b'}\n"+
			"layers: [cilium, {name: \"mlflow\", detect: {namespace: mlflow}}]   # é\n"+
			"\"kubernetes\": {\"version\": '1.37'}\n"), want: map[string]string{
			KeyName: "name", KeyTargetKind: "target_kind", KeyEndpoint: "endpoint", KeyNodes: "nodes", KeyLayers: "layers",
			KeyKubernetes: `"kubernetes"`, KeyVersion: `"version"`,
			NodeKey("node-a.example.com"): `"node-a.example.com"`, NodeKey("node-b"): "'node-b'",
			LayerKey("cilium"): "cilium", LayerKey("mlflow"): `"mlflow"`,
		}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			data, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			tp, err := Parse(c.file, data)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == nil { // every line ends in CRLF
				want = map[string]string{KeyName: "name", KeyTargetKind: "target_kind", KeyKubernetes: "kubernetes", KeyVersion: "version", KeyLayers: "layers"}
				for _, l := range tp.Layers {
					want[LayerKey(l.Name)] = l.Name
				}
			}
			var got []string
			for k := range tp.Positions {
				got = append(got, k)
			}
			sort.Strings(got)
			for _, k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("position of %q reported, not expected", k)
				}
			}
			for key, text := range want {
				pos, ok := tp.PositionOf(key)
				if !ok {
					t.Errorf("no position for %q", key)
					continue
				}
				if pos.Width == 0 {
					t.Errorf("%q at %d:%d: width not known", key, pos.Line, pos.Column)
				}
				if at := sourceAt(t, data, pos); at != text {
					t.Errorf("%q at %d:%d (width %d): the file holds %q there, want %q", key, pos.Line, pos.Column, pos.Width, at, text)
				}
			}
		})
	}
}

// TestPositionWidthEscaped: a name written with an escape takes more
// characters than its value; its width is measured in the source. A quote
// not closed on its line gives no width (never a guess).
func TestPositionWidthEscaped(t *testing.T) {
	data := []byte("name: esc\ntarget_kind: prod\nnodes:\n  - {name: \"node\\x2da\", role: control-plane}\n  - {name: 'it''s-b', role: worker}\n")
	tp, err := Parse("/stacks/esc.yaml", data)
	if err == nil {
		t.Fatal("it's-b is not a node name; want the load error")
	}
	data = []byte("name: esc\ntarget_kind: prod\nnodes:\n  - {name: \"node\\x2da\", role: control-plane}\n")
	if tp, err = Parse("/stacks/esc.yaml", data); err != nil {
		t.Fatal(err)
	}
	pos, ok := tp.PositionOf(NodeKey("node-a"))
	if !ok || pos.Line != 4 || pos.Column != 12 || sourceAt(t, data, pos) != `"node\x2da"` {
		t.Errorf("position = %+v, %v; want line 4 column 12 holding \"node\\x2da\"", pos, ok)
	}
	for _, c := range []struct {
		text string
		want int
	}{{`"a\"b" x`, 6}, {`'a''b' x`, 6}, {`"open`, 0}, {"'open\n'", 0}, {"plain", 0}, {"", 0}} {
		if got := quotedWidth([]rune(c.text)); got != c.want {
			t.Errorf("quotedWidth(%q) = %d, want %d", c.text, got, c.want)
		}
	}
	if _, ok := (&Topology{}).PositionOf(KeyName); ok {
		t.Error("a topology built in code has a position")
	}
}

// checkPositions checks that every position of tp, parsed from data, is in
// data and holds its key: the key's last part (a top-level or kubernetes key,
// a node, layer or pool name) written plain, or a quoted scalar of the width
// reported. The fuzzer (FuzzParse) runs it on every input that parses.
func checkPositions(t *testing.T, data []byte, tp *Topology) {
	t.Helper()
	for key, pos := range tp.Positions {
		name := key[strings.LastIndexAny(key, "./")+1:]
		if i := strings.Index(key, "/"); i >= 0 {
			name = key[i+1:] // a node name may hold dots
		}
		src := sourceAt(t, data, pos)
		switch {
		case pos.Width == 0:
		case src[0] == '"' || src[0] == '\'':
			if len(src) < 2 || src[len(src)-1] != src[0] {
				t.Fatalf("%q at %d:%d: %q is not a quoted scalar", key, pos.Line, pos.Column, src)
			}
		case src != name:
			t.Fatalf("%q at %d:%d: the file holds %q there", key, pos.Line, pos.Column, src)
		}
	}
}
