package action

import (
	"testing"
	"time"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// A report judges the support of every minor its views and formats ask
// about, once, as the calendar does at its day: the API server's and each
// kubelet's, a managed cluster's and its pools', the cluster's version.
func TestReportSupportCoversEveryMinorRun(t *testing.T) {
	asOf := time.Date(2027, 7, 30, 0, 0, 0, 0, time.UTC)
	skew := fixtures.SkewTopology("")
	obs := fixtures.SkewObserved()
	obs.DeriveVersions()
	kapsule := &topology.Topology{Path: "/s/stacks/apps.yaml", Name: "apps", TargetKind: topology.TargetKapsule, Layers: []topology.LayerRef{}}
	kobs := &topology.Observed{
		Versions: topology.KnownFact(topology.VersionsState{APIServer: kube.ParseVersion("v1.36.3")}),
		Kapsule: &topology.KapsuleObserved{
			Cluster: topology.KnownFact(topology.KapsuleCluster{Name: "apps", Status: "ready", Version: "1.35.3"}),
			Pools:   topology.KnownFact([]topology.KapsulePool{{ID: "p1", Name: "default", Status: "ready", Version: "1.33.9"}}),
		},
		Layers: []topology.LayerState{},
	}
	for _, c := range []struct {
		name   string
		t      *topology.Topology
		obs    *topology.Observed
		minors []string
	}{
		{"a node cluster with skewed kubelets", skew, obs, []string{"1.37", "1.36", "1.34"}},
		{"a managed cluster and its pool", kapsule, kobs, []string{"1.36", "1.35", "1.33"}},
		{"nothing read", skew, probes.NoTargetObservation("no kubeconfig"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := KindOf(c.t)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReport(k, &probes.Opened{Topology: c.t}, c.obs, asOf)
			if len(r.Support) != len(c.minors) {
				t.Errorf("%d minors judged, want %d (%v)", len(r.Support), len(c.minors), c.minors)
			}
			for _, m := range c.minors {
				got, ok := r.SupportOf(kube.ParseVersion(m + ".0"))
				want := kube.UpstreamCalendar().SupportOf(kube.ParseVersion(m+".0"), asOf)
				if !ok || got.Standing != want.Standing || got.Days != want.Days || got.Entry.Minor != want.Entry.Minor {
					t.Errorf("%s: %+v (judged %v), want the calendar's %+v", m, got, ok, want)
				}
			}
			if v, ok := r.ClusterVersion(); ok {
				if _, judged := r.SupportOf(v); !judged {
					t.Errorf("the cluster's version %s is not judged", v.Raw)
				}
			}
		})
	}
}
