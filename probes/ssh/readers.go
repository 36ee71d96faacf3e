package ssh

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	"nestor.dev/nestor/probes"
)

// The readers of an inventory (Inventory.Reader).
const (
	ReaderAnsible = "ansible-inventory"
	ReaderYAML    = "nestor's YAML reader"
	ReaderINI     = "nestor's INI reader"
)

// Inventory is an Ansible inventory as one reader read it: its hosts, and
// for each its variables merged as Ansible merges them.
type Inventory struct {
	// Path is the inventory file.
	Path string
	// Reader is what read it: ReaderAnsible, ReaderYAML or ReaderINI.
	Reader string
	// Why says why nestor's own reader read it rather than
	// ansible-inventory ("ansible-inventory is not on PATH", a vault…); ""
	// when ansible-inventory read it or was not asked.
	Why string
	// Notes say what the operator should know about the read
	// (ansible-inventory's warnings, files left out); never a value.
	Notes []string

	hosts []string
	merge func(name string) (mergedHost, error)
}

// Hosts returns the inventory's host names, sorted.
func (inv *Inventory) Hosts() []string {
	out := append([]string{}, inv.hosts...)
	sort.Strings(out)
	return out
}

// Host returns the connection settings of host name (see InventoryHost for
// the merge and the errors). An unknown host is an *UnknownHostError.
func (inv *Inventory) Host(name string) (HostVars, error) {
	m, err := inv.merge(name)
	if err != nil {
		return HostVars{}, err
	}
	return m.settings(filepath.Dir(inv.Path))
}

// InventoryOptions say how LoadInventory may read an inventory.
type InventoryOptions struct {
	// Run runs ansible-inventory (see AnsibleInventoryCommand); nil means
	// nestor's own readers only.
	Run probes.Runner
	// Env looks up what ansible-inventory is given of the operator's
	// environment: PATH, HOME and the locale (nil: none of them).
	Env probes.Env
	// Home is the operator's home folder, passed to ansible-inventory as HOME.
	Home string
	// Timeout bounds the ansible-inventory run; 0 means
	// DefaultAnsibleInventoryTimeout.
	Timeout time.Duration
}

// LoadInventory reads the Ansible inventory at path: with ansible-inventory
// when o.Run can run it (any format Ansible reads, its exact merge; see
// readAnsibleInventory), else with nestor's own readers
// (readOwnInventory). ansible-inventory not on PATH, or failing only
// because a vault-encrypted file needs a password nestor never gives, is a
// note and nestor's own reader reads the file; any other failure of
// ansible-inventory is the error (its message, and the fix).
func LoadInventory(ctx context.Context, path string, o InventoryOptions) (*Inventory, error) {
	why := ""
	if o.Run != nil {
		inv, w, err := readAnsibleInventory(ctx, path, o)
		if err != nil {
			return nil, err
		}
		if inv != nil {
			return inv, nil
		}
		why = w
	}
	inv, err := readOwnInventory(path)
	if err != nil {
		if why != "" {
			return nil, fmt.Errorf("%w\n(nestor's own reader read it because %s)", err, why)
		}
		return nil, err
	}
	inv.Why = why
	return inv, nil
}

// readOwnInventory reads the inventory file at path with nestor's own
// readers, choosing as Ansible's plugins do (yaml.py accepts the extensions
// .yaml, .yml, .json and none; ini.py any file): a file named *.ini (or
// another extension) is INI; a YAML-named file is YAML, and when it is not
// a YAML inventory it is read as INI, as Ansible tries its ini plugin next.
// When neither reads it, the error gives both reasons.
//
// What only Ansible can read is refused with the way out (convertHint): an
// inventory folder, an inventory script (an executable file starting with
// #!), an inventory plugin's configuration (a YAML mapping with plugin:).
func readOwnInventory(path string) (*Inventory, error) {
	data, err := readInventoryFile(path)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.Mode()&0o111 != 0 && strings.HasPrefix(string(data), "#!") {
		return nil, fmt.Errorf("inventory %s is an inventory script (executable, #!): nestor runs no script; %s", path, convertHint(path))
	}
	var probe struct {
		Plugin any `yaml:"plugin"`
	}
	if yaml.Unmarshal(data, &probe) == nil {
		if name, ok := probe.Plugin.(string); ok { // Ansible's auto plugin: a plugin: NAME string
			return nil, fmt.Errorf("inventory %s configures the inventory plugin %s: nestor reads static inventories only; %s", path, name, convertHint(path))
		}
	}
	wrap := func(inv *inventory, reader string) *Inventory {
		return &Inventory{Path: path, Reader: reader, hosts: inv.hostOrder, merge: inv.merge}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json", "":
		inv, yerr := parseYAMLInventory(path, data)
		if yerr == nil {
			return wrap(inv, ReaderYAML), nil
		}
		inv, ierr := parseINIInventory(path, data)
		if ierr == nil {
			return wrap(inv, ReaderINI), nil
		}
		if looksINI(data) {
			return nil, ierr
		}
		return nil, fmt.Errorf("%v\n(read as INI, as Ansible would next: %v)", yerr, ierr)
	}
	inv, err := parseINIInventory(path, data)
	if err != nil {
		return nil, err
	}
	return wrap(inv, ReaderINI), nil
}

