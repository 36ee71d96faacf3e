package topology

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
	"nestor.dev/nestor/kube"
)

// Keys allowed at each level of a format-version-1 topology (ARCHITECTURE.md,
// "Topology file").
var (
	topKeys        = []string{"name", "target_kind", "kubeconfig", "endpoint", "kubernetes", "inventory", "nodes", "backend", "layers", "lima", "scaleway", "pools"}
	kubernetesKeys = []string{"version", "auto_upgrade"}
	nodeKeys       = []string{"name", "role", "address", "user", "port", "key"}
	layerKeys      = []string{"name", "detect"}
	detectKeys     = []string{"deployment", "daemonset", "statefulset", "namespace", "crd_group", "resource"}
	limaKeys       = []string{"template", "cpus", "memory", "disk", "kubeconfig"}
)

// Phase names reserved for the fixed phases: a custom layer cannot take them.
var reservedPhaseNames = []string{PhaseUp, PhaseBootstrap, PhaseK8s}

var (
	stackNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	dns1123RE   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
	sizeRE      = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*([kKmMgGtT]i?[bB]?|[bB])?$`)
	crdGroupRE  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)
)

// ParseFile is Parse for a topology file named by its path anywhere on
// disk (-f FILE): a name: that differs from the file's base name is a load
// warning (Topology.Warnings), not an error, so that a draft saved under
// another name (discover -o yaml > draft.yaml) reads back. A stack of the
// stacks folder is found by its name, so there (Parse) the two must agree.
func ParseFile(path string, data []byte) (*Topology, error) {
	return parse(path, data, true)
}

// Parse validates data, the content of the topology file at path, strictly
// against format version 1 (ARCHITECTURE.md "Topology file") and returns the
// topology, its Path as given (the stacks folder makes it absolute before
// any relative path of it is resolved). Every problem found is returned at once
// as Errors, sorted by position, each naming file:line:column, the field and
// the fix: unknown keys (with the allowed keys and a did-you-mean), wrong
// types, a name that is not the file's base name, a target_kind that is not
// one of Kinds(), an endpoint that is not an https URL, a malformed
// kubernetes.version, node names (required, DNS-1123, unique), roles
// (control-plane|worker, worker when omitted; at least one control-plane when
// nodes are declared), ports (1..65535), layers (catalog names or custom
// layers with detect:, no duplicates), backend (a storage layer of the
// catalog, declared in layers), lima: only for lima stacks, a top-level
// kubeconfig: refused for lima stacks, memory/disk sizes ("4GiB"). An empty
// file, a file that is not a mapping and a file with several documents are
// errors too. Anchors, aliases and merge keys (<<) are followed.
func Parse(path string, data []byte) (*Topology, error) {
	return parse(path, data, false)
}

// parse is Parse; anyName makes a name: other than the file's base name a
// warning (ParseFile).
func parse(path string, data []byte, anyName bool) (*Topology, error) {
	p := &parser{file: path, anyName: anyName}
	t := &Topology{Path: path}

	if e := p.checkText(data); e != nil {
		return nil, Errors{e}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: path, Line: 1, Column: 1, Msg: "the file is empty", Fix: "start with name: and target_kind:"}}
		}
		return nil, Errors{p.syntaxError(data, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{File: path, Line: extra.Line, Column: extra.Column, Msg: "the file holds more than one YAML document", Fix: "keep one topology per file; remove the '---' and what follows"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, Errors{p.syntaxError(data, err)}
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, Errors{{File: path, Line: 1, Column: 1, Msg: "the file is empty", Fix: "start with name: and target_kind:"}}
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, Errors{{File: path, Line: root.Line, Column: root.Column, Msg: "the topology must be a mapping of keys (name:, target_kind:, …), found " + kindName(root), Fix: "write it as key: value lines"}}
	}

	p.topLevel(t, root)
	t.measurePositions(data)
	if len(p.errs) > 0 {
		p.errs.sort()
		return nil, p.errs
	}
	return t, nil
}

type parser struct {
	file string
	// anyName: a name: other than the file's base name is a warning.
	anyName bool
	errs    Errors
	// kapsule holds what the target_kind-dependent checks need.
	kapsule kapsuleNodes
	// expanded holds the pairs of each mapping already expanded by pairs,
	// and expanding the mappings being expanded: an alias names the same
	// node as its anchor, so a mapping merged through many aliases is
	// expanded once (no exponential blow-up), and a mapping that merges
	// itself is found instead of recursing forever.
	expanded  map[*yaml.Node][]pair
	expanding map[*yaml.Node]bool
	// dottedNodes are node names with a '.', and noControlPlane the nodes:
	// list that declares no control plane: their rules depend on
	// target_kind (checkNodesForKind).
	dottedNodes    []*yaml.Node
	noControlPlane *yaml.Node
}

func (p *parser) add(n *yaml.Node, field, fix, format string, args ...any) {
	e := &Error{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...), Fix: fix}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

var (
	yamlLineRE      = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)
	unknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// yamlParserProblems are the problems yaml.v3's parser (parserc.go) reports.
// For these, the "line N" of its message is the 0-based line of the mark
// (the start of the enclosing block, or the problem when the block starts on
// the first line); its scanner's problems carry the 1-based line. Either
// omits the line when the mark is on the first line.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// syntaxError turns a yaml.v3 decoding error of data into an *Error with
// the line it concerns. yaml.v3 reports no column (its message keeps only
// the mark's line), so Column stays 0 — except for an unknown alias, whose
// position nestor finds itself. Characters YAML refuses never get here:
// checkText reports them first, with their column.
func (p *parser) syntaxError(data []byte, err error) *Error {
	e := &Error{File: p.file, Line: 1, Fix: "fix the YAML syntax"}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	problem := strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		problem = m[2]
		if m[1] != "" {
			e.Line, _ = strconv.Atoi(m[1])
		}
		if yamlParserProblems[problem] && m[1] != "" {
			e.Line++
		}
	}
	if a := unknownAnchorRE.FindStringSubmatch(problem); a != nil {
		if line, col, ok := findAlias(data, a[1]); ok {
			e.Line, e.Column = line, col
		}
		e.Fix = "define the anchor &" + a[1] + " before this alias, or fix the name"
	}
	lines, _ := position(data, len(data))
	e.Line = max(1, min(e.Line, lines))
	e.Msg = "invalid YAML: " + problem
	// YAML forbids tabs in indentation (YAML 1.2 section 6.1): the
	// scanner says only that a character cannot start a token.
	if col, ok := tabIndent(data, e.Line); ok {
		e.Column = col
		e.Msg = "invalid YAML: a tab indents this line (" + problem + ")"
		e.Fix = "indent with spaces: YAML does not allow tabs in indentation"
	}
	return e
}

// tabIndent returns the column (1-based) of the first tab in the
// indentation of line (1-based) of data, lines counted as position counts
// them, and whether there is one.
func tabIndent(data []byte, line int) (int, bool) {
	start, n := 0, 1
	if bytes.HasPrefix(data, utf8BOM) {
		start = len(utf8BOM)
	}
	for i := start; n < line && i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		i += size
		switch {
		case r == '\r' && i < len(data) && data[i] == '\n':
		case r == '\r' || r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029:
			n, start = n+1, i
		}
	}
	if n != line {
		return 0, false
	}
	for i := start; i < len(data); i++ {
		switch data[i] {
		case ' ':
		case '\t':
			return i - start + 1, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// findAlias returns the line and column (1-based, in characters) of the
// first alias *name in data that stands as a token: at a line start or after
// a space, a tab, '[', '{', ',' or ':', and followed by the end of data or a
// character that cannot be part of an anchor name (white space or one of
// ",[]{}").
func findAlias(data []byte, name string) (int, int, bool) {
	tok := []byte("*" + name)
	for from := 0; ; {
		i := bytes.Index(data[from:], tok)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		from = i + 1
		if i > 0 && !strings.ContainsRune(" \t\r\n[{,:", rune(data[i-1])) {
			continue
		}
		if end := i + len(tok); end < len(data) && !strings.ContainsRune(" \t\r\n,[]{}", rune(data[end])) {
			continue
		}
		line, col := position(data, i)
		return line, col, true
	}
}

// position converts byte offset off of data into the 1-based line and
// column yaml.v3 gives its nodes: columns count characters, a BOM at the
// start is not counted, and lines break where YAML 1.1 breaks them (CRLF,
// LF, CR, NEL, U+2028, U+2029).
func position(data []byte, off int) (int, int) {
	line, col := 1, 1
	text := data[:off]
	if bytes.HasPrefix(text, utf8BOM) {
		text = text[len(utf8BOM):]
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		i += size
		switch r {
		case '\r':
			if i < len(text) && text[i] == '\n' {
				continue // CRLF: the LF ends the line
			}
			line, col = line+1, 1
		case '\n', 0x85, 0x2028, 0x2029:
			line, col = line+1, 1
		default:
			col++
		}
	}
	return line, col
}

// checkText refuses what is not YAML text, at its line and column: a file
// encoded in UTF-16 or UTF-32 (nestor edits topologies as UTF-8 bytes), a
// byte sequence that is not UTF-8, and the characters YAML 1.2 does not
// allow in a stream (section 5.1: C0 controls other than tab, LF and CR,
// DEL, C1 controls other than NEL, surrogates, U+FFFE and U+FFFF) — the set
// yaml.v3's reader refuses without saying where.
func (p *parser) checkText(data []byte) *Error {
	for _, bom := range []struct {
		prefix []byte
		name   string
	}{
		{[]byte{0x00, 0x00, 0xFE, 0xFF}, "UTF-32"},
		{[]byte{0xFF, 0xFE, 0x00, 0x00}, "UTF-32"},
		{[]byte{0xFE, 0xFF}, "UTF-16"},
		{[]byte{0xFF, 0xFE}, "UTF-16"},
	} {
		if bytes.HasPrefix(data, bom.prefix) {
			return &Error{File: p.file, Line: 1, Column: 1, Msg: "the file is encoded in " + bom.name, Fix: "save it as UTF-8"}
		}
	}
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		switch {
		case r == utf8.RuneError && size <= 1:
			line, col := position(data, off)
			return &Error{File: p.file, Line: line, Column: col, Msg: fmt.Sprintf("byte 0x%02X is not UTF-8 text", data[off]), Fix: "save the file as UTF-8"}
		case !yamlPrintable(r):
			line, col := position(data, off)
			return &Error{File: p.file, Line: line, Column: col, Msg: fmt.Sprintf("the character %U is not allowed in YAML", r), Fix: "remove it, or write it as an escape in a double-quoted string"}
		}
		off += size
	}
	return nil
}

// yamlPrintable is YAML 1.2's c-printable (section 5.1).
func yamlPrintable(r rune) bool {
	switch {
	case r == 0x09, r == 0x0A, r == 0x0D, r >= 0x20 && r <= 0x7E, r == 0x85:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// resolve follows aliases to the node they name.
// isNull reports whether n, its aliases resolved, is YAML's null (an empty
// value, ~, null): the one test of "nothing written here" of the parsers.
func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!bool":
			return "a boolean (" + n.Value + ")"
		case "!!int":
			return "a number (" + n.Value + ")"
		case "!!float":
			return "a number (" + n.Value + ")"
		}
		return fmt.Sprintf("the string %q", n.Value)
	}
	return "nothing"
}

type pair struct {
	key, value *yaml.Node
}

// pairs returns the key/value pairs of mapping m with merge keys (<<)
// expanded: explicit keys win over merged ones, as YAML says. Each mapping
// is expanded once (its problems reported once, under the field of its first
// use).
func (p *parser) pairs(m *yaml.Node, field string) []pair {
	if out, ok := p.expanded[m]; ok {
		return out
	}
	if p.expanded == nil {
		p.expanded, p.expanding = map[*yaml.Node][]pair{}, map[*yaml.Node]bool{}
	}
	p.expanding[m] = true
	out := p.expandPairs(m, field)
	delete(p.expanding, m)
	p.expanded[m] = out
	return out
}

func (p *parser) expandPairs(m *yaml.Node, field string) []pair {
	var out []pair
	seen := map[string]*yaml.Node{}
	var merged []pair
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merged = append(merged, p.mergeSources(v, field)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.add(k, field, "use plain names as keys", "a key must be a plain name, found %s", kindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.add(k, joinField(field, k.Value), "keep one of them", "duplicate key %q (first at line %d)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, pair{k, v})
	}
	for _, mp := range merged {
		if _, ok := seen[mp.key.Value]; ok {
			continue
		}
		seen[mp.key.Value] = mp.key
		out = append(out, mp)
	}
	return out
}

// mergeSources returns the pairs the value v of a merge key brings: a
// mapping's, or those of each mapping of a list. Problems are reported at
// the alias when v (or the list item) is one.
func (p *parser) mergeSources(v *yaml.Node, field string) []pair {
	switch r := resolve(v); r.Kind {
	case yaml.MappingNode:
		return p.mergeSource(v, r, field)
	case yaml.SequenceNode:
		var out []pair
		for _, item := range r.Content {
			at := item
			if item.Kind != yaml.AliasNode && v.Kind == yaml.AliasNode {
				at = v // the list itself came through an alias
			}
			m := resolve(item)
			if m.Kind != yaml.MappingNode {
				p.add(at, field, "merge mappings only", "<< needs a mapping, found %s", kindName(m))
				continue
			}
			out = append(out, p.mergeSource(at, m, field)...)
		}
		return out
	default:
		p.add(v, field, "merge mappings only", "<< needs a mapping, found %s", kindName(r))
		return nil
	}
}

// mergeSource returns the pairs of mapping m, merged through node at (an
// alias, or m itself), unless m is being expanded: then the merge is inside
// the mapping it names, a cycle, reported at the alias.
func (p *parser) mergeSource(at, m *yaml.Node, field string) []pair {
	if p.expanding[m] {
		what := "a mapping"
		if at.Kind == yaml.AliasNode {
			what = "*" + at.Value + ", a mapping"
		}
		p.add(at, field, "merge another mapping, or write the keys out", "<< merges %s that holds this very merge", what)
		return nil
	}
	return p.pairs(m, field)
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// unknownKey reports key k, not in allowed, with a did-you-mean when close.
func (p *parser) unknownKey(k *yaml.Node, field string, allowed []string) {
	fix := "allowed keys: " + strings.Join(allowed, ", ")
	if c := closest(k.Value, allowed); len(c) > 0 {
		fix = "did you mean " + c[0] + "? " + fix
	}
	where := "the top level"
	if field != "" {
		where = field
	}
	p.add(k, joinField(field, k.Value), fix, "unknown key %q in %s", k.Value, where)
}

// str reads a scalar as a string. Numbers are taken as written ("1.30" stays
// "1.30"); null gives "" and ok=false; booleans, lists and mappings are type
// errors.
func (p *parser) str(n *yaml.Node, field string) (string, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode {
		p.add(n, field, "write a single value", "must be a string, found %s", kindName(n))
		return "", false
	}
	switch n.Tag {
	case "!!null":
		return "", false
	case "!!bool", "!!binary", "!!timestamp":
		p.add(n, field, "quote it if it is meant as text", "must be a string, found %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

func (p *parser) integer(n *yaml.Node, field string) (int, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.add(n, field, "write a whole number", "must be an integer, found %s", kindName(n))
		return 0, false
	}
	var v int
	if err := n.Decode(&v); err != nil {
		p.add(n, field, "write a whole number", "must be an integer: %v", err)
		return 0, false
	}
	return v, true
}

func (p *parser) mapping(n *yaml.Node, field, fix string) (*yaml.Node, bool) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		if isNull(n) {
			return nil, false
		}
		p.add(n, field, fix, "must be a mapping, found %s", kindName(n))
		return nil, false
	}
	return n, true
}

// topLevel reads the top-level keys of root into t, then checks the rules
// that span keys: the name, the target kind, each kind's own keys, the
// backend.
func (p *parser) topLevel(t *Topology, root *yaml.Node) {
	n := p.topKeys(t, root)
	p.checkStackName(t, root, n.name)
	p.checkTargetKind(t, root, n.kind)
	p.checkKapsule(t, root, n.lima)
	p.checkNodesForKind(t)
	if nodeClusterGrammar(t.TargetKind) && n.lima != nil {
		p.add(n.lima, "lima", "remove the lima: section", "lima: is only for target_kind: lima")
	}
	if t.TargetKind == TargetLima && n.kubeconfig != nil {
		p.add(n.kubeconfig, "kubeconfig", "remove it, or set the bench kubeconfig as lima.kubeconfig", "a top-level kubeconfig: is for prod stacks; a lima bench uses its own generated kubeconfig (lima.kubeconfig)")
	}
	p.checkBackend(t, n.backend)
}

// topNodes are the top-level nodes the checks across keys need: the values
// of name, target_kind and backend, the keys of kubeconfig and lima (nil
// when not written).
type topNodes struct {
	name, kind, kubeconfig, backend, lima *yaml.Node
}

// topKeys reads each top-level key of root into t (an unknown key is an
// error with the closest known one) and records its position.
func (p *parser) topKeys(t *Topology, root *yaml.Node) topNodes {
	var nameNode, kindNode, kubeconfigNode, backendNode, limaNode *yaml.Node
	for _, kv := range p.pairs(root, "") {
		k, v := kv.key, kv.value
		t.setPosition(k.Value, k)
		switch k.Value {
		case "name":
			nameNode = v
			t.Name, _ = p.str(v, "name")
		case "target_kind":
			kindNode = v
			s, _ := p.str(v, "target_kind")
			t.TargetKind = TargetKind(s)
		case "kubeconfig":
			kubeconfigNode = k
			t.Kubeconfig, _ = p.str(v, "kubeconfig")
		case "endpoint":
			if s, ok := p.str(v, "endpoint"); ok {
				t.Endpoint = s
				p.checkEndpoint(resolve(v), s)
			}
		case "kubernetes":
			p.kubernetes(t, v)
		case "inventory":
			p.kapsule.inventory = k
			t.Inventory, _ = p.str(v, "inventory")
		case "nodes":
			p.kapsule.nodes = k
			p.nodes(t, v)
		case "backend":
			backendNode = v
			t.Backend, _ = p.str(v, "backend")
		case "layers":
			p.layers(t, v)
		case "lima":
			limaNode = k
			p.lima(t, v)
		case "scaleway":
			p.kapsule.scaleway = k
			p.scaleway(t, v)
		case "pools":
			p.kapsule.pools, p.kapsule.poolsValue = k, v
			p.pools(t, v)
		default:
			p.unknownKey(k, "", topKeys)
		}
	}
	return topNodes{name: nameNode, kind: kindNode, kubeconfig: kubeconfigNode, backend: backendNode, lima: limaNode}
}

// checkStackName checks name: required, [a-z0-9-], equal to the file's
// base name (any name is a warning, not an error, when the file may be
// anywhere on disk).
func (p *parser) checkStackName(t *Topology, root, nameNode *yaml.Node) {
	base := filepath.Base(p.file)
	for _, ext := range []string{".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	// A file whose base name is no stack name gets a valid name to use,
	// and the file's new name with it.
	fixName := "add name: " + base
	if CheckName(base) != nil {
		fixName = "add name: " + SuggestName(base) + " and rename the file to " + SuggestName(base) + ".yaml (a stack name is lowercase letters, digits and '-')"
	}
	switch {
	case nameNode == nil || t.Name == "":
		n := nameNode
		if n == nil {
			n = root
		}
		p.add(n, "name", fixName, "is required")
	case CheckName(t.Name) != nil:
		fix := "use lowercase letters, digits and '-', starting with a letter or digit: name: " + SuggestName(t.Name)
		if SuggestName(t.Name) != base {
			fix += ", in a file renamed " + SuggestName(t.Name) + ".yaml"
		}
		p.add(resolve(nameNode), "name", fix, "%q is not a valid stack name", t.Name)
	case t.Name != base && p.anyName:
		n := resolve(nameNode)
		w := &Error{File: p.file, Line: n.Line, Column: n.Column, Field: "name",
			Msg: fmt.Sprintf("%q is not the file's base name %q: read as stack %s here, but in a stacks folder it must be saved as %s.yaml", t.Name, base, t.Name, t.Name),
			Fix: "rename the file to " + t.Name + ".yaml before you put it in the stacks folder"}
		t.Warnings = append(t.Warnings, w.Error())
	case t.Name != base && CheckName(base) != nil:
		p.add(resolve(nameNode), "name", "rename the file to "+t.Name+".yaml", "%q must equal the file's base name %q", t.Name, base)
	case t.Name != base:
		p.add(resolve(nameNode), "name", "rename the file to "+t.Name+".yaml or set name: "+base, "%q must equal the file's base name %q", t.Name, base)
	}
}

// checkTargetKind checks target_kind: required, one of Kinds() (an unknown
// one gets the closest kind's name).
func (p *parser) checkTargetKind(t *Topology, root, kindNode *yaml.Node) {
	switch {
	case kindNode == nil || t.TargetKind == "":
		n := kindNode
		if n == nil {
			n = root
		}
		p.add(n, "target_kind", "add target_kind: prod (an existing cluster), target_kind: kapsule (a Scaleway Kapsule cluster) or target_kind: lima (a local bench)", "is required")
	case !slices.Contains(Kinds(), t.TargetKind):
		fix := "use " + kube.JoinOr(kindNames())
		if c := closest(string(t.TargetKind), kindNames()); len(c) > 0 {
			fix = "did you mean " + c[0] + "? " + fix
		}
		p.add(resolve(kindNode), "target_kind", fix, "%q is not a target kind", t.TargetKind)
	}
}

func (p *parser) checkEndpoint(n *yaml.Node, s string) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		fix := "write the API server URL, e.g. https://10.0.0.1:6443"
		if hint := IPv6BracketHint(s); hint != "" {
			fix = hint
		}
		p.add(n, "endpoint", fix, "%q is not an https URL with a host", s)
		return
	}
	// The rest is the endpoint rule the guard compares with (NormalizeEndpoint).
	if _, err := NormalizeEndpoint(s); err != nil {
		p.add(n, "endpoint", "write the API server URL, e.g. https://10.0.0.1:6443 (a port between 1 and 65535)", "%v", err)
	}
}

func (p *parser) kubernetes(t *Topology, v *yaml.Node) {
	m, ok := p.mapping(v, "kubernetes", `write it as kubernetes: {version: "1.36"}`)
	if !ok {
		return
	}
	for _, kv := range p.pairs(m, "kubernetes") {
		switch kv.key.Value {
		case "auto_upgrade":
			t.setPosition(KeyAutoUpgrade, kv.key)
			p.kapsule.autoUpgrade = kv.key
			if n := resolve(kv.value); n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
				p.add(n, "kubernetes.auto_upgrade", "write true or false", "must be a boolean, found %s", kindName(n))
			} else {
				b := n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
				t.Kubernetes.AutoUpgrade = &b
			}
		case "version":
			t.setPosition(KeyVersion, kv.key)
			p.kapsule.version = resolve(kv.value)
			s, ok := p.str(kv.value, "kubernetes.version")
			if !ok {
				continue
			}
			if _, err := kube.ParseDesiredVersion(s); err != nil {
				p.add(resolve(kv.value), "kubernetes.version", `write a minor ("1.36") or a full version ("1.36.2"), quoted`, "%q is not a Kubernetes version", s)
				continue
			}
			t.Kubernetes.Version = s
		default:
			p.unknownKey(kv.key, "kubernetes", kubernetesKeys)
		}
	}
}

func (p *parser) nodes(t *Topology, v *yaml.Node) {
	v = resolve(v)
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.add(v, "nodes", "write a list: - {name: NODE, role: control-plane}", "must be a list, found %s", kindName(v))
		return
	}
	firstLine := make(map[string]int, len(v.Content))
	if t.Nodes == nil && len(v.Content) > 0 {
		// One node per item: the slice is allocated once, at its size (a
		// fleet holds every stack's nodes until its document is written).
		t.Nodes = make([]Node, 0, len(v.Content))
	}
	var firstCP *yaml.Node = v
	hasCP := false
	for i, item := range v.Content {
		field := fmt.Sprintf("nodes[%d]", i)
		m, ok := p.mapping(item, field, "write it as {name: NODE, role: worker}")
		if !ok {
			if isNull(item) {
				p.add(resolve(item), field, "remove the empty entry", "empty node")
			}
			continue
		}
		var n Node
		var nameNode, roleNode *yaml.Node
		for _, kv := range p.pairs(m, field) {
			f := field + "." + kv.key.Value
			switch kv.key.Value {
			case "name":
				nameNode = resolve(kv.value)
				n.Name, _ = p.str(kv.value, f)
			case "role":
				roleNode = resolve(kv.value)
				n.Role, _ = p.str(kv.value, f)
			case "address":
				n.Address, _ = p.str(kv.value, f)
			case "user":
				n.User, _ = p.str(kv.value, f)
			case "port":
				if port, ok := p.integer(kv.value, f); ok {
					if port < 1 || port > 65535 {
						p.add(resolve(kv.value), f, "use a port between 1 and 65535", "%d is out of range", port)
					}
					n.Port = port
				}
			case "key":
				n.Key, _ = p.str(kv.value, f)
			default:
				p.unknownKey(kv.key, field, nodeKeys)
			}
		}
		switch {
		case n.Name == "":
			at := nameNode
			if at == nil {
				at = m
			}
			p.add(at, field+".name", "add name: NODE", "a node needs a name")
		case !validObjectName(n.Name):
			// Kubernetes names a Node with a DNS-1123 subdomain
			// (kubernetes.io "Object Names and IDs": "ip-10-0-0-1.ec2.internal").
			p.add(nameNode, field+".name", "use lowercase letters, digits, '-' and '.' (a DNS-1123 subdomain, as Kubernetes names nodes)", "%q is not a valid node name", n.Name)
		case strings.Contains(n.Name, "."):
			p.dottedNodes = append(p.dottedNodes, nameNode)
			t.setPosition(NodeKey(n.Name), nameNode)
		default:
			if first, dup := firstLine[n.Name]; dup {
				p.add(nameNode, field+".name", "remove one of them or rename it", "duplicate node %q (first declared at line %d)", n.Name, first)
			} else {
				firstLine[n.Name] = nameNode.Line
				t.setPosition(NodeKey(n.Name), nameNode)
			}
		}
		switch n.Role {
		case "":
			if roleNode != nil {
				p.add(roleNode, field+".role", "write control-plane or worker, or leave role: out for a worker", "role is empty")
			}
			n.Role = RoleWorker
		case RoleControlPlane, RoleWorker:
		default:
			fix := "use control-plane or worker"
			if c := closest(n.Role, []string{RoleControlPlane, RoleWorker, "controlplane", "master"}); len(c) > 0 {
				fix = "did you mean control-plane? " + fix
				if c[0] == RoleWorker {
					fix = "did you mean worker? use control-plane or worker"
				}
			}
			p.add(roleNode, field+".role", fix, "%q is not a role", n.Role)
		}
		if n.Role == RoleControlPlane {
			hasCP = true
		}
		t.Nodes = append(t.Nodes, n)
	}
	if len(v.Content) > 0 && !hasCP {
		p.noControlPlane = firstCP
	}
}

// checkNodesForKind applies the node rules that depend on target_kind: a
// lima node is a Lima instance (a DNS-1123 label, no '.') and a bench must
// have a control plane nestor bootstraps; a prod cluster's control plane
// may not be a registered Node (a hosted or kubelet-less control plane), so
// declaring none is a warning there, not an error.
func (p *parser) checkNodesForKind(t *Topology) {
	if t.TargetKind == TargetLima {
		for _, n := range p.dottedNodes {
			p.add(n, "nodes.name", "use lowercase letters, digits and '-' (a Lima instance name)", "%q is not a valid Lima node name", n.Value)
		}
	}
	if p.noControlPlane == nil {
		return
	}
	if t.TargetKind == TargetLima {
		p.add(p.noControlPlane, "nodes", "set role: control-plane on at least one node", "no control-plane node declared")
		return
	}
	if nodeClusterGrammar(t.TargetKind) {
		w := &Error{File: p.file, Line: p.noControlPlane.Line, Column: p.noControlPlane.Column, Field: "nodes",
			Msg: "no control-plane node declared: nestor has no node to fetch a kubeconfig from (discover --cp)",
			Fix: "set role: control-plane on the nodes that run the API server, if they are registered nodes"}
		t.Warnings = append(t.Warnings, w.Error())
	}
}

func (p *parser) layers(t *Topology, v *yaml.Node) {
	v = resolve(v)
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.add(v, "layers", "write a list: - cilium", "must be a list, found %s", kindName(v))
		return
	}
	firstLine := map[string]int{}
	for i, item := range v.Content {
		field := fmt.Sprintf("layers[%d]", i)
		item = resolve(item)
		var ref LayerRef
		var at *yaml.Node
		switch item.Kind {
		case yaml.ScalarNode:
			s, ok := p.str(item, field)
			if !ok {
				if item.Tag == "!!null" {
					p.add(item, field, "remove the empty entry", "empty layer")
				}
				continue
			}
			ref.Name, at = s, item
		case yaml.MappingNode:
			at = item
			var detectNode *yaml.Node
			detectReported := false
			for _, kv := range p.pairs(item, field) {
				switch kv.key.Value {
				case "name":
					ref.Name, _ = p.str(kv.value, field+".name")
					at = resolve(kv.value)
				case "detect":
					detectNode = kv.key
					before := len(p.errs)
					ref.Detect = p.detect(kv.value, field+".detect")
					detectReported = len(p.errs) > before
				default:
					p.unknownKey(kv.key, field, layerKeys)
				}
			}
			if ref.Name == "" {
				p.add(item, field+".name", "add name: LAYER", "a layer needs a name")
				continue
			}
			if detectNode != nil && ref.Detect == nil {
				// detect: was given but holds nothing valid; say so unless
				// its entries were already reported.
				if !detectReported {
					p.add(detectNode, field+".detect", "give at least one of: "+strings.Join(detectKeys, ", "), "detect: is empty")
				}
				ref.Detect = &Detect{}
			}
		default:
			p.add(item, field, "write a catalog name or {name: LAYER, detect: {...}}", "must be a layer name or a mapping, found %s", kindName(item))
			continue
		}
		if len(ref.Name) > 63 || !dns1123RE.MatchString(ref.Name) {
			p.add(at, field, "use lowercase letters, digits and '-'", "%q is not a valid layer name", ref.Name)
			continue
		}
		if first, dup := firstLine[ref.Name]; dup {
			p.add(at, field, "remove one of them", "duplicate layer %q (first declared at line %d)", ref.Name, first)
			continue
		}
		firstLine[ref.Name] = at.Line
		t.setPosition(LayerKey(ref.Name), at)
		if p.kapsule.layerAt == nil {
			p.kapsule.layerAt = map[string]*yaml.Node{}
		}
		p.kapsule.layerAt[ref.Name] = at
		for _, r := range reservedPhaseNames {
			if ref.Name == r {
				p.add(at, field, "rename the layer", "%q is the name of a fixed phase and cannot name a layer", ref.Name)
			}
		}
		if _, provider := KapsuleProviderLayer(ref.Name); provider {
			// Refused on a kapsule stack, and, when not a catalog layer,
			// an unknown name elsewhere: target_kind decides (checkKapsule).
			_, inCatalog := CatalogLayer(ref.Name)
			if ref.Detect != nil || inCatalog {
				p.kapsule.providerLayers = append(p.kapsule.providerLayers, deferredLayer{at: at, field: field, name: ref.Name, known: true})
			} else {
				p.kapsule.providerLayers = append(p.kapsule.providerLayers, deferredLayer{at: at, field: field, name: ref.Name})
			}
		} else if ref.Detect == nil {
			if _, ok := CatalogLayer(ref.Name); !ok {
				p.add(at, field, p.layerFix(ref.Name), "%q is not in the layer catalog and has no detect:", ref.Name)
			}
		}
		t.Layers = append(t.Layers, ref)
	}
}

// layerFix suggests catalog names close to name (aliases included), or how
// to declare a custom layer.
func (p *parser) layerFix(name string) string {
	custom := "or declare a custom layer: {name: " + name + ", detect: {deployment: NAMESPACE/NAME}}"
	if l, ok := BackendLayer(name); ok && l != name {
		return "the catalog calls it " + l + "; " + custom
	}
	if c := closest(name, CatalogNames()); len(c) > 0 {
		if len(c) > 3 {
			c = c[:3]
		}
		return "did you mean " + strings.Join(c, " or ") + "? " + custom
	}
	return "catalog layers: " + strings.Join(CatalogNames(), ", ") + "; " + custom
}

func (p *parser) detect(v *yaml.Node, field string) *Detect {
	m, ok := p.mapping(v, field, "write it as detect: {deployment: NAMESPACE/NAME}")
	if !ok {
		return nil
	}
	d := &Detect{}
	any := false
	for _, kv := range p.pairs(m, field) {
		f := field + "." + kv.key.Value
		s, isStr := "", false
		switch kv.key.Value {
		case "resource":
			if d.Resource = p.detectResource(kv.value, f); d.Resource != nil {
				any = true
			}
			continue
		case "deployment", "daemonset", "statefulset", "namespace", "crd_group":
			s, isStr = p.str(kv.value, f)
		default:
			p.unknownKey(kv.key, field, detectKeys)
			continue
		}
		if !isStr || s == "" {
			if isStr || resolve(kv.value).Tag == "!!null" {
				p.add(resolve(kv.value), f, "give a value or remove the key", "is empty")
			}
			continue
		}
		valid := true
		switch kv.key.Value {
		case "deployment", "daemonset", "statefulset":
			ns, name, ok := strings.Cut(s, "/")
			if !ok || !dns1123RE.MatchString(ns) || name == "" || !validObjectName(name) {
				p.add(resolve(kv.value), f, "write NAMESPACE/NAME, e.g. mlflow/mlflow", "%q is not NAMESPACE/NAME", s)
				valid = false
			}
		case "namespace":
			if len(s) > 63 || !dns1123RE.MatchString(s) {
				p.add(resolve(kv.value), f, "use a namespace name (DNS-1123 label)", "%q is not a valid namespace", s)
				valid = false
			}
		case "crd_group":
			if !crdGroupRE.MatchString(s) {
				p.add(resolve(kv.value), f, "write an API group such as mlflow.example.com", "%q is not an API group", s)
				valid = false
			}
		}
		if !valid {
			continue
		}
		any = true
		switch kv.key.Value {
		case "deployment":
			d.Deployment = s
		case "daemonset":
			d.DaemonSet = s
		case "statefulset":
			d.StatefulSet = s
		case "namespace":
			d.Namespace = s
		case "crd_group":
			d.CRDGroup = s
		}
	}
	if !any {
		return nil
	}
	return d
}

// validObjectName accepts a DNS-1123 subdomain (workload names may hold dots).
func validObjectName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !dns1123RE.MatchString(part) {
			return false
		}
	}
	return true
}

func (p *parser) lima(t *Topology, v *yaml.Node) {
	l := &Lima{}
	t.Lima = l
	m, ok := p.mapping(v, "lima", "write it as lima: {cpus: 4, memory: 4GiB}")
	if !ok {
		return
	}
	for _, kv := range p.pairs(m, "lima") {
		f := "lima." + kv.key.Value
		switch kv.key.Value {
		case "template":
			l.Template, _ = p.str(kv.value, f)
		case "cpus":
			if n, ok := p.integer(kv.value, f); ok {
				if n < 1 {
					p.add(resolve(kv.value), f, "use 1 or more", "%d is not a CPU count", n)
				}
				l.CPUs = n
			}
		case "memory", "disk":
			s, ok := p.str(kv.value, f)
			if !ok {
				continue
			}
			if !sizeRE.MatchString(s) {
				p.add(resolve(kv.value), f, `write a size such as "4GiB" or "100GiB"`, "%q is not a size", s)
				continue
			}
			if kv.key.Value == "memory" {
				l.Memory = s
			} else {
				l.Disk = s
			}
		case "kubeconfig":
			l.Kubeconfig, _ = p.str(kv.value, f)
		default:
			p.unknownKey(kv.key, "lima", limaKeys)
		}
	}
}

func (p *parser) checkBackend(t *Topology, n *yaml.Node) {
	if t.Backend == "" {
		return
	}
	n = resolve(n)
	layer, ok := BackendLayer(t.Backend)
	if !ok {
		var storage []string
		for _, d := range Catalog() {
			if d.Category == CategoryStorage {
				storage = append(storage, d.Name)
			}
		}
		fix := "storage layers: " + strings.Join(storage, ", ") + " (alias: ceph)"
		if c := closest(t.Backend, append(storage, "ceph")); len(c) > 0 {
			fix = "did you mean " + c[0] + "? " + fix
		}
		if def, inCatalog := CatalogLayer(t.Backend); inCatalog {
			p.add(n, "backend", "storage layers: "+strings.Join(storage, ", ")+" (alias: ceph)", "%q is a %s layer, not a storage backend", t.Backend, def.Category)
			return
		}
		p.add(n, "backend", fix, "%q is not a storage layer of the catalog", t.Backend)
		return
	}
	for _, l := range t.Layers {
		if l.Name == layer {
			return
		}
	}
	p.add(n, "backend", "add - "+layer+" to layers:", "backend %q is the layer %s, which is not declared in layers:", t.Backend, layer)
}
