package probes

import (
	"sort"

	"nestor.dev/nestor/topology"
)

// This file is where the probes meet the layer catalog of package topology:
// which namespaces to read workloads from, and how the facts read become the
// layers and storage of an observation.

// wantedNamespaces returns, sorted and without duplicates, the namespaces
// where the declared layers of topo and every catalog layer keep their
// workloads (LayerDef.Namespaces and Workload.Namespace). topo may be nil.
func wantedNamespaces(topo *topology.Topology) []string {
	seen := map[string]bool{}
	add := func(def topology.LayerDef) {
		for _, ns := range def.Namespaces {
			seen[ns] = true
		}
		for _, w := range def.Workloads {
			if w.Namespace != "" {
				seen[w.Namespace] = true
			}
		}
	}
	if topo != nil {
		for _, ref := range topo.Layers {
			if def, ok := topology.LayerDefFor(ref); ok {
				add(def)
			}
		}
	}
	for _, def := range topology.Catalog() {
		add(def)
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		if ns != "" {
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

// fillLayers sets obs.Layers (topology.ObserveLayers: the declared layers in
// declaration order, then the undeclared catalog layers found) and
// obs.Storage (topology.DefaultStorage) from facts.
func fillLayers(obs *topology.Observed, topo *topology.Topology, facts topology.ClusterFacts) {
	obs.Layers = []topology.LayerState{}
	if topo != nil {
		obs.Layers = append(obs.Layers, topology.ObserveLayers(topo, facts)...)
	}
	obs.Storage = topology.DefaultStorage(facts)
}
