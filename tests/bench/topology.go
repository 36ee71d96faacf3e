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

// TopologyYAML renders the prod topology of f (ARCHITECTURE.md "Topology file"):
// kubeconfig and endpoint as given, Kubernetes 1.37, backend ceph, every
// layer of f in install order, and the nodes — all of them when allNodes,
// else only the control planes (with their addresses in both cases).
func TopologyYAML(f *Fixture, kubeconfig, endpoint string, allNodes bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — benchmark stack: %d nodes (tests/bench)\n", StackName, len(f.Nodes))
	fmt.Fprintf(&b, "name: %s\ntarget_kind: prod\n", StackName)
	fmt.Fprintf(&b, "kubeconfig: %s\nendpoint: %s\n", kubeconfig, endpoint)
	b.WriteString("kubernetes:\n  version: \"1.37\"\nnodes:\n")
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, StackName+".yaml")
	return p, os.WriteFile(p, TopologyYAML(f, kubeconfig, endpoint, allNodes), 0o644)
}
