package plan_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"nestor.dev/nestor/internal/fixtures"
	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/plan"
	"nestor.dev/nestor/topology"
)

// finding is a Finding's severity, kind and subject, and a substring its
// message must hold.
type finding struct {
	sev     topology.Severity
	kind    topology.FindingKind
	subject string
	has     string
}

// withNeeds is s with Needs set to refs.
func withNeeds(s topology.Step, refs ...string) topology.Step {
	s.Needs = refs
	return s
}

func checkFindings(t *testing.T, got []topology.Finding, want []finding) {
	t.Helper()
	if got == nil {
		t.Errorf("findings are nil: must be [] (never null)")
	}
	if len(got) != len(want) {
		t.Errorf("findings:\n%s\nwant %d: %+v", fmtFindings(got), len(want), want)
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Severity != w.sev || g.Kind != w.kind || g.Subject.Text != w.subject || !strings.Contains(g.Message, w.has) {
			t.Errorf("finding %d = %+v\nwant %+v", i, g, w)
		}
	}
}

func fmtFindings(fs []topology.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s [%s]: %s\n", f.Severity, f.Kind, f.Subject, f.Message)
	}
	return b.String()
}

const skewNote = "kubelet v1.34.1+rke2r1 on skew3 is 3 minors behind the API server v1.37.2, the most the version skew policy allows: the API server cannot be upgraded to 1.38 until this kubelet is upgraded"

