package health

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/topology"
)

// rookFacts is a cluster where rook-ceph's CRDs and the named workloads
// (Deployments in rook-ceph, each ready/desired) are read.
func rookFacts(avail map[string][2]int32) topology.ClusterFacts {
	var ws []topology.WorkloadState
	for name, rd := range avail {
		ws = append(ws, topology.WorkloadState{Kind: topology.KindDeployment, Namespace: "rook-ceph", Name: name, Ready: rd[0], Desired: rd[1]})
	}
	return topology.ClusterFacts{
		Namespaces:         topology.KnownFact([]string{"rook-ceph"}),
		CRDGroups:          topology.KnownFact([]string{"ceph.rook.io"}),
		StorageClasses:     topology.KnownFact([]topology.StorageClass{}),
		Workloads:          topology.KnownFact(ws),
		WorkloadNamespaces: []string{"rook-ceph"},
	}
}

var rookUp = map[string][2]int32{"rook-ceph-operator": {1, 1}, "rook-ceph-mon-a": {1, 1}, "rook-ceph-mgr-a": {1, 1}, "rook-ceph-osd-0": {1, 1}}

func TestJudgeLayer(t *testing.T) {
	def, _ := topology.CatalogLayer("rook-ceph")
	healthy := cephCluster(map[string]string{topology.FieldCephHealth: "HEALTH_OK", topology.FieldCephLastChecked: before(40 * time.Second), topology.FieldPhase: "Ready"})
	broken := cephCluster(map[string]string{topology.FieldCephHealth: "HEALTH_ERR", topology.FieldCephLastChecked: before(40 * time.Second), topology.FieldPhase: "Ready"}, topology.HealthCheck{Name: "OSD_DOWN", Severity: "HEALTH_WARN", Message: "2 osds down"})
	osdDown := map[string][2]int32{"rook-ceph-operator": {1, 1}, "rook-ceph-mon-a": {1, 1}, "rook-ceph-mgr-a": {1, 1}, "rook-ceph-osd-0": {0, 1}}
	for _, tc := range []struct {
		name      string
		workloads map[string][2]int32
		objs      []topology.StatusObject
		unread    []string
		health    topology.Health
		reason    string
	}{
		{"workloads available, Ceph HEALTH_OK: healthy, in a few words", rookUp, []topology.StatusObject{healthy}, nil, topology.Healthy, "Ceph HEALTH_OK, 4 workloads available"},
		{"workloads available, Ceph HEALTH_ERR: degraded with Ceph's words", rookUp, []topology.StatusObject{broken}, nil, topology.Degraded, "Ceph HEALTH_ERR: 2 osds down, checked 40 s ago"},
		{"rook-ceph runs, no CephCluster", rookUp, nil, nil, topology.Degraded, "rook-ceph runs, no CephCluster"},
		{"CephClusters forbidden: unknown, never healthy", rookUp, nil, []string{"CephCluster"}, topology.Unknown, "CephClusters: forbidden"},
		{"not reported yet", rookUp, []topology.StatusObject{cephCluster(nil)}, nil, topology.Unknown, "CephCluster rook-ceph/rook-ceph: not reported yet"},
		{"a workload down and Ceph broken: both said", osdDown, []topology.StatusObject{broken}, nil, topology.Degraded, "rook-ceph/rook-ceph-osd-0 0/1 available; Ceph HEALTH_ERR: 2 osds down, checked 40 s ago"},
		{"a workload down, Ceph healthy: the workload", osdDown, []topology.StatusObject{healthy}, nil, topology.Degraded, "rook-ceph/rook-ceph-osd-0 0/1 available"},
		{"a workload down, Ceph unread: degraded, and the unknown said", osdDown, nil, []string{"CephCluster"}, topology.Degraded, "rook-ceph/rook-ceph-osd-0 0/1 available; CephClusters: forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := JudgeLayer(def, rookFacts(tc.workloads), factsFor(def, tc.objs, tc.unread...), true)
			if j.State.Health != tc.health || j.State.Reason != tc.reason {
				t.Errorf("state %s %q, want %s %q", j.State.Health, j.State.Reason, tc.health, tc.reason)
			}
			if j.State.Name != "rook-ceph" || !j.State.Declared {
				t.Errorf("name/declared lost: %+v", j.State)
			}
			if want := JudgeWorkloads(def, rookFacts(tc.workloads), true); !reflect.DeepEqual(j.Workloads, want) {
				t.Errorf("Workloads %+v, want JudgeWorkloads' %+v", j.Workloads, want)
			}
		})
	}

	// Workloads unknown (their namespace forbidden), status healthy: unknown.
	f := rookFacts(rookUp)
	f.WorkloadNamespaces = nil
	f.WorkloadErrors = map[string]topology.Why{"rook-ceph": topology.Because(topology.ReasonForbidden, "deployments in rook-ceph: forbidden")}
	j := JudgeLayer(def, f, factsFor(def, []topology.StatusObject{healthy}), true)
	if j.State.Health != topology.Unknown || !strings.Contains(j.State.Reason, "deployments in rook-ceph: forbidden") || j.State.Code != topology.ReasonForbidden {
		t.Errorf("workloads unread, status healthy: %s %q (code %q)", j.State.Health, j.State.Reason, j.State.Code)
	}

	// Absent stays absent: nothing of rook-ceph on the cluster.
	none := topology.ClusterFacts{Namespaces: topology.KnownFact([]string{}), CRDGroups: topology.KnownFact([]string{}), StorageClasses: topology.KnownFact([]topology.StorageClass{}), Workloads: topology.KnownFact([]topology.WorkloadState{})}
	if j := JudgeLayer(def, none, factsFor(def, nil), true); j.State.Health != topology.Absent {
		t.Errorf("nothing installed: %s %q", j.State.Health, j.State.Reason)
	}

	// A layer without status resources: JudgeWorkloads' judgement, unchanged.
	cil, _ := topology.CatalogLayer("cilium")
	if j := JudgeLayer(cil, none, topology.StatusFacts{}, true); !reflect.DeepEqual(j.State, JudgeWorkloads(cil, none, true)) {
		t.Errorf("cilium: %+v", j.State)
	}
}

