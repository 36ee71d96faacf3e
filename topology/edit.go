package topology

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// SetKubeconfig returns data, the bytes of a topology file, with the
// top-level key `kubeconfig: VALUE` added — a text edit, not a YAML
// round-trip (yaml.v3 re-encoding drops blank lines and comment spacing):
// yaml.v3 only finds the positions, and every other byte (comments, blank
// lines, key order, quoting, anchors, CRLF or CR line ends, a missing final
// newline, a BOM) is kept. Lines are counted as yaml.v3 counts them (see
// lineBreak).
//
//   - No top-level kubeconfig: one line is inserted right after the
//     target_kind: line (else after the name: line, else before the first
//     top-level key, i.e. after the leading comments), with the file's line
//     ending (that of its first line: LF, CRLF or CR) and the indentation
//     of the top-level keys. Inserted after a last line that has no
//     newline, the file still ends without one.
//   - A top-level kubeconfig: with an empty or null value (nothing, ~, null,
//     "" or ”) is filled in place; a comment after it is kept.
//   - A top-level kubeconfig: with a value is an error (nothing is changed).
//   - A commented-out "# kubeconfig:" line is ordinary text and left alone.
//
// VALUE is written plain when YAML reads it back as the same string, else
// double-quoted. Errors: invalid YAML, a top level that is not a block
// mapping, an empty value, an edit that would not read back as VALUE.
func SetKubeconfig(data []byte, value string) ([]byte, error) {
	if value == "" {
		return nil, errors.New("kubeconfig: the value to set is empty")
	}
	bom := bytes.HasPrefix(data, utf8BOM)
	body := data
	if bom {
		body = data[len(utf8BOM):]
	}
	out, err := setKubeconfig(body, value)
	if err != nil {
		return nil, err
	}
	if bom {
		out = append(append([]byte{}, utf8BOM...), out...)
	}
	// Prove the edit: the result must read back with the new value.
	var check struct {
		Kubeconfig string `yaml:"kubeconfig"`
	}
	if err := yaml.Unmarshal(out, &check); err != nil || check.Kubeconfig != value {
		return nil, fmt.Errorf("kubeconfig: the edited file would not read back as %q (%v); add the line by hand", value, err)
	}
	return out, nil
}

func setKubeconfig(data []byte, value string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the topology is not valid YAML: %w", err)
	}
	eol := firstLineEnd(data)
	lines := lineStarts(data)
	quoted := YAMLScalar(value)

	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		// Empty document (comments only): append the key at the end.
		return insertAt(data, len(data), "", "kubeconfig: "+quoted, eol), nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the topology's top level is not a mapping")
	}
	if root.Style&yaml.FlowStyle != 0 {
		return nil, errors.New("the topology's top level is a flow mapping ({...}); add kubeconfig: by hand")
	}

	var nameKey, kindKey *yaml.Node
	var nameVal, kindVal *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "kubeconfig":
			return fillKubeconfig(data, lines, k, v, quoted)
		case "target_kind":
			kindKey, kindVal = k, v
		case "name":
			nameKey, nameVal = k, v
		}
	}

	after, afterVal := kindKey, kindVal
	if after == nil || !singleLine(after, afterVal) {
		after, afterVal = nameKey, nameVal
	}
	if after != nil && singleLine(after, afterVal) {
		indent := lineIndent(data, lines, after)
		if after.Line < len(lines) {
			return insertAt(data, lines[after.Line], indent, "kubeconfig: "+quoted, eol), nil
		}
		// The key is on the last line.
		return insertAt(data, len(data), indent, "kubeconfig: "+quoted, eol), nil
	}
	// Before the first top-level key: after the leading comments.
	first := root.Content[0]
	if first.Line-1 >= len(lines) {
		return nil, errors.New("cannot locate the first top-level key")
	}
	indent := lineIndent(data, lines, first)
	line := indent + "kubeconfig: " + quoted + eol
	start := lines[first.Line-1]
	out := make([]byte, 0, len(data)+len(line))
	out = append(out, data[:start]...)
	out = append(out, line...)
	return append(out, data[start:]...), nil
}