func TestBuildPlanVersions(t *testing.T) {
	after := "; after upgrade-node skew3 → %s: kubelet %s on skew3 would otherwise be %d minors behind %s, more than the 3 the version skew policy allows"
	skewError := finding{topology.SeverityError, topology.FindingKubeletSkew, "kubelet v1.34.1+rke2r1", skewNote}
	tests := []struct {
		name     string
		version  string
		steps    []topology.Step
		findings []finding
	}{
		{
			name:    "1.37 declared: upgrade-node for the two kubelets behind, one minor at a time; no upgrade",
			version: "1.37",
			steps: []topology.Step{
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet v1.36.4 → 1.37", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet v1.34.1+rke2r1 → 1.35 (step 1 of 3 to 1.37: one minor at a time, as kubeadm upgrades)", "1.35"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.35 → 1.36 (step 2 of 3 to 1.37: one minor at a time, as kubeadm upgrades)", "1.36"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.36 → 1.37 (step 3 of 3 to 1.37: one minor at a time, as kubeadm upgrades)", "1.37"),
			},
			findings: []finding{skewError},
		},
		{
			name:    "nothing declared: no step for the kubelets, info for the one behind, the same error",
			version: "",
			steps:   []topology.Step{},
			findings: []finding{
				{topology.SeverityInfo, topology.FindingKubeletBehind, "kubelet v1.36.4", "kubelet v1.36.4 on skew2 is 1 minor behind the API server v1.37.2: allowed"},
				skewError,
			},
		},
		{
			name:    "1.38: the kubelet at the skew limit moves one minor first, then the control plane, then the nodes",
			version: "1.38",
			steps: []topology.Step{
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet v1.34.1+rke2r1 → 1.35 (step 1 of 4 to 1.38: one minor at a time, as kubeadm upgrades)", "1.35"),
				withNeeds(fixtures.Step(topology.StepUpgrade, "k8s", "kubernetes", "API server v1.37.2 → 1.38"+fmt.Sprintf(after, "1.35", "v1.34.1+rke2r1", 4, "1.38"), "1.38"), "upgrade-node skew3 → 1.35"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew1", "kubelet v1.37.2 → 1.38", "1.38"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet v1.36.4 → 1.37 (step 1 of 2 to 1.38: one minor at a time, as kubeadm upgrades)", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet 1.37 → 1.38 (step 2 of 2 to 1.38: one minor at a time, as kubeadm upgrades)", "1.38"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.35 → 1.36 (step 2 of 4 to 1.38: one minor at a time, as kubeadm upgrades)", "1.36"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.36 → 1.37 (step 3 of 4 to 1.38: one minor at a time, as kubeadm upgrades)", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.37 → 1.38 (step 4 of 4 to 1.38: one minor at a time, as kubeadm upgrades)", "1.38"),
			},
			findings: []finding{skewError},
		},
		{
			name:    "1.39: each control-plane step after the one kubelet step it needs, then the nodes",
			version: "1.39",
			steps: []topology.Step{
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet v1.34.1+rke2r1 → 1.35 (step 1 of 5 to 1.39: one minor at a time, as kubeadm upgrades)", "1.35"),
				withNeeds(fixtures.Step(topology.StepUpgrade, "k8s", "kubernetes", "API server v1.37.2 → 1.38 (step 1 of 2 to 1.39: the API server must not skip minors)"+fmt.Sprintf(after, "1.35", "v1.34.1+rke2r1", 4, "1.38"), "1.38"), "upgrade-node skew3 → 1.35"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.35 → 1.36 (step 2 of 5 to 1.39: one minor at a time, as kubeadm upgrades)", "1.36"),
				withNeeds(fixtures.Step(topology.StepUpgrade, "k8s", "kubernetes", "API server 1.38 → 1.39 (step 2 of 2 to 1.39: the API server must not skip minors)"+fmt.Sprintf(after, "1.36", "1.35", 4, "1.39"), "1.39"), "upgrade-node skew3 → 1.36"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew1", "kubelet v1.37.2 → 1.38 (step 1 of 2 to 1.39: one minor at a time, as kubeadm upgrades)", "1.38"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew1", "kubelet 1.38 → 1.39 (step 2 of 2 to 1.39: one minor at a time, as kubeadm upgrades)", "1.39"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet v1.36.4 → 1.37 (step 1 of 3 to 1.39: one minor at a time, as kubeadm upgrades)", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet 1.37 → 1.38 (step 2 of 3 to 1.39: one minor at a time, as kubeadm upgrades)", "1.38"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet 1.38 → 1.39 (step 3 of 3 to 1.39: one minor at a time, as kubeadm upgrades)", "1.39"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.36 → 1.37 (step 3 of 5 to 1.39: one minor at a time, as kubeadm upgrades)", "1.37"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.37 → 1.38 (step 4 of 5 to 1.39: one minor at a time, as kubeadm upgrades)", "1.38"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.38 → 1.39 (step 5 of 5 to 1.39: one minor at a time, as kubeadm upgrades)", "1.39"),
			},
			findings: []finding{skewError},
		},
		{
			name:    "1.36: below the server, no step at all, a downgrade error",
			version: "1.36",
			steps:   []topology.Step{},
			findings: []finding{
				{topology.SeverityError, topology.FindingDowngrade, "api-server", "kubernetes.version 1.36 is below the API server's v1.37.2: a downgrade is not possible"},
				{topology.SeverityInfo, topology.FindingKubeletBehind, "kubelet v1.36.4", "1 minor behind"},
				skewError,
			},
		},
		{
			name:    "1.37.2 declared in full: the patch counts",
			version: "1.37.2",
			steps: []topology.Step{
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet v1.36.4 → 1.37.2", "1.37.2"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet v1.34.1+rke2r1 → 1.35 (step 1 of 3 to 1.37.2: one minor at a time, as kubeadm upgrades)", "1.35"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.35 → 1.36 (step 2 of 3 to 1.37.2: one minor at a time, as kubeadm upgrades)", "1.36"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.36 → 1.37.2 (step 3 of 3 to 1.37.2: one minor at a time, as kubeadm upgrades)", "1.37.2"),
			},
			findings: []finding{skewError},
		},
		{
			name:    "1.37.3: a patch difference is one step",
			version: "1.37.3",
			steps: []topology.Step{
				fixtures.Step(topology.StepUpgrade, "k8s", "kubernetes", "API server v1.37.2 → 1.37.3", "1.37.3"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew1", "kubelet v1.37.2 → 1.37.3", "1.37.3"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew2", "kubelet v1.36.4 → 1.37.3", "1.37.3"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet v1.34.1+rke2r1 → 1.35 (step 1 of 3 to 1.37.3: one minor at a time, as kubeadm upgrades)", "1.35"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.35 → 1.36 (step 2 of 3 to 1.37.3: one minor at a time, as kubeadm upgrades)", "1.36"),
				fixtures.Step(topology.StepUpgradeNode, "k8s", "skew3", "kubelet 1.36 → 1.37.3 (step 3 of 3 to 1.37.3: one minor at a time, as kubeadm upgrades)", "1.37.3"),
			},
			findings: []finding{skewError},
		},
		{
			name:    "1.37.1: a patch below the server is a downgrade too",
			version: "v1.37.1",
			steps:   []topology.Step{},
			findings: []finding{
				{topology.SeverityError, topology.FindingDowngrade, "api-server", "declare 1.37 or later"},
				{topology.SeverityInfo, topology.FindingKubeletBehind, "kubelet v1.36.4", "1 minor behind"},
				skewError,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := fixtures.CheckedPlan(t, fixtures.SkewTopology(tc.version), fixtures.SkewObserved(), plan.NodeCluster{}, plan.Options{})
			if !reflect.DeepEqual(p.Steps, tc.steps) {
				t.Errorf("steps:\n%s\nwant:\n%s", fixtures.StepsText(p.Steps), fixtures.StepsText(tc.steps))
			}
			if len(p.Unknowns) != 0 {
				t.Errorf("unknowns = %q, want none", p.Unknowns)
			}
			checkFindings(t, p.Findings, tc.findings)
			if err := plan.CheckOrder(p, topology.DeriveVersions(fixtures.SkewObserved().ServerVersion, fixtures.SkewObserved().Nodes)); err != nil {
				t.Errorf("not a valid order:\n%v", err)
			}
			for _, s := range p.Steps {
				if !s.IsChange() {
					t.Errorf("%s is not counted as a change", s.Kind)
				}
			}
		})
	}
}

