package e2e

// End-to-end proof of where a drain blocker is placed (upgrade.JudgeUpgrade's
// drain rule, probes' read of the nodes a PodDisruptionBudget's pods run on)
// against the real API server, with /metrics readable: the cluster of
// upgrade-drains.yaml, whose kubelets are all at the API server's version, so
// that a move to 1.38 plans the control plane's upgrade first. Each budget
// that allows no disruption hangs under the first planned step that drains a
// node running its pods, in the JSON document and in the text alike; the
// budgets whose pods no step drains hang nowhere.

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"nestor.dev/nestor/tests/faultproxy"
	"nestor.dev/nestor/tests/harness"
)

// The plan's draining steps on upgrade-drains.yaml for a move to 1.38.
const (
	drainUp = "upgrade kubernetes → 1.38"
	drain1  = "upgrade-node drain1 → 1.38"
	drain2  = "upgrade-node drain2 → 1.38"
	drain3  = "upgrade-node drain3 → 1.38"
)

// drainsTopology declares drain1 to drain3 (not drain4) and a move to 1.38.
const drainsTopology = "kubernetes:\n  version: \"1.38\"\nnodes:\n" +
	"  - {name: drain1, role: control-plane}\n  - {name: drain2, role: worker}\n  - {name: drain3, role: worker}\n"

