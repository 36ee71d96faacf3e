package topology

import (
	"fmt"
	"testing"
)

// BenchmarkEvaluateCatalog judges every catalog layer against 150 CRD groups
// and 600 workloads.
func BenchmarkEvaluateCatalog(b *testing.B) {
	f := ClusterFacts{Namespaces: KnownFact([]string{}), StorageClasses: KnownFact([]StorageClass{{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true}})}
	var groups []string
	for i := 0; i < 150; i++ {
		groups = append(groups, fmt.Sprintf("g%d.example.com", i))
	}
	f.CRDGroups = KnownFact(groups)
	var ws []WorkloadState
	for i := 0; i < 600; i++ {
		ws = append(ws, wl(KindDeployment, "kube-system", fmt.Sprintf("app-%d", i), 1, 1))
	}
	f.Workloads = KnownFact(ws)
	// Every catalog namespace counts as read, as it would for a stack that
	// declares every layer.
	for _, d := range Catalog() {
		f.WorkloadNamespaces = append(f.WorkloadNamespaces, d.Namespaces...)
	}
	defs := Catalog()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, d := range defs {
			Evaluate(d, f, true)
		}
	}
}
