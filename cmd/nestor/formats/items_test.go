package formats

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/stacks"

	"nestor.dev/nestor/topology"
)

const prodTopologyText = `# a prod stack
name: dirqual
target_kind: prod
kubeconfig: ~/.kube/dirqual.config
endpoint: https://10.67.2.11:6443
kubernetes:
  version: "1.37"
nodes:
  - {name: dirqual1, role: control-plane, address: 10.67.2.11}
  - {name: dirqual2, role: worker}
backend: ceph
layers:
  - cilium
  - rook-ceph
  - cnpg
`

const limaTopologyText = `name: bench
target_kind: lima
nodes:
  - {name: lima-node1, role: control-plane}
layers: [flannel]
`

const kapsuleTopologyText = `name: apps
target_kind: kapsule
scaleway:
  region: fr-par
  cluster_id: 6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90
kubernetes:
  version: "1.35"
  auto_upgrade: false
pools:
  - {name: default, node_type: PRO2-XXS, size: 3}
  - name: burst
    node_type: PRO2-S
    autoscaling: {min: 0, max: 5}
layers: [argocd]
`

// parsedTopology writes text to DIR/NAME.yaml and loads it (a real file,
// so the positions are real).
func parsedTopology(t *testing.T, dir, name, text string) *topology.Topology {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := stacks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// lineAt is line n (1-based) of the file at path.
func lineAt(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("%s has no line %d", path, n)
	}
	return lines[n-1]
}

