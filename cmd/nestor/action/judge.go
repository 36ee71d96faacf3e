package action

import (
	"context"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// read reads the opened stack op (Opened.Read, at scope) and judges what
// it read (judge): the one way every command reads a stack. Errors are
// Opened.Read's.
func read(ctx context.Context, k probes.Kind, op *probes.Opened, scope probes.Scope) (*topology.Observed, topology.ClusterFacts, error) {
	obs, facts, err := op.Read(ctx, scope)
	if err != nil {
		return obs, facts, err
	}
	judge(k, op.Topology, obs, facts)
	return obs, facts, nil
}

// judge is the stage after a read: the layers and the storage of obs judged
// from the facts the read of t's cluster made (health.Judge), less the
// undeclared layers that kind k's provider says are its own
// (probes.ProviderLayers); a managed provider's objects read in the cluster,
// whose each is and what edited it (topology.ProviderObjects.Derive). A
// kind reads; judging is here, once, for every command that reads a stack.
func judge(k probes.Kind, t *topology.Topology, obs *topology.Observed, facts topology.ClusterFacts) {
	obs.ProviderObjects.Derive()
	if obs.Layers != nil {
		return // nothing of the cluster was read: every layer says why
	}
	health.Judge(obs, t, facts)
	p, ok := k.(probes.ProviderLayers)
	if !ok {
		return
	}
	kept := obs.Layers[:0]
	for _, l := range obs.Layers {
		if !p.ProviderLayer(l, facts) {
			kept = append(kept, l)
		}
	}
	obs.Layers = kept
}