// The skew rules on other shapes: kubelets newer than the server, beyond
// the allowed skew, the two-minor rule below 1.25, unknown versions.
func TestBuildPlanKubeletSkew(t *testing.T) {
	obs := func(server string, kubelets ...string) *topology.Observed {
		o := fixtures.SkewObserved()
		o.ServerVersion = topology.KnownFact(server)
		var ns []topology.NodeState
		for i, k := range kubelets {
			ns = append(ns, topology.NodeState{Name: fmt.Sprintf("skew%d", i+1), Ready: true, KubeletVersion: k})
		}
		o.Nodes = topology.KnownFact(ns)
		return o
	}
	tests := []struct {
		name     string
		version  string
		obs      *topology.Observed
		steps    int
		unknowns []string
		findings []finding
	}{
		{
			name: "a kubelet newer than the server",
			obs:  obs("v1.36.4", "v1.36.4", "v1.37.2"),
			findings: []finding{
				{topology.SeverityError, topology.FindingKubeletNewer, "kubelet v1.37.2", "kubelet v1.37.2 on skew2 is newer than the API server v1.36.4: unsupported skew"},
			},
		},
		{
			name: "four minors behind: unsupported",
			obs:  obs("v1.37.2", "v1.37.2", "v1.33.10"),
			findings: []finding{
				{topology.SeverityError, topology.FindingKubeletSkew, "kubelet v1.33.10", "is 4 minors behind the API server v1.37.2: unsupported skew (the version skew policy allows at most 3)"},
			},
		},
		{
			name: "below 1.25 two minors is the limit, three unsupported",
			obs:  obs("v1.26.3", "v1.24.17", "v1.23.1", "v1.25.0"),
			findings: []finding{
				{topology.SeverityInfo, topology.FindingKubeletBehind, "kubelet v1.25.0", "1 minor behind"},
				{topology.SeverityError, topology.FindingKubeletSkew, "kubelet v1.24.17", "2 minors behind the API server v1.26.3, the most the version skew policy allows: the API server cannot be upgraded to 1.27"},
				{topology.SeverityError, topology.FindingKubeletSkew, "kubelet v1.23.1", "3 minors behind the API server v1.26.3: unsupported skew (the version skew policy allows at most 2)"},
			},
		},
		{
			name: "kubelets grouped: one finding per version, every node named",
			obs:  obs("v1.37.2", "v1.36.4", "v1.36.4", "v1.37.2", "v1.36.4", "v1.36.4", "v1.36.4", "v1.36.4"),
			findings: []finding{
				{topology.SeverityInfo, topology.FindingKubeletBehind, "kubelet v1.36.4", "kubelet v1.36.4 on 6 nodes (skew1, skew2, skew4, skew5, skew6 and 1 more) is 1 minor behind"},
			},
		},
		{
			name:     "an unreported kubelet version, nothing declared: an info finding",
			obs:      obs("v1.37.2", "v1.37.2", ""),
			findings: []finding{{topology.SeverityInfo, topology.FindingKubeletUnknown, `kubelet ""`, "kubelet version on skew2 unknown: not reported by the node"}},
		},
		{
			name:     "an unparseable kubelet version, version declared: an unknown of the plan",
			version:  "1.37",
			obs:      obs("v1.37.2", "v1.37.2", "garbage"),
			unknowns: []string{`kubelet version on skew2: "garbage" is not a Kubernetes version (MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally v-prefixed)`},
			findings: []finding{},
		},
		{
			name:     "a provider's kubelets and server",
			version:  "1.30",
			obs:      obs("v1.30.4-eks-a737599", "v1.30.4-eks-a737599", "v1.29.6-eks-1234567"),
			steps:    1,
			findings: []finding{},
		},
		{
			name:    "server version unknown: one unknown, nothing judged",
			version: "1.38",
			obs: func() *topology.Observed {
				o := fixtures.SkewObserved()
				o.ServerVersion = topology.UnknownFact[string](topology.Because(topology.ReasonFailed, "timed out after 10s"))
				return o
			}(),
			unknowns: []string{"server version: timed out after 10s"},
			findings: []finding{},
		},
		{
			name:     "server version unparseable: unknown, with why",
			version:  "1.38",
			obs:      obs("v0.0.0-master+$Format:%H$", "v1.37.2"),
			unknowns: []string{`server version: API server version "v0.0.0-master+$Format:%H$": a build without version information (v0.0.0)`},
			findings: []finding{},
		},
		{
			name:     "another major declared",
			version:  "2.0",
			obs:      obs("v1.37.2", "v1.37.2"),
			unknowns: []string{"kubernetes version: desired 2.0 and the API server v1.37.2 differ in major version; nestor plans upgrades within a major version only"},
			findings: []finding{},
		},
		{
			name:     "an invalid declared version (a topology not from Load)",
			version:  "latest",
			obs:      obs("v1.37.2", "v1.37.2"),
			unknowns: []string{`kubernetes version: desired "latest" is not a Kubernetes version (MAJOR.MINOR or MAJOR.MINOR.PATCH, optionally v-prefixed)`},
			findings: []finding{},
		},
		{
			name:    "a kubelet above the declared patch",
			version: "1.37.1",
			obs:     obs("v1.37.2", "v1.37.1", "v1.37.2"),
			findings: []finding{
				{topology.SeverityError, topology.FindingDowngrade, "api-server", "below the API server's v1.37.2"},
			},
		},
		{
			name:    "a kubelet above the declared patch, server at it",
			version: "1.37.1",
			obs:     obs("v1.37.1", "v1.37.1", "v1.37.2"),
			findings: []finding{
				{topology.SeverityError, topology.FindingDowngrade, "kubelet v1.37.2", "kubelet v1.37.2 on skew2 is above kubernetes.version 1.37.1: a downgrade is not possible"},
			},
		},
	}
	// The unknowns' codes: the read's own when it failed, unrecognised when
	// a version was read that nestor cannot judge.
	codes := map[string]topology.ReasonCode{
		"an unparseable kubelet version, version declared: an unknown of the plan": topology.ReasonUnrecognised,
		"server version unknown: one unknown, nothing judged":                      topology.ReasonFailed,
		"server version unparseable: unknown, with why":                            topology.ReasonUnrecognised,
		"an invalid declared version (a topology not from Load)":                   topology.ReasonUnrecognised,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := fixtures.CheckedPlan(t, fixtures.SkewTopology(tc.version), tc.obs, plan.NodeCluster{}, plan.Options{})
			n := 0
			for _, s := range p.Steps {
				if s.Kind == topology.StepUpgrade || s.Kind == topology.StepUpgradeNode {
					n++
				}
			}
			if n != tc.steps {
				t.Errorf("steps:\n%s\nwant %d upgrade steps", fixtures.StepsText(p.Steps), tc.steps)
			}
			want := tc.unknowns
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(topology.Texts(p.Unknowns), want) {
				t.Errorf("unknowns = %q\nwant %q", p.Unknowns, want)
			}
			for _, u := range p.Unknowns {
				checkUnknownSubject(t, u)
				if want, ok := codes[tc.name]; ok && u.Code != want {
					t.Errorf("unknown %q: reason %q, want %q", u, u.Code, want)
				}
			}
			checkFindings(t, p.Findings, tc.findings)
		})
	}
}

