package action

import (
	"context"
	"fmt"
	"time"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// ReadReport reads the opened stack op (Opened.Read) and builds its Report
// (NewReport), then the upgrade report when one is due: the minors the plan
// or the calendars move the cluster to and the steps that drain nodes
// (topology.UpgradeTargets, the provider's window
// topology.ProviderEndOfLifeNoticeDays), what that judgement reads
// (Opened.ReadUpgrade: nothing when nothing is due) and its findings
// (topology.JudgeUpgrade), appended to the plan's; and the stack's next
// hard date (topology.NextHardDate). k is the stack's kind, asOf the day
// the calendars are judged at. Errors: Opened.Read's, or ctx's when it
// ended during the upgrade reads (wrapped).
func ReadReport(ctx context.Context, k probes.Kind, op *probes.Opened, asOf time.Time) (*Report, error) {
	obs, facts, err := op.Read(ctx, probes.ReadAll)
	if err != nil {
		return nil, err
	}
	r := NewReport(k, op, obs, asOf)
	due := topology.UpgradeTargets(r.Plan, obs, topology.ProviderEndOfLifeNoticeDays, asOf)
	if !due.Nothing() {
		r.Upgrade = &due
		f := op.ReadUpgrade(ctx, due, facts)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading stack %s: %w", op.Topology.Name, err)
		}
		r.Plan.Findings = append(r.Plan.Findings, topology.JudgeUpgrade(op.Topology, due, f)...)
	}
	if hd, ok := topology.NextHardDate(obs, due, r.Plan.Findings, asOf); ok {
		r.HardDate = &hd
	}
	return r, nil
}
