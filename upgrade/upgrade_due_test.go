package upgrade

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

func TestStepToAndRef(t *testing.T) {
	tests := []struct {
		step topology.Step
		to   string // "" = none
		ref  string
	}{
		{topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseK8s, Target: "kubernetes", Reason: "API server v1.36.2 → 1.37 (step 1 of 2 to 1.38: the API server must not skip minors)", To: "1.37"}, "1.37", "upgrade kubernetes → 1.37"},
		{topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseK8s, Target: "kubernetes", Reason: "API server v1.36.2 → 1.37.3; blocked: kubelet v1.33.1 on n3 would be 4 minors behind", To: "1.37.3"}, "1.37.3", "upgrade kubernetes → 1.37.3"},
		{topology.Step{Kind: topology.StepUpgradeNode, Phase: topology.PhaseK8s, Target: "n1", Reason: "kubelet v1.36.1 → 1.37", To: "1.37"}, "1.37", "upgrade-node n1 → 1.37"},
		{topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseCluster, Target: "cluster", Reason: "1.34.1 → 1.35.2 (offered by the provider; one minor at a time)", To: "1.35.2"}, "1.35.2", "upgrade cluster → 1.35.2"},
		{topology.Step{Kind: topology.StepUpgradePool, Phase: topology.PhasePools, Target: "default", Reason: "1.34.1 → 1.35.2 (the cluster's version)", To: "1.35.2"}, "1.35.2", "upgrade-pool default → 1.35.2"},
		// The version is the step's field, never read from its words.
		{topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseK8s, Target: "kubernetes", Reason: "API server v1.36.2 → 1.37"}, "", "upgrade kubernetes"},
		{topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseK8s, Target: "kubernetes", Reason: "API server", To: "soon"}, "", "upgrade kubernetes"},
		// Only upgrade steps move to a version.
		{topology.Step{Kind: topology.StepReplacePool, Phase: topology.PhasePools, Target: "default", Reason: "node_type a → b (cannot change in place)", To: "1.35"}, "", "replace-pool default"},
		{topology.Step{Kind: topology.StepRepairNode, Phase: topology.PhaseK8s, Target: "n2", Reason: "registered but NotReady → 1.37 expected"}, "", "repair-node n2"},
	}
	for _, tt := range tests {
		to, ok := topology.StepTo(tt.step)
		if got := to.Canonical(); ok != (tt.to != "") || got != tt.to {
			t.Errorf("StepTo(%q) = %q, %v; want %q", tt.step.Reason, got, ok, tt.to)
		}
		if got := topology.StepRef(tt.step); got != tt.ref {
			t.Errorf("StepRef(%s %q) = %q, want %q", tt.step.Kind, tt.step.Reason, got, tt.ref)
		}
	}
}

func TestDrainsNodes(t *testing.T) {
	for kind, want := range map[topology.StepKind]bool{
		topology.StepUpgradeNode: true, topology.StepRepairNode: true, topology.StepUpgradePool: true, topology.StepReplacePool: true, topology.StepReplaceNode: true,
		topology.StepJoinNode: false, topology.StepInstall: false, topology.StepCreatePool: false, topology.StepUpdatePool: false, topology.StepUndeclared: false,
	} {
		if got := DrainsNodes(topology.Step{Kind: kind}); got != want {
			t.Errorf("DrainsNodes(%s) = %v, want %v", kind, got, want)
		}
	}
	if !DrainsNodes(topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseK8s}) || DrainsNodes(topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseCluster}) {
		t.Errorf("upgrade drains on a node cluster (phase k8s) only, not for a managed cluster's control plane (phase cluster)")
	}
}

// prodPlan is the plan NodeCluster makes for fixtures.SkewTopology(desired) on a
// cluster whose API server and kubelets all run server.
func prodPlan(t *testing.T, desired, server string, asOf time.Time) (topology.Plan, *topology.Observed) {
	t.Helper()
	obs := &topology.Observed{ServerVersion: topology.KnownFact(server), Nodes: topology.KnownFact([]topology.NodeState{
		{Name: "skew1", Ready: true, Roles: []string{topology.RoleControlPlane}, KubeletVersion: server},
		{Name: "skew2", Ready: true, KubeletVersion: server},
		{Name: "skew3", Ready: true, KubeletVersion: server},
	})}
	p := topology.Plan{Steps: []topology.Step{}, Findings: []topology.Finding{}}
	plan.NodeCluster{}.PlanOwn(fixtures.SkewTopology(desired), obs, plan.Options{AsOf: asOf}, &p)
	obs.DeriveVersions()
	return p, obs
}

func dayp(y int, m time.Month, d int) *time.Time { t := kube.Day(y, m, d); return &t }

