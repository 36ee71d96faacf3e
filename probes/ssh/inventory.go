package ssh

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// HostVars are the SSH settings of one host of an Ansible inventory, after
// Ansible's variable merge (see InventoryHost). A field is "" (0, false) when
// no source sets it; ssh then applies its own defaults and ~/.ssh/config.
type HostVars struct {
	// Name is the inventory hostname (the key under hosts:).
	Name string
	// Host is ansible_host (alias ansible_ssh_host): the address ssh connects to.
	Host string
	// User is ansible_user (alias ansible_ssh_user).
	User string
	// Port is ansible_port (alias ansible_ssh_port); 0 when not set.
	Port int
	// PrivateKeyFile is ansible_ssh_private_key_file (alias
	// ansible_private_key_file); a relative path is taken from the inventory
	// file's folder, a leading ~ is left for the caller to expand.
	PrivateKeyFile string
	// SSHCommonArgs and SSHExtraArgs are ansible_ssh_common_args and
	// ansible_ssh_extra_args as written (a shell-like string; see SplitArgs).
	SSHCommonArgs string
	SSHExtraArgs  string
	// Become is ansible_become.
	Become bool
	// Groups are the groups the host belongs to, in merge order (all first).
	Groups []string
	// Notes tell what could not be read and so may be missing (a
	// vault-encrypted group_vars file); they never hold a value.
	Notes []string
}

// The connection variables InventoryHost returns, each with its aliases in
// the order of Ansible's ssh connection plugin documentation
// (ansible/plugins/connection/ssh.py, "vars:"): when several are set for a
// host, the last one of the list wins, as Ansible's config manager does.
var (
	varsHost    = []string{"ansible_host", "ansible_ssh_host"}
	varsUser    = []string{"ansible_user", "ansible_ssh_user"}
	varsPort    = []string{"ansible_port", "ansible_ssh_port"}
	varsKey     = []string{"ansible_private_key_file", "ansible_ssh_private_key_file"}
	varsCommon  = []string{"ansible_ssh_common_args"}
	varsExtra   = []string{"ansible_ssh_extra_args"}
	varsBecome  = []string{"ansible_become"}
	varPriority = "ansible_group_priority"
)

// UnknownHostError is the error for a host the inventory does not have;
// Address is the node's address that was looked for too ("" when none);
// Known lists the hosts it has, sorted.
type UnknownHostError struct {
	Path    string
	Host    string
	Address string
	Known   []string
}

func (e *UnknownHostError) Error() string {
	list := "none"
	if len(e.Known) > 0 {
		list = strings.Join(e.Known, ", ")
	}
	if e.Address != "" {
		return fmt.Sprintf("inventory %s has no host %q, nor one whose name or ansible_host is its address %s (hosts it knows: %s)", e.Path, e.Host, e.Address, list)
	}
	return fmt.Sprintf("inventory %s has no host %q (hosts it knows: %s)", e.Path, e.Host, list)
}

// invValue is one variable's value and where it was written. Every reader
// gives its values as YAML nodes: the YAML reader the file's own, the INI
// reader and ansible-inventory's JSON scalars built alike (Line 0 when the
// place is not known).
type invValue struct {
	node *yaml.Node
	file string
}

// where names the value's place for an error: "inventory FILE:LINE:COL", or
// "inventory FILE" when the line is not known (a value ansible-inventory
// merged).
func (x invValue) where() string {
	if x.node.Line > 0 {
		return fmt.Sprintf("inventory %s:%d:%d", x.file, x.node.Line, x.node.Column)
	}
	return fmt.Sprintf("inventory %s (as ansible-inventory merged it)", x.file)
}

type invVars map[string]invValue

type invGroup struct {
	name     string
	depth    int
	priority int
	vars     invVars
	children []string
	parents  []string
	hosts    []string
	// hostSet holds hosts, for a constant-time membership test (a host
	// range can list 100,000 hosts in a group).
	hostSet map[string]bool
}

