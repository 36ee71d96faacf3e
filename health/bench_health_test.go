package health

import (
	"fmt"
	"testing"

	"nestor.dev/nestor/topology"
)

// BenchmarkJudgeCatalog judges every catalog layer against 150 CRD groups
// and 600 workloads.
func BenchmarkJudgeCatalog(b *testing.B) {
	f := topology.ClusterFacts{Namespaces: topology.KnownFact([]string{}), StorageClasses: topology.KnownFact([]topology.StorageClass{{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true}})}
	var groups []string
	for i := 0; i < 150; i++ {
		groups = append(groups, fmt.Sprintf("g%d.example.com", i))
	}
	f.CRDGroups = topology.KnownFact(groups)
	var ws []topology.WorkloadState
	for i := 0; i < 600; i++ {
		ws = append(ws, wl(topology.KindDeployment, "kube-system", fmt.Sprintf("app-%d", i), 1, 1))
	}
	f.Workloads = topology.KnownFact(ws)
	// Every catalog namespace counts as read, as it would for a stack that
	// declares every layer.
	for _, d := range topology.Catalog() {
		f.WorkloadNamespaces = append(f.WorkloadNamespaces, d.Namespaces...)
	}
	defs := topology.Catalog()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, d := range defs {
			JudgeWorkloads(d, f, true)
		}
	}
}