func TestJudgeLayerArgoCDFindingsOnly(t *testing.T) {
	def, _ := topology.CatalogLayer("argocd")
	facts := topology.ClusterFacts{
		Namespaces: topology.KnownFact([]string{"argocd"}), CRDGroups: topology.KnownFact([]string{"argoproj.io"}), StorageClasses: topology.KnownFact([]topology.StorageClass{}),
		Workloads: topology.KnownFact([]topology.WorkloadState{
			{Kind: topology.KindDeployment, Namespace: "argocd", Name: "argocd-server", Ready: 1, Desired: 1},
			{Kind: topology.KindDeployment, Namespace: "argocd", Name: "argocd-repo-server", Ready: 1, Desired: 1},
			{Kind: topology.KindStatefulSet, Namespace: "argocd", Name: "argocd-application-controller", Ready: 1, Desired: 1},
		}),
		WorkloadNamespaces: []string{"argocd"},
	}
	app := so("Application", "argocd", "web", map[string]string{topology.FieldAppHealth: "Degraded", topology.FieldAppSync: "Synced"})
	j := JudgeLayer(def, facts, factsFor(def, []topology.StatusObject{app}), true)
	if j.State.Health != topology.Healthy || j.State.Reason != "1 Application (1 not healthy), 3 workloads available" {
		t.Errorf("argocd: %s %q", j.State.Health, j.State.Reason)
	}
	if len(j.Status.Findings) != 1 || j.Status.Findings[0].Kind != topology.FindingApplication || j.Status.Findings[0].Subject != topology.ObjectSubject("argocd", "Application argocd/web") {
		t.Errorf("findings %+v", j.Status.Findings)
	}
	// Applications unread: still the workloads' health, and a finding says so.
	j = JudgeLayer(def, facts, factsFor(def, nil, "Application"), true)
	if j.State.Health != topology.Healthy || len(j.Status.Findings) != 1 || j.Status.Findings[0].Kind != topology.FindingStatusUnread {
		t.Errorf("applications unread: %+v, findings %+v", j.State, j.Status.Findings)
	}
}

func TestJudgeLayerCustomResource(t *testing.T) {
	def := customDef("apps")
	facts := topology.ClusterFacts{Namespaces: topology.KnownFact([]string{"apps"}), CRDGroups: topology.KnownFact([]string{}), StorageClasses: topology.KnownFact([]topology.StorageClass{}), Workloads: topology.KnownFact([]topology.WorkloadState{})}
	ready := so("Widget", "apps", "main", nil, cond("Ready", "True", "", ""))
	stalled := so("Widget", "apps", "main", nil, cond("Stalled", "True", "BadSpec", "size must be positive"))
	for _, tc := range []struct {
		name   string
		status topology.StatusFacts
		health topology.Health
		reason string
	}{
		{"found and Ready", factsFor(def, []topology.StatusObject{ready}), topology.Healthy, "Widget apps/main Ready"},
		{"found and Stalled", factsFor(def, []topology.StatusObject{stalled}), topology.Degraded, "Widget apps/main: failed: Stalled True (BadSpec): size must be positive"},
		{"known not to exist", factsFor(def, nil), topology.Absent, "not found: Widget apps/main (example.io/v1)"},
		{"not readable", factsFor(def, nil, "Widget"), topology.Unknown, "Widget apps/main: forbidden"},
		{"not read at all", topology.StatusFacts{ReadAt: statusNow}, topology.Unknown, "Widget apps/main: not read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := JudgeLayer(def, facts, tc.status, true)
			if j.State.Health != tc.health || j.State.Reason != tc.reason {
				t.Errorf("%s %q, want %s %q", j.State.Health, j.State.Reason, tc.health, tc.reason)
			}
		})
	}
}
