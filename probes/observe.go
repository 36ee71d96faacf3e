package probes

import (
	"slices"
	"sort"

	"nestor.dev/nestor/topology"
)

// This file is where the probes meet the layer catalog of package topology:
// which namespaces to read workloads from, and how the facts read become the
// layers and storage of an observation.

// workloadNamespaces returns, sorted and without duplicates, the
// namespaces whose Deployments, DaemonSets and StatefulSets ProbeCluster
// lists: where the workloads of each declared layer of topo
// (topology.LayerDefFor) are looked for — Workload.Namespace, else the
// def's Namespaces — and, for each catalog layer topo does not declare, the
// same when facts show one of its CRD groups or one of its provisioners (so
// an undeclared layer that is found gets its health). When facts.Namespaces
// is known, a namespace that does not exist is left out (nothing can be in
// it). topo may be nil (then only the undeclared rule applies).
//
// An undeclared catalog layer with neither CRD groups nor provisioners
// (ingress-nginx, registry…) is seen only when its namespace is read for
// another layer: nestor does not list 20 namespaces for information steps.
func workloadNamespaces(topo *topology.Topology, facts topology.ClusterFacts) []string {
	seen := map[string]bool{}
	add := func(def topology.LayerDef) {
		for _, w := range def.Workloads {
			if w.Namespace != "" {
				seen[w.Namespace] = true
				continue
			}
			for _, ns := range def.Namespaces {
				seen[ns] = true
			}
		}
	}
	declared := map[string]bool{}
	if topo != nil {
		for _, ref := range topo.Layers {
			declared[ref.Name] = true
			if def, ok := topology.LayerDefFor(ref); ok {
				add(def)
			}
		}
	}
	for _, def := range topology.Catalog() {
		if !declared[def.Name] && signalSeen(def, facts) {
			add(def)
		}
	}
	var exists map[string]bool
	if facts.Namespaces.Known {
		exists = map[string]bool{}
		for _, ns := range facts.Namespaces.Value {
			exists[ns] = true
		}
	}
	out := []string{}
	for ns := range seen {
		if ns != "" && (exists == nil || exists[ns]) {
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

// signalSeen reports whether facts show one of def's CRD groups or one of
// its provisioners on a StorageClass (unknown facts show nothing).
func signalSeen(def topology.LayerDef, facts topology.ClusterFacts) bool {
	if facts.CRDGroups.Known {
		for _, g := range def.CRDGroups {
			if slices.Contains(facts.CRDGroups.Value, g) {
				return true
			}
		}
	}
	if facts.StorageClasses.Known {
		for _, sc := range facts.StorageClasses.Value {
			if slices.Contains(def.Provisioners, sc.Provisioner) {
				return true
			}
		}
	}
	return false
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
