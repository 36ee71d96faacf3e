package topology

import (
	"slices"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/kube"
)

// datesAsOf is the day the StackDates cases are judged at.
var datesAsOf = kube.Day(2026, 11, 30)

// kapsuleObs is a managed cluster at version, its pools at pools, the
// provider's version list list (nil: not read, forbidden), created on
// created with its commitment ending on commit (nil: not said).
func kapsuleObs(version string, pools []string, list []KapsuleVersion, created, commit *time.Time, typ string) *Observed {
	k := &KapsuleObserved{
		Cluster:   KnownFact(KapsuleCluster{ID: "c-1", Name: "apps", Region: "fr-par", Status: "ready", Version: version, Type: typ, CreatedAt: created, CommitmentEndsAt: commit}),
		Available: KnownFact([]string{"1.36.1", "1.36.4"}),
	}
	var ps []KapsulePool
	for i, v := range pools {
		ps = append(ps, KapsulePool{ID: "p" + string(rune('1'+i)), Name: []string{"default", "burst", "gpu"}[i], Status: "ready", Version: v})
	}
	k.Pools = KnownFact(ps)
	if list == nil {
		k.Versions = UnknownFact[[]KapsuleVersion](Because(ReasonForbidden, "forbidden (the key may not list versions)"))
	} else {
		k.Versions = KnownFact(list)
	}
	return &Observed{Kapsule: k}
}

func moment(y int, m time.Month, d int) *time.Time {
	t := time.Date(y, m, d, 9, 14, 0, 0, time.UTC)
	return &t
}

// dateKeys is each date as "KIND SUBJECT DAY".
func dateKeys(ds []StackDate) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Kind)+" "+d.Subject+" "+d.Date.Format(time.DateOnly))
	}
	return out
}

