package ssh

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"nestor.dev/nestor/probes"
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

// NodeEnv is what NodeSettings takes of the command's world.
type NodeEnv struct {
	// Home expands ~ and is ansible-inventory's HOME.
	Home string
	// Interactive lets ssh prompt (host keys, passphrases).
	Interactive bool
	// Run runs ansible-inventory (LoadInventory); nil reads inventories with
	// nestor's own readers only.
	Run probes.Runner
	// Env looks up the operator's PATH and locale for ansible-inventory.
	Env probes.Env
}

// NodeSettings finds node in t's nodes (address, user, port, key) and in the
// Ansible inventory (o.Inventory, else t's inventory:, read by
// LoadInventory) and returns the ssh settings to reach it, each taken from
// the first that sets it: the flags o, then the inventory's host variables,
// then the topology's node. The inventory host is the one named node, or
// the one whose name or ansible_host is the node's address: in the topology
// (Inventory.Find). notes say what the operator should know: which
// inventory host is the node, how it was found and which reader read the
// inventory; a node only in the topology; what the inventory read left out.
// Errors: a node known to neither (listing both); two inventory hosts for
// one node (naming both); an inventory that cannot be read; a ~ that cannot
// be expanded.
func NodeSettings(ctx context.Context, t *topology.Topology, node string, o Flags, env NodeEnv) (FetchOptions, []string, error) {
	home := env.Home
	fo := FetchOptions{Node: node, RemotePath: o.RemotePath, Interactive: env.Interactive}
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
		inv, err := LoadInventory(ctx, invPath, InventoryOptions{Run: env.Run, Env: env.Env, Home: home})
		if err != nil {
			return fo, nil, err
		}
		notes = append(notes, inv.Notes...)
		var m Match
		hv, m, err = inv.Find(node, tn.Address)
		var uh *UnknownHostError
		switch {
		case err == nil:
			inInv = true
			notes = append(notes, fmt.Sprintf("inventory %s, read by %s: host %q is node %s, found %s.", inv.Path, readerDesc(inv), m.Host, node, m.How(tn.Address)))
		case errors.As(err, &uh) && inTopo:
			notes = append(notes, fmt.Sprintf("%v (read by %s); using the topology's node %s", err, readerDesc(inv), node))
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

// readerDesc names what read inv, and why nestor's own reader did:
// "ansible-inventory", "nestor's INI reader (ansible-inventory is not on PATH)".
func readerDesc(inv *Inventory) string {
	if inv.Why != "" {
		return inv.Reader + " (" + inv.Why + ")"
	}
	return inv.Reader
}