// looksINI reports whether the first line that is not blank or a comment
// is an INI section header ("[group]").
func looksINI(data []byte) bool {
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		return iniSection.MatchString(l)
	}
	return false
}

// Match says which inventory host is a topology node, and how it was found.
type Match struct {
	// Host is the inventory host name.
	Host string
	// ByName: the host's name is the node's name.
	ByName bool
	// ByAddress is how the node's address found the host: "name" (the host
	// is keyed by that address), "ansible_host" (its ansible_host or
	// ansible_ssh_host is that address), "" (not by address).
	ByAddress string
}

// How says how m was found, for the operator: "by its name", "by the node's
// address 192.0.2.51 (the host's name)", or both.
func (m Match) How(address string) string {
	var parts []string
	if m.ByName {
		parts = append(parts, "by its name")
	}
	switch m.ByAddress {
	case "name":
		parts = append(parts, fmt.Sprintf("by the node's address %s (the host's name)", address))
	case "ansible_host":
		parts = append(parts, fmt.Sprintf("by the node's address %s (the host's ansible_host)", address))
	}
	return strings.Join(parts, " and ")
}

// AmbiguousHostError is Find's error when different inventory hosts match
// one node (one by name, another by address, or two by address).
type AmbiguousHostError struct {
	Path, Node, Address string
	Matches             []Match
}

func (e *AmbiguousHostError) Error() string {
	var list []string
	for _, m := range e.Matches {
		list = append(list, fmt.Sprintf("%q (%s)", m.Host, m.How(e.Address)))
	}
	return fmt.Sprintf("node %s (address %s) matches %d different hosts of inventory %s: %s; nestor will not guess which one to reach: "+
		"make the topology's address: of %s the address of the host you mean, or remove the other host from the inventory",
		e.Node, e.Address, len(e.Matches), e.Path, strings.Join(list, " and "), e.Node)
}

// Find returns the inventory host that is the topology node name with
// address address ("" when the topology gives none), its settings, and how
// it was found: the host named name, or a host whose name or ansible_host
// (alias ansible_ssh_host, after the merge) is address. Addresses compare
// as IP addresses when both are (any spelling of an IPv6 address), else as
// host names (case and a trailing dot ignored). Errors: no host matches (an
// *UnknownHostError listing the hosts); different hosts match (an
// *AmbiguousHostError naming them and how each matched); the errors of
// Host.
func (inv *Inventory) Find(name, address string) (HostVars, Match, error) {
	var matches []Match
	at := func(host string) *Match {
		for i := range matches {
			if matches[i].Host == host {
				return &matches[i]
			}
		}
		matches = append(matches, Match{Host: host})
		return &matches[len(matches)-1]
	}
	for _, h := range inv.hosts {
		if h == name {
			at(h).ByName = true
		}
	}
	if address != "" {
		for _, h := range inv.hosts {
			if sameHost(h, address) {
				at(h).ByAddress = "name"
				continue
			}
			m, err := inv.merge(h)
			if err != nil {
				return HostVars{}, Match{}, err
			}
			if x, ok := lastSetOK(m.vars, varsHost); ok && x.node.Kind == yaml.ScalarNode && sameHost(x.node.Value, address) {
				at(h).ByAddress = "ansible_host"
			}
		}
	}
	switch len(matches) {
	case 0:
		return HostVars{}, Match{}, &UnknownHostError{Path: inv.Path, Host: name, Address: address, Known: inv.Hosts()}
	case 1:
		hv, err := inv.Host(matches[0].Host)
		return hv, matches[0], err
	}
	return HostVars{}, Match{}, &AmbiguousHostError{Path: inv.Path, Node: name, Address: address, Matches: matches}
}

// lastSetOK is lastSet, and whether any of names is set.
func lastSetOK(m invVars, names []string) (invValue, bool) {
	for _, n := range names {
		if _, ok := m[n]; ok {
			return lastSet(m, names), true
		}
	}
	return invValue{}, false
}

// sameHost reports whether a and b name the same host: equal IP addresses
// (netip: any IPv6 spelling, an IPv4-mapped IPv6 address as its IPv4, no
// brackets), else equal names ignoring case and a trailing dot.
func sameHost(a, b string) bool {
	trim := func(s string) string {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = s[1 : len(s)-1]
		}
		return s
	}
	a, b = trim(a), trim(b)
	if a == "" || b == "" {
		return false
	}
	ia, erra := netip.ParseAddr(a)
	ib, errb := netip.ParseAddr(b)
	if erra == nil && errb == nil {
		return ia.Unmap() == ib.Unmap()
	}
	if erra == nil || errb == nil {
		return false
	}
	return strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(b, "."))
}

// convertHint says how to read an inventory nestor's own readers cannot:
// install Ansible, or export it once where Ansible is installed.
func convertHint(path string) string {
	return fmt.Sprintf("install ansible-core (nestor then reads it with ansible-inventory), or export it where Ansible is installed: "+
		"ansible-inventory -i %s --list --yaml --export > hosts.yaml", path)
}
