package ssh

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/probes"
)

// DefaultAnsibleInventoryTimeout bounds one ansible-inventory run: a Python
// start-up (one to three seconds measured on a loaded 2-core machine) and
// the parse of a file inventory.
const DefaultAnsibleInventoryTimeout = 30 * time.Second

// ansibleScratchConfig is the ansible.cfg nestor gives ansible-inventory.
const ansibleScratchConfig = "# Written by nestor for one ansible-inventory run, then removed.\n" +
	"# Empty: no ansible.cfg of the operator (ANSIBLE_CONFIG, ./ansible.cfg,\n" +
	"# ~/.ansible.cfg, /etc/ansible/ansible.cfg) changes how the inventory is read.\n"

// AnsibleInventoryCommand returns the command that prints the inventory at
// path (absolute) as Ansible reads it: env, which runs ansible-inventory
// with a clean environment, and its arguments:
//
//	env -i PATH=… [HOME=…] LC_ALL=… ANSIBLE_CONFIG=SCRATCH/ansible.cfg
//	    ANSIBLE_HOME=SCRATCH ANSIBLE_LOCAL_TEMP=SCRATCH … PYTHONDONTWRITEBYTECODE=1
//	    ansible-inventory --playbook-dir SCRATCH -i PATH --list
//
// scratch is an empty folder holding an empty ansible.cfg, removed after
// the run. Why each part (Ansible 2.14, ansible/config/manager.py
// find_ini_config_file and ansible/vars/manager.py):
//
//   - env -i: no ANSIBLE_* variable of the operator's shell applies
//     (ANSIBLE_VAULT_PASSWORD_FILE, ANSIBLE_PRECEDENCE, ANSIBLE_INVENTORY…);
//     PATH (to find ansible-inventory and its Python), HOME and a UTF-8
//     locale (Ansible refuses any other) are given back;
//   - ANSIBLE_CONFIG names an existing empty file: Ansible takes the first
//     config file that exists among ANSIBLE_CONFIG, ./ansible.cfg,
//     ~/.ansible.cfg and /etc/ansible/ansible.cfg, so none of the others is read;
//   - --playbook-dir SCRATCH: without it ansible-inventory reads
//     group_vars/ and host_vars/ of the current folder as a playbook's, and
//     they override the inventory's;
//   - ANSIBLE_HOME and ANSIBLE_LOCAL_TEMP in SCRATCH: nothing is written to
//     ~/.ansible; PYTHONDONTWRITEBYTECODE: no .pyc beside Ansible's code;
//   - ANSIBLE_INVENTORY_UNPARSED_FAILED: an inventory no plugin can read is
//     an error, not a warning and an empty inventory;
//   - no vault password is ever configured and stdin is not a terminal, so a
//     vault-encrypted file is an error, never a prompt.
func AnsibleInventoryCommand(path, scratch string, o InventoryOptions) (string, []string) {
	env := func(k string) string {
		if o.Env == nil {
			return ""
		}
		v, _ := o.Env(k)
		return v
	}
	pathVar := env("PATH")
	if pathVar == "" {
		pathVar = "/usr/local/bin:/usr/bin:/bin"
	}
	args := []string{"-i", "PATH=" + pathVar}
	if o.Home != "" {
		args = append(args, "HOME="+o.Home)
	}
	args = append(args, "LC_ALL="+utf8Locale(env),
		"ANSIBLE_CONFIG="+filepath.Join(scratch, "ansible.cfg"),
		"ANSIBLE_HOME="+scratch,
		"ANSIBLE_LOCAL_TEMP="+scratch,
		"ANSIBLE_INVENTORY_UNPARSED_FAILED=True",
		"ANSIBLE_NOCOLOR=True",
		"ANSIBLE_DEPRECATION_WARNINGS=False",
		"ANSIBLE_ASK_VAULT_PASS=False",
		"PYTHONDONTWRITEBYTECODE=1",
		"ansible-inventory", "--playbook-dir", scratch, "-i", path, "--list")
	return "env", args
}

// utf8Locale returns the operator's locale (LC_ALL, else LC_CTYPE, else
// LANG) when it is a UTF-8 one, else C.UTF-8.
func utf8Locale(env func(string) string) string {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := env(k); v != "" {
			l := strings.ToLower(v)
			if strings.Contains(l, "utf-8") || strings.Contains(l, "utf8") {
				return v
			}
			break
		}
	}
	return "C.UTF-8"
}