// singleLine reports whether key k's value v is a one-line scalar on k's line
// (so the line after k's is the line after the whole entry).
func singleLine(k, v *yaml.Node) bool {
	if k == nil || v == nil || v.Kind != yaml.ScalarNode || v.Line != k.Line {
		return false
	}
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	return !strings.ContainsAny(v.Value, " \t\n")
}

// lineBreak returns the length of the line break at data[i:], 0 when there
// is none. Breaks are YAML 1.1's, as yaml.v3 counts lines (its node
// positions): CRLF, LF, CR, NEL, U+2028 and U+2029.
func lineBreak(data []byte, i int) int {
	rest := data[i:]
	switch {
	case bytes.HasPrefix(rest, []byte("\r\n")):
		return 2
	case len(rest) > 0 && (rest[0] == '\n' || rest[0] == '\r'):
		return 1
	case bytes.HasPrefix(rest, []byte("\u0085")):
		return 2
	case bytes.HasPrefix(rest, []byte("\u2028")), bytes.HasPrefix(rest, []byte("\u2029")):
		return 3
	}
	return 0
}

// endsWithLineBreak reports whether data ends with a line break (see
// lineBreak).
func endsWithLineBreak(data []byte) bool {
	for _, b := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		if bytes.HasSuffix(data, []byte(b)) {
			return true
		}
	}
	return false
}

// firstLineEnd returns the file's line end, the one of its first line: LF,
// CRLF or CR (LF when it has none, or breaks its first line otherwise).
func firstLineEnd(data []byte) string {
	for i := range data {
		if n := lineBreak(data, i); n > 0 {
			if e := string(data[i : i+n]); e == "\r\n" || e == "\r" {
				return e
			}
			return "\n"
		}
	}
	return "\n"
}