// target is what a test expects of an UpgradeMove.
type target struct {
	minor, to, from string
	date            *time.Time
	forced          bool
	steps           []string
	why             string // a substring of one of Why
}

func checkTargets(t *testing.T, got UpgradeDue, want []target) {
	t.Helper()
	if len(got.Moves) != len(want) {
		t.Fatalf("targets %+v, want %d: %+v", got.Moves, len(want), want)
	}
	for i, w := range want {
		g := got.Moves[i]
		switch {
		case g.Minor.MinorString() != w.minor || g.Minor.HasPatch:
			t.Errorf("target %d: minor %q (patch %v), want %s", i, g.Minor.Canonical(), g.Minor.HasPatch, w.minor)
		case g.To.Canonical() != w.to:
			t.Errorf("target %s: to %s, want %s", w.minor, g.To.Canonical(), w.to)
		case g.From.Canonical() != w.from:
			t.Errorf("target %s: from %s, want %s", w.minor, g.From.Canonical(), w.from)
		case g.Forced != w.forced:
			t.Errorf("target %s: forced %v, want %v", w.minor, g.Forced, w.forced)
		case (g.Date == nil) != (w.date == nil) || g.Date != nil && !g.Date.Equal(*w.date):
			t.Errorf("target %s: date %v, want %v", w.minor, g.Date, w.date)
		case !reflect.DeepEqual(g.Steps, w.steps) && !(len(g.Steps) == 0 && len(w.steps) == 0):
			t.Errorf("target %s: steps %q, want %q", w.minor, g.Steps, w.steps)
		case !strings.Contains(strings.Join(g.Why, "\n"), w.why):
			t.Errorf("target %s: why %q, want it to hold %q", w.minor, g.Why, w.why)
		}
	}
}