type inventory struct {
	path   string
	groups map[string]*invGroup
	hosts  map[string]invVars
	// hostOrder keeps the hosts in the order they were first seen.
	hostOrder []string
	// flat holds the variables of each mapping already read (see
	// mappingVars); parsing and merging hold the group and variable
	// mappings being read, to find an alias inside the node it names.
	flat    map[*yaml.Node]invVars
	parsing map[*yaml.Node]bool
	merging map[*yaml.Node]bool
	// budget is what is left of maxInventoryEntries.
	budget int
}

// newInventory is an empty inventory read from path, with the whole
// budget of maxInventoryEntries (every reader starts from it).
func newInventory(path string) *inventory {
	return &inventory{path: path, groups: map[string]*invGroup{}, hosts: map[string]invVars{}, budget: maxInventoryEntries}
}

// maxInventoryEntries bounds the groups and hosts an inventory may expand to
// through aliases and host ranges (each alias of a group is read again):
// far above any real inventory, it keeps a file of a few lines from
// expanding into billions of entries.
const maxInventoryEntries = 1_000_000

// InventoryHost reads the Ansible inventory at path with nestor's own
// readers (readOwnInventory: YAML, or INI for the subset kubespray uses) and
// returns the connection settings of host name, merged the way Ansible
// merges variables (docs: "How variables are merged" and "Variable
// precedence"; ansible/vars/manager.py with the default
// VARIABLE_PRECEDENCE), lowest first:
//
//  1. vars of group all in the inventory file;
//  2. vars in the file of every other group the host belongs to (directly or
//     through children:), sorted by depth (a child group is deeper than its
//     parent; the top-level groups are children of all), then
//     ansible_group_priority (default 1), then name — Ansible's sort_groups;
//     the deeper group wins;
//  3. group_vars/all beside the inventory, then group_vars/GROUP of those
//     groups in the same order;
//  4. the host's own vars in the file (several entries merge, the later
//     wins; a port written in the host's key, "name:2222", is its
//     ansible_port), then host_vars/NAME beside the inventory.
//
// group_vars/X and host_vars/X are found as Ansible's host_group_vars plugin
// finds them (readVarsDir). A vault-encrypted file is skipped and named in
// Notes. Host names may use Ansible's ranges ("node[1:4]", "db-[a:c]").
//
// Errors name the file (and line:column when it comes from a value): the
// file cannot be read or is not an inventory (a group that is not a
// mapping, hosts/children not mappings), a cycle in children:, an unknown
// host (the error lists the hosts the inventory knows), a value nestor cannot
// take as is (a Jinja template "{{ … }}", a !vault value, a port that is not
// a number, a become that is not a boolean), an alias inside the node it
// names (a group holding itself, a mapping merging itself), a host range over
// maxHostsPerPattern hosts, an inventory that expands (through aliases and
// ranges) past maxInventoryEntries groups and hosts. An unknown host is an
// *UnknownHostError. YAML merge keys (<<) merge as YAML says (see readVars).
func InventoryHost(path, name string) (HostVars, error) {
	inv, err := readOwnInventory(path)
	if err != nil {
		return HostVars{}, err
	}
	return inv.Host(name)
}

// parseInventory reads the YAML inventory file at path (parseYAMLInventory).
func parseInventory(path string) (*inventory, error) {
	data, err := readInventoryFile(path)
	if err != nil {
		return nil, err
	}
	return parseYAMLInventory(path, data)
}