// TestPlanItemKey maps one item of each kind (every step kind, the finding
// kinds, unknown and waiting entries as the plan rules word them) to its
// key, and checks that the position reported for it is a line of the file
// holding that key (or, for an undeclared thing, its list).
func TestPlanItemKey(t *testing.T) {
	dir := t.TempDir()
	prod := parsedTopology(t, dir, "dirqual", prodTopologyText)
	lima := parsedTopology(t, dir, "bench", limaTopologyText)
	kap := parsedTopology(t, dir, "apps", kapsuleTopologyText)
	report := func(tp *topology.Topology) *action.Report {
		r := &action.Report{Stack: action.StackInfo{Name: tp.Name, File: tp.Path, TargetKind: tp.TargetKind}, Topology: tp, Desired: action.Desired{Nodes: tp.Nodes, Pools: tp.Pools}, Actual: &topology.Observed{}}
		if tp.TargetKind == topology.TargetKapsule {
			r.Actual.Kapsule = &topology.KapsuleObserved{
				Pools: topology.KnownFact([]topology.KapsulePool{{ID: "p1", Name: "default"}, {ID: "p2", Name: "burst"}}),
				Nodes: topology.KnownFact([]topology.KapsuleNode{{Name: "scw-apps-burst-1", PoolID: "p2"}}),
			}
		}
		return r
	}
	step := func(kind topology.StepKind, phase, target string) PlanItem {
		st := topology.NewStep(kind, phase, target, "why")
		return PlanItem{Step: &st}
	}
	// replaceNode is the kapsule rules' replace-node step: its subject names
	// the pool the provider lists the node in.
	replaceNode := func(node, pool string) PlanItem {
		st := topology.NewStep(topology.StepReplaceNode, topology.PhasePools, node, "why")
		st.Subject = topology.ProviderNodeSubject(node, pool)
		return PlanItem{Step: &st}
	}
	finding := func(kind topology.FindingKind, subject topology.Subject) PlanItem {
		return PlanItem{Finding: &topology.Finding{Severity: topology.SeverityError, Kind: kind, Subject: subject, Message: "why"}}
	}
	unknown := func(s topology.Subject) PlanItem {
		return PlanItem{Unknown: &topology.UnknownPart{Subject: s, Code: topology.ReasonForbidden, Message: "why"}}
	}
	waiting := func(s topology.Subject) PlanItem {
		return PlanItem{Waiting: &topology.WaitingObject{Subject: s, Message: "why"}}
	}
	clusterVersion := topology.ProviderClusterSubject("")
	clusterVersion.Key = topology.KeyVersion
	cases := []struct {
		tp   *topology.Topology
		item PlanItem
		key  string
		// line is what the reported line must hold.
		line string
	}{
		{lima, step(topology.StepCreateVM, topology.PhaseUp, "lima-node1"), "nodes/lima-node1", "name: lima-node1"},
		{lima, step(topology.StepStartVM, topology.PhaseUp, "lima-node1"), "nodes/lima-node1", "name: lima-node1"},
		{prod, step(topology.StepBootstrap, topology.PhaseBootstrap, "dirqual"), "name", "name: dirqual"},
		{prod, step(topology.StepJoinNode, topology.PhaseK8s, "dirqual2"), "nodes/dirqual2", "name: dirqual2"},
		{prod, step(topology.StepRepairNode, topology.PhaseK8s, "dirqual1"), "nodes/dirqual1", "name: dirqual1"},
		{prod, step(topology.StepUpgrade, topology.PhaseK8s, "kubernetes"), "kubernetes.version", `version: "1.37"`},
		{prod, step(topology.StepUpgradeNode, topology.PhaseK8s, "dirqual2"), "nodes/dirqual2", "name: dirqual2"},
		{prod, step(topology.StepInstall, "cnpg", "cnpg"), "layers/cnpg", "- cnpg"},
		{prod, step(topology.StepRepair, "cilium", "cilium"), "layers/cilium", "- cilium"},
		{prod, step(topology.StepMigrateBackend, "rook-ceph", "rook-ceph"), "backend", "backend: ceph"},
		{prod, step(topology.StepUndeclared, topology.PhaseK8s, "dirqual9"), "nodes/dirqual9", "nodes:"},
		{prod, step(topology.StepUndeclared, "cert-manager", "cert-manager"), "layers/cert-manager", "layers:"},
		{kap, step(topology.StepUndeclared, topology.PhasePools, "gpu"), "pools/gpu", "pools:"},
		{kap, step(topology.StepCreatePool, topology.PhasePools, "default"), "pools/default", "name: default"},
		{kap, step(topology.StepUpdatePool, topology.PhasePools, "burst"), "pools/burst", "name: burst"},
		{kap, step(topology.StepReplacePool, topology.PhasePools, "default"), "pools/default", "name: default"},
		{kap, step(topology.StepUpgradePool, topology.PhasePools, "burst"), "pools/burst", "name: burst"},
		{kap, replaceNode("scw-apps-burst-1", "burst"), "pools/burst", "name: burst"},
		{kap, replaceNode("scw-unlisted", ""), "pools", "pools:"},
		{kap, step(topology.StepUpdateCluster, topology.PhaseCluster, "auto_upgrade"), "kubernetes.auto_upgrade", "auto_upgrade: false"},
		{kap, step(topology.StepUpgrade, topology.PhaseCluster, "cluster"), "kubernetes.version", `version: "1.35"`},
		{kap, step(topology.StepSetACL, topology.PhaseCluster, "cluster"), "scaleway.acl", "scaleway:"},
		{kap, step(topology.StepRenameCluster, topology.PhaseCluster, "apps-next"), "scaleway.cluster_name", "scaleway:"},
		{kap, finding(topology.FindingACLOpen, topology.SettingSubject(topology.KeyACL, "scaleway.acl")), "scaleway.acl", "scaleway:"},
		{kap, finding(topology.FindingNotInPlace, topology.SettingSubject(topology.ScalewayKey("cni"), "scaleway.cni")), "scaleway.cni", "scaleway:"},
		{kap, step(topology.StepSetType, topology.PhaseCluster, "cluster"), "scaleway.type", "scaleway:"}, // type: not written: its section
		{kap, finding(topology.FindingHeadroom, topology.OfferSubject("etcd")), "scaleway.type", "scaleway:"},
		{kap, finding(topology.FindingHeadroom, topology.PoolsSubject()), "pools", "pools:"},
		{prod, finding(topology.FindingDowngrade, topology.VersionSubject("api-server")), "kubernetes.version", `version: "1.37"`},
		{prod, finding(topology.FindingKubeletSkew, topology.VersionSubject("kubelet v1.34.1")), "kubernetes.version", `version: "1.37"`},
		{prod, finding(topology.FindingEndOfLife, topology.VersionSubject("1.34")), "kubernetes.version", `version: "1.37"`},
		{kap, finding(topology.FindingProviderCalendar, topology.VersionSubject("1.35 (the cluster, pool default)")), "kubernetes.version", `version: "1.35"`},
		{kap, finding(topology.FindingLocked, topology.ProviderClusterSubject("")), "scaleway", "scaleway:"},
		{kap, finding(topology.FindingDegraded, topology.PoolSubject("burst")), "pools/burst", "name: burst"},
		{kap, finding(topology.FindingDegraded, topology.ProviderNodeSubject("scw-1", "default")), "pools/default", "name: default"},
		{prod, unknown(topology.LayerSubject("cnpg")), "layers/cnpg", "- cnpg"},
		{prod, unknown(topology.NodesSubject(topology.KeyNodes)), "nodes", "nodes:"},
		{prod, unknown(topology.StorageSubject()), "backend", "backend: ceph"},
		{prod, unknown(topology.VersionSubject("server version")), "kubernetes.version", `version: "1.37"`},
		{prod, unknown(topology.VersionSubject("kubelet version v1.37.x on dirqual1")), "kubernetes.version", `version: "1.37"`},
		{prod, unknown(topology.WholeClusterSubject()), "kubeconfig", "kubeconfig: ~/.kube/dirqual.config"},
		{lima, unknown(topology.VMsSubject()), "nodes", "nodes:"},
		{lima, unknown(topology.VMSubject("lima-node1")), "nodes/lima-node1", "name: lima-node1"},
		{lima, unknown(topology.WholeClusterSubject()), "kubeconfig", "name: bench"}, // no kubeconfig: key: the top
		{kap, unknown(topology.NodesSubject(topology.KeyPools)), "pools", "pools:"},
		{kap, unknown(topology.PoolsSubject()), "pools", "pools:"},
		{kap, unknown(topology.PoolSubject("burst")), "pools/burst", "name: burst"},
		{kap, unknown(topology.ProviderClusterSubject("apps")), "scaleway", "scaleway:"},
		{kap, unknown(topology.ProviderSubject()), "scaleway", "scaleway:"},
		{kap, unknown(topology.VersionSubject(`cluster version "1.x"`)), "kubernetes.version", `version: "1.35"`},
		{kap, unknown(topology.VersionSubject("kubernetes version")), "kubernetes.version", `version: "1.35"`},
		{kap, unknown(topology.VersionSubject("versions offered to the cluster")), "kubernetes.version", `version: "1.35"`},
		{kap, waiting(topology.PoolSubject("default")), "pools/default", "name: default"},
		{kap, waiting(topology.ProviderNodeSubject("scw-1", "burst")), "pools/burst", "name: burst"},
		{kap, waiting(topology.ProviderClusterSubject("apps")), "scaleway", "scaleway:"},
		{kap, waiting(topology.NodesSubject(topology.KeyPools)), "pools", "pools:"},
		{prod, unknown(topology.UndeclaredLayersSubject()), "layers", "layers:"},
		{kap, finding(topology.FindingProviderVersions, clusterVersion), "kubernetes.version", `version: "1.35"`},
		{prod, finding(topology.FindingApplication, topology.ObjectSubject("argocd", "Application argocd/web")), "layers/argocd", "layers:"},
	}
	seen := map[topology.StepKind]bool{}
	for _, c := range cases {
		r := report(c.tp)
		if got := c.item.Key(); got != c.key {
			t.Errorf("%s: key %q, want %q", c.item.Message(), got, c.key)
			continue
		}
		pos, _, ok := Position(r.Topology, c.key)
		if !ok {
			t.Errorf("%s: no position for %q", c.item.Message(), c.key)
			continue
		}
		if line := lineAt(t, c.tp.Path, pos.Line); !strings.Contains(line, c.line) {
			t.Errorf("%s: line %d of %s is %q, want it to hold %q", c.item.Message(), pos.Line, filepath.Base(c.tp.Path), line, c.line)
		}
		if c.item.Step != nil {
			seen[c.item.Step.Kind] = true
		}
	}
	for _, kind := range declaredKinds(t, "StepKind") {
		if !seen[topology.StepKind(kind)] {
			t.Errorf("step kind %q has no case in TestPlanItemKey", kind)
		}
	}
}