func TestMovesDueNodeCluster(t *testing.T) {
	quiet := kube.Day(2026, 6, 1) // 1.35's upstream end of life (2027-02-28) is far
	t.Run("a path through two minors", func(t *testing.T) {
		p, obs := prodPlan(t, "1.37", "v1.35.2", quiet)
		d := MovesDue(p, obs, 60, quiet)
		checkTargets(t, d, []target{
			{minor: "1.36", to: "1.36", from: "1.35", steps: []string{"upgrade kubernetes → 1.36", "upgrade-node skew1 → 1.36", "upgrade-node skew2 → 1.36", "upgrade-node skew3 → 1.36"}, why: "planned: upgrade kubernetes → 1.36"},
			{minor: "1.37", to: "1.37", from: "1.36", steps: []string{"upgrade kubernetes → 1.37", "upgrade-node skew1 → 1.37", "upgrade-node skew2 → 1.37", "upgrade-node skew3 → 1.37"}, why: "planned"},
		})
		wantDrains := []string{"upgrade kubernetes → 1.36", "upgrade kubernetes → 1.37", "upgrade-node skew1 → 1.36", "upgrade-node skew1 → 1.37",
			"upgrade-node skew2 → 1.36", "upgrade-node skew2 → 1.37", "upgrade-node skew3 → 1.36", "upgrade-node skew3 → 1.37"}
		if !reflect.DeepEqual(d.Drains, wantDrains) {
			t.Errorf("drains %q, want %q", d.Drains, wantDrains)
		}
		if !d.ReadsAPIs() || !d.ReadsPDBs() || d.Nothing() || d.Current.Raw != "v1.35.2" {
			t.Errorf("due %+v: reads both, something due, current v1.35.2", d)
		}
	})
	t.Run("a patch upgrade is a drain, no target", func(t *testing.T) {
		p, obs := prodPlan(t, "1.35.4", "v1.35.2", quiet)
		d := MovesDue(p, obs, 60, quiet)
		checkTargets(t, d, nil)
		if len(d.Drains) != 4 || d.ReadsAPIs() || !d.ReadsPDBs() {
			t.Errorf("due %+v: the control plane and 3 nodes drain, no API read", d)
		}
	})
	t.Run("nothing due: nothing read", func(t *testing.T) {
		p, obs := prodPlan(t, "", "v1.37.2", kube.Day(2026, 12, 1))
		d := MovesDue(p, obs, 60, kube.Day(2026, 12, 1))
		if !d.Nothing() || d.ReadsAPIs() || d.ReadsPDBs() || d.Moves == nil || d.Drains == nil {
			t.Errorf("due %+v: nothing (empty lists, never nil)", d)
		}
	})
	t.Run("upstream end of life within the notice", func(t *testing.T) {
		asOf := kube.Day(2027, 1, 15) // 1.35 ends 2027-02-28, in 44 days
		p, obs := prodPlan(t, "", "v1.35.1", asOf)
		d := MovesDue(p, obs, 60, asOf)
		checkTargets(t, d, []target{{minor: "1.36", to: "1.36", from: "1.35", date: dayp(2027, 2, 28), why: "1.35 reaches end of life upstream on 2027-02-28, in 44 days"}})
		if d.ReadsPDBs() {
			t.Errorf("no step drains: %q", d.Drains)
		}
	})
	t.Run("upstream end of life just outside the notice", func(t *testing.T) {
		asOf := kube.Day(2026, 11, 29) // 91 days before 2027-02-28
		p, obs := prodPlan(t, "", "v1.35.1", asOf)
		checkTargets(t, MovesDue(p, obs, 60, asOf), nil)
	})
	t.Run("upstream end of life past, merged with the planned step", func(t *testing.T) {
		asOf := kube.Day(2026, 12, 1) // 1.34 ended 2026-10-27
		p, obs := prodPlan(t, "1.35", "v1.34.4", asOf)
		checkTargets(t, MovesDue(p, obs, 60, asOf), []target{{minor: "1.35", to: "1.35", from: "1.34", date: dayp(2026, 10, 27),
			steps: []string{"upgrade kubernetes → 1.35", "upgrade-node skew1 → 1.35", "upgrade-node skew2 → 1.35", "upgrade-node skew3 → 1.35"}, why: "1.34 reached end of life upstream on 2026-10-27"}})
	})
	t.Run("older than the calendar: no date", func(t *testing.T) {
		asOf := kube.Day(2026, 12, 1)
		p, obs := prodPlan(t, "", "v1.26.3", asOf)
		checkTargets(t, MovesDue(p, obs, 60, asOf), []target{{minor: "1.27", to: "1.27", from: "1.26", why: "older than every minor"}})
	})
	t.Run("no calendar without a date", func(t *testing.T) {
		p, obs := prodPlan(t, "", "v1.26.3", time.Time{})
		checkTargets(t, MovesDue(p, obs, 60, time.Time{}), nil)
	})
	t.Run("version unknown: said, drains kept", func(t *testing.T) {
		obs := &topology.Observed{ServerVersion: topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "forbidden (user x cannot get version)"))}
		p := topology.Plan{Steps: []topology.Step{{Kind: topology.StepRepairNode, Phase: topology.PhaseK8s, Target: "n1", Reason: "registered but NotReady"}}}
		d := MovesDue(p, obs, 60, kube.Day(2026, 12, 1))
		if len(d.Moves) != 0 || d.Unknown == "" || !strings.Contains(d.Current.Reason, "forbidden (user x cannot get version)") || !reflect.DeepEqual(d.Drains, []string{"repair-node n1"}) || d.Nothing() {
			t.Errorf("due %+v", d)
		}
	})
	t.Run("no target read: nothing", func(t *testing.T) {
		obs := &topology.Observed{NoTarget: true, ServerVersion: topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "no target"))}
		p := topology.Plan{Unverified: true, Steps: []topology.Step{{Kind: topology.StepBootstrap, Target: "x"}}}
		if d := MovesDue(p, obs, 60, kube.Day(2026, 12, 1)); !d.Nothing() {
			t.Errorf("due %+v, want nothing for an unverified plan", d)
		}
	})
}

// kapsuleAt is a ready cluster at version, its pools at poolVersion, with
// the provider's version list.
func kapsuleAt(version, poolVersion string, versions ...topology.KapsuleVersion) *topology.Observed {
	return &topology.Observed{Kapsule: &topology.KapsuleObserved{
		Cluster:   topology.KnownFact(topology.KapsuleCluster{Name: "c", Status: "ready", Version: version}),
		Pools:     topology.KnownFact([]topology.KapsulePool{{ID: "p1", Name: "default", Status: "ready", Version: poolVersion}}),
		Available: topology.KnownFact([]string{}),
		Versions:  topology.KnownFact(versions),
	}}
}

