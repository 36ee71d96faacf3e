package health

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// at is a creationTimestamp: seconds after 2026-11-19T10:00:00Z.
func at(sec int) time.Time { return time.Date(2026, 11, 19, 10, 0, sec, 0, time.UTC) }

func TestDefaultStorageSeveralDefaults(t *testing.T) {
	localPath := topology.StorageClass{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true, Created: at(0)}
	longhorn := topology.StorageClass{Name: "longhorn", Provisioner: "driver.longhorn.io", Default: true, Created: at(30)}
	tests := []struct {
		name    string
		scs     []topology.StorageClass
		server  topology.Fact[string]
		class   string   // "" with known: no default that works
		others  []string // OtherDefaults
		warning []string // substrings of the warning
		unknown string   // substring of the reason when unknown
	}{
		{name: "k3s local-path, then longhorn (newer): longhorn, not the first by name",
			scs: []topology.StorageClass{localPath, longhorn}, server: topology.KnownFact("v1.37.2+k3s1"),
			class: "longhorn", others: []string{"local-path"},
			warning: []string{"2 StorageClasses are marked default", "longhorn (driver.longhorn.io, created 2026-11-19T10:00:30Z)", "local-path (rancher.io/local-path, created 2026-11-19T10:00:00Z)", "Kubernetes uses the newest, longhorn", "GetDefaultClass"}},
		{name: "the same names created the other way round: local-path",
			scs:    []topology.StorageClass{{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true, Created: at(30)}, {Name: "longhorn", Provisioner: "driver.longhorn.io", Default: true, Created: at(0)}},
			server: topology.KnownFact("v1.37.2"), class: "local-path", others: []string{"longhorn"}, warning: []string{"Kubernetes uses the newest, local-path"}},
		{name: "three defaults (beta annotation on one, as read): the newest, the others newest first",
			scs: []topology.StorageClass{
				{Name: "a-microk8s-hostpath", Provisioner: "microk8s.io/hostpath", Default: true, Created: at(10)},
				{Name: "rook-ceph-block", Provisioner: "rook-ceph.rbd.csi.ceph.com", Default: true, Created: at(50)},
				{Name: "nfs", Provisioner: "nfs.csi.k8s.io", Created: at(59)},
				{Name: "b-openebs-hostpath", Provisioner: "openebs.io/local", Default: true, Created: at(20)},
			},
			server: topology.KnownFact("v1.30.4-eks-a737599"), class: "rook-ceph-block", others: []string{"b-openebs-hostpath", "a-microk8s-hostpath"},
			warning: []string{"3 StorageClasses are marked default", "Kubernetes uses the newest, rook-ceph-block"}},
		{name: "created in the same second: Kubernetes takes the first by name, and says so",
			scs:    []topology.StorageClass{{Name: "zeta", Provisioner: "driver.longhorn.io", Default: true, Created: at(5)}, {Name: "alpha", Provisioner: "rancher.io/local-path", Default: true, Created: at(5)}, {Name: "old", Provisioner: "x", Default: true, Created: at(1)}},
			server: topology.KnownFact("v1.26.0"), class: "alpha", others: []string{"zeta", "old"},
			warning: []string{"the newest, alpha and zeta, were created in the same second, and Kubernetes then uses the first by name, alpha"}},
		{name: "before 1.26 the admission plugin refuses claims: no default that works",
			scs: []topology.StorageClass{localPath, longhorn}, server: topology.KnownFact("v1.25.16+rke2r1"),
			class: "", others: []string{"local-path", "longhorn"},
			warning: []string{"Kubernetes before 1.26 (this server is v1.25.16+rke2r1) then refuses every PersistentVolumeClaim that names no class"}},
		{name: "a creation time not read: unknown, never a pick by name",
			scs: []topology.StorageClass{localPath, {Name: "longhorn", Provisioner: "driver.longhorn.io", Default: true}}, server: topology.KnownFact("v1.37.2"),
			unknown: "the creation time of longhorn was not read"},
		{name: "server version unknown: unknown",
			scs: []topology.StorageClass{localPath, longhorn}, server: topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "timed out after 10s")),
			unknown: "2 StorageClasses are marked default (local-path, longhorn), and which one Kubernetes uses depends on its version (the newest since 1.26, none before), which is unknown: timed out after 10s"},
		{name: "server version not a version: unknown",
			scs: []topology.StorageClass{localPath, longhorn}, server: topology.KnownFact("devel"),
			unknown: `the server version "devel" is not a version`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DefaultStorage(topology.ClusterFacts{StorageClasses: topology.KnownFact(tc.scs)}, tc.server)
			if tc.unknown != "" {
				if got.Known || !strings.Contains(got.Reason, tc.unknown) {
					t.Errorf("got %+v, want unknown with %q", got, tc.unknown)
				}
				return
			}
			s := got.Value
			if !got.Known || s.Class != tc.class || !reflect.DeepEqual(s.OtherDefaults, tc.others) {
				t.Errorf("got %+v, want class %q, others %v", got, tc.class, tc.others)
			}
			for _, w := range tc.warning {
				if !strings.Contains(s.Warning, w) {
					t.Errorf("warning %q lacks %q", s.Warning, w)
				}
			}
			if tc.class != "" && s.Backend != topology.BackendForProvisioner(s.Provisioner) {
				t.Errorf("backend %q of provisioner %q", s.Backend, s.Provisioner)
			}
		})
	}
	// One default: no warning, no timestamp or version needed.
	got := DefaultStorage(topology.ClusterFacts{StorageClasses: topology.KnownFact([]topology.StorageClass{{Name: "only", Provisioner: "rancher.io/local-path", Default: true}})}, topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "x")))
	if !got.Known || got.Value.Class != "only" || got.Value.Warning != "" || got.Value.OtherDefaults != nil {
		t.Errorf("one default: %+v", got)
	}
}

