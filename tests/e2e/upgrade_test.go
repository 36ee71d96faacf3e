package e2e

// End-to-end proofs of the upgrade report (upgrade.JudgeUpgrade and the
// reads of probes.Opened.ReadUpgrade) against the real API server: started
// with group versions switched on (--runtime-config) that k8s.io/api marks
// as removed at the next minor, loaded with the versions-skew nodes and the
// upgrade-blockers fixture (an old Cilium, PodDisruptionBudgets allowing no
// disruption). The read-only identity has no /metrics (forbidden, as on a
// managed control plane) until a test grants it; a deprecated API is then
// called with kubectl and reported from the API server's own metric.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"nestor.dev/nestor/tests/harness"
)

// removedAt138 are group versions the 1.37 API server serves once switched
// on and that k8s.io/api's lifecycle (APILifecycleRemoved) removes at 1.38.
var removedAt138 = []string{"resource.k8s.io/v1beta1", "admissionregistration.k8s.io/v1alpha1", "coordination.k8s.io/v1alpha2"}

// partlyRemovedAt139 is a group version the 1.37 API server serves once
// switched on, of which k8s.io/api removes some resources at 1.39
// (deviceclasses, resourceclaims, resourceclaimtemplates, resourceslices)
// and keeps another (devicetaintrules, until 1.42).
const partlyRemovedAt139 = "resource.k8s.io/v1beta2"

// upgradeDoc is the part of preview's document the upgrade proofs read.
type upgradeDoc struct {
	Plan struct {
		Steps []struct {
			Kind, Phase, Target, Reason string
		} `json:"steps"`
		Findings []upgradeFinding `json:"findings"`
	} `json:"plan"`
	Upgrade *struct {
		Targets []struct {
			Minor  jsonMinor `json:"minor"`
			Forced bool      `json:"forced"`
			Date   string    `json:"date"`
			Steps  []string  `json:"steps"`
		} `json:"targets"`
		Drains []string `json:"drains"`
	} `json:"upgrade"`
	HardDate *struct {
		Date     string `json:"date"`
		Minor    string `json:"minor"`
		Forced   bool   `json:"forced"`
		Judged   bool   `json:"judged"`
		Blockers int    `json:"blockers"`
		Unknowns int    `json:"unknowns"`
	} `json:"hard_date"`
}

// jsonMinor is a topology.Version as JSON, read for its minor.
type jsonMinor struct {
	Major, Minor int
}

func (v jsonMinor) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

type upgradeFinding struct {
	Severity, Kind, Message, Source, Reach, Step, Minor string
	Subject                                             jsonSubject
}

func (f upgradeFinding) String() string {
	return fmt.Sprintf("%s %s %s: %s [source %s; reach %s; step %q; minor %s]", f.Severity, f.Kind, f.Subject, f.Message, f.Source, f.Reach, f.Step, f.Minor)
}

func (d upgradeDoc) findings(kind string) []upgradeFinding {
	var out []upgradeFinding
	for _, f := range d.Plan.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func decodeUpgrade(t *testing.T, r result) upgradeDoc {
	t.Helper()
	var d upgradeDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("preview -o json: %v\n%s", err, r)
	}
	return d
}

// upgradeCluster starts this test's own cluster serving removedAt138,
// loaded with versions-skew.yaml and upgrade-blockers.yaml.
func upgradeCluster(t *testing.T) *harness.Cluster {
	t.Helper()
	var on []string
	for _, gv := range append(removedAt138, partlyRemovedAt139) {
		on = append(on, gv+"=true")
	}
	c := harness.StartT(t, harness.Options{APIServerArgs: []string{"--runtime-config=" + strings.Join(on, ",")}})
	for _, f := range []string{"versions-skew.yaml", "upgrade-blockers.yaml"} {
		if err := c.LoadFixture(clusterFixture(t, f)); err != nil {
			t.Fatalf("load %s: %v", f, err)
		}
	}
	return c
}