func TestUpgradeDrainBlockerPlacement(t *testing.T) {
	c := harness.StartT(t, harness.Options{})
	if err := c.LoadFixture(clusterFixture(t, "upgrade-drains.yaml")); err != nil {
		t.Fatalf("load upgrade-drains.yaml: %v", err)
	}
	if err := c.GrantReadOnly("nestor-test-metrics", []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}); err != nil {
		t.Fatal(err)
	}
	w := prodStack(t, c, "drains", drainsTopology)
	args := []string{"preview", "--stacks", w.Stacks, "--stack", "drains", "--no-input", "--as-of", "2026-12-01"}

	t.Run("each blocker under the step that drains its node, /metrics read", func(t *testing.T) {
		before := len(auditEvents(t, c))
		r := w.run(nil, append(args, "-o", "json")...)
		wantCode(t, r, 0)
		d := decodeUpgrade(t, r)
		for _, f := range d.findings("upgrade-unknown") {
			if strings.Contains(f.Source, "/metrics") || strings.Contains(f.Subject.Text, "pdb") {
				t.Errorf("/metrics granted and the pods readable, yet unknown: %v", f)
			}
		}
		if d.Upgrade == nil || strings.Join(d.Upgrade.Drains, ", ") != strings.Join([]string{drainUp, drain1, drain2, drain3}, ", ") {
			t.Fatalf("the draining steps: %+v\n%s", d.Upgrade, r)
		}
		want := map[string]string{
			"pdb kube-system/coredns":       drainUp, // its pods run on the control plane, which the API server's upgrade drains
			"pdb rook-ceph/rook-ceph-osd":   drain2,
			"pdb databases/pg-main-primary": drain3,
		}
		words := map[string]string{
			"pdb kube-system/coredns":       "draining drain1, which runs its pods, waits until it allows one (2 planned steps drain it, the first " + drainUp + ")",
			"pdb rook-ceph/rook-ceph-osd":   "draining drain2 or drain3, which run its pods, waits until it allows one (2 planned steps drain them, the first " + drain2 + ")",
			"pdb databases/pg-main-primary": "draining drain3, which runs its pods, waits until it allows one (the planned step " + drain3 + " drains it)",
		}
		blockers := d.findings("drain-blocker")
		if len(blockers) != len(want) {
			t.Errorf("drain blockers: %v; want %d (web/edge runs on an undeclared node, web/batch on none, web/frontend allows one)", blockers, len(want))
		}
		for _, f := range blockers {
			step, ok := want[f.Subject.Text]
			if !ok {
				t.Errorf("a blocker that holds no planned step: %v", f)
				continue
			}
			if f.Step != step || f.Severity != "warning" || !strings.Contains(f.Message, words[f.Subject.Text]) || !strings.Contains(f.Reach, "read now") {
				t.Errorf("%s: step %q, want %q (the first that drains a node running its pods), and %q in\n%v", f.Subject.Text, f.Step, step, words[f.Subject.Text], f)
			}
		}

		// The pods were read as Tables of the budgets' namespaces, with
		// their selectors; never those of a budget that allows one.
		var podReads []string
		for _, e := range auditEvents(t, c)[before:] {
			if strings.Contains(e.RequestURI, "/pods") {
				podReads = append(podReads, e.String())
				u, err := url.Parse(e.RequestURI)
				if err != nil || e.Verb != "list" || u.Query().Get("includeObject") != "None" || u.Query().Get("labelSelector") == "" {
					t.Errorf("a pod read that is not a selected list of names and nodes: %s", e)
				}
				if strings.Contains(u.Query().Get("labelSelector"), "frontend") {
					t.Errorf("the pods of web/frontend, which allows a disruption, were read: %s", e)
				}
			}
		}
		if len(podReads) != 5 {
			t.Errorf("pod reads %v; want one per budget allowing none (rook-ceph-osd, pg-main-primary, coredns, edge, batch)", podReads)
		}

		// The text places each under the same step.
		r = w.run(nil, args...)
		wantCode(t, r, 0)
		under := stepOfLines(r.stdout, "pdb ")
		for subject, step := range want {
			base, _, _ := strings.Cut(step, " →")
			if got := under[subject]; got != base {
				t.Errorf("text: %s placed under %q, want %q\n%s", subject, got, base, r.stdout)
			}
		}
		for _, other := range []string{"pdb web/edge", "pdb web/batch", "pdb web/frontend"} {
			if s, ok := under[other]; ok {
				t.Errorf("text: %s, which holds no planned step, shown under %q", other, s)
			}
		}
	})

	t.Run("a budget's pods not readable: unknown, under no step, said so", func(t *testing.T) {
		o, err := faultproxy.ForCluster(c, harness.UserReadOnly, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := faultproxy.StartT(t, o)
		p.Set(faultproxy.Route{Path: "/api/v1/namespaces/databases/pods"}, faultproxy.StatusMessage(403, 0,
			`pods is forbidden: User "nestor-test-readonly" cannot list resource "pods" in API group "" in the namespace "databases"`))
		pw := newWorld(t, c)
		pw.stackFile("drains", "name: drains\ntarget_kind: prod\nkubeconfig: ~/.kube/drains.config\nendpoint: "+p.URL+"\n"+drainsTopology)
		if err := p.WriteKubeconfig(filepath.Join(pw.Home, ".kube", "drains.config")); err != nil {
			t.Fatal(err)
		}
		r := pw.run(nil, "preview", "--stacks", pw.Stacks, "--stack", "drains", "--no-input", "--as-of", "2026-12-01", "-o", "json")
		wantCode(t, r, 0)
		d := decodeUpgrade(t, r)
		var pg []upgradeFinding
		for _, f := range d.Plan.Findings {
			if f.Subject.Text == "pdb databases/pg-main-primary" {
				pg = append(pg, f)
			}
		}
		if len(pg) != 1 || pg[0].Kind != "upgrade-unknown" || pg[0].Step != "" || !strings.Contains(pg[0].Message, "which nodes run its pods is not known") ||
			!strings.Contains(pg[0].Message, "forbidden") || !strings.Contains(pg[0].Message, "so which planned step it holds up is not known") {
			t.Errorf("pods refused: want one unknown naming the refusal, under no step; got %v", pg)
		}
		for _, f := range d.findings("drain-blocker") {
			if f.Subject.Text == "pdb rook-ceph/rook-ceph-osd" && f.Step != drain2 {
				t.Errorf("another budget's placement moved: %v", f)
			}
		}
	})
}

// stepOfLines maps each finding line of preview's text PLAN whose subject
// starts with prefix ("pdb ") to the step it is printed under ("upgrade-node
// drain2"): the nearest numbered step line above it.
func stepOfLines(text, prefix string) map[string]string {
	stepLine := regexp.MustCompile(`^\s+\d+\. \S+ (\S+) (\S+)`)
	finding := regexp.MustCompile(`^\s+↳ (?:info|warning|error)\s+(` + regexp.QuoteMeta(prefix) + `\S+):`)
	out := map[string]string{}
	current := ""
	for _, line := range strings.Split(text, "\n") {
		if m := stepLine.FindStringSubmatch(line); m != nil {
			current = fmt.Sprintf("%s %s", m[1], m[2])
			continue
		}
		if m := finding.FindStringSubmatch(line); m != nil {
			out[m[1]] = current
		}
		if strings.HasPrefix(line, "FINDINGS") || strings.HasPrefix(strings.TrimSpace(line), "FINDINGS") {
			current = ""
		}
	}
	return out
}
