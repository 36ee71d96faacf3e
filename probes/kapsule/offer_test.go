package kapsule

import (
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// regionTypes are the region's cluster types as the provider's "control
// plane offers" page gives them.
func regionTypes() []topology.KapsuleType {
	month := int64(30 * 86400)
	var out []topology.KapsuleType
	for _, fam := range []string{"kapsule", "multicloud"} {
		out = append(out,
			topology.KapsuleType{Name: fam, Availability: "available", MaxNodes: 150, MaxEtcdSize: 55_000_000},
			topology.KapsuleType{Name: fam + "-dedicated-4", Availability: "available", MaxNodes: 250, MaxEtcdSize: 200_000_000, Dedicated: true, CommitmentDelaySeconds: month},
			topology.KapsuleType{Name: fam + "-dedicated-8", Availability: "available", MaxNodes: 500, MaxEtcdSize: 200_000_000, Dedicated: true, CommitmentDelaySeconds: month},
			topology.KapsuleType{Name: fam + "-dedicated-16", Availability: "scarce", MaxNodes: 500, MaxEtcdSize: 200_000_000, Dedicated: true, CommitmentDelaySeconds: month},
		)
	}
	return out
}

// offered is healthy() of type typ, created on 2026-03-02, its commitment
// ending at ends (nil: its creation, as the API writes it for a cluster
// that never had a dedicated offer), its available-types as recorded for
// that type, etcd measured at etcd bytes (0: not measured, forbidden).
func offered(typ string, ends *time.Time, etcd uint64, available ...string) *topology.KapsuleObserved {
	k := healthy()
	created := time.Date(2026, 3, 2, 9, 14, 0, 0, time.UTC)
	c := k.Cluster.Value
	c.Type, c.CreatedAt, c.CommitmentEndsAt = typ, &created, &created
	if ends != nil {
		c.CommitmentEndsAt = ends
	}
	k.Cluster = topology.KnownFact(c)
	k.Types = topology.KnownFact(regionTypes())
	k.AvailableTypes = topology.KnownFact(available)
	k.Etcd = topology.UnknownFact[topology.StorageSize](topology.Because(topology.ReasonForbidden, `forbidden (user nestor cannot get path /metrics)`))
	if etcd > 0 {
		k.Etcd = topology.KnownFact(topology.StorageSize{Bytes: etcd, Metric: "apiserver_storage_size_bytes", Series: 1})
	}
	return k
}

func typed(typ string, pools ...topology.Pool) *topology.Topology {
	t := kapsuleTopo("1.35", nil, pools...)
	t.Scaleway.Type = typ
	return t
}

var nov = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// planOf is the kapsule plan of t over k at asOf, checked against the
// order rules (CheckOrder: a blocked step says blocked: and names what
// blocks it).
func planOf(t *testing.T, tp *topology.Topology, k *topology.KapsuleObserved, asOf time.Time) topology.Plan {
	t.Helper()
	obs := &topology.Observed{Kapsule: k, Layers: []topology.LayerState{}, InClusterUnread: "no kubeconfig is declared"}
	var p topology.Plan
	Rules{}.PlanOwn(tp, obs, plan.Options{AsOf: asOf}, &p)
	if err := plan.CheckOrder(p, topology.UnknownFact[topology.VersionsState](topology.Because(topology.ReasonNotRead, "x"))); err != nil {
		t.Errorf("the plan breaks the order rules: %v", err)
	}
	return p
}

func typeSteps(p topology.Plan) []topology.Step {
	var out []topology.Step
	for _, s := range p.Steps {
		if s.Kind == topology.StepSetType {
			out = append(out, s)
		}
	}
	return out
}

func TestJudgeType(t *testing.T) {
	ends := func(s string) *time.Time { return date(s) }
	allUp := []string{"kapsule", "kapsule-dedicated-4", "kapsule-dedicated-8", "kapsule-dedicated-16"}
	tests := []struct {
		name     string
		declared string
		k        *topology.KapsuleObserved
		asOf     time.Time
		// step is what the set-type step's reason holds ("" no step);
		// blocked, what its Blocked subjects say.
		step, blocked string
		unknown       string
		code          topology.ReasonCode
		finding       string
	}{
		{name: "not declared", declared: "", k: offered("kapsule", nil, 0, allUp...)},
		{name: "the cluster's own", declared: "kapsule", k: offered("kapsule", nil, 0, allUp...)},
		{name: "up, listed: the commitment it starts", declared: "kapsule-dedicated-4", k: offered("kapsule", nil, 0, allUp...),
			step: "kapsule → kapsule-dedicated-4 (offered to this cluster; starts a 30-day commitment, during which the cluster cannot move to a lower type)"},
		{name: "up to a scarce type: said", declared: "kapsule-dedicated-16", k: offered("kapsule", nil, 0, allUp...),
			step: "the provider says its availability is scarce"},
		{name: "up from dedicated: only higher tiers listed", declared: "kapsule-dedicated-16", k: offered("kapsule-dedicated-4", ends("2026-12-20"), 0, "kapsule-dedicated-8", "kapsule-dedicated-16"),
			step: "kapsule-dedicated-4 → kapsule-dedicated-16 (offered to this cluster; starts a 30-day commitment"},
		{name: "up, not listed now", declared: "kapsule-dedicated-8", k: offered("kapsule", nil, 0, "kapsule", "kapsule-dedicated-4"),
			unknown: "the provider does not offer kapsule-dedicated-8 to this cluster now (its available-types: kapsule-dedicated-4)", code: topology.ReasonNotOffered},
		{name: "up, available-types unread", declared: "kapsule-dedicated-4", k: func() *topology.KapsuleObserved {
			k := offered("kapsule", nil, 0)
			k.AvailableTypes = topology.UnknownFact[[]string](topology.Because(topology.ReasonForbidden, "forbidden: the credentials may not read it (403 permissions_denied)"))
			return k
		}(), unknown: "whether the provider offers kapsule-dedicated-4 to this cluster now: forbidden", code: topology.ReasonForbidden},
		{name: "up, cluster types unread: the commitment not known", declared: "kapsule-dedicated-4", k: func() *topology.KapsuleObserved {
			k := offered("kapsule", nil, 0, allUp...)
			k.Types = topology.UnknownFact[[]topology.KapsuleType](topology.Because(topology.ReasonTimedOut, "timed out after 10s"))
			return k
		}(), step: "the commitment it starts is not known: timed out after 10s"},
		{name: "down during the commitment: blocked until its date", declared: "kapsule-dedicated-4", k: offered("kapsule-dedicated-8", ends("2026-12-20"), 0, "kapsule-dedicated-16"),
			step:    "kapsule-dedicated-8 → kapsule-dedicated-4 (a lower type); blocked: the commitment of kapsule-dedicated-8 runs until 2026-12-20 (commitment_ends_at): the provider refuses a lower type before then",
			blocked: "the commitment of kapsule-dedicated-8 until 2026-12-20"},
		{name: "down after the commitment", declared: "kapsule-dedicated-4", k: offered("kapsule-dedicated-8", ends("2026-11-01"), 0, "kapsule-dedicated-16"),
			step: "kapsule-dedicated-8 → kapsule-dedicated-4 (a lower type; no commitment binds it)"},
		{name: "the commitment ends the plan's day: moved", declared: "kapsule-dedicated-4", k: offered("kapsule-dedicated-8", ends("2026-11-30"), 0),
			step: "(a lower type; no commitment binds it)"},
		{name: "down to mutualised, etcd not measured: unknown, never fine", declared: "kapsule", k: offered("kapsule-dedicated-4", ends("2026-10-01"), 0),
			step:    "kapsule-dedicated-4 → kapsule (a lower type; no commitment binds it; needs etcd under 55 MB: not measured)",
			unknown: "whether etcd fits kapsule's quota of 55 MB, which the move to the mutualised plane needs: etcd's size was not measured (forbidden (user nestor cannot get path /metrics))", code: topology.ReasonForbidden},
		{name: "down to mutualised, etcd under the quota", declared: "kapsule", k: offered("kapsule-dedicated-4", ends("2026-10-01"), 41_836_544),
			step: "kapsule-dedicated-4 → kapsule (a lower type; no commitment binds it; etcd 41.8 MB, under kapsule's quota of 55 MB)"},
		{name: "down to mutualised, etcd over the quota: blocked", declared: "kapsule", k: offered("kapsule-dedicated-4", ends("2026-10-01"), 80_000_000),
			step: "blocked: etcd's database file is 80 MB, over kapsule's quota of 55 MB", blocked: "etcd of lyneko-apps"},
		{name: "down to mutualised in the commitment, etcd over: both block", declared: "kapsule", k: offered("kapsule-dedicated-4", ends("2026-12-20"), 80_000_000),
			step: "blocked: the commitment of kapsule-dedicated-4 runs until 2026-12-20", blocked: "the commitment of kapsule-dedicated-4 until 2026-12-20, etcd of lyneko-apps"},
		{name: "down with no date: the commitment not judged", declared: "kapsule-dedicated-4", k: offered("kapsule-dedicated-8", ends("2026-12-20"), 0), asOf: time.Time{},
			step: "kapsule-dedicated-8 → kapsule-dedicated-4 (a lower type)", unknown: "whether the commitment still binds: the plan has no date", code: topology.ReasonNotRead},
		{name: "across families: no step, an error", declared: "multicloud-dedicated-4", k: offered("kapsule", nil, 0, allUp...),
			finding: "error cluster type: scaleway.type multicloud-dedicated-4 is of the multicloud family, the cluster is kapsule (kapsule): the provider does not move a cluster across families in place"},
		{name: "across families, down too", declared: "kapsule", k: offered("multicloud-dedicated-8", ends("2026-12-20"), 0),
			finding: "scaleway.type kapsule is of the kapsule family, the cluster is multicloud-dedicated-8 (multicloud)"},
		{name: "a tier the region does not list", declared: "kapsule-dedicated-32", k: offered("kapsule", nil, 0, allUp...),
			unknown: "scaleway.type kapsule-dedicated-32 is not among the region's cluster types (kapsule, kapsule-dedicated-4, kapsule-dedicated-8, kapsule-dedicated-16, multicloud", code: topology.ReasonNotOffered},
		{name: "a cluster type nestor does not know", declared: "kapsule-dedicated-4", k: offered("kapsule-premium", nil, 0, allUp...),
			unknown: `the cluster's type "kapsule-premium", which nestor does not know`, code: topology.ReasonUnrecognised},
		{name: "the cluster updating: nothing yet", declared: "kapsule-dedicated-4", k: func() *topology.KapsuleObserved {
			k := offered("kapsule", nil, 0, allUp...)
			k.Cluster.Value.Status = "updating"
			return k
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asOf := nov
			if tc.name == "down with no date: the commitment not judged" {
				asOf = tc.asOf
			}
			p := planOf(t, typed(tc.declared), tc.k, asOf)
			st := typeSteps(p)
			switch {
			case tc.step == "" && len(st) != 0:
				t.Errorf("set-type steps %+v, want none", st)
			case tc.step != "" && (len(st) != 1 || !strings.Contains(st[0].Reason, tc.step)):
				t.Errorf("set-type steps %+v, want one saying %q", st, tc.step)
			case len(st) == 1:
				var names []string
				for _, b := range st[0].Blocked {
					names = append(names, b.Text)
					if b.Key != topology.KeyScalewayType {
						t.Errorf("blocked by %+v: its key is not scaleway.type", b)
					}
				}
				if got := strings.Join(names, ", "); got != tc.blocked {
					t.Errorf("blocked by %q, want %q", got, tc.blocked)
				}
				if st[0].Subject.Key != topology.KeyScalewayType || st[0].Phase != topology.PhaseCluster {
					t.Errorf("step subject %+v, phase %s", st[0].Subject, st[0].Phase)
				}
			}
			var unknowns []string
			for _, u := range p.Unknowns {
				if u.Subject.Key == topology.KeyScalewayType {
					unknowns = append(unknowns, u.Message)
					if u.Code != tc.code {
						t.Errorf("unknown %q has code %q, want %q", u.Message, u.Code, tc.code)
					}
				}
			}
			switch got := strings.Join(unknowns, "\n"); {
			case tc.unknown == "" && got != "":
				t.Errorf("unknowns %q, want none", got)
			case !strings.Contains(got, tc.unknown):
				t.Errorf("unknowns %q, want %q", got, tc.unknown)
			}
			var offers []topology.Finding
			for _, f := range p.Findings {
				if f.Kind == topology.FindingOffer {
					offers = append(offers, f)
				}
			}
			switch got := findings(offers); {
			case tc.finding == "" && got != "":
				t.Errorf("offer findings %q, want none", got)
			case !strings.Contains(got, tc.finding):
				t.Errorf("offer findings %q, want %q", got, tc.finding)
			}
		})
	}
}

// The set-type step comes with the cluster's steps, before the pools'.
func TestSetTypeBeforePoolSteps(t *testing.T) {
	k := offered("kapsule", nil, 0, "kapsule", "kapsule-dedicated-4")
	k.Pools.Value[1].Version = "1.34.6"
	p := planOf(t, typed("kapsule-dedicated-4"), k, nov)
	var kinds []string
	for _, s := range p.Steps {
		kinds = append(kinds, string(s.Kind))
	}
	if got := strings.Join(kinds, ","); got != "set-type,upgrade-pool" {
		t.Errorf("steps %s, want set-type before upgrade-pool", got)
	}
}

func TestKapsuleHeadroom(t *testing.T) {
	pool := func(name string, size, max int) topology.Pool {
		if max > 0 {
			return topology.Pool{Name: name, NodeType: "PRO2-S", Autoscaling: &topology.Autoscaling{Min: size, Max: max}}
		}
		return topology.Pool{Name: name, NodeType: "PRO2-XXS", Size: size}
	}
	tests := []struct {
		name     string
		tp       *topology.Topology
		k        *topology.KapsuleObserved
		measures string // name=used/limit(percent) each
		findings string
	}{
		{name: "the typical cluster: far from its limits, etcd not measured",
			tp: typed(""), k: offered("kapsule", nil, 0),
			measures: "nodes=4/150(3) nodes_at_pools_max=8/150(6) nodes_at_declared_max=8/150(6) etcd=?/55000000"},
		{name: "etcd near its quota: a warning with the threshold and why",
			tp: typed(""), k: offered("kapsule", nil, 45_000_000),
			measures: "nodes=4/150(3) nodes_at_pools_max=8/150(6) nodes_at_declared_max=8/150(6) etcd=45000000/55000000(82)",
			findings: "warning etcd: etcd 45 MB (an upper bound: etcd's file as allocated, which compaction does not shrink) is 82% of kapsule's limit of 55 MB (nestor warns from 80%: at its quota etcd refuses writes"},
		{name: "the declared maxima above max_nodes: an error",
			tp: typed("", pool("default", 3, 0), pool("burst", 0, 160)), k: offered("kapsule", nil, 1_000_000),
			measures: "nodes=4/150(3) nodes_at_pools_max=8/150(6) nodes_at_declared_max=163/150(109) etcd=1000000/55000000(2)",
			findings: "error pools: the declared pools' maxima add up to 163 nodes, above kapsule's max_nodes of 150"},
		{name: "the declared maxima judged against the declared type",
			tp: typed("kapsule-dedicated-4", pool("default", 3, 0), pool("burst", 0, 160)), k: offered("kapsule", nil, 1_000_000, "kapsule", "kapsule-dedicated-4"),
			measures: "nodes=4/150(3) nodes_at_pools_max=8/150(6) nodes_at_declared_max=163/250(66) etcd=1000000/55000000(2)"},
		{name: "the pools' maxima at 80%: a warning",
			tp: typed(""), k: func() *topology.KapsuleObserved {
				k := offered("kapsule", nil, 1_000_000)
				k.Pools.Value[1].MaxSize = 117
				return k
			}(),
			measures: "nodes=4/150(3) nodes_at_pools_max=120/150(80) nodes_at_declared_max=8/150(6) etcd=1000000/55000000(2)",
			findings: "warning pools: nodes at the pools' maxima 120 is 80% of kapsule's limit of 150 (nestor warns from 80%"},
		{name: "the cluster types unread: every limit unknown, no finding",
			tp: typed(""), k: func() *topology.KapsuleObserved {
				k := offered("kapsule", nil, 54_000_000)
				k.Types = topology.UnknownFact[[]topology.KapsuleType](topology.Because(topology.ReasonForbidden, "forbidden: the credentials may not read it (403 permissions_denied)"))
				return k
			}(),
			measures: "nodes=4/? nodes_at_pools_max=8/? nodes_at_declared_max=8/? etcd=54000000/?"},
		{name: "the nodes unread",
			tp: typed(""), k: func() *topology.KapsuleObserved {
				k := offered("kapsule", nil, 0)
				k.Nodes = topology.UnknownFact[[]topology.KapsuleNode](topology.Because(topology.ReasonServerError, "the provider's API answered 503"))
				return k
			}(),
			measures: "nodes=?/150 nodes_at_pools_max=8/150(6) nodes_at_declared_max=8/150(6) etcd=?/55000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := planOf(t, tc.tp, tc.k, nov)
			h := p.Headroom
			if h == nil || h.Type != tc.k.Cluster.Value.Type || h.WarnPercent != HeadroomWarnPercent {
				t.Fatalf("headroom %+v", h)
			}
			var got []string
			for _, m := range h.Measures {
				s := m.Name + "="
				if m.Used.Known {
					s += fmtU(m.Used.Value)
				} else {
					s += "?"
					if m.Used.Reason == "" || m.Used.Code == "" {
						t.Errorf("%s unknown without its reason: %+v", m.Name, m.Used)
					}
				}
				s += "/"
				if m.Limit.Known {
					s += fmtU(m.Limit.Value)
				} else {
					s += "?"
				}
				if m.Percent != nil {
					s += "(" + fmtU(uint64(*m.Percent)) + ")"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tc.measures {
				t.Errorf("measures\n%s\nwant\n%s", g, tc.measures)
			}
			var hf []topology.Finding
			for _, f := range p.Findings {
				if f.Kind == topology.FindingHeadroom {
					hf = append(hf, f)
				}
			}
			switch g := findings(hf); {
			case tc.findings == "" && g != "":
				t.Errorf("headroom findings %q, want none", g)
			case !strings.Contains(g, tc.findings):
				t.Errorf("headroom findings\n%s\nwant %q", g, tc.findings)
			}
		})
	}
	// A cluster not read: every figure unknown with its reason, never a
	// figure, and no finding made of it.
	k := healthy()
	k.Cluster = topology.UnknownFact[topology.KapsuleCluster](topology.Because(topology.ReasonForbidden, "forbidden: the credentials may not read it (403 permissions_denied)"))
	h := KapsuleHeadroom(typed(""), k)
	if h == nil || len(h.Measures) != 4 {
		t.Fatalf("headroom of an unread cluster: %+v", h)
	}
	for _, m := range h.Measures {
		if m.Used.Known || m.Limit.Known || m.Percent != nil || m.Used.Code != topology.ReasonForbidden || !strings.Contains(m.Used.Reason, "the cluster was not read: forbidden") {
			t.Errorf("%s of an unread cluster: %+v", m.Name, m)
		}
	}
	if f := headroomFindings(h); len(f) != 0 {
		t.Errorf("findings of an unread cluster's headroom: %v", f)
	}
	if KapsuleHeadroom(typed(""), nil) != nil {
		t.Errorf("a headroom without a read of the provider")
	}
}

func fmtU(v uint64) string {
	var b []byte
	if v == 0 {
		return "0"
	}
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}
