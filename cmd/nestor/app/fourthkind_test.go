package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// fourthKind is a throw-away target kind, "fourth": a cluster of the
// declared nodes that a provisioner of its own brings up (its own phase,
// provision, before the node cluster's bootstrap and k8s), read from an
// observation the test hands it. It implements probes.Kind and nothing
// else: what a new kind has to write.
type fourthKind struct {
	plan.NodeCluster
	// registered are the nodes the cluster reports, all Ready.
	registered []string
}

const phaseProvision = "provision"

func (fourthKind) Name() topology.TargetKind { return "fourth" }

func (k fourthKind) OwnPhases(t *topology.Topology) []topology.Phase {
	return append([]topology.Phase{{Name: phaseProvision, Kind: phaseProvision}}, k.NodeCluster.OwnPhases(t)...)
}

func (k fourthKind) PlanOwn(t *topology.Topology, obs *topology.Observed, o plan.Options, p *topology.Plan) {
	// A step in a phase the kind does not have: plan.Build must drop it.
	p.Add(topology.StepCreateVM, topology.PhaseUp, "stray", "a kind's step outside its phases")
	k.NodeCluster.PlanOwn(t, obs, o, p)
}

func (k fourthKind) PhaseDone(t *topology.Topology, obs *topology.Observed, ph topology.Phase) (bool, bool, string) {
	if ph.Kind == phaseProvision {
		return true, false, ""
	}
	return k.NodeCluster.PhaseDone(t, obs, ph)
}

func (fourthKind) Resolve(probes.ResolveOptions) (probes.Kubeconfig, error) {
	return probes.Kubeconfig{Paths: []string{}, Source: probes.SourceNone, Detail: "the fourth kind's own provisioner"}, nil
}

func (fourthKind) NoTarget(*topology.Topology, probes.Kubeconfig) *probes.NoTarget { return nil }
func (fourthKind) Guarded() bool                                                   { return false }
func (fourthKind) Guard(context.Context, *probes.Opened) (*probes.GuardView, error) {
	return nil, nil
}

func (k fourthKind) Read(_ context.Context, op *probes.Opened, _ probes.Scope) (*topology.Observed, topology.ClusterFacts) {
	var nodes []topology.NodeState
	for _, n := range k.registered {
		nodes = append(nodes, topology.NodeState{Name: n, Ready: true, ReadyStatus: "True", Roles: []string{topology.RoleControlPlane}, KubeletVersion: "v1.37.2"})
	}
	return &topology.Observed{ServerVersion: topology.KnownFact("v1.37.2"), Nodes: topology.KnownFact(nodes),
		Layers: []topology.LayerState{}, Storage: topology.KnownFact(topology.StorageState{})}, topology.ClusterFacts{}
}

func (fourthKind) Runbook(_ *topology.Topology, ph topology.Phase, _ func(string) string) string {
	return "the fourth kind's provisioner runs " + ph.Name
}
func (fourthKind) Env(t *topology.Topology, _ probes.Kubeconfig, _ *probes.NoTarget, _ func(string) string) ([]probes.EnvVar, []string, error) {
	return nil, []string{"stack " + t.Name + " is read by its provisioner"}, nil
}
func (fourthKind) Fetch(*topology.Topology, string) error { return nil }
func (fourthKind) Selected(t *topology.Topology, _ string, _ func(string) string) string {
	return "Provisioned stack " + t.Name
}

// A fourth target kind, registered by the test alone (topology.RegisterKind
// for its target_kind, action.Register for its implementation), runs
// through the real entry point: preview, fleet and next judge it through its
// own phases and words, with nothing else written for it.
func TestFourthKind(t *testing.T) {
	t.Cleanup(topology.RegisterKind("fourth"))
	dir := t.TempDir()
	stacks := filepath.Join(dir, "stacks")
	if err := os.MkdirAll(stacks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stacks, "four.yaml"), []byte("name: four\ntarget_kind: fourth\nnodes:\n  - {name: f1, role: control-plane}\n  - {name: f2, role: control-plane}\nlayers: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir, "NESTOR_STACKS": stacks}
	run := func(args ...string) (int, string, string) {
		a, out, errOut := testApp(t, env, false, nil)
		return Run(a, args), out.String(), errOut.String()
	}

	action.Register(fourthKind{registered: []string{"f1", "f2"}})
	code, out, errOut := run("preview", "--stack", "four", "--detailed-exitcode")
	if code != 0 || !strings.Contains(out, "Stack four (fourth)") || !strings.Contains(out, "phases       provision → bootstrap → k8s") || !strings.Contains(out, "In sync.") {
		t.Fatalf("preview, in sync: code %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "stray") {
		t.Errorf("a step outside the kind's phases reached the plan:\n%s", out)
	}
	code, out, _ = run("fleet", "-o", "json", "--detailed-exitcode")
	var fleet struct {
		Stacks []struct {
			Name       string `json:"name"`
			Status     string `json:"status"`
			TargetKind string `json:"target_kind"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(out), &fleet); err != nil || code != 0 || len(fleet.Stacks) != 1 || fleet.Stacks[0].Status != "in sync" || fleet.Stacks[0].TargetKind != "fourth" {
		t.Fatalf("fleet: code %d, %v\n%s", code, err, out)
	}
	code, out, _ = run("next", "--stack", "four")
	if code != 0 || !strings.Contains(out, "every phase is done (nodes and layers match the topology)") {
		t.Errorf("next, done: code %d\n%s", code, out)
	}

	action.Register(fourthKind{registered: []string{"f1"}})
	code, out, _ = run("preview", "--stack", "four", "--detailed-exitcode")
	if code != 2 || !strings.Contains(out, "+ join-node f2") {
		t.Errorf("preview, a node missing: code %d\n%s", code, out)
	}
	code, out, _ = run("next", "--stack", "four")
	if code != 0 || !strings.Contains(out, "next phase is k8s") || !strings.Contains(out, "the fourth kind's provisioner runs k8s") {
		t.Errorf("next, a node missing: code %d\n%s", code, out)
	}
	code, out, _ = run("fleet")
	if code != 0 || !regexp.MustCompile(`(?m)^four\s+fourth\s+-\s+changes\s+1\.37\.2\s+until \S+\s+\S+ → 1\.38\s+1\s+0\s+0$`).MatchString(out) {
		t.Errorf("fleet table: code %d\n%s", code, out)
	}
}
