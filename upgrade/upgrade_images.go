package upgrade

import (
	"cmp"
	"slices"

	"nestor.dev/nestor/topology"
)

// LayerImages picks, from the workloads a read listed (facts.Workloads),
// the images of each declared layer's main workload (LayerSupport.Main: its
// kind, its name or name pattern, its container), in the namespaces the
// layer lives in (LayerDefFor: the catalog's, or the topology's override),
// for the upgrade judgement (UpgradeFacts.LayerImages). A layer the support
// table does not hold, or whose release its image does not carry, gives no
// image (JudgeUpgrade says why of each).
//
// It is unknown, with the read's reason, when the workloads were not read
// at all; a layer whose namespace could not be read (facts.WorkloadErrors)
// gives no image, and JudgeUpgrade says its main workload was not among
// those read. The images are sorted by layer, namespace, workload.
func LayerImages(t *topology.Topology, facts topology.ClusterFacts) topology.Fact[[]LayerImage] {
	if !facts.Workloads.Known {
		return topology.UnknownFact[[]LayerImage](facts.Workloads.Why().Prefixed("the workloads: "))
	}
	out := []LayerImage{}
	if t == nil {
		return topology.KnownFact(out)
	}
	for _, ref := range t.Layers {
		entry, ok := LookupLayerSupport(ref.Name)
		if !ok || !entry.Main.ImageIsRelease {
			continue
		}
		def, ok := topology.LayerDefFor(ref)
		if !ok {
			continue
		}
		m := entry.Main
		for _, ws := range facts.Workloads.Value {
			if ws.Kind != m.Kind || !topology.NameMatches(m.Name, ws.Name) || !slices.Contains(def.Namespaces, ws.Namespace) {
				continue
			}
			for _, c := range ws.Containers {
				if c.Name == m.Container {
					out = append(out, LayerImage{Layer: ref.Name, Kind: ws.Kind, Namespace: ws.Namespace, Workload: ws.Name, Container: c.Name, Image: c.Image})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b LayerImage) int {
		switch {
		case a.Layer != b.Layer:
			return cmp.Compare(a.Layer, b.Layer)
		case a.Namespace != b.Namespace:
			return cmp.Compare(a.Namespace, b.Namespace)
		}
		return cmp.Compare(a.Workload, b.Workload)
	})
	return topology.KnownFact(out)
}
