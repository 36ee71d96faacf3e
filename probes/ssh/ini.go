package ssh

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The INI inventory grammar, from Ansible's ini inventory plugin
// (ansible/plugins/inventory/ini.py, _compile_patterns): a section header is
// "[group]", "[group:children]" or "[group:vars]", optionally followed by a
// comment; a line of a :children section is a group name.
var (
	iniSection   = regexp.MustCompile(`^\[([^:\]\s]+)(?::(\w+))?\]\s*(?:#.*)?$`)
	iniGroupName = regexp.MustCompile(`^([^:\]\s]+)\s*(?:#.*)?$`)
)

// parseINIInventory parses data, the content of path, as Ansible's INI
// inventory, the subset kubespray's inventory.ini uses and Ansible's ini
// plugin defines:
//
//   - blank lines and lines starting with # or ; are skipped;
//   - hosts before any section belong to group ungrouped;
//   - [group] lines are hosts: a name, a range ("node[1:3]", "db-[a:c]") or
//     "name:PORT", then key=value variables split as Python's shlex.split
//     does with comments (quotes kept together, # ends the line);
//   - [group:vars] lines are key=value, split at the first = (the rest of
//     the line is the value, a # in it included);
//   - [group:children] lines are group names;
//   - a value is read as Python's ast.literal_eval reads it, as far as
//     connection settings need: a quoted string loses its quotes, an integer
//     is a number, True/False are booleans, None is null; anything else is
//     the text as written.
//
// A [g:vars] or [g:children] naming a group declared nowhere is an error, as
// in Ansible. Errors name the file and line, and what nestor's reader does
// not read (then the conversion command).
func parseINIInventory(path string, data []byte) (*inventory, error) {
	p := &iniParser{path: path, inv: newInventory(path), declared: map[string]bool{"all": true, "ungrouped": true},
		pending: map[string]iniUse{}, group: "ungrouped", state: "hosts"}
	p.inv.group("all")
	p.inv.group("ungrouped")
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		p.lineno++
		raw := sc.Text()
		if p.lineno == 1 {
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		if err := p.line(raw); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("inventory %s: cannot read it: %v", path, err)
	}
	if err := p.undeclared(); err != nil {
		return nil, err
	}
	if err := reconcile(p.inv, path); err != nil {
		return nil, err
	}
	return p.inv, nil
}

// iniParser is the state of parseINIInventory: the inventory read so far,
// the section being read (group and state: hosts, children or vars), the
// groups declared by a section, and those named before any declares them.
type iniParser struct {
	path     string
	inv      *inventory
	declared map[string]bool
	pending  map[string]iniUse
	group    string
	state    string
	lineno   int
}

// iniUse is where a group was first named without being declared.
type iniUse struct {
	line  int
	title string
}

// errAt is an error at the current line (and column col, when > 0).
func (p *iniParser) errAt(col int, format string, args ...any) error {
	where := fmt.Sprintf("%s:%d", p.path, p.lineno)
	if col > 0 {
		where += fmt.Sprintf(":%d", col)
	}
	return fmt.Errorf("inventory %s: %s", where, fmt.Sprintf(format, args...))
}

// scalar is the YAML node of an INI value at column col of the line.
func (p *iniParser) scalar(v string, col int) *yaml.Node {
	tag, val := iniValue(v)
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: val, Line: p.lineno, Column: col}
}

// line reads one line: a comment, a section header, or a line of the
// current section.
func (p *iniParser) line(raw string) error {
	line := strings.TrimSpace(raw)
	indent := strings.Index(raw, line) // columns are 1-based in raw
	if line == "" || line[0] == '#' || line[0] == ';' {
		return nil
	}
	if m := iniSection.FindStringSubmatch(line); m != nil {
		return p.section(m[1], m[2])
	}
	if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
		return p.errAt(0, "invalid section %s: a section is [GROUP], [GROUP:children] or [GROUP:vars], without spaces", line)
	}
	switch p.state {
	case "hosts":
		return p.hostLine(raw, line, indent)
	case "vars":
		return p.varsLine(raw, line, indent)
	case "children":
		return p.childLine(line, indent)
	}
	return nil
}

