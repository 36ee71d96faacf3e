package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// StackName is the name of the prod stack the benchmark previews; its file
// is StackName + ".yaml".
const StackName = "bigprod"

// FixtureVersion is the Kubernetes minor the fixture's nodes and the
// harness's API server run, which TopologyYAML declares.
const FixtureVersion = "1.37"

// TopologyYAML renders the prod topology of f (ARCHITECTURE.md "Topology file"):
// kubeconfig and endpoint as given, Kubernetes FixtureVersion, backend ceph,
// every layer of f in install order, and the nodes — all of them when
// allNodes, else only the control planes (with their addresses in both
// cases).
func TopologyYAML(f *Fixture, kubeconfig, endpoint string, allNodes bool) []byte {
	return TopologyYAMLAt(f, kubeconfig, endpoint, allNodes, FixtureVersion)
}

// TopologyYAMLAt is TopologyYAML declaring Kubernetes version instead: a
// minor above FixtureVersion plans the upgrade of the control plane and of
// every node, so the preview judges the move (the upgrade report's reads).
func TopologyYAMLAt(f *Fixture, kubeconfig, endpoint string, allNodes bool, version string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — benchmark stack: %d nodes (tests/bench)\n", StackName, len(f.Nodes))
	fmt.Fprintf(&b, "name: %s\ntarget_kind: prod\n", StackName)
	fmt.Fprintf(&b, "kubeconfig: %s\nendpoint: %s\n", kubeconfig, endpoint)
	fmt.Fprintf(&b, "kubernetes:\n  version: %q\nnodes:\n", version)
	cp := map[string]bool{}
	for _, n := range f.ControlPlanes {
		cp[n] = true
	}
	for _, n := range f.Nodes {
		if cp[n.Name] {
			fmt.Fprintf(&b, "  - {name: %s, role: control-plane, address: %s}\n", n.Name, n.Status.Addresses[0].Address)
		} else if allNodes {
			fmt.Fprintf(&b, "  - {name: %s, role: worker, address: %s}\n", n.Name, n.Status.Addresses[0].Address)
		}
	}
	b.WriteString("backend: ceph\nlayers:\n")
	for _, l := range f.Layers {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	return []byte(b.String())
}

// WriteTopology writes TopologyYAML into dir/StackName.yaml (dir created)
// and returns the file's path.
func WriteTopology(dir string, f *Fixture, kubeconfig, endpoint string, allNodes bool) (string, error) {
	return WriteTopologyAt(dir, f, kubeconfig, endpoint, allNodes, FixtureVersion)
}

// WriteTopologyAt is WriteTopology declaring Kubernetes version
// (TopologyYAMLAt).
func WriteTopologyAt(dir string, f *Fixture, kubeconfig, endpoint string, allNodes bool, version string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, StackName+".yaml")
	return p, os.WriteFile(p, TopologyYAMLAt(f, kubeconfig, endpoint, allNodes, version), 0o644)
}