// readInventoryFile returns the bytes of the inventory file at path; the
// error names the file and why (a folder is an inventory only Ansible reads).
func readInventoryFile(path string) ([]byte, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("inventory %s is a folder: nestor's own readers read one file; name the inventory file, or %s", path, convertHint(path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("inventory %s: cannot read it: %v", path, err)
	}
	return data, nil
}

// parseYAMLInventory parses data, the content of path, as Ansible's YAML
// inventory (ansible/plugins/inventory/yaml.py).
func parseYAMLInventory(path string, data []byte) (*inventory, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("inventory %s: not valid YAML: %v", path, err)
	}
	inv := newInventory(path)
	inv.group("all")
	if len(doc.Content) == 0 {
		return inv, nil
	}
	root := resolveAlias(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, inv.errAt(root, "the top level must be a mapping of groups (all:, and others), as in Ansible's YAML inventory format")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolveAlias(root.Content[i+1])
		g := inv.group(k.Value)
		if err := inv.parseGroup(g, v); err != nil {
			return nil, err
		}
		if g.name != "all" {
			inv.link("all", g.name)
		}
	}
	if err := inv.computeDepths(); err != nil {
		return nil, err
	}
	return inv, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func (inv *inventory) errAt(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("inventory %s:%d:%d: %s", inv.path, n.Line, n.Column, fmt.Sprintf(format, args...))
}

func (inv *inventory) group(name string) *invGroup {
	g, ok := inv.groups[name]
	if !ok {
		g = &invGroup{name: name, priority: 1, vars: invVars{}}
		inv.groups[name] = g
	}
	return g
}

// link makes child a child group of parent (once).
func (inv *inventory) link(parent, child string) {
	p, c := inv.group(parent), inv.group(child)
	for _, x := range p.children {
		if x == child {
			return
		}
	}
	p.children = append(p.children, child)
	c.parents = append(c.parents, parent)
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func (inv *inventory) parseGroup(g *invGroup, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return inv.errAt(v, "group %s must be a mapping with hosts:, vars: and children:", g.name)
	}
	if err := inv.spend(v); err != nil {
		return err
	}
	if inv.parsing == nil {
		inv.parsing = map[*yaml.Node]bool{}
	}
	inv.parsing[v] = true
	defer delete(inv.parsing, v)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolveAlias(v.Content[i+1])
		switch k.Value {
		case "hosts":
			if isNull(val) {
				continue
			}
			if val.Kind != yaml.MappingNode {
				return inv.errAt(val, "hosts: of group %s must be a mapping of host names (a list is the INI habit; write `name:` per host)", g.name)
			}
			for j := 0; j+1 < len(val.Content); j += 2 {
				hk, hv := val.Content[j], resolveAlias(val.Content[j+1])
				pattern, port := splitHostPort(hk.Value)
				names, err := expandHostPattern(pattern)
				if err != nil {
					return inv.errAt(hk, "%v", err)
				}
				for _, hn := range names {
					if port != "" { // set before the host's vars, which may override it
						_ = inv.addHost(g, hn, nil)
						inv.hosts[hn]["ansible_port"] = invValue{node: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: port, Line: hk.Line, Column: hk.Column}, file: inv.path}
					}
					if err := inv.addHost(g, hn, hv); err != nil {
						return err
					}
				}
			}
		case "vars":
			if isNull(val) {
				continue
			}
			if val.Kind != yaml.MappingNode {
				return inv.errAt(val, "vars: of group %s must be a mapping", g.name)
			}
			if err := inv.readVars(g.vars, val, inv.path); err != nil {
				return err
			}
		case "children":
			if isNull(val) {
				continue
			}
			if val.Kind != yaml.MappingNode {
				return inv.errAt(val, "children: of group %s must be a mapping of group names", g.name)
			}
			for j := 0; j+1 < len(val.Content); j += 2 {
				ck, cv := val.Content[j], resolveAlias(val.Content[j+1])
				if ck.Value == "all" {
					return inv.errAt(ck, "group all cannot be a child of %s", g.name)
				}
				if inv.parsing[cv] {
					return inv.errAt(val.Content[j+1], "group %s: children: %s is an alias of a group that holds it (the groups would nest without end)", g.name, ck.Value)
				}
				c := inv.group(ck.Value)
				inv.link(g.name, c.name)
				if err := inv.parseGroup(c, cv); err != nil {
					return err
				}
			}
		default:
			return inv.errAt(k, "group %s: unknown key %q (a group has hosts:, vars: and children:; a host belongs under hosts:)", g.name, k.Value)
		}
	}
	return inv.setPriority(g)
}