// TestDefaultStorageNeverByName renames the classes of random sets of
// defaults with distinct creation times: the class Kubernetes uses is
// always the newest, whatever the names' order.
func TestDefaultStorageNeverByName(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 500; i++ {
		n := 2 + r.Intn(4)
		perm := r.Perm(60)
		var scs []topology.StorageClass
		newest := 0
		for j := 0; j < n; j++ {
			name := string(rune('a'+r.Intn(26))) + string(rune('a'+j))
			scs = append(scs, topology.StorageClass{Name: name, Provisioner: "p" + name, Default: true, Created: at(perm[j])})
			if perm[j] > perm[newest] {
				newest = j
			}
		}
		got := DefaultStorage(topology.ClusterFacts{StorageClasses: topology.KnownFact(scs)}, topology.KnownFact("v1.37.2"))
		if !got.Known || got.Value.Class != scs[newest].Name {
			t.Fatalf("%+v: got %+v, want the newest %s", scs, got, scs[newest].Name)
		}
	}
}

func TestPlanBackendWithSeveralDefaults(t *testing.T) {
	k3s := func(backend string) *topology.Topology {
		return &topology.Topology{Name: "k3s", TargetKind: topology.TargetProd, Nodes: []topology.Node{{Name: "k3s1", Role: topology.RoleControlPlane}},
			Backend: backend, Layers: []topology.LayerRef{{Name: "local-path"}, {Name: "longhorn"}}}
	}
	observe := func(scs []topology.StorageClass, server string) *topology.Observed {
		o := &topology.Observed{ServerVersion: topology.KnownFact(server),
			Nodes:  topology.KnownFact([]topology.NodeState{{Name: "k3s1", Ready: true, ReadyStatus: topology.ConditionTrue, Roles: []string{"control-plane", "master"}}}),
			Layers: fixtures.HealthyLayers(k3s("")), Storage: DefaultStorage(topology.ClusterFacts{StorageClasses: topology.KnownFact(scs)}, topology.KnownFact(server))}
		return o
	}
	handed := []topology.StorageClass{
		{Name: "local-path", Provisioner: "rancher.io/local-path", Default: true, Created: at(0)},
		{Name: "longhorn", Provisioner: "driver.longhorn.io", Default: true, Created: at(30)},
	}

	// Desired longhorn: Kubernetes uses longhorn, the newest: no step (the
	// alphabetical pick, local-path, planned a migration here).
	if p := fixtures.CheckedPlan(t, k3s("longhorn"), observe(handed, "v1.37.2+k3s1"), plan.NodeCluster{}, plan.Options{}); len(p.Steps) != 0 || len(p.Unknowns) != 0 {
		t.Errorf("desired longhorn: steps %s, unknowns %q; want none", fixtures.StepsText(p.Steps), p.Unknowns)
	}
	// Desired local-path: a migration, saying which one Kubernetes uses.
	p := fixtures.CheckedPlan(t, k3s("local-path"), observe(handed, "v1.37.2+k3s1"), plan.NodeCluster{}, plan.Options{})
	want := []topology.Step{fixtures.Step(topology.StepMigrateBackend, "local-path", "local-path", "desired backend local-path, cluster default StorageClass longhorn (driver.longhorn.io), the one Kubernetes uses of the 2 marked default (also: local-path)", "")}
	if !reflect.DeepEqual(p.Steps, want) {
		t.Errorf("desired local-path:\n%s\nwant:\n%s", fixtures.StepsText(p.Steps), fixtures.StepsText(want))
	}
	// Before 1.26 neither works.
	p = fixtures.CheckedPlan(t, k3s("longhorn"), observe(handed, "v1.25.16+k3s1"), plan.NodeCluster{}, plan.Options{})
	if len(p.Steps) != 1 || p.Steps[0].Kind != topology.StepMigrateBackend || !strings.Contains(p.Steps[0].Reason, "no default StorageClass that works: 2 StorageClasses are marked default") {
		t.Errorf("before 1.26: %s", fixtures.StepsText(p.Steps))
	}
	// A creation time missing: no step at all, an unknown.
	noTime := []topology.StorageClass{handed[0], {Name: "longhorn", Provisioner: "driver.longhorn.io", Default: true}}
	p = fixtures.CheckedPlan(t, k3s("local-path"), observe(noTime, "v1.37.2"), plan.NodeCluster{}, plan.Options{})
	if len(p.Steps) != 0 || len(p.Unknowns) != 1 || !strings.Contains(p.Unknowns[0].String(), "the creation time of longhorn was not read") ||
		p.Unknowns[0].Subject != topology.StorageSubject() || p.Unknowns[0].Code != topology.ReasonNotRead {
		t.Errorf("creation time missing: steps %s, unknowns %q", fixtures.StepsText(p.Steps), p.Unknowns)
	}
}