// TestStackDates: the dates of a managed and of a node cluster, only from
// what was read — a mutualised cluster's commitment (its end equals its
// creation) is no date, a dedicated one's is while it binds; the provider's
// version list not read dates nothing of the provider and says why; a
// calendar out of order, a minor no calendar holds, a version that does
// not parse are undated, never guessed.
func TestStackDates(t *testing.T) {
	list := []KapsuleVersion{
		{Name: "1.35.3", DeprecatedAt: moment(2026, 9, 1), EndOfLifeAt: moment(2026, 12, 15)},
		{Name: "1.34.6", DeprecatedAt: moment(2026, 4, 1), EndOfLifeAt: moment(2026, 7, 1)},
		{Name: "1.36.4"},
	}
	upstream135 := []string{"upstream-maintenance 1.35 2026-12-28", "upstream-end-of-life 1.35 2027-02-28"}
	for _, tc := range []struct {
		name    string
		obs     *Observed
		want    []string
		undated []string // each a substring of one UndatedPart's String, in order
		unknown int      // how many undated parts are parts of ACTUAL unknown
	}{
		{name: "mutualised: commitment_ends_at is created_at, no commitment",
			obs:  kapsuleObs("1.35.3", []string{"1.35.3"}, list, moment(2026, 3, 2), moment(2026, 3, 2), "kapsule"),
			want: append(slices.Clone(upstream135), "provider-deprecation 1.35 2026-09-01", "provider-end-of-life 1.35 2026-12-15")},
		{name: "dedicated: the commitment's end while it binds",
			obs:  kapsuleObs("1.35.3", []string{"1.35.3"}, list, moment(2026, 11, 20), moment(2026, 12, 20), "kapsule-dedicated-4"),
			want: append(slices.Clone(upstream135), "provider-deprecation 1.35 2026-09-01", "provider-end-of-life 1.35 2026-12-15", "commitment-end c-1 2026-12-20")},
		{name: "dedicated, commitment over: no date",
			obs:  kapsuleObs("1.35.3", []string{"1.35.3"}, list, moment(2026, 10, 1), moment(2026, 10, 31), "kapsule-dedicated-4"),
			want: append(slices.Clone(upstream135), "provider-deprecation 1.35 2026-09-01", "provider-end-of-life 1.35 2026-12-15")},
		{name: "the version list not read: no provider date, and why",
			obs:     kapsuleObs("1.35.3", []string{"1.35.3"}, nil, moment(2026, 3, 2), moment(2026, 3, 2), "kapsule"),
			want:    upstream135,
			undated: []string{"the provider's dates (its version list): forbidden"}, unknown: 1},
		{name: "a pool a minor behind: its own dates",
			obs: kapsuleObs("1.35.3", []string{"1.35.3", "1.34.6"}, list, nil, nil, "kapsule"),
			want: append(slices.Clone(upstream135), "upstream-maintenance 1.34 2026-08-27", "upstream-end-of-life 1.34 2026-10-27",
				"provider-deprecation 1.35 2026-09-01", "provider-end-of-life 1.35 2026-12-15", "provider-deprecation 1.34 2026-04-01", "provider-end-of-life 1.34 2026-07-01")},
		{name: "the provider's calendar out of order for a minor: none of its provider dates",
			obs:  kapsuleObs("1.35.3", []string{"1.35.3"}, []KapsuleVersion{{Name: "1.35.3", DeprecatedAt: moment(2027, 4, 1), EndOfLifeAt: moment(2026, 1, 1)}}, nil, nil, "kapsule"),
			want: upstream135, undated: []string{"1.35 at the provider: the provider's calendar is inconsistent: end of life 2026-01-01 before deprecation 2027-04-01"}},
		{name: "a minor the provider does not list, one nestor's calendar does not hold",
			obs:     kapsuleObs("1.39.0", []string{"1.39.0"}, list, nil, nil, "kapsule"),
			undated: []string{"1.39 upstream: not in this nestor's upstream Kubernetes calendar", "1.39 at the provider: not listed by the provider"}},
		{name: "the cluster not read: nothing of it, the pools still",
			obs: func() *Observed {
				o := kapsuleObs("1.35.3", []string{"1.34.6"}, list, nil, nil, "kapsule")
				o.Kapsule.Cluster = UnknownFact[KapsuleCluster](Because(ReasonTimedOut, "timed out after 10s"))
				return o
			}(),
			want:    []string{"upstream-maintenance 1.34 2026-08-27", "upstream-end-of-life 1.34 2026-10-27", "provider-deprecation 1.34 2026-04-01", "provider-end-of-life 1.34 2026-07-01"},
			undated: []string{"the provider's cluster (its version and commitment): timed out after 10s"}, unknown: 1},
		{name: "a pool version that does not parse",
			obs:     kapsuleObs("1.35.3", []string{"1.35.3", "latest"}, list, nil, nil, "kapsule"),
			want:    append(slices.Clone(upstream135), "provider-deprecation 1.35 2026-09-01", "provider-end-of-life 1.35 2026-12-15"),
			undated: []string{`pool burst's version: version "latest"`}, unknown: 1},
		{name: "no target: nothing",
			obs:     &Observed{NoTarget: true, NoTargetReason: "no kubeconfig: declare kubeconfig:"},
			undated: []string{"the whole cluster: no kubeconfig: declare kubeconfig:"}, unknown: 1},
		{name: "a node cluster: the API server's minor and a kubelet's older one",
			obs: func() *Observed {
				o := &Observed{ServerVersion: KnownFact("v1.37.2"), Nodes: KnownFact([]NodeState{{Name: "a", KubeletVersion: "v1.37.2"}, {Name: "b", KubeletVersion: "v1.36.4"}})}
				o.DeriveVersions()
				return o
			}(),
			want: []string{"upstream-maintenance 1.37 2027-08-28", "upstream-end-of-life 1.37 2027-10-28", "upstream-maintenance 1.36 2027-04-28", "upstream-end-of-life 1.36 2027-06-28"}},
		{name: "a node cluster whose nodes were not read: the server's minor alone, and why",
			obs: func() *Observed {
				o := &Observed{ServerVersion: KnownFact("v1.37.2"), Nodes: UnknownFact[[]NodeState](Because(ReasonForbidden, "forbidden (user ro cannot list nodes)"))}
				o.DeriveVersions()
				return o
			}(),
			want:    []string{"upstream-maintenance 1.37 2027-08-28", "upstream-end-of-life 1.37 2027-10-28"},
			undated: []string{"the kubelets' versions: forbidden (user ro cannot list nodes)"}, unknown: 1},
		{name: "an estimated minor is marked",
			obs: func() *Observed {
				o := &Observed{ServerVersion: KnownFact("v1.38.0"), Nodes: KnownFact([]NodeState{})}
				o.DeriveVersions()
				return o
			}(),
			want: []string{"upstream-maintenance 1.38 2027-12-28", "upstream-end-of-life 1.38 2028-02-28"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dates, undated := StackDates(tc.obs, datesAsOf)
			if got := dateKeys(dates); !slices.Equal(got, tc.want) {
				t.Errorf("dates\n%v\nwant\n%v", got, tc.want)
			}
			if len(undated) != len(tc.undated) {
				t.Fatalf("undated %v, want %d like %v", Texts(undated), len(tc.undated), tc.undated)
			}
			unknown := 0
			for i, u := range undated {
				if !strings.Contains(u.String(), tc.undated[i]) {
					t.Errorf("undated[%d] %q, want it to hold %q", i, u, tc.undated[i])
				}
				if u.Unknown {
					unknown++
					if !slices.Contains(ReasonCodes(), u.Why.Code) {
						t.Errorf("undated %q: an unknown part without a reason code of the closed set", u)
					}
				}
			}
			if unknown != tc.unknown {
				t.Errorf("%d unknown parts, want %d", unknown, tc.unknown)
			}
			for _, d := range dates {
				if d.Kind == DateUpstreamEndOfLife && d.Minor == "1.38" && !d.Estimated {
					t.Errorf("1.38's end of life is an estimate, not marked so")
				}
				if d.Kind != DateCommitmentEnd && len(d.Runs) == 0 {
					t.Errorf("%s %s: who runs the minor is not said", d.Kind, d.Subject)
				}
			}
		})
	}
}

// TestStackDatesForcedTo: the provider's end of life of the cluster's
// minor says what the provider moves it to (the next minor's latest patch
// it lists: ForcedMove), however far the date; a pool's older minor says
// none (the provider moves the cluster, the pool follows no rule here).
func TestStackDatesForcedTo(t *testing.T) {
	list := []KapsuleVersion{
		{Name: "1.35.3", EndOfLifeAt: moment(2028, 1, 1)},
		{Name: "1.34.6", EndOfLifeAt: moment(2026, 7, 1)},
	}
	dates, _ := StackDates(kapsuleObs("1.35.3", []string{"1.34.6"}, list, nil, nil, "kapsule"), datesAsOf)
	got := map[string]string{}
	for _, d := range dates {
		if d.Kind == DateProviderEndOfLife {
			got[d.Minor] = d.ForcedTo
		}
	}
	if got["1.35"] != "1.36.4" || got["1.34"] != "" {
		t.Errorf("forced moves %v, want 1.35 → 1.36.4 and none for the pool's 1.34", got)
	}
	if dates, undated := StackDates(kapsuleObs("1.35.3", nil, list, nil, nil, "kapsule"), time.Time{}); dates != nil || undated != nil {
		t.Errorf("no day to judge at, yet %v %v", dates, undated)
	}
}