// setPriority sets g's priority from its ansible_group_priority variable
// (Ansible's Group.set_variable); default 1.
func (inv *inventory) setPriority(g *invGroup) error {
	if p, ok := g.vars[varPriority]; ok {
		n, err := strconv.Atoi(p.node.Value)
		if err != nil {
			return fmt.Errorf("%s: %s of group %s is not a number", p.where(), varPriority, g.name)
		}
		g.priority = n
	}
	return nil
}

// spend counts one more group or host against maxInventoryEntries.
func (inv *inventory) spend(at *yaml.Node) error {
	if inv.budget--; inv.budget < 0 {
		return inv.errAt(at, "the inventory expands (through aliases and host ranges) to more than %d groups and hosts", maxInventoryEntries)
	}
	return nil
}

func (inv *inventory) addHost(g *invGroup, name string, v *yaml.Node) error {
	if err := inv.spend(v); err != nil {
		return err
	}
	hv, ok := inv.hosts[name]
	if !ok {
		hv = invVars{}
		inv.hosts[name] = hv
		inv.hostOrder = append(inv.hostOrder, name)
	}
	if !g.hostSet[name] {
		if g.hostSet == nil {
			g.hostSet = map[string]bool{}
		}
		g.hostSet[name] = true
		g.hosts = append(g.hosts, name)
	}
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return inv.errAt(v, "host %s: its vars must be a mapping (or nothing)", name)
	}
	return inv.readVars(hv, v, inv.path)
}

// readVars records the variables of mapping m into into, replacing those
// already there. m's own keys are read as YAML merges them (YAML merge key
// type, yaml.org/type/merge.html, as PyYAML — Ansible's loader — applies
// it): a key written in m wins over a merged one, and among the mappings a
// `<<` merges, the first that has a key wins; of two equal keys, the later
// wins (Ansible's default hash_behaviour=replace).
func (inv *inventory) readVars(into invVars, m *yaml.Node, file string) error {
	vars, err := inv.mappingVars(m, file)
	if err != nil {
		return err
	}
	for k, v := range vars {
		into[k] = v
	}
	return nil
}