// readAnsibleInventory runs ansible-inventory on path through o.Run
// (AnsibleInventoryCommand), bounded by o.Timeout, and reads its --list
// JSON. It returns the inventory; or nil and why nestor's own reader must
// read it instead (ansible-inventory is not on PATH: env exits 127, or the
// runner says exec.ErrNotFound; or it failed on a vault-encrypted file); or
// an error: ansible-inventory failed (its message), did not finish in time,
// or printed what is not its --list JSON. ansible-inventory's warnings
// become the inventory's Notes.
func readAnsibleInventory(ctx context.Context, path string, o InventoryOptions) (*Inventory, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("inventory %s: %v", path, err)
	}
	scratch, err := os.MkdirTemp("", "nestor-ansible-")
	if err != nil {
		return nil, "", fmt.Errorf("inventory %s: cannot make a scratch folder for ansible-inventory: %v", path, err)
	}
	defer os.RemoveAll(scratch)
	if err := os.WriteFile(filepath.Join(scratch, "ansible.cfg"), []byte(ansibleScratchConfig), 0o600); err != nil {
		return nil, "", fmt.Errorf("inventory %s: cannot write an empty ansible.cfg for ansible-inventory: %v", path, err)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultAnsibleInventoryTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name, args := AnsibleInventoryCommand(abs, scratch, o)
	stdout, stderr, err := o.Run(rctx, name, args...)
	msg := ansibleMessages(stderr)
	if err != nil {
		var ee *exec.ExitError
		exit := -1
		if errors.As(err, &ee) {
			exit = ee.ExitCode()
		}
		switch {
		case rctx.Err() != nil:
			return nil, "", fmt.Errorf("inventory %s: ansible-inventory did not finish within %s and was stopped (a dynamic inventory waiting on the network?): %s", path, timeout, probes.StopWords(rctx.Err()))
		case errors.Is(err, exec.ErrNotFound), exit == 127:
			return nil, "ansible-inventory is not on PATH", nil
		case isVaultFailure(msg):
			return nil, fmt.Sprintf("ansible-inventory cannot read it without a vault password, which nestor never gives (%s); vault-encrypted files left out", strings.Join(msg, " ")), nil
		}
		detail := strings.Join(msg, "\n  ")
		if detail == "" {
			detail = err.Error()
		}
		return nil, "", fmt.Errorf("inventory %s: ansible-inventory cannot read it (exit %d):\n  %s\nFix the inventory: Ansible itself reads it this way (ansible-inventory -i %s --list)", path, exit, detail, path)
	}
	inv, err := parseAnsibleList(path, stdout)
	if err != nil {
		return nil, "", err
	}
	for _, m := range msg {
		inv.Notes = append(inv.Notes, "ansible-inventory: "+m)
	}
	return inv, "", nil
}

// ansibleMessages returns what Ansible printed on stderr, one entry per
// message ("[WARNING]: …", "ERROR! …"), its wrapping undone. Ansible wraps
// warnings with Python's textwrap at 79 columns when stderr is not a
// terminal (ansible/utils/display.py): a line broken at a blank lost that
// blank; a line of 79 characters or more was cut inside a long word, and a
// line ending in a hyphen after a letter or digit was cut after that hyphen
// (textwrap's break_on_hyphens): those join without a blank.
func ansibleMessages(stderr []byte) []string {
	const columns = 79
	var out []string
	glue := ""
	for _, line := range strings.Split(string(stderr), "\n") {
		line = strings.TrimRight(line, " \r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		switch {
		case len(out) == 0 || strings.HasPrefix(line, "[WARNING]") || strings.HasPrefix(line, "[DEPRECATION WARNING]") || strings.HasPrefix(line, "ERROR!"):
			out = append(out, strings.TrimSpace(line))
		default:
			out[len(out)-1] += glue + strings.TrimSpace(line)
		}
		glue = " "
		if utf8.RuneCountInString(line) >= columns || hyphenBreak.MatchString(line) {
			glue = ""
		}
	}
	return out
}

// hyphenBreak is a line textwrap may have cut after a word's hyphen.
var hyphenBreak = regexp.MustCompile(`[\pL\pN]-$`)

// isVaultFailure reports whether Ansible failed for want of a vault secret
// (ansible/parsing/vault: "Attempting to decrypt but no vault secrets
// found", "Decryption failed").
func isVaultFailure(msg []string) bool {
	for _, m := range msg {
		l := strings.ToLower(m)
		if strings.Contains(l, "no vault secrets") || (strings.Contains(l, "vault") && strings.Contains(l, "decrypt")) {
			return true
		}
	}
	return false
}

// ansibleGroup is a group of `ansible-inventory --list`
// (ansible/cli/inventory.py json_inventory): its hosts and child groups.
type ansibleGroup struct {
	Hosts    []string `json:"hosts"`
	Children []string `json:"children"`
}

