package topology

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParse500Nodes parses a prod topology of 500 nodes written as the
// benchmarks' fixture writes them (tests/bench: a flow mapping per node,
// with role and address): the cost every stack of a fleet pays once
// before its first connection. Most of it is yaml.v3's own parse.
func BenchmarkParse500Nodes(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("name: prod00\ntarget_kind: prod\nkubeconfig: ~/.kube/prod00.config\nendpoint: https://127.0.0.2:6443\nkubernetes:\n  version: \"1.37\"\nnodes:\n")
	for i := 0; i < 500; i++ {
		role := "worker"
		if i < 3 {
			role = "control-plane"
		}
		fmt.Fprintf(&sb, "  - {name: node-%04d, role: %s, address: 10.1.%d.%d}\n", i, role, i/250, i%250+1)
	}
	sb.WriteString("backend: ceph\nlayers:\n  - cilium\n  - rook-ceph\n  - cnpg\n  - argocd\n")
	data := []byte(sb.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("/stacks/prod00.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