func TestMovesDueKapsule(t *testing.T) {
	asOf := kube.Day(2026, 5, 1) // 1.34's upstream end of life (2026-10-27) is far
	upgrade := topology.Step{Kind: topology.StepUpgrade, Phase: topology.PhaseCluster, Target: "cluster", Reason: "1.34.3 → 1.35.2 (offered by the provider; one minor at a time)", To: "1.35.2"}
	pool := topology.Step{Kind: topology.StepUpgradePool, Phase: topology.PhasePools, Target: "default", Reason: "1.34.1 → 1.34.3 (the cluster's version)", To: "1.34.3"}
	listed := func(eol, dep *time.Time) []topology.KapsuleVersion {
		return []topology.KapsuleVersion{{Name: "1.34.3", DeprecatedAt: dep, EndOfLifeAt: eol}, {Name: "1.35.1"}, {Name: "1.35.4"}, {Name: "1.36.0"}}
	}
	tests := []struct {
		name   string
		steps  []topology.Step
		obs    *topology.Observed
		want   []target
		drains []string
	}{
		{name: "planned upgrade of the cluster", steps: []topology.Step{upgrade, pool}, obs: kapsuleAt("1.34.3", "1.34.1", listed(nil, nil)...),
			want:   []target{{minor: "1.35", to: "1.35.2", from: "1.34", steps: []string{"upgrade cluster → 1.35.2"}, why: "planned: upgrade cluster → 1.35.2"}},
			drains: []string{"upgrade-pool default → 1.34.3"}},
		{name: "end of life in 30 days: forced to the next minor's latest patch", obs: kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 5, 31), dayp(2026, 3, 1))...),
			want: []target{{minor: "1.35", to: "1.35.4", from: "1.34", date: dayp(2026, 5, 31), forced: true, why: "the provider's end of life of 1.34 is on 2026-05-31, in 30 days: the provider then upgrades the cluster to the next minor's latest patch (1.35.4)"}}},
		{name: "end of life in 60 days, the window's last day: forced", obs: kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 6, 30), nil)...),
			want: []target{{minor: "1.35", to: "1.35.4", from: "1.34", date: dayp(2026, 6, 30), forced: true, why: "in 60 days"}}},
		{name: "end of life in 61 days: not yet", obs: kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 7, 1), nil)...)},
		{name: "end of life past", obs: kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 4, 1), nil)...),
			want: []target{{minor: "1.35", to: "1.35.4", from: "1.34", date: dayp(2026, 4, 1), forced: true, why: "was on 2026-04-01"}}},
		{name: "inconsistent calendar: no forced move", obs: kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 5, 10), dayp(2026, 6, 1))...)},
		{name: "forced and planned: one target", steps: []topology.Step{upgrade}, obs: kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 5, 31), nil)...),
			want: []target{{minor: "1.35", to: "1.35.2", from: "1.34", date: dayp(2026, 5, 31), forced: true, steps: []string{"upgrade cluster → 1.35.2"}, why: "the provider then upgrades"}}},
		{name: "the provider lists no next minor", obs: kapsuleAt("1.34.3", "1.34.3", topology.KapsuleVersion{Name: "1.34.3", EndOfLifeAt: dayp(2026, 5, 31)}),
			want: []target{{minor: "1.35", to: "1.35", from: "1.34", date: dayp(2026, 5, 31), forced: true, why: "which its version list does not name yet"}}},
		{name: "a patch upgrade and a pool replaced: drains only",
			steps:  []topology.Step{{Kind: topology.StepUpgrade, Phase: topology.PhaseCluster, Target: "cluster", Reason: "1.34.1 → 1.34.3 (offered by the provider)", To: "1.34.3"}, {Kind: topology.StepReplacePool, Phase: topology.PhasePools, Target: "default", Reason: "zone a → b"}},
			obs:    kapsuleAt("1.34.1", "1.34.1", listed(nil, nil)...),
			drains: []string{"replace-pool default"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := MovesDue(topology.Plan{Steps: tt.steps}, tt.obs, 60, asOf)
			checkTargets(t, d, tt.want)
			if !reflect.DeepEqual(d.Drains, append([]string{}, tt.drains...)) {
				t.Errorf("drains %q, want %q", d.Drains, tt.drains)
			}
		})
	}
	t.Run("forced, and upstream's end of life near: one forced target", func(t *testing.T) {
		asOf := kube.Day(2026, 9, 1) // 1.34 ends upstream on 2026-10-27, in 56 days
		d := MovesDue(topology.Plan{}, kapsuleAt("1.34.3", "1.34.3", listed(dayp(2026, 9, 30), nil)...), 60, asOf)
		checkTargets(t, d, []target{{minor: "1.35", to: "1.35.4", from: "1.34", date: dayp(2026, 9, 30), forced: true, why: "1.34 reaches end of life upstream on 2026-10-27, in 56 days"}})
	})
	t.Run("the provider's cluster unread", func(t *testing.T) {
		obs := &topology.Observed{Kapsule: &topology.KapsuleObserved{Cluster: topology.UnknownFact[topology.KapsuleCluster](topology.Because(topology.ReasonFailed, "timed out after 10s"))}}
		if d := MovesDue(topology.Plan{}, obs, 60, asOf); d.Unknown == "" || !strings.Contains(d.Current.Reason, "the provider's cluster: timed out after 10s") {
			t.Errorf("unknown %q", d.Unknown)
		}
	})
}
