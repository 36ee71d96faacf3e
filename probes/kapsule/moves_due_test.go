package kapsule

import (
	"reflect"
	"testing"
	"time"

	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// TestMovesDueOfKapsuleSteps: the steps JudgeKapsule plans are read
// by upgrade.MovesDue (the "FROM → TO" of their reasons), and the
// provider's forced move uses this kind's warning window. The pools follow
// the cluster to its new version, after its upgrade.
func TestMovesDueOfKapsuleSteps(t *testing.T) {
	k := healthy()
	c := k.Cluster.Value
	c.Version = "1.34.3"
	k.Cluster = topology.KnownFact(c)
	pools := k.Pools.Value
	pools[0].Version = "1.34.1"
	pools[1].Version = "1.34.3"
	k.Available = topology.KnownFact([]string{"1.35.1", "1.35.2"})
	j := JudgeKapsule(kapsuleTopo("1.35", nil), k)
	plan := topology.Plan{Steps: j.Steps}
	asOf := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	d := upgrade.MovesDue(plan, &topology.Observed{Kapsule: k}, KapsuleCalendarWarnDays, asOf)
	if len(d.Moves) != 1 || d.Moves[0].To.Canonical() != "1.35.2" || !reflect.DeepEqual(d.Moves[0].Steps, []string{"upgrade cluster → 1.35.2", "upgrade-pool default → 1.35.2", "upgrade-pool burst → 1.35.2"}) {
		t.Errorf("steps:\n%s\ntargets %+v", steps(j), d.Moves)
	}
	if !reflect.DeepEqual(d.Drains, []string{"upgrade-pool default → 1.35.2", "upgrade-pool burst → 1.35.2"}) {
		t.Errorf("steps:\n%s\ndrains %q", steps(j), d.Drains)
	}

	eol := asOf.AddDate(0, 0, KapsuleCalendarWarnDays)
	k.Versions = topology.KnownFact([]topology.KapsuleVersion{{Name: "1.34.3", EndOfLifeAt: &eol}, {Name: "1.35.2"}})
	d = upgrade.MovesDue(topology.Plan{}, &topology.Observed{Kapsule: k}, KapsuleCalendarWarnDays, asOf)
	if len(d.Moves) != 1 || !d.Moves[0].Forced || d.Moves[0].Date == nil || !d.Moves[0].Date.Equal(eol) {
		t.Errorf("an end of life %d days away (the calendar's warning): targets %+v", KapsuleCalendarWarnDays, d.Moves)
	}
	later := eol.AddDate(0, 0, 1)
	k.Versions = topology.KnownFact([]topology.KapsuleVersion{{Name: "1.34.3", EndOfLifeAt: &later}})
	if d = upgrade.MovesDue(topology.Plan{}, &topology.Observed{Kapsule: k}, KapsuleCalendarWarnDays, asOf); len(d.Moves) != 0 {
		t.Errorf("an end of life beyond the warning: targets %+v", d.Moves)
	}
}
