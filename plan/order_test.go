package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// orderCase is a node cluster: the API server's version, each node's
// kubelet (name → version, declared unless listed in undeclared), the
// nodes NotReady, and kubernetes.version.
type orderCase struct {
	server     string
	kubelets   map[string]string
	notReady   []string
	undeclared []string
	desired    string
}

func (c orderCase) build() (*topology.Topology, *topology.Observed) {
	t := &topology.Topology{Path: "/s/stacks/o.yaml", Name: "o", TargetKind: topology.TargetProd, Kubernetes: topology.Kubernetes{Version: c.desired}, Layers: []topology.LayerRef{}}
	obs := &topology.Observed{ServerVersion: topology.KnownFact(c.server), Layers: []topology.LayerState{},
		Storage: topology.KnownFact(topology.StorageState{Class: "local-path", Provisioner: "rancher.io/local-path", Backend: "local-path"})}
	skip := map[string]bool{}
	for _, n := range c.undeclared {
		skip[n] = true
	}
	down := map[string]bool{}
	for _, n := range c.notReady {
		down[n] = true
	}
	var nodes []topology.NodeState
	for _, name := range sortedKeys(c.kubelets) {
		role := topology.RoleWorker
		if len(nodes) == 0 {
			role = topology.RoleControlPlane
		}
		var roles []string
		if role == topology.RoleControlPlane {
			roles = []string{topology.RoleControlPlane}
		}
		st := topology.NodeState{Name: name, Ready: !down[name], Roles: roles, KubeletVersion: c.kubelets[name]}
		if down[name] {
			st.ReadyStatus, st.ReadyReason = "Unknown", "NodeStatusUnknown"
		}
		nodes = append(nodes, st)
		if !skip[name] {
			t.Nodes = append(t.Nodes, topology.Node{Name: name, Role: role})
		}
	}
	obs.Nodes = topology.KnownFact(nodes)
	return t, obs
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// Every plan of a node cluster is a valid order (CheckOrder), over
// versions, skews, NotReady nodes and undeclared nodes: the API server
// never leaves a kubelet beyond the skew policy, a kubelet never passes
// the API server, a node is repaired before it is upgraded, an undeclared
// node gets no change step.
func TestPlanIsAValidOrder(t *testing.T) {
	var cases []orderCase
	// The demo: 1.40 declared, a kubelet at v1.36.4, the API server at 1.37.
	cases = append(cases, orderCase{server: "v1.37.2", kubelets: map[string]string{"demo1": "v1.37.2", "demo2": "v1.37.2", "demo3": "v1.37.2", "demo4": "v1.36.4"}, notReady: []string{"demo3"}, desired: "1.40"})
	// A grid: every server from 1.22 to 1.38, kubelets at every allowed
	// skew (and one beyond), every desired version up to five minors on,
	// with a NotReady node behind the version and an undeclared one.
	for sm := 22; sm <= 38; sm++ {
		for lag := 0; lag <= 4; lag++ {
			for ahead := 0; ahead <= 5; ahead++ {
				server := fmt.Sprintf("v1.%d.3", sm)
				ks := map[string]string{"n1": server, "n2": fmt.Sprintf("v1.%d.1", sm-lag), "n3": fmt.Sprintf("v1.%d.0", sm-min(lag, 1))}
				desired := fmt.Sprintf("1.%d", sm+ahead)
				cases = append(cases,
					orderCase{server: server, kubelets: ks, desired: desired},
					orderCase{server: server, kubelets: ks, notReady: []string{"n2"}, desired: desired},
					orderCase{server: server, kubelets: ks, undeclared: []string{"n2"}, desired: desired},
					orderCase{server: server, kubelets: ks, undeclared: []string{"n3"}, notReady: []string{"n2"}, desired: desired + ".7"},
				)
			}
		}
	}
	for _, c := range cases {
		tp, obs := c.build()
		p := plan.Build(tp, obs, plan.NodeCluster{}, plan.Options{})
		if err := plan.CheckOrder(p, topology.DeriveVersions(obs.ServerVersion, obs.Nodes)); err != nil {
			t.Errorf("%+v: not a valid order:\n%v\n%s", c, err, fixtures.StepsText(p.Steps))
		}
	}
}

// The demo's plan: the control plane to 1.38 and 1.39, then demo4's
// kubelet to 1.37 (named by the step that needs it), then 1.40; demo3 is
// repaired before any upgrade; each later step of a node after its
// control plane.
func TestPlanOrderDemo(t *testing.T) {
	c := orderCase{server: "v1.37.2", kubelets: map[string]string{"demo1": "v1.37.2", "demo2": "v1.37.2", "demo3": "v1.37.2", "demo4": "v1.36.4"}, notReady: []string{"demo3"}, desired: "1.40"}
	tp, obs := c.build()
	p := plan.Build(tp, obs, plan.NodeCluster{}, plan.Options{})
	var got []string
	for _, s := range p.Steps {
		got = append(got, topology.StepRef(s))
	}
	head := []string{"repair-node demo3", "upgrade kubernetes → 1.38", "upgrade kubernetes → 1.39", "upgrade-node demo4 → 1.37", "upgrade kubernetes → 1.40"}
	if len(got) < len(head) || strings.Join(got[:len(head)], "\n") != strings.Join(head, "\n") {
		t.Fatalf("steps:\n%s\nwant them to start with:\n%s", strings.Join(got, "\n"), strings.Join(head, "\n"))
	}
	up := p.Steps[4]
	if len(up.Needs) != 1 || up.Needs[0] != "upgrade-node demo4 → 1.37" || len(up.Blocked) != 0 || strings.Contains(up.Reason, "blocked") {
		t.Errorf("upgrade → 1.40 = %+v, want it to need upgrade-node demo4 → 1.37 and not be blocked", up)
	}
	if !strings.Contains(up.Reason, "after upgrade-node demo4 → 1.37: kubelet v1.36.4 on demo4 would otherwise be 4 minors behind 1.40, more than the 3 the version skew policy allows") {
		t.Errorf("upgrade → 1.40 reason = %q", up.Reason)
	}
	for _, s := range p.Steps {
		if s.Kind == topology.StepUpgradeNode && s.Target == "demo3" && s.To == "1.38" {
			if len(s.Needs) != 1 || s.Needs[0] != "repair-node demo3" {
				t.Errorf("demo3's first upgrade = %+v, want it to need repair-node demo3", s)
			}
		}
	}
}

// A node the topology does not declare is information: no upgrade-node,
// no repair-node for it; but its kubelet still holds the control plane
// back: the upgrade step it would leave beyond the skew policy is blocked,
// names it, and says what the operator must do.
func TestUndeclaredNodeIsNeverAStepSubject(t *testing.T) {
	c := orderCase{server: "v1.37.2", kubelets: map[string]string{"demo1": "v1.37.2", "demo2": "v1.37.2", "demo3": "v1.37.2", "demo4": "v1.36.4"}, notReady: []string{"demo4"}, undeclared: []string{"demo4"}, desired: "1.40"}
	tp, obs := c.build()
	p := plan.Build(tp, obs, plan.NodeCluster{}, plan.Options{})
	if err := plan.CheckOrder(p, topology.DeriveVersions(obs.ServerVersion, obs.Nodes)); err != nil {
		t.Errorf("not a valid order: %v", err)
	}
	var undeclared int
	for _, s := range p.Steps {
		if s.Target != "demo4" {
			continue
		}
		if s.Kind != topology.StepUndeclared {
			t.Errorf("%s %s: a change step for a node the topology does not declare", s.Kind, s.Target)
		} else {
			undeclared++
		}
	}
	if undeclared != 1 {
		t.Errorf("%d undeclared steps for demo4, want 1", undeclared)
	}
	var blocked []topology.Step
	for _, s := range p.Steps {
		if len(s.Blocked) > 0 {
			blocked = append(blocked, s)
		}
	}
	if len(blocked) != 1 || blocked[0].To != "1.40" {
		t.Fatalf("blocked steps: %s\nwant the upgrade to 1.40 only", fixtures.StepsText(blocked))
	}
	b := blocked[0]
	if b.Blocked[0] != topology.NodeSubject("demo4") {
		t.Errorf("blocked by %+v, want node demo4", b.Blocked)
	}
	want := "; blocked: kubelet v1.36.4 on demo4 would be 4 minors behind 1.40, more than the 3 the version skew policy allows, and it is not declared in the topology, so no step of this plan upgrades it: upgrade it to 1.37 or later outside nestor, or declare it under nodes:, first"
	if !strings.HasSuffix(b.Reason, want) {
		t.Errorf("reason = %q\nwant it to end with %q", b.Reason, want)
	}
	// Within the skew the undeclared kubelet blocks nothing, and is still
	// not upgraded.
	c.desired = "1.39"
	tp, obs = c.build()
	p = plan.Build(tp, obs, plan.NodeCluster{}, plan.Options{})
	for _, s := range p.Steps {
		if len(s.Blocked) > 0 || (s.Target == "demo4" && s.IsChange()) {
			t.Errorf("1.39: %s %s (%s)", s.Kind, s.Target, s.Reason)
		}
	}
}

// CheckOrder refuses the orders the plan once had: an upgrade before the
// kubelet step it needs, an upgrade-node before its repair-node, a change
// step for an undeclared node, a blocked step with no blocking subject.
func TestCheckOrderRefuses(t *testing.T) {
	vs := topology.DeriveVersions(topology.KnownFact("v1.37.2"), topology.KnownFact([]topology.NodeState{{Name: "a", KubeletVersion: "v1.37.2"}, {Name: "b", KubeletVersion: "v1.36.4"}}))
	up := func(to string) topology.Step {
		s := topology.NewStep(topology.StepUpgrade, topology.PhaseK8s, "kubernetes", "r")
		s.To = to
		return s
	}
	node := func(n, to string) topology.Step {
		s := topology.NewStep(topology.StepUpgradeNode, topology.PhaseK8s, n, "r")
		s.To = to
		return s
	}
	pool := func(to string) topology.Step {
		s := topology.NewStep(topology.StepUpgradePool, topology.PhasePools, "default", "r")
		s.To = to
		return s
	}
	blocked := up("1.40")
	blocked.Reason = "r; blocked: b"
	tests := []struct {
		name  string
		steps []topology.Step
		has   string
	}{
		{"the control plane past a kubelet's skew", []topology.Step{up("1.38"), up("1.39"), up("1.40"), node("b", "1.37")}, "kubelet v1.36.4 on b would be 4 minors behind"},
		{"a kubelet above the API server", []topology.Step{node("b", "1.37"), node("b", "1.38")}, "newer than the API server"},
		{"a skipped minor", []topology.Step{up("1.39")}, "skips a minor"},
		{"upgrade before repair", []topology.Step{node("b", "1.37"), topology.NewStep(topology.StepRepairNode, topology.PhaseK8s, "b", "r")}, "repaired before it is upgraded"},
		{"an undeclared node upgraded", []topology.Step{node("b", "1.37"), topology.NewStep(topology.StepUndeclared, topology.PhaseK8s, "b", "r")}, "not declared in the topology"},
		{"a need that comes later", []topology.Step{withNeeds(up("1.38"), "upgrade-node b → 1.37"), node("b", "1.37")}, "not an earlier step"},
		{"blocked without a subject", []topology.Step{up("1.38"), up("1.39"), blocked}, "reason says blocked: true"},
		{"install after repair", []topology.Step{topology.NewStep(topology.StepRepair, "cnpg", "cnpg", "r"), topology.NewStep(topology.StepInstall, "cnpg", "cnpg", "r")}, "installed first"},
		{"a pool to a version its cluster is not at", []topology.Step{pool("1.35.3"), up("1.36.1"), pool("1.35.3")}, "to its cluster's version only"},
		{"a pool before its cluster's upgrade", []topology.Step{pool("1.36.1"), up("1.36.1")}, "newer than its control plane"},
		{"a VM after its node's join", []topology.Step{topology.NewStep(topology.StepJoinNode, topology.PhaseK8s, "b", "r"), topology.NewStep(topology.StepCreateVM, topology.PhaseUp, "b", "r")}, "its VM runs first"},
	}
	for _, tc := range tests {
		err := plan.CheckOrder(topology.Plan{Steps: tc.steps}, vs)
		if err == nil || !strings.Contains(err.Error(), tc.has) {
			t.Errorf("%s: CheckOrder = %v, want an error with %q", tc.name, err, tc.has)
		}
	}
}