// mappingVars returns the variables of mapping m with its merge keys
// applied (see readVars). Each mapping is read once (an alias names the same
// node: no exponential re-reading); a merge of a mapping that holds the
// merge is an error at the alias.
func (inv *inventory) mappingVars(m *yaml.Node, file string) (invVars, error) {
	if v, ok := inv.flat[m]; ok {
		return v, nil
	}
	if inv.flat == nil {
		inv.flat, inv.merging = map[*yaml.Node]invVars{}, map[*yaml.Node]bool{}
	}
	inv.merging[m] = true
	defer delete(inv.merging, m)
	out := invVars{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, alias := m.Content[i], m.Content[i+1]
		if k.Value != "<<" {
			continue
		}
		v := resolveAlias(alias)
		srcs := []*yaml.Node{alias}
		if v.Kind == yaml.SequenceNode {
			srcs = v.Content
		}
		// The first source wins: apply them last to first.
		for j := len(srcs) - 1; j >= 0; j-- {
			s := resolveAlias(srcs[j])
			if s.Kind != yaml.MappingNode {
				continue
			}
			if inv.merging[s] {
				return nil, fmt.Errorf("inventory %s:%d:%d: << merges a mapping that holds this very merge", file, srcs[j].Line, srcs[j].Column)
			}
			vars, err := inv.mappingVars(s, file)
			if err != nil {
				return nil, err
			}
			for name, x := range vars {
				out[name] = x
			}
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		if k.Value != "<<" {
			out[k.Value] = invValue{node: v, file: file}
		}
	}
	inv.flat[m] = out
	return out, nil
}

// computeDepths sets each group's depth: all is 0, a child is one deeper
// than its deepest parent (Ansible's Group.add_child_group). A cycle is an error.
func (inv *inventory) computeDepths() error {
	state := map[string]int{} // 0 new, 1 visiting, 2 done
	var visit func(name string, depth int, path []string) error
	visit = func(name string, depth int, path []string) error {
		g := inv.groups[name]
		if state[name] == 1 {
			return fmt.Errorf("inventory %s: children: form a cycle: %s", inv.path, strings.Join(append(path, name), " → "))
		}
		if depth > g.depth {
			g.depth = depth
		}
		state[name] = 1
		for _, c := range g.children {
			if err := visit(c, depth+1, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = 2
		return nil
	}
	return visit("all", 0, nil)
}

// mergedHost is one host's variables after Ansible's merge, before nestor
// reads its connection settings from them (settings).
type mergedHost struct {
	name string
	vars invVars
	// groups: all first, then the host's other groups in merge order.
	groups []string
	notes  []string
}

// host merges the variables of host name and reads its settings (see
// InventoryHost).
func (inv *inventory) host(name string) (HostVars, error) {
	m, err := inv.merge(name)
	if err != nil {
		return HostVars{}, err
	}
	return m.settings(filepath.Dir(inv.path))
}

// merge merges the variables of host name in the order of Ansible's
// VariableManager.get_vars with the default VARIABLE_PRECEDENCE
// (ansible/vars/manager.py, config/base.yml): all_inventory,
// groups_inventory, all_plugins_inventory, groups_plugins_inventory, then
// the host's own vars and host_vars/. An unknown host is an
// *UnknownHostError.
func (inv *inventory) merge(name string) (mergedHost, error) {
	own, ok := inv.hosts[name]
	if !ok {
		known := append([]string{}, inv.hostOrder...)
		sort.Strings(known)
		return mergedHost{}, &UnknownHostError{Path: inv.path, Host: name, Known: known}
	}
	// The groups of the host: those listing it, and their ancestors.
	member := map[string]bool{"all": true}
	var up func(g string)
	up = func(g string) {
		if member[g] && g != "all" {
			return
		}
		member[g] = true
		for _, p := range inv.groups[g].parents {
			up(p)
		}
	}
	for _, g := range inv.groups {
		if g.hostSet[name] {
			up(g.name)
		}
	}
	var groups []*invGroup
	for g := range member {
		if g != "all" {
			groups = append(groups, inv.groups[g])
		}
	}
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if a.priority != b.priority {
			return a.priority < b.priority
		}
		return a.name < b.name
	})

	m := mergedHost{name: name, vars: invVars{}, groups: []string{"all"}}
	apply := func(v invVars) {
		for k, x := range v {
			m.vars[k] = x
		}
	}
	dir := filepath.Dir(inv.path)
	side := func(kind, entity string) error {
		v, notes, err := readVarsDir(filepath.Join(dir, kind), entity)
		m.notes = append(m.notes, notes...)
		if err != nil {
			return err
		}
		apply(v)
		return nil
	}
	apply(inv.groups["all"].vars)
	for _, g := range groups {
		m.groups = append(m.groups, g.name)
		apply(g.vars)
	}
	if err := side("group_vars", "all"); err != nil {
		return mergedHost{}, err
	}
	for _, g := range groups {
		if err := side("group_vars", g.name); err != nil {
			return mergedHost{}, err
		}
	}
	apply(own)
	if err := side("host_vars", name); err != nil {
		return mergedHost{}, err
	}
	return m, nil
}

// settings reads the connection settings out of m's variables. dir is the
// inventory file's folder: a relative private key is taken from there.
// Errors name where the value was set: a value nestor cannot take as is
// (scalarValue), a port that is not a TCP port, a become that is not a
// boolean.
func (m mergedHost) settings(dir string) (HostVars, error) {
	hv := HostVars{Name: m.name, Groups: m.groups, Notes: m.notes}
	var err error
	str := func(names []string) string {
		if err != nil {
			return ""
		}
		var out string
		for _, n := range names {
			x, ok := m.vars[n]
			if !ok {
				continue
			}
			var s string
			s, err = scalarValue(n, x)
			if err != nil {
				return ""
			}
			out = s
		}
		return out
	}
	hv.Host = str(varsHost)
	hv.User = str(varsUser)
	port := str(varsPort)
	key := str(varsKey)
	hv.SSHCommonArgs = str(varsCommon)
	hv.SSHExtraArgs = str(varsExtra)
	become := str(varsBecome)
	if err != nil {
		return HostVars{}, err
	}
	if port != "" {
		p, perr := strconv.Atoi(port)
		if perr != nil || p <= 0 || p > 65535 {
			return HostVars{}, fmt.Errorf("%s: host %s: port %q is not a TCP port number", lastSet(m.vars, varsPort).where(), m.name, port)
		}
		hv.Port = p
	}
	if become != "" {
		b, ok := parseAnsibleBool(become)
		if !ok {
			return HostVars{}, fmt.Errorf("%s: host %s: ansible_become %q is not a boolean (yes/no, true/false)", lastSet(m.vars, varsBecome).where(), m.name, become)
		}
		hv.Become = b
	}
	if key != "" {
		hv.PrivateKeyFile = key
		if !strings.HasPrefix(key, "~") && !filepath.IsAbs(key) {
			hv.PrivateKeyFile = filepath.Join(dir, key)
		}
	}
	return hv, nil
}

func lastSet(m invVars, names []string) invValue {
	var out invValue
	for _, n := range names {
		if x, ok := m[n]; ok {
			out = x
		}
	}
	return out
}

// scalarValue returns a variable's value as a string, refusing what nestor
// cannot evaluate.
func scalarValue(name string, x invValue) (string, error) {
	n := x.node
	where := x.where()
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%s: %s must be a single value, not a %s", where, name, map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[n.Kind])
	}
	if n.Tag == "!vault" {
		return "", fmt.Errorf("%s: %s is vault-encrypted; nestor does not decrypt: pass the value with a flag (--user, --port, --identity)", where, name)
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	if strings.Contains(n.Value, "{{") || strings.Contains(n.Value, "{%") {
		return "", fmt.Errorf("%s: %s is a Jinja template (%s); nestor cannot evaluate it: pass the value with a flag (--user, --port, --identity) or write it out", where, name, n.Value)
	}
	return n.Value, nil
}

// parseAnsibleBool accepts what Ansible's boolean() does.
func parseAnsibleBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "on", "1", "true", "y", "t":
		return true, true
	case "no", "off", "0", "false", "n", "f":
		return false, true
	}
	return false, false
}

