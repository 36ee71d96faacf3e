package ssh

import (
	"errors"
	"fmt"
	"strings"

	"nestor.dev/nestor/topology"
)

// Flags are the command-line settings of `discover --cp` that say how to
// reach the control-plane node; zero values take the inventory's, then the
// topology's settings.
type Flags struct {
	Inventory  string
	RemotePath string
	User       string
	Port       int
	Identity   string
}

// NodeSettings finds node in t's nodes (address, user, port, key) and in the
// Ansible inventory (o.Inventory, else t's inventory:) and returns the ssh
// settings to reach it, each taken from the first that sets it: the flags
// o, then the inventory's host variables, then the topology's node. home
// expands ~; interactive lets ssh prompt (host keys, passphrases). notes
// say what the operator should know (a node only in the topology, an
// inventory setting nestor does not use). Errors: a node known to neither
// (listing both), an inventory that does not parse, a ~ that cannot be
// expanded.
func NodeSettings(t *topology.Topology, node string, o Flags, home string, interactive bool) (FetchOptions, []string, error) {
	fo := FetchOptions{Node: node, RemotePath: o.RemotePath, Interactive: interactive}
	var notes []string
	tn, inTopo := t.Node(node)

	invPath := ""
	switch {
	case o.Inventory != "":
		p, err := topology.ExpandHome(o.Inventory, home, "", "--inventory")
		if err != nil {
			return fo, nil, err
		}
		invPath = p
	case t.Inventory != "":
		invPath = t.ResolvePath(t.Inventory, home)
	}
	var hv HostVars
	inInv := false
	if invPath != "" {
		var err error
		hv, err = InventoryHost(invPath, node)
		var uh *UnknownHostError
		switch {
		case err == nil:
			inInv = true
		case errors.As(err, &uh) && inTopo:
			notes = append(notes, fmt.Sprintf("%s; using the topology's node %s", err, node))
		case errors.As(err, &uh):
			return fo, nil, fmt.Errorf("unknown node %s: %s has no node %q (nodes: %s), and %v", node, t.Path, node, nodeNames(t), err)
		default:
			return fo, nil, err
		}
		notes = append(notes, hv.Notes...)
	} else if !inTopo {
		return fo, nil, fmt.Errorf("unknown node %s: %s has no node %q (nodes: %s) and names no inventory: (or pass --inventory FILE)", node, t.Path, node, nodeNames(t))
	}

	fo.Host = firstNonEmpty(hv.Host, tn.Address, node)
	fo.Address = firstNonEmpty(tn.Address, hv.Host)
	fo.User = firstNonEmpty(o.User, hv.User, tn.User)
	fo.Port = o.Port
	if fo.Port == 0 {
		fo.Port = hv.Port
	}
	if fo.Port == 0 {
		fo.Port = tn.Port
	}
	switch {
	case o.Identity != "":
		p, err := topology.ExpandHome(o.Identity, home, "", "--identity")
		if err != nil {
			return fo, nil, err
		}
		fo.IdentityFile = p
	case hv.PrivateKeyFile != "":
		p, err := topology.ExpandHome(hv.PrivateKeyFile, home, "", "ansible_ssh_private_key_file")
		if err != nil {
			return fo, nil, fmt.Errorf("inventory %s: ansible_ssh_private_key_file: %v", invPath, err)
		}
		fo.IdentityFile = p
	case tn.Key != "":
		fo.IdentityFile = t.ResolvePath(tn.Key, home)
	}
	if inInv {
		fo.CommonArgs, fo.ExtraArgs, fo.Become = hv.SSHCommonArgs, hv.SSHExtraArgs, hv.Become
	}
	return fo, notes, nil
}

func nodeNames(t *topology.Topology) string {
	if len(t.Nodes) == 0 {
		return "none"
	}
	names := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