// The calendar inside Build: judged at o.AsOf, for the server's minor
// and each kubelet minor; a zero AsOf judges nothing.
func TestBuildPlanCalendar(t *testing.T) {
	today := kube.Day(2026, 11, 30)
	p := fixtures.CheckedPlan(t, fixtures.SkewTopology(""), fixtures.SkewObserved(), plan.NodeCluster{}, plan.Options{AsOf: today})
	checkFindings(t, p.Findings, []finding{
		{topology.SeverityInfo, topology.FindingKubeletBehind, "kubelet v1.36.4", "1 minor behind"},
		{topology.SeverityError, topology.FindingKubeletSkew, "kubelet v1.34.1+rke2r1", skewNote},
		{topology.SeverityWarning, topology.FindingEndOfLife, "1.34", "1.34 reached end of life upstream on 2026-10-27, 34 days ago: no more patch releases, security fixes included (kubelet v1.34.1+rke2r1 on skew3)"},
	})
	if n := p.FindingsAtLeast(topology.SeverityWarning); n != 2 {
		t.Errorf("FindingsAtLeast(warning) = %d, want 2", n)
	}
	if n := p.FindingsAtLeast(topology.SeverityError); n != 1 {
		t.Errorf("FindingsAtLeast(error) = %d, want 1", n)
	}

	// A 1.37 cluster at 2027-11-01: 1.37 is past its (published) end of
	// life, and so is 1.36; at 2026-12-01 nothing is.
	o := fixtures.SkewObserved()
	o.Nodes = topology.KnownFact([]topology.NodeState{{Name: "skew1", Ready: true, KubeletVersion: "v1.37.2"}})
	p = fixtures.CheckedPlan(t, fixtures.SkewTopology("1.37"), o, plan.NodeCluster{}, plan.Options{AsOf: kube.Day(2027, 11, 1)})
	checkFindings(t, p.Findings, []finding{
		{topology.SeverityWarning, topology.FindingEndOfLife, "1.37", "1.37 reached end of life upstream on 2027-10-28, 4 days ago: no more patch releases, security fixes included (the API server; kubelet v1.37.2 on skew1)"},
	})
	p = fixtures.CheckedPlan(t, fixtures.SkewTopology("1.37"), o, plan.NodeCluster{}, plan.Options{AsOf: kube.Day(2026, 12, 1)})
	checkFindings(t, p.Findings, []finding{})

	// Zero AsOf: nothing about dates, even for an ended minor.
	o.ServerVersion = topology.KnownFact("v1.30.0")
	o.Nodes = topology.KnownFact([]topology.NodeState{{Name: "skew1", Ready: true, KubeletVersion: "v1.30.0"}})
	p = fixtures.CheckedPlan(t, fixtures.SkewTopology(""), o, plan.NodeCluster{}, plan.Options{})
	checkFindings(t, p.Findings, []finding{})
}