// parseAnsibleList reads the JSON `ansible-inventory --list` prints: groups
// (name → hosts, children) and _meta.hostvars (host → its merged
// variables; a host without variables is not there). Values become YAML
// nodes (toYAMLNode) so nestor reads settings from them as from its own
// readers. A host's groups are all, then the groups listing it and their
// ancestors by depth and name (ansible-inventory does not print
// priorities). Errors name the inventory: not that JSON.
func parseAnsibleList(path string, data []byte) (*Inventory, error) {
	groups, hostvars, err := decodeAnsibleList(path, data)
	if err != nil {
		return nil, err
	}
	depth := groupDepths(groups)
	hostGroups := hostMemberships(groups, hostvars)
	var hosts []string
	for h := range hostGroups {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)

	inv := &Inventory{Path: path, Reader: ReaderAnsible, hosts: hosts}
	inv.merge = func(name string) (mergedHost, error) {
		member, ok := hostGroups[name]
		if !ok {
			return mergedHost{}, &UnknownHostError{Path: path, Host: name, Known: inv.Hosts()}
		}
		var gs []string
		for g := range member {
			if g != "all" {
				gs = append(gs, g)
			}
		}
		sort.Slice(gs, func(i, j int) bool {
			if depth[gs[i]] != depth[gs[j]] {
				return depth[gs[i]] < depth[gs[j]]
			}
			return gs[i] < gs[j]
		})
		m := mergedHost{name: name, vars: invVars{}, groups: append([]string{"all"}, gs...)}
		for k, v := range hostvars[name] {
			m.vars[k] = invValue{node: toYAMLNode(v), file: path}
		}
		return m, nil
	}
	return inv, nil
}

// decodeAnsibleList decodes `ansible-inventory --list`'s JSON: every group
// by name, and _meta.hostvars (numbers kept as json.Number). Errors name
// the part that is not what ansible-inventory prints.
func decodeAnsibleList(path string, data []byte) (map[string]ansibleGroup, map[string]map[string]any, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("inventory %s: ansible-inventory --list did not print its JSON: %v", path, err)
	}
	var meta struct {
		Hostvars map[string]map[string]any `json:"hostvars"`
	}
	if raw, ok := top["_meta"]; ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&meta); err != nil {
			return nil, nil, fmt.Errorf("inventory %s: ansible-inventory --list: _meta: %v", path, err)
		}
	}
	groups := map[string]ansibleGroup{}
	for name, raw := range top {
		if name == "_meta" {
			continue
		}
		var g ansibleGroup
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, nil, fmt.Errorf("inventory %s: ansible-inventory --list: group %s: %v", path, name, err)
		}
		groups[name] = g
	}
	return groups, meta.Hostvars, nil
}

// groupDepths is each group's depth below all: the longest path of
// children from all (Ansible orders a host's group variables by depth).
func groupDepths(groups map[string]ansibleGroup) map[string]int {
	depth := map[string]int{}
	var visit func(name string, d int, seen map[string]bool)
	visit = func(name string, d int, seen map[string]bool) {
		if seen[name] {
			return
		}
		if d > depth[name] {
			depth[name] = d
		}
		seen[name] = true
		for _, c := range groups[name].Children {
			visit(c, d+1, seen)
		}
		delete(seen, name)
	}
	visit("all", 0, map[string]bool{})
	return depth
}

// hostMemberships is every host's groups: those listing it and all their
// ancestors; a host with variables and no group belongs to none.
func hostMemberships(groups map[string]ansibleGroup, hostvars map[string]map[string]any) map[string]map[string]bool {
	parents := map[string][]string{}
	for name, g := range groups {
		for _, c := range g.Children {
			parents[c] = append(parents[c], name)
		}
	}
	hostGroups := map[string]map[string]bool{}
	for name, g := range groups {
		for _, h := range g.Hosts {
			if hostGroups[h] == nil {
				hostGroups[h] = map[string]bool{}
			}
			var up func(string)
			up = func(n string) {
				if hostGroups[h][n] {
					return
				}
				hostGroups[h][n] = true
				for _, p := range parents[n] {
					up(p)
				}
			}
			up(name)
		}
	}
	for h := range hostvars {
		if hostGroups[h] == nil {
			hostGroups[h] = map[string]bool{}
		}
	}
	return hostGroups
}

// toYAMLNode turns a JSON value of ansible-inventory's output into the YAML
// node nestor's settings reader takes: strings, numbers, booleans and null
// as scalars; a vault value (AnsibleJSONEncoder's {"__ansible_vault": …})
// as a scalar tagged !vault; lists and other objects as such.
func toYAMLNode(v any) *yaml.Node {
	switch x := v.(type) {
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(x.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: x.String()}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(x)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range x {
			n.Content = append(n.Content, toYAMLNode(e))
		}
		return n
	case map[string]any:
		if c, ok := x["__ansible_vault"].(string); ok && len(x) == 1 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!vault", Value: c}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range keys {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, toYAMLNode(x[k]))
		}
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(v)}
}