// declaredKinds returns the values of the constants of type typ
// (StepKind, FindingKind) declared in the sources of the model and of the
// packages that judge for it (topology, health, upgrade), so a new kind
// cannot be added without a rule and a key.
func declaredKinds(t *testing.T, typ string) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"topology", "health", "upgrade"} {
		fs, err := filepath.Glob("../../../" + dir + "/*.go")
		if err != nil || len(fs) == 0 {
			t.Fatalf("%s sources: %v", dir, err)
		}
		files = append(files, fs...)
	}
	re := regexp.MustCompile(`(?m)^\s*\w+\s+(?:topology\.)?` + typ + `\s*=\s*"([^"]+)"`)
	var kinds []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			kinds = append(kinds, m[1])
		}
	}
	if len(kinds) < 5 {
		t.Fatalf("found only %v of type %s in topology/*.go", kinds, typ)
	}
	return kinds
}

// TestRulesCoverEveryKind: every step kind and finding kind the topology
// declares has a rule, with both descriptions, and an anchor in RUNBOOK.md.
func TestRulesCoverEveryKind(t *testing.T) {
	runbook, err := os.ReadFile("../../../RUNBOOK.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{RuleUnknown, RuleWaiting, RuleNoReport}
	for _, k := range declaredKinds(t, "StepKind") {
		want = append(want, "step/"+k)
	}
	for _, k := range declaredKinds(t, "FindingKind") {
		want = append(want, "finding/"+k)
	}
	for _, id := range want {
		ri, _, ok := rule(id)
		if !ok {
			t.Errorf("no rule %q", id)
			continue
		}
		if ri.Short == "" || ri.Full == "" || len(ri.Short) > 1024 || len(ri.Full) > 1024 {
			t.Errorf("rule %q: descriptions %q / %q (both required, at most 1024 characters: GitHub's limit)", id, ri.Short, ri.Full)
		}
		if !strings.Contains(string(runbook), `<a id="`+ri.Anchor+`"></a>`) {
			t.Errorf("RUNBOOK.md has no anchor %q for rule %q", ri.Anchor, id)
		}
	}
	if len(FindingRules()) != len(want) {
		t.Errorf("%d rules, %d kinds: a rule for a kind that is not declared", len(FindingRules()), len(want))
	}
}

// TestRunbookRulesTable: RUNBOOK.md §9 has one line per rule, holding its
// anchor, its id and both its descriptions as Rules says them (one home:
// format_rules.go; the runbook shows them).
func TestRunbookRulesTable(t *testing.T) {
	runbook, err := os.ReadFile("../../../RUNBOOK.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, ri := range FindingRules() {
		row := "| <a id=\"" + ri.Anchor + "\"></a>`" + ri.ID + "` | " + ri.Short + " | " + ri.Full + " |"
		if !strings.Contains(string(runbook), row+"\n") {
			t.Errorf("RUNBOOK.md has no line\n%s", row)
		}
	}
}
