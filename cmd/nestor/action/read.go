package action

import (
	"context"
	"fmt"
	"time"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
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

// ReadReport reads the opened stack op in two stages and builds its Report.
//
//  1. The stack's read (read: Opened.Read, then the layers judged) and its
//     plan (NewReport).
//  2. When an upgrade report is due — the minors the plan or the calendars
//     move the cluster to and the steps that drain nodes
//     (upgrade.MovesDue, the provider's window
//     kube.ProviderEndOfLifeNoticeDays), known only once the version, the
//     nodes and the plan are — what its judgement needs is read
//     (Opened.ReadUpgrade, within the stack's one deadline), and its
//     findings (upgrade.JudgeUpgrade) are appended to the plan's.
//
// Then the stack's next hard date (upgrade.NextHardDate). The plan and
// the due upgrades are computed once. k is the stack's kind, asOf the day
// the calendars are judged at. Errors: Opened.Read's, or ctx's when it
// ended during the upgrade reads (wrapped).
func ReadReport(ctx context.Context, k probes.Kind, op *probes.Opened, asOf time.Time) (*Report, error) {
	obs, facts, err := read(ctx, k, op, probes.ReadAll)
	if err != nil {
		return nil, err
	}
	r := NewReport(k, op, obs, asOf)
	due := upgrade.MovesDue(r.Plan, obs, kube.ProviderEndOfLifeNoticeDays, asOf)
	if !due.Nothing() {
		r.Upgrade = &due
		f := op.ReadUpgrade(ctx, due)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading stack %s: %w", op.Topology.Name, probes.Stopped(err))
		}
		if due.ReadsAPIs() {
			f.LayerImages = upgrade.LayerImages(op.Topology, facts)
		}
		r.Plan.Findings = append(r.Plan.Findings, upgrade.JudgeUpgrade(op.Topology, due, f)...)
	}
	if hd, ok := upgrade.NextHardDate(obs, due, r.Plan.Findings, asOf); ok {
		r.HardDate = &hd
	}
	return r, nil
}
