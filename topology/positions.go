package topology

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Position is where a key of the topology file was written: the 1-based
// Line and Column of its first character (columns count characters, as
// yaml.v3 counts them: Unicode code points, a BOM not counted), and Width,
// the number of characters its text takes on that line (the quotes of a
// quoted scalar included), or 0 when that is not known (a scalar whose
// source text differs from its value: escapes, folded lines).
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Width  int `json:"width,omitempty"`
}

// The keys of Topology.Positions, one per thing a plan item can concern:
//
//	name, target_kind, kubeconfig, endpoint, backend   the top-level key
//	kubernetes, kubernetes.version, kubernetes.auto_upgrade
//	scaleway                                           the scaleway: key (kapsule)
//	nodes, layers, pools                               the list's key
//	nodes/NAME, layers/NAME, pools/NAME                the entry's name as written
const (
	KeyName        = "name"
	KeyTargetKind  = "target_kind"
	KeyKubeconfig  = "kubeconfig"
	KeyEndpoint    = "endpoint"
	KeyBackend     = "backend"
	KeyKubernetes  = "kubernetes"
	KeyVersion     = "kubernetes.version"
	KeyAutoUpgrade = "kubernetes.auto_upgrade"
	KeyScaleway    = "scaleway"
	KeyNodes       = "nodes"
	KeyLayers      = "layers"
	KeyPools       = "pools"
)

// NodeKey, LayerKey and PoolKey are the Positions keys of a declared node,
// layer or pool ("nodes/dirqual1").
func NodeKey(name string) string  { return KeyNodes + "/" + name }
func LayerKey(name string) string { return KeyLayers + "/" + name }
func PoolKey(name string) string  { return KeyPools + "/" + name }

// PositionOf returns where key (see the Key constants, NodeKey, LayerKey,
// PoolKey) was written in the file t was parsed from, and whether it was.
// A topology built in code, not parsed, has no positions.
func (t *Topology) PositionOf(key string) (Position, bool) {
	if t == nil {
		return Position{}, false
	}
	p, ok := t.Positions[key]
	return p, ok
}

// setPosition records where key was written: at node n (a key, or a scalar
// naming an entry). The first position recorded for a key is kept (a
// duplicate name is an error of its own, reported at the second).
func (t *Topology) setPosition(key string, n *yaml.Node) {
	if n == nil || n.Line == 0 {
		return
	}
	if t.Positions == nil {
		t.Positions = map[string]Position{}
	}
	if _, seen := t.Positions[key]; seen {
		return
	}
	t.Positions[key] = Position{Line: n.Line, Column: n.Column, Width: scalarWidth(n)}
}

// scalarWidth is how many characters scalar n takes in the source when its
// value says it: a plain scalar on one line is its value. A quoted scalar
// is measured in the source (measurePositions); anything else (block
// scalars, line folding, a mapping or list) is 0: not known.
func scalarWidth(n *yaml.Node) int {
	if n.Kind != yaml.ScalarNode || n.Style != 0 || strings.ContainsAny(n.Value, "\n\r") {
		return 0
	}
	return utf8.RuneCountInString(n.Value)
}

// measurePositions sets the Width of the positions of quoted scalars from
// data, the file's text: from the opening quote to its closing quote on the
// same line, escapes (” in single quotes, \x in double quotes) skipped. A
// quote not closed on its line leaves the width unknown (0).
func (t *Topology) measurePositions(data []byte) {
	var starts []int // each line's start (edit.go's lineStarts)
	for key, pos := range t.Positions {
		if pos.Width != 0 {
			continue
		}
		if starts == nil {
			starts = lineStarts(data)
		}
		if pos.Line > len(starts) {
			continue
		}
		line := data[starts[pos.Line-1]:]
		if pos.Line < len(starts) {
			line = data[starts[pos.Line-1]:starts[pos.Line]]
		}
		text := []rune(string(line))
		if pos.Line == 1 && len(text) > 0 && text[0] == '\uFEFF' {
			text = text[1:] // yaml.v3 does not count the BOM
		}
		if pos.Column < 1 || pos.Column > len(text) {
			continue
		}
		pos.Width = quotedWidth(text[pos.Column-1:])
		t.Positions[key] = pos
	}
}

// quotedWidth is the length of the quoted scalar text starts with, its
// quotes included, or 0 when text does not start with a quote closed on it.
func quotedWidth(text []rune) int {
	if len(text) == 0 || (text[0] != '"' && text[0] != '\'') {
		return 0
	}
	q := text[0]
	for i := 1; i < len(text); i++ {
		switch {
		case text[i] == '\r' || text[i] == '\n':
			return 0
		case q == '"' && text[i] == '\\':
			i++ // the escaped character
		case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++ // '' is one quote
		case text[i] == q:
			return i + 1
		}
	}
	return 0
}