func TestUpgradeReport(t *testing.T) {
	c := upgradeCluster(t)
	w := prodStack(t, c, "skew", "kubernetes:\n  version: \"1.38\"\nnodes:\n"+
		"  - {name: skew1, role: control-plane}\n  - {name: skew2, role: worker}\n  - {name: skew3, role: worker}\n"+
		"backend: local-path\nlayers: [local-path, cilium]\n")
	preview := func(args ...string) (upgradeDoc, result) {
		r := w.run(nil, append([]string{"preview", "--stacks", w.Stacks, "--stack", "skew", "-o", "json", "--as-of", "2026-12-01"}, args...)...)
		return decodeUpgrade(t, r), r
	}

	t.Run("what 1.38 stops serving, the layer outside its range, the drain blockers, /metrics forbidden", func(t *testing.T) {
		d, r := preview()
		wantCode(t, r, 0)
		if d.Upgrade == nil || len(d.Upgrade.Targets) != 1 || d.Upgrade.Targets[0].Minor.String() != "1.38" {
			t.Fatalf("upgrade: %+v\n%s", d.Upgrade, r)
		}
		refs := map[string]bool{}
		for _, s := range d.Plan.Steps {
			refs[s.Kind+" "+s.Target] = true
		}
		removed := d.findings("removed-api")
		text := fmt.Sprint(removed)
		for _, gv := range removedAt138 {
			if !strings.Contains(text, gv) {
				t.Errorf("no removed-api finding names %s: %v", gv, removed)
			}
		}
		for _, f := range removed {
			if f.Severity != "warning" || f.Minor != "1.38" || !strings.Contains(f.Source, "k8s.io/api") || !strings.Contains(f.Reach, "discovery") ||
				!strings.HasPrefix(f.Step, "upgrade kubernetes → 1.38") {
				t.Errorf("removed-api finding without its severity, minor, source, reach or step: %v", f)
			}
			if strings.Contains(f.Message, "object") {
				t.Errorf("a removed API said of objects: %v", f)
			}
		}
		var metrics []upgradeFinding
		for _, f := range d.findings("upgrade-unknown") {
			if strings.Contains(f.Source, "/metrics") {
				metrics = append(metrics, f)
			}
		}
		if len(metrics) != 1 || !strings.Contains(metrics[0].Message, "forbidden") || !strings.Contains(metrics[0].Message, `nonResourceURLs: ["/metrics"]`) {
			t.Errorf("/metrics forbidden is not an unknown naming the permission: %v", metrics)
		}
		layers := d.findings("layer-unsupported")
		if len(layers) != 1 || layers[0].Subject.Text != "layer cilium" || !strings.Contains(layers[0].Message, "1.18") ||
			!strings.Contains(layers[0].Message, "1.30–1.33") || !strings.Contains(layers[0].Reach, "kube-system/cilium") {
			t.Errorf("cilium 1.18.4 at 1.38: %v", layers)
		}
		drains := d.findings("drain-blocker")
		dtext := fmt.Sprint(drains)
		if len(drains) != 2 || !strings.Contains(dtext, "rook-ceph/rook-ceph-osd") || !strings.Contains(dtext, "databases/pg-main-primary") ||
			strings.Contains(dtext, "databases/pg-main ") || strings.Contains(dtext, "leftover") {
			t.Errorf("drain blockers: %v", drains)
		}
		// Each under the first step that drains a node running its pods:
		// skew3's first kubelet step for the OSDs (skew2, skew3), skew2's for
		// the primary.
		for _, f := range drains {
			want := map[string]string{"pdb rook-ceph/rook-ceph-osd": "upgrade-node skew3 → 1.35", "pdb databases/pg-main-primary": "upgrade-node skew2 → 1.37"}[f.Subject.Text]
			if f.Step != want || f.Severity != "warning" {
				t.Errorf("drain blocker not under the step that drains its node (%q): %v", want, f)
			}
		}
		for _, f := range d.Plan.Findings {
			if f.Step == "" {
				continue
			}
			base, _, _ := strings.Cut(f.Step, " →")
			if !refs[base] {
				t.Errorf("finding placed under a step the plan does not hold (%q; steps %v): %v", f.Step, refs, f)
			}
		}
		if d.HardDate == nil || !strings.HasPrefix(d.HardDate.Date, "2027-10-28") || d.HardDate.Minor != "1.38" || !d.HardDate.Judged ||
			d.HardDate.Blockers != len(removed)+len(layers) || d.HardDate.Unknowns == 0 {
			t.Errorf("hard date (1.37's upstream end of life; the report for 1.38 made, its blockers counted, a floor since /metrics is unknown): %+v", d.HardDate)
		}

		r = w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "skew", "--no-input", "--as-of", "2026-12-01")
		wantLine(t, "the removed API under the step it concerns", r.stdout, `(?m)^\s+↳ warning\s+resource\.k8s\.io/v1beta1: `)
		wantLine(t, "its source and reach", r.stdout, `(?m)^\s+source: k8s\.io/api .*; reach: this API server's discovery`)
		r = w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "skew", "--no-input", "--fail-on", "warning")
		wantCode(t, r, 3)
	})

	t.Run("a deprecated API called with kubectl is reported from the metric, with its window and reach", func(t *testing.T) {
		kubectl := filepath.Join(os.Getenv("NESTOR_TEST_BIN"), "kubectl")
		out, err := exec.Command(kubectl, "--kubeconfig", c.Admin, "get", "deviceclasses.v1beta1.resource.k8s.io").CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl get deviceclasses.v1beta1.resource.k8s.io: %v\n%s", err, out)
		}
		if err := c.GrantReadOnly("nestor-test-metrics", []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}); err != nil {
			t.Fatal(err)
		}
		d, r := preview()
		var called []upgradeFinding
		for _, f := range d.findings("removed-api") {
			if strings.Contains(f.Subject.Text+f.Message, "resource.k8s.io/v1beta1") {
				called = append(called, f)
			}
		}
		if len(called) != 1 || called[0].Severity != "error" || !strings.Contains(called[0].Message, "deviceclasses") ||
			!strings.Contains(called[0].Message, "since ") || !strings.Contains(called[0].Reach, "API server instance") {
			t.Errorf("the call is not reported with its window and reach: %v\n%s", called, r.stderr)
		}
		for _, f := range d.findings("upgrade-unknown") {
			if strings.Contains(f.Source, "/metrics") {
				t.Errorf("/metrics still unknown once granted: %v", f)
			}
		}
	})

	t.Run("a group version that loses some of its resources names them, and says it stays for the others", func(t *testing.T) {
		w := prodStack(t, c, "skew", "kubernetes:\n  version: \"1.39\"\nnodes:\n"+
			"  - {name: skew1, role: control-plane}\n  - {name: skew2, role: worker}\n  - {name: skew3, role: worker}\n"+
			"backend: local-path\nlayers: [local-path]\n")
		r := w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "skew", "-o", "json", "--as-of", "2026-12-01")
		d := decodeUpgrade(t, r)
		var got []upgradeFinding
		for _, f := range d.findings("removed-api") {
			if f.Subject.Text == partlyRemovedAt139 {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Minor != "1.39" ||
			!strings.Contains(got[0].Message, "the cluster serves resource.k8s.io/v1beta2 deviceclasses (DeviceClass), resourceclaims (ResourceClaim), resourceclaimtemplates (ResourceClaimTemplate), resourceslices (ResourceSlice); 1.39 is to stop serving them") ||
			!strings.Contains(got[0].Message, "resource.k8s.io/v1beta2 itself is still served by 1.39 for devicetaintrules (DeviceTaintRule, to be removed in 1.42)") {
			t.Errorf("resource.k8s.io/v1beta2 at 1.39: %v", got)
		}
	})

	t.Run("nothing is read when nothing is due", func(t *testing.T) {
		w := prodStack(t, c, "skew", "kubernetes:\n  version: \"1.37\"\nnodes:\n"+
			"  - {name: skew1, role: control-plane}\n  - {name: skew2, role: worker}\n  - {name: skew3, role: worker}\n"+
			"backend: local-path\nlayers: [local-path]\n")
		before := len(auditEvents(t, c))
		// upgrade-node steps drain: the PodDisruptionBudgets are read, and
		// nothing else of the upgrade reads.
		r := w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "skew", "-o", "json", "--as-of", "2026-12-01")
		d := decodeUpgrade(t, r)
		var paths []string
		for _, p := range auditPaths(auditEvents(t, c)[before:]) {
			if strings.HasPrefix(p, "/metrics") || strings.HasPrefix(p, "/apis/coordination") || p == "/api" || p == "/apis" {
				paths = append(paths, p)
			}
		}
		if len(paths) != 0 || d.Upgrade == nil || len(d.Upgrade.Targets) != 0 || len(d.findings("removed-api")) != 0 {
			t.Errorf("no minor due, yet read %v / judged %+v", paths, d.Upgrade)
		}
		if len(d.findings("drain-blocker")) != 2 {
			t.Errorf("upgrade-node steps without their drain blockers: %v", d.Plan.Findings)
		}
	})
}