// A plan's JSON always holds "findings": [] (never null), with the fields
// severity, kind, subject, message.
func TestPlanFindingsJSON(t *testing.T) {
	for _, obs := range []*topology.Observed{nil, fixtures.HealthyDirqual(), fixtures.SkewObserved()} {
		b, err := json.Marshal(fixtures.CheckedPlan(t, fixtures.Dirqual(), obs, plan.NodeCluster{}, plan.Options{AsOf: kube.Day(2026, 11, 30)}))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if f, ok := doc["findings"]; !ok || string(f) == "null" {
			t.Errorf("plan JSON findings = %s: %s", f, b)
		}
	}
	b, _ := json.Marshal(topology.Finding{Severity: topology.SeverityWarning, Kind: topology.FindingEndOfLife, Subject: topology.VersionSubject("1.34"), Message: "m"})
	if string(b) != `{"severity":"warning","kind":"end-of-life","subject":{"kind":"version","name":"1.34","key":"kubernetes.version","text":"1.34"},"message":"m"}` {
		t.Errorf("finding JSON = %s", b)
	}
}

// The judgement never depends on the caller: Build leaves obs as it was.
func TestBuildPlanDoesNotModifyObserved(t *testing.T) {
	o := fixtures.SkewObserved()
	before, _ := json.Marshal(o)
	fixtures.CheckedPlan(t, fixtures.SkewTopology("1.39"), o, plan.NodeCluster{}, plan.Options{AsOf: time.Now()})
	after, _ := json.Marshal(o)
	if string(before) != string(after) {
		t.Errorf("Build modified the observation:\n%s\n%s", before, after)
	}
}