// readVarsDir reads group_vars/ENTITY or host_vars/ENTITY under base as
// Ansible's host_group_vars plugin finds them (DataLoader.find_vars_files):
// the first that exists of ENTITY, ENTITY.yml, ENTITY.yaml, ENTITY.json; a
// folder gives its files in name order, its sub-folders read in place
// (varsFilesIn). A missing base or entity gives nothing. A vault-encrypted
// file is skipped with a note.
func readVarsDir(base, entity string) (invVars, []string, error) {
	out := invVars{}
	var notes []string
	var files []string
	for _, ext := range []string{"", ".yml", ".yaml", ".json"} {
		p := filepath.Join(base, entity+ext)
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.IsDir() {
			files, err = varsFilesIn(p)
			if err != nil {
				return nil, nil, fmt.Errorf("inventory vars %s: %v", p, err)
			}
		} else {
			files = []string{p}
		}
		break
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("inventory vars %s: cannot read it: %v", f, err)
		}
		if strings.HasPrefix(strings.TrimSpace(string(data)), "$ANSIBLE_VAULT") {
			notes = append(notes, fmt.Sprintf("%s is vault-encrypted: nestor did not read it, so a connection setting it holds is not applied", f))
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, nil, fmt.Errorf("inventory vars %s: not valid YAML: %v", f, err)
		}
		if len(doc.Content) == 0 || isNull(doc.Content[0]) {
			continue
		}
		m := resolveAlias(doc.Content[0])
		if m.Kind != yaml.MappingNode {
			return nil, nil, fmt.Errorf("inventory vars %s:%d:%d: must be a mapping of variables", f, m.Line, m.Column)
		}
		inv := &inventory{path: f}
		if err := inv.readVars(out, m, f); err != nil {
			return nil, nil, err
		}
	}
	return out, notes, nil
}

