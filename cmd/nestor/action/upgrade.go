package action

import (
	"context"
	"fmt"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// upgradeReads starts the upgrade report's reads inside the stack's read,
// as soon as the version and the nodes are in (OpenOptions.AfterNodes), so
// they add no sequential round trip: whether a report is due for a node
// cluster follows from the version, the nodes and the topology alone (the
// plan's upgrade, upgrade-node and repair-node steps, the calendar). What
// the final plan needs and this read did not make (a managed cluster's
// forced move, known from the provider's versions) is read after it.
type upgradeReads struct {
	k    probes.Kind
	t    *topology.Topology
	asOf time.Time
	// op is the opened stack, set once Open returns (the read that calls
	// the hook comes after).
	op *probes.Opened
	// due is what was read for, facts what was read (set before the read
	// returns: the read waits for the hook's function).
	due   topology.UpgradeDue
	facts topology.UpgradeFacts
}

// hook is OpenOptions.AfterNodes: the upgrade report due for a plan built
// on the version and the nodes, and the function that reads for it (nil
// when nothing is due).
func (u *upgradeReads) hook(ctx context.Context, version topology.Fact[string], nodes topology.Fact[[]topology.NodeState]) func() {
	obs := &topology.Observed{ServerVersion: version, Nodes: nodes}
	obs.DeriveVersions()
	due := topology.UpgradeTargets(topology.BuildPlan(u.t, obs, u.k, topology.PlanOptions{AsOf: u.asOf}), obs, kube.ProviderEndOfLifeNoticeDays, u.asOf)
	if due.Nothing() || u.op == nil {
		return nil
	}
	return func() {
		u.facts = u.op.ReadUpgrade(ctx, due)
		u.due = due
	}
}

// ReadReport reads the opened stack op (Opened.Read) and builds its Report
// (NewReport), then the upgrade report when one is due: the minors the plan
// or the calendars move the cluster to and the steps that drain nodes
// (topology.UpgradeTargets, the provider's window
// topology.ProviderEndOfLifeNoticeDays), what that judgement reads
// (Opened.ReadUpgrade: nothing when nothing is due; made during the read by
// u when u is the hook op was opened with, else now) and its findings
// (topology.JudgeUpgrade), appended to the plan's; and the stack's next
// hard date (topology.NextHardDate). k is the stack's kind, asOf the day
// the calendars are judged at. Errors: Opened.Read's, or ctx's when it
// ended during the upgrade reads (wrapped).
func ReadReport(ctx context.Context, k probes.Kind, op *probes.Opened, asOf time.Time, u *upgradeReads) (*Report, error) {
	obs, facts, err := op.Read(ctx, probes.ReadAll)
	if err != nil {
		return nil, err
	}
	r := NewReport(k, op, obs, asOf)
	due := topology.UpgradeTargets(r.Plan, obs, kube.ProviderEndOfLifeNoticeDays, asOf)
	if !due.Nothing() {
		r.Upgrade = &due
		f := upgradeFacts(ctx, op, due, u)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading stack %s: %w", op.Topology.Name, probes.Stopped(err))
		}
		if due.ReadsAPIs() {
			f.LayerImages = topology.LayerImages(op.Topology, facts)
		}
		r.Plan.Findings = append(r.Plan.Findings, topology.JudgeUpgrade(op.Topology, due, f)...)
	}
	if hd, ok := topology.NextHardDate(obs, due, r.Plan.Findings, asOf); ok {
		r.HardDate = &hd
	}
	return r, nil
}

// upgradeFacts are the reads due needs: those u made during the read, and
// the others read now (the read's own deadline is past its stages: the
// stack's one deadline still bounds them).
func upgradeFacts(ctx context.Context, op *probes.Opened, due topology.UpgradeDue, u *upgradeReads) topology.UpgradeFacts {
	var early topology.UpgradeFacts
	var readAPIs, readPDBs bool
	if u != nil {
		early, readAPIs, readPDBs = u.facts, u.due.ReadsAPIs(), u.due.ReadsPDBs()
	}
	missing := topology.UpgradeDue{Current: due.Current}
	if due.ReadsAPIs() && !readAPIs {
		missing.Targets = due.Targets
	}
	if due.ReadsPDBs() && !readPDBs {
		missing.Drains = due.Drains
	}
	late := op.ReadUpgrade(ctx, missing)
	f := early
	if len(missing.Targets) > 0 {
		f.Served, f.DeprecatedCalls = late.Served, late.DeprecatedCalls
	}
	if len(missing.Drains) > 0 {
		f.PDBs = late.PDBs
	}
	return f
}

// newUpgradeReads is the upgrade reads of stack s judged at asOf, for
// OpenOptions.AfterNodes before Open, then ReadReport.
func newUpgradeReads(s *Stack, asOf time.Time) *upgradeReads {
	return &upgradeReads{k: s.Kind, t: s.Topology, asOf: asOf}
}