func TestUpgradePath(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		want     string
	}{
		{"v1.37.2", "1.38", "1.38"},
		{"v1.37.2", "1.39", "1.38 1.39"},
		{"v1.37.2", "1.40.1", "1.38 1.39 1.40.1"},
		{"v1.37.2", "1.37.3", "1.37.3"},
		{"v1.37.2", "1.37", ""},
		{"v1.37.2", "1.37.2", ""},
		{"v1.37.2", "1.36", ""}, // a downgrade is no path
		{"v1.37.2", "1.37.1", ""},
		{"v1.38.0-rc.1", "1.38.0", "1.38.0"},
		{"v1.34.1+rke2r1", "1.37", "1.35 1.36 1.37"},
		{"v1.37.2", "2.0", ""}, // another major
		{"garbage", "1.38", ""},
	} {
		var got []string
		for _, v := range plan.UpgradePath(kube.ParseVersion(tc.from), kube.ParseVersion(tc.to)) {
			got = append(got, v.Canonical())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("UpgradePath(%s, %s) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestKubeletSkewAllowed(t *testing.T) {
	for in, want := range map[string]int{"v1.24.17": 2, "v1.25.0": 3, "v1.34.1+rke2r1": 3, "1.20": 2} {
		if got := plan.KubeletSkewAllowed(kube.ParseVersion(in)); got != want {
			t.Errorf("KubeletSkewAllowed(%s) = %d, want %d", in, got, want)
		}
	}
}