// varsFilesIn lists the variable files of folder dir as Ansible's
// DataLoader._get_dir_vars_files does: entries in name order, hidden ones
// and backups ("~") skipped, a sub-folder without an extension read in
// place, files without an extension or ending .yml, .yaml or .json.
func varsFilesIn(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") {
			continue
		}
		full, ext := filepath.Join(dir, name), filepath.Ext(name)
		st, err := os.Stat(full)
		if err != nil {
			return nil, err
		}
		switch {
		case st.IsDir() && ext == "":
			sub, err := varsFilesIn(full)
			if err != nil {
				return nil, err
			}
			files = append(files, sub...)
		case st.Mode().IsRegular() && (ext == "" || ext == ".yml" || ext == ".yaml" || ext == ".json"):
			files = append(files, full)
		}
	}
	return files, nil
}

// maxHostsPerPattern bounds what one host pattern may expand to (Ansible
// sets no bound; a range such as node[0:999999999] would exhaust memory).
const maxHostsPerPattern = 100_000

// expandHostPattern expands Ansible's host ranges: "node[1:3]" → node1,
// node2, node3; "db[01:10:2]" keeps the leading zeros; "x[a:c]" for letters.
// A name without brackets is returned as is.
func expandHostPattern(p string) ([]string, error) {
	open := strings.IndexByte(p, '[')
	if open < 0 {
		return []string{p}, nil
	}
	end := strings.IndexByte(p[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("host pattern %q: missing ]", p)
	}
	end += open
	head, spec, tail := p[:open], p[open+1:end], p[end+1:]
	parts := strings.Split(spec, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("host pattern %q: a range is [START:END] or [START:END:STEP]", p)
	}
	step := 1
	if len(parts) == 3 {
		s, err := strconv.Atoi(parts[2])
		if err != nil || s <= 0 {
			return nil, fmt.Errorf("host pattern %q: step %q is not a positive number", p, parts[2])
		}
		step = s
	}
	rest, err := expandHostPattern(tail)
	if err != nil {
		return nil, err
	}
	var mids []string
	lo, hi := parts[0], parts[1]
	if a, err1 := strconv.Atoi(lo); err1 == nil {
		b, err2 := strconv.Atoi(hi)
		if err2 != nil || b < a {
			return nil, fmt.Errorf("host pattern %q: bad numeric range", p)
		}
		// b >= a: the difference fits in a uint64, the count may not.
		if (uint64(b)-uint64(a))/uint64(step) >= maxHostsPerPattern {
			return nil, fmt.Errorf("host pattern %q: expands to more than %d hosts", p, maxHostsPerPattern)
		}
		n := int((uint64(b)-uint64(a))/uint64(step)) + 1
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo)
		}
		for k := range n { // a+k*step <= b: exact, even if k*step wraps
			mids = append(mids, fmt.Sprintf("%0*d", width, a+k*step))
		}
	} else if len(lo) == 1 && len(hi) == 1 && lo[0] <= hi[0] {
		for c := lo[0]; c <= hi[0]; c += byte(step) {
			mids = append(mids, string(c))
			if int(c)+step > 255 {
				break
			}
		}
	} else {
		return nil, fmt.Errorf("host pattern %q: bad range [%s]", p, spec)
	}
	if len(mids)*len(rest) > maxHostsPerPattern {
		return nil, fmt.Errorf("host pattern %q: expands to more than %d hosts", p, maxHostsPerPattern)
	}
	var out []string
	for _, m := range mids {
		for _, r := range rest {
			out = append(out, head+m+r)
		}
	}
	return out, nil
}