// TestUpgradeForcedMove: a Kapsule cluster days from its provider's end of
// life gets the report for the minor the provider will move it to, with
// the date, though no step plans it; fleet's DEADLINE says it.
func TestUpgradeForcedMove(t *testing.T) {
	kw := newKapsuleWorld(t)
	// The provider ends 1.35 before upstream does (2027-02-28).
	kw.data.Versions[0].Deprecated, kw.data.Versions[0].EndOfLife = "2026-11-01", "2027-01-31"
	kw.stub.Serve(kw.data)
	kw.stack("1.35", kw.kubeconfig, "")
	r := kw.run(creds(), "preview", "--stacks", kw.Stacks, "--stack", "lyneko-apps", "-o", "json", "--as-of", "2027-01-20")
	d := decodeUpgrade(t, r)
	if d.Upgrade == nil || len(d.Upgrade.Targets) == 0 {
		t.Fatalf("no upgrade report 11 days before the provider's end of life: %+v\n%s", d.Upgrade, r)
	}
	tg := d.Upgrade.Targets[0]
	if !tg.Forced || !strings.HasPrefix(tg.Date, "2027-01-31") || tg.Minor.String() != "1.36" || len(tg.Steps) != 0 {
		t.Errorf("the forced move: %+v", tg)
	}
	judged := 0
	for _, f := range d.Plan.Findings {
		if f.Minor == "1.36" {
			judged++
			if f.Step != "" {
				t.Errorf("a forced move no step plans placed under step %q: %v", f.Step, f)
			}
		}
	}
	if judged == 0 {
		t.Errorf("no finding judges the move to 1.36: %v", d.Plan.Findings)
	}
	if d.HardDate == nil || !d.HardDate.Forced || !strings.HasPrefix(d.HardDate.Date, "2027-01-31") || !d.HardDate.Judged {
		t.Errorf("hard date: %+v", d.HardDate)
	}
	r = kw.run(creds(), "fleet", "--stacks", kw.Stacks, "--as-of", "2027-01-20")
	wantLine(t, "fleet's deadline", r.stdout, `(?m)^lyneko-apps .* 2027-01-31 → 1\.36 forced, `)
}