// section starts section [group:state] (state "" is hosts).
func (p *iniParser) section(group, state string) error {
	p.group, p.state = group, state
	if p.state == "" {
		p.state = "hosts"
	}
	if p.state != "hosts" && p.state != "children" && p.state != "vars" {
		return p.errAt(0, "section [%s:%s] has an unknown type %q: a section is [GROUP], [GROUP:children] or [GROUP:vars]", group, state, state)
	}
	p.inv.group(group)
	if p.state != "vars" {
		p.declared[group] = true
		delete(p.pending, group)
	} else if !p.declared[group] {
		p.named(group, "["+group+":vars]")
	}
	return nil
}

// named records that group was named by title before any section
// declared it.
func (p *iniParser) named(group, title string) {
	if _, ok := p.pending[group]; !ok {
		p.pending[group] = iniUse{p.lineno, title}
	}
}

// hostLine reads a host line: a name or pattern, an optional :PORT, then
// key=value variables.
func (p *iniParser) hostLine(raw, line string, indent int) error {
	words, err := splitWords(line, true)
	if err != nil {
		return p.errAt(0, "host line: %v", err)
	}
	if len(words) == 0 {
		return nil
	}
	pattern, port := splitHostPort(words[0])
	if strings.HasSuffix(words[0], ":") && port == "" {
		return p.errAt(indent+1, "host %q ends with ':', which is reserved for a port (name:PORT)", words[0])
	}
	names, err := expandHostPattern(pattern)
	if err != nil {
		return p.errAt(indent+1, "%v", err)
	}
	vars := &yaml.Node{Kind: yaml.MappingNode}
	if port != "" {
		vars.Content = append(vars.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "ansible_port"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: port, Line: p.lineno, Column: indent + 1})
	}
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return p.errAt(0, "expected key=value after the host name, got %q", w)
		}
		col := 0
		if i := strings.Index(raw, k+"="); i >= 0 {
			col = i + len(k) + 2
		}
		vars.Content = append(vars.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, p.scalar(v, col))
	}
	g := p.inv.groups[p.group]
	for _, hn := range names {
		if err := p.inv.addHost(g, hn, vars); err != nil {
			return err
		}
	}
	return nil
}

// varsLine reads a key=value line of a [GROUP:vars] section.
func (p *iniParser) varsLine(raw, line string, indent int) error {
	k, v, ok := strings.Cut(line, "=")
	if !ok {
		return p.errAt(indent+1, "expected key=value in [%s:vars], got %q", p.group, line)
	}
	col := indent + len(k) + 2
	v = strings.TrimSpace(v)
	if v != "" {
		col = strings.Index(raw, v) + 1
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: strings.TrimSpace(k)}, p.scalar(v, col)}}
	return p.inv.readVars(p.inv.groups[p.group].vars, m, p.path)
}

// childLine reads a group name of a [GROUP:children] section.
func (p *iniParser) childLine(line string, indent int) error {
	m := iniGroupName.FindStringSubmatch(line)
	if m == nil {
		return p.errAt(indent+1, "expected a group name in [%s:children], got %q", p.group, line)
	}
	child := m[1]
	if child == "all" {
		return p.errAt(indent+1, "group all cannot be a child of %s", p.group)
	}
	p.inv.link(p.group, child)
	if !p.declared[child] {
		p.named(child, "["+p.group+":children]")
	}
	return nil
}

// undeclared refuses a group named (as a child, or by its :vars) that no
// section declares, the first by line: Ansible refuses it too.
func (p *iniParser) undeclared() error {
	if len(p.pending) == 0 {
		return nil
	}
	var names []string
	for n := range p.pending {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return p.pending[names[i]].line < p.pending[names[j]].line })
	u := p.pending[names[0]]
	return fmt.Errorf("inventory %s:%d: %s names group %s, which no [%s] or [%s:children] section declares (Ansible refuses it too)", p.path, u.line, u.title, names[0], names[0], names[0])
}

// reconcile makes every group without a parent a child of all (Ansible's
// InventoryData.reconcile_inventory), sets the groups' priorities and
// depths, and refuses groups whose ancestors form a cycle (no path from
// all reaches them).
func reconcile(inv *inventory, path string) error {
	var names []string
	for n := range inv.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g := inv.groups[n]
		if err := inv.setPriority(g); err != nil {
			return err
		}
		if n != "all" && len(g.parents) == 0 {
			inv.link("all", n)
		}
	}
	if err := inv.computeDepths(); err != nil {
		return err
	}
	reached := map[string]bool{}
	var reach func(string)
	reach = func(n string) {
		if reached[n] {
			return
		}
		reached[n] = true
		for _, c := range inv.groups[n].children {
			reach(c)
		}
	}
	reach("all")
	for _, n := range names {
		if !reached[n] {
			return fmt.Errorf("inventory %s: :children sections form a cycle: %s", path, cycleFrom(inv, n))
		}
	}
	return nil
}

