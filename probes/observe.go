package probes

import (
	"sort"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/topology"
)

// This file is where the probes meet the layer catalog of package topology:
// which namespaces to read workloads from. How the facts read become the
// layers and storage of an observation is judged after the read, by the
// caller (health.Judge).

// workloadNamespaces returns, sorted and without duplicates, namespaces
// whose Deployments, DaemonSets and StatefulSets ProbeCluster lists, where
// the workloads of a layer are looked for — Workload.Namespace, else the
// def's Namespaces (topology.LayerDefFor):
//
//   - undeclared false: those of each declared layer of topo (the first
//     wave, sent once the namespace list is in);
//   - undeclared true: those of each catalog layer topo does not declare
//     whose CRD group or provisioner facts show (so an undeclared layer that
//     is found gets its health);
//
// in both cases without the ones facts.Namespaces, when known, shows do not
// exist (nothing can be in them); all of them when it is unknown.
//
// topo may be nil (no declared layer). An undeclared catalog layer with
// neither CRD groups nor provisioners (ingress-nginx, registry…) is seen
// only when its namespace is read for another layer: nestor does not list
// 20 namespaces for information steps.
func workloadNamespaces(topo *topology.Topology, facts topology.ClusterFacts, undeclared bool) []string {
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
			if def, ok := topology.LayerDefFor(ref); ok && !undeclared {
				add(def)
			}
		}
	}
	if undeclared {
		for _, def := range topology.Catalog() {
			if !declared[def.Name] && health.SignalSeen(def, facts) {
				add(def)
			}
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

// UnknownObservation is an observation where nothing of the cluster could be
// read: every part unknown with reason, every declared layer unknown — its
// Layers are set, so the judgement after the read (health.Judge) leaves
// them as they are.
func UnknownObservation(topo *topology.Topology, why topology.Why) *topology.Observed {
	reason := why.Text
	obs := &topology.Observed{
		ServerVersion: topology.UnknownFact[string](why),
		Nodes:         topology.UnknownFact[[]topology.NodeState](why),
		Layers:        []topology.LayerState{},
		Storage:       topology.UnknownFact[topology.StorageState](why),
	}
	if topo != nil {
		for _, ref := range topo.Layers {
			obs.Layers = append(obs.Layers, topology.LayerState{Name: ref.Name, Declared: true, Health: topology.Unknown, Reason: reason, Code: why.Code})
		}
	}
	return obs
}