// lineStarts returns the byte offset of each line's start (index 0 = line
// 1), lines counted as yaml.v3 counts them (see lineBreak).
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; i < len(data); i++ {
		if n := lineBreak(data, i); n > 0 {
			i += n - 1
			if i+1 < len(data) {
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

// lineIndent returns the whitespace before node n on its line.
func lineIndent(data []byte, lines []int, n *yaml.Node) string {
	start := lines[n.Line-1]
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// insertAt inserts indent+text as a line at offset at, which is a line
// start or the end of data. At the end of a file with no final newline, the
// line break goes before the new line, so the file still ends without one.
func insertAt(data []byte, at int, indent, text, eol string) []byte {
	var line string
	switch {
	case at == len(data) && len(data) > 0 && !endsWithLineBreak(data):
		line = eol + indent + text
	default:
		line = indent + text + eol
	}
	out := make([]byte, 0, len(data)+len(line))
	out = append(out, data[:at]...)
	out = append(out, line...)
	return append(out, data[at:]...)
}

// byteOffset converts node n's 1-based line and (character) column to a
// byte offset in data.
func byteOffset(data []byte, lines []int, n *yaml.Node) (int, bool) {
	if n.Line < 1 || n.Line > len(lines) {
		return 0, false
	}
	off := lines[n.Line-1]
	for col := 1; col < n.Column; col++ {
		if off >= len(data) || lineBreak(data, off) > 0 {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, true
}

// fillKubeconfig writes quoted in place of the empty or null value of the
// existing top-level key k, keeping whatever follows on the line (a comment).
func fillKubeconfig(data []byte, lines []int, k, v *yaml.Node, quoted string) ([]byte, error) {
	if v.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("kubeconfig: at line %d is not a single value; fix it by hand", k.Line)
	}
	empty := v.Tag == "!!null" || (v.Tag == "!!str" && v.Value == "")
	if !empty {
		return nil, fmt.Errorf("kubeconfig: is already set (line %d: %q); nothing to add", k.Line, v.Value)
	}
	off, ok := byteOffset(data, lines, k)
	if !ok {
		return nil, fmt.Errorf("cannot locate kubeconfig: at line %d", k.Line)
	}
	// Skip the key token (plain or quoted), the spaces, and the colon.
	i := off
	if i < len(data) && (data[i] == '"' || data[i] == '\'') {
		q := data[i]
		i++
		for i < len(data) && data[i] != q && data[i] != '\n' {
			if q == '"' && data[i] == '\\' {
				i++
			}
			i++
		}
		i++
	} else {
		i += len("kubeconfig")
	}
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	if i >= len(data) || data[i] != ':' {
		return nil, fmt.Errorf("cannot locate the colon of kubeconfig: at line %d", k.Line)
	}
	colon := i
	i++
	// The rest of the line: spaces, an optional null/empty token, spaces,
	// an optional comment, the line end.
	lineEnd := i
	for lineEnd < len(data) && lineBreak(data, lineEnd) == 0 {
		lineEnd++
	}
	rest := string(data[i:lineEnd])
	ws1 := rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
	r := rest[len(ws1):]
	tokenFound := false
	for _, tok := range []string{"~", "null", "Null", "NULL", `""`, "''"} {
		if strings.HasPrefix(r, tok) {
			after := r[len(tok):]
			if after == "" || after[0] == ' ' || after[0] == '\t' {
				r, tokenFound = after, true
				break
			}
		}
	}
	var tail string
	if strings.TrimSpace(r) != "" {
		ws2 := r[:len(r)-len(strings.TrimLeft(r, " \t"))]
		comment := r[len(ws2):]
		if !strings.HasPrefix(comment, "#") {
			return nil, fmt.Errorf("kubeconfig: at line %d has an unexpected value; fix it by hand", k.Line)
		}
		gap := ws1
		if tokenFound {
			gap = ws2
		}
		if gap == "" {
			gap = " "
		}
		tail = gap + comment
	}
	out := make([]byte, 0, len(data)+len(quoted)+2)
	out = append(out, data[:colon+1]...)
	out = append(out, ' ')
	out = append(out, quoted...)
	out = append(out, tail...)
	return append(out, data[lineEnd:]...), nil
}

// YAMLScalar returns s, valid UTF-8, as a YAML scalar that reads back as
// the string s in a block or a flow collection: plain when a YAML parser
// reads the plain text back as the string s (and it has none of the flow
// indicators , [ ] { }), else double-quoted with yamlDoubleQuoted's escapes.
// A string that is not valid UTF-8 cannot be written in YAML: its invalid
// bytes come out as U+FFFD (callers that must keep the value check it reads
// back, as SetKubeconfig does).
func YAMLScalar(s string) string {
	if !strings.ContainsAny(s, "\n\r\t#\"',[]{}") && strings.TrimSpace(s) == s &&
		readsBackPlain("k: "+s, s) && readsBackPlain("{k: "+s+"}", s) {
		return s
	}
	return yamlDoubleQuoted(s)
}

// readsBackPlain reports whether doc, a mapping of one key (block or flow),
// parses with yaml.v3 and holds s as a plain string scalar.
func readsBackPlain(doc, s string) bool {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil || len(n.Content) != 1 || len(n.Content[0].Content) != 2 {
		return false
	}
	v := n.Content[0].Content[1]
	return v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == s && v.Style == 0
}

// yamlDoubleQuoted returns s as a YAML double-quoted scalar (YAML 1.2
// §7.3.1): the quote and the backslash escaped, every character outside
// YAML's printable set (§5.1 c-printable: tab, LF, CR, U+0020–U+007E,
// U+0085, U+00A0–U+D7FF, U+E000–U+FFFD, U+10000 and above) written as an
// escape (§5.7: \t \n \r, else \xXX, \uXXXX), and so are the characters
// YAML 1.1 parsers take as line breaks (U+0085, U+2028, U+2029) and the
// byte order mark U+FEFF. Invalid UTF-8 comes out as U+FFFD.
func yamlDoubleQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r >= 0x20 && r <= 0x7E, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000:
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02X`, r)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