// cycleFrom returns a cycle of child groups reached from group start, as
// "a → b → a".
func cycleFrom(inv *inventory, start string) string {
	var path []string
	on := map[string]int{}
	var walk func(string) string
	walk = func(n string) string {
		if i, ok := on[n]; ok {
			return strings.Join(append(path[i:], n), " → ")
		}
		on[n] = len(path)
		path = append(path, n)
		for _, c := range inv.groups[n].children {
			if s := walk(c); s != "" {
				return s
			}
		}
		path = path[:len(path)-1]
		delete(on, n)
		return ""
	}
	return walk(start)
}

// iniValue returns the YAML tag and text of an INI value v read as Ansible's
// ini plugin reads it (_parse_value: Python's ast.literal_eval, the text as
// written when that fails), for the literals connection settings use:
// quoted strings (single, double or triple quotes, backslash escapes,
// adjacent ones joined), an integer (decimal, 0x, 0o, 0b, with _), True,
// False, None, each possibly followed by a # comment, which Python ignores.
// Any other text (an address, a path, a list) is a string as written.
func iniValue(v string) (tag, value string) {
	s := strings.TrimLeft(v, " \t")
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		if str, ok := pythonStrings(s); ok {
			return "!!str", str
		}
		return "!!str", v
	}
	if m := iniLiteral.FindStringSubmatch(s); m != nil {
		switch lit := m[1]; lit {
		case "True", "False":
			return "!!bool", strings.ToLower(lit)
		case "None":
			return "!!null", ""
		default:
			if n, err := strconv.ParseInt(lit, 0, 64); err == nil {
				return "!!int", strconv.FormatInt(n, 10)
			}
		}
	}
	return "!!str", v
}

// iniLiteral is a Python integer literal (no leading zero in a decimal one:
// Python 3 refuses it), True, False or None, then maybe a comment.
var iniLiteral = regexp.MustCompile(`^([-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0|[1-9][0-9_]*)|True|False|None)\s*(?:#.*)?$`)

// pythonStrings reads s as one or more adjacent Python string literals
// (single, double or triple quoted; joined as Python joins them), then
// blanks and maybe a # comment; false when s is not that (a prefix, text
// after a literal, no closing quote).
func pythonStrings(s string) (string, bool) {
	var b strings.Builder
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] == '#' {
			return b.String(), true
		}
		q := s[0]
		if q != '\'' && q != '"' {
			return "", false
		}
		end := string(q)
		if strings.HasPrefix(s, strings.Repeat(end, 3)) {
			end = strings.Repeat(end, 3)
		}
		i := len(end)
		for ; i < len(s) && !strings.HasPrefix(s[i:], end); i++ {
			if s[i] != '\\' || i+1 >= len(s) {
				b.WriteByte(s[i])
				continue
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '\'', '"':
				b.WriteByte(s[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		}
		if i >= len(s) {
			return "", false
		}
		s = s[i+len(end):]
	}
}

// Ansible's host patterns with a port (ansible/parsing/utils/addresses.py):
// "[HOST]:PORT" (the way to give an IPv6 address a port), or a name whose
// only colon outside range brackets comes before the port ("node1:2222",
// "node[1:3]:2222").
var (
	bracketedHostPort = regexp.MustCompile(`^\[(.+)\]:([0-9]+)$`)
	hostPort          = regexp.MustCompile(`^((?:[^:\[\]]|\[[^\]]*\])*):([0-9]+)$`)
)

// splitHostPort splits an inventory host pattern into the pattern and the
// port it carries ("" when none), as Ansible's parse_address does. An IPv6
// address without brackets has no port.
func splitHostPort(p string) (pattern, port string) {
	for _, re := range []*regexp.Regexp{bracketedHostPort, hostPort} {
		if m := re.FindStringSubmatch(p); m != nil {
			return m[1], m[2]
		}
	}
	return p, ""
}
