package probes

import (
	"fmt"
	"strings"
	"testing"
)

// discoveryOf writes an aggregated discovery document of groups groups, each
// with one version of resources resources (as a cluster with many CRDs
// answers /apis).
func discoveryOf(groups, resources int) string {
	var b strings.Builder
	b.WriteString(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[`)
	for g := 0; g < groups; g++ {
		if g > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"g%d.example.io"},"versions":[{"version":"v1","freshness":"Current","resources":[`, g)
		for r := 0; r < resources; r++ {
			if r > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"resource":"things%d","responseKind":{"group":"","version":"","kind":"Thing%d"},"scope":"Namespaced","singularResource":"thing%d","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"Thing%d"},"verbs":["get","patch","update"]}]}`, r, r, r, r)
		}
		b.WriteString(`]}]}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkDecodeDiscovery decodes /apis documents of a bare API server's
// size (21 groups, ~60 KiB for 1.37) and of a cluster with 400 CRD groups of
// 10 kinds each; it reports the document's size.
func BenchmarkDecodeDiscovery(b *testing.B) {
	for _, c := range []struct{ groups, resources int }{{21, 4}, {400, 10}} {
		doc := discoveryOf(c.groups, c.resources)
		b.Run(fmt.Sprintf("%dx%d", c.groups, c.resources), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := DecodeDiscovery(strings.NewReader(coreDiscovery), strings.NewReader(doc), 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(doc)), "doc-bytes")
		})
	}
}
