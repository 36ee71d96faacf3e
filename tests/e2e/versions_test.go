package e2e

// End-to-end proofs of the versions judgement: kubelet skew, upgrade steps
// one minor at a time, no downgrade, the support calendar at --as-of, and
// --fail-on, against the real API server (fixture versions-skew.yaml:
// skew1 v1.37.2, skew2 v1.36.4, skew3 v1.34.1+rke2r1; server v1.37.2).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"
)

// versionsDoc is the part of preview's document these proofs read.
type versionsDoc struct {
	AsOf   string `json:"as_of"`
	Actual struct {
		Versions struct {
			Known bool `json:"known"`
			Value struct {
				APIServer struct {
					Raw string `json:"raw"`
				} `json:"api_server"`
				Kubelets struct {
					Known bool `json:"known"`
					Value []struct {
						Version struct {
							Raw string `json:"raw"`
						} `json:"version"`
						Count int      `json:"count"`
						Nodes []string `json:"nodes"`
					} `json:"value"`
				} `json:"kubelets"`
			} `json:"value"`
		} `json:"versions"`
	} `json:"actual"`
	Plan struct {
		Steps []struct {
			Kind, Phase, Target, Reason, To string
			Needs                           []string
			Blocked                         []jsonSubject
		} `json:"steps"`
		Findings []struct {
			Severity, Kind, Message string
			Subject                 jsonSubject
		} `json:"findings"`
	} `json:"plan"`
}

func (d versionsDoc) steps(kind string) []string {
	var out []string
	for _, s := range d.Plan.Steps {
		if s.Kind == kind {
			out = append(out, s.Target+": "+s.Reason)
		}
	}
	return out
}

func (d versionsDoc) findings(kind string) []string {
	var out []string
	for _, f := range d.Plan.Findings {
		if f.Kind == kind {
			out = append(out, f.Severity+" "+f.Subject.Text+": "+f.Message)
		}
	}
	return out
}

// versionsWorld writes stack skew (the three fixture nodes, local-path)
// declaring kubernetes.version: version ("" for none).
func versionsWorld(t *testing.T, c *harness.Cluster, version string) *world {
	return versionsWorldOf(t, c, version, "skew1", "skew2", "skew3")
}

// versionsWorldOf is versionsWorld declaring the nodes named (skew1 the
// control plane, the others workers).
func versionsWorldOf(t *testing.T, c *harness.Cluster, version string, nodes ...string) *world {
	t.Helper()
	w := newWorld(t, c)
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", "skew.config"), harness.IdentityReadOnly, "")
	k := ""
	if version != "" {
		k = fmt.Sprintf("kubernetes:\n  version: %q\n", version)
	}
	var decl strings.Builder
	for _, n := range nodes {
		role := "worker"
		if n == "skew1" {
			role = "control-plane"
		}
		fmt.Fprintf(&decl, "  - {name: %s, role: %s}\n", n, role)
	}
	w.stackFile("skew", fmt.Sprintf("name: skew\ntarget_kind: prod\nkubeconfig: ~/.kube/skew.config\nendpoint: %s\n%snodes:\n%s"+
		"backend: local-path\nlayers: [local-path]\n", c.URL, k, decl.String()))
	return w
}

func previewVersions(t *testing.T, w *world, args ...string) (versionsDoc, result) {
	t.Helper()
	r := w.run(nil, append([]string{"preview", "--stacks", w.Stacks, "--stack", "skew", "-o", "json"}, args...)...)
	var d versionsDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("preview -o json: %v\n%s", err, r)
	}
	checkPlanOrder(t, r.stdout)
	return d, r
}

func TestVersions(t *testing.T) {
	c := sharedFixtureCluster(t, "versions-skew.yaml")

	t.Run("declared 1.37: upgrade-node for the two behind, the skew error, no upgrade", func(t *testing.T) {
		w := versionsWorld(t, c, "1.37")
		d, r := previewVersions(t, w, "--detailed-exitcode")
		wantCode(t, r, 2)
		nodes := d.steps("upgrade-node")
		if joined := strings.Join(nodes, "\n"); !strings.Contains(joined, "skew2") || !strings.Contains(joined, "skew3") || strings.Contains(joined, "skew1") {
			t.Errorf("upgrade-node steps: %q", nodes)
		}
		if up := d.steps("upgrade"); len(up) != 0 {
			t.Errorf("upgrade steps for a server already at 1.37: %q", up)
		}
		if skew := d.findings("kubelet-skew"); len(skew) != 1 || !strings.HasPrefix(skew[0], "error") || !strings.Contains(skew[0], "skew3") {
			t.Errorf("skew findings: %q", skew)
		}
		if !d.Actual.Versions.Known || d.Actual.Versions.Value.APIServer.Raw != "v1.37.2" || len(d.Actual.Versions.Value.Kubelets.Value) != 3 {
			t.Errorf("actual.versions: %+v", d.Actual.Versions)
		}
	})

	t.Run("no version declared: no step, info for each kubelet behind, the same error", func(t *testing.T) {
		w := versionsWorld(t, c, "")
		d, _ := previewVersions(t, w)
		if n, u := d.steps("upgrade-node"), d.steps("upgrade"); len(n)+len(u) != 0 {
			t.Errorf("steps without a declared version: %q %q", n, u)
		}
		if behind := d.findings("kubelet-behind"); len(behind) == 0 || !strings.HasPrefix(behind[0], "info") || !strings.Contains(strings.Join(behind, " "), "skew2") {
			t.Errorf("kubelet-behind findings: %q", behind)
		}
		if skew := d.findings("kubelet-skew"); len(skew) != 1 || !strings.HasPrefix(skew[0], "error") {
			t.Errorf("skew findings: %q", skew)
		}
	})

	t.Run("1.38 one upgrade, 1.39 two in order, 1.36 a downgrade error and no step", func(t *testing.T) {
		d, _ := previewVersions(t, versionsWorld(t, c, "1.38"))
		if up := d.steps("upgrade"); len(up) != 1 || !strings.Contains(up[0], "1.38") {
			t.Errorf("1.38: upgrade steps %q", up)
		}
		d, _ = previewVersions(t, versionsWorld(t, c, "1.39"))
		if up := d.steps("upgrade"); len(up) != 2 || !strings.Contains(up[0], "1.38") || !strings.Contains(up[1], "1.39") {
			t.Errorf("1.39: upgrade steps %q", up)
		}
		d, _ = previewVersions(t, versionsWorld(t, c, "1.36"))
		if up := d.steps("upgrade"); len(up) != 0 {
			t.Errorf("1.36: upgrade steps %q", up)
		}
		if down := d.findings("downgrade"); len(down) != 1 || !strings.HasPrefix(down[0], "error") {
			t.Errorf("1.36: downgrade findings %q", down)
		}
	})

	t.Run("1.40: each control-plane step after the kubelet steps it needs, named", func(t *testing.T) {
		d, _ := previewVersions(t, versionsWorld(t, c, "1.40"))
		var refs []string
		for _, s := range d.Plan.Steps {
			ref := s.Kind + " " + s.Target
			if s.To != "" {
				ref += " → " + s.To
			}
			refs = append(refs, ref)
		}
		head := []string{"upgrade-node skew3 → 1.35", "upgrade kubernetes → 1.38", "upgrade-node skew3 → 1.36", "upgrade kubernetes → 1.39",
			"upgrade-node skew2 → 1.37", "upgrade-node skew3 → 1.37", "upgrade kubernetes → 1.40"}
		if len(refs) < len(head) || strings.Join(refs[:len(head)], "\n") != strings.Join(head, "\n") {
			t.Errorf("steps:\n%s\nwant them to start with:\n%s", strings.Join(refs, "\n"), strings.Join(head, "\n"))
		}
		for _, s := range d.Plan.Steps {
			if s.Kind == "upgrade" && s.To == "1.40" && strings.Join(s.Needs, ", ") != "upgrade-node skew2 → 1.37, upgrade-node skew3 → 1.37" {
				t.Errorf("upgrade → 1.40 needs %q", s.Needs)
			}
			if len(s.Blocked) > 0 || strings.Contains(s.Reason, "blocked") {
				t.Errorf("a blocked step where the plan moves every kubelet: %s %s (%s)", s.Kind, s.Target, s.Reason)
			}
		}
		// The text view numbers them and prints what each waits for.
		w := versionsWorld(t, c, "1.40")
		r := w.run(nil, "preview", "--stacks", w.Stacks, "--stack", "skew")
		wantContains(t, "preview", r.stdout,
			"   1. ~ upgrade-node skew3  (kubelet v1.34.1+rke2r1 → 1.35 (step 1 of 6 to 1.40: one minor at a time, as kubeadm upgrades))\n"+
				"   2. ~ upgrade kubernetes  (API server v1.37.2 → 1.38 (step 1 of 3 to 1.40: the API server must not skip minors); after upgrade-node skew3 → 1.35: kubelet v1.34.1+rke2r1 on skew3 would otherwise be 4 minors behind 1.38, more than the 3 the version skew policy allows)\n"+
				"        ↳ after 1. upgrade-node skew3 → 1.35\n")
	})

	t.Run("a node not declared: no step for it, and the upgrade it would leave beyond the skew is blocked", func(t *testing.T) {
		d, _ := previewVersions(t, versionsWorldOf(t, c, "1.38", "skew1", "skew2"))
		for _, s := range d.Plan.Steps {
			if s.Target == "skew3" && s.Kind != "undeclared" {
				t.Errorf("a change step for the undeclared skew3: %s (%s)", s.Kind, s.Reason)
			}
		}
		if und := d.steps("undeclared"); len(und) != 1 || !strings.HasPrefix(und[0], "skew3: ") {
			t.Errorf("undeclared steps: %q", und)
		}
		up := d.steps("upgrade")
		if len(up) != 1 || !strings.Contains(up[0], "; blocked: kubelet v1.34.1+rke2r1 on skew3 would be 4 minors behind 1.38, more than the 3 the version skew policy allows, and it is not declared in the topology, so no step of this plan upgrades it: upgrade it to 1.35 or later outside nestor, or declare it under nodes:, first") {
			t.Errorf("upgrade steps: %q", up)
		}
		for _, s := range d.Plan.Steps {
			if s.Kind == "upgrade" && (len(s.Blocked) != 1 || s.Blocked[0].Key != "nodes/skew3") {
				t.Errorf("upgrade blocked by %+v, want node skew3", s.Blocked)
			}
		}
	})

	t.Run("--as-of and --fail-on", func(t *testing.T) {
		w := versionsWorld(t, c, "1.37")
		d, r := previewVersions(t, w, "--as-of", "2027-11-01", "--fail-on", "warning")
		wantCode(t, r, 3)
		if d.AsOf != "2027-11-01" {
			t.Errorf("as_of = %q", d.AsOf)
		}
		eol := strings.Join(d.findings("end-of-life"), "\n")
		if !strings.Contains(eol, "1.37 reached end of life upstream on 2027-10-28") {
			t.Errorf("end-of-life findings at 2027-11-01: %s", eol)
		}
		d, r = previewVersions(t, w, "--as-of", "2026-12-01", "--fail-on", "warning")
		// skew3's 1.34 is past its end of life on 2026-12-01: a warning too.
		for _, f := range d.findings("end-of-life") {
			if strings.Contains(f, "1.37 reached") {
				t.Errorf("1.37 end of life at 2026-12-01: %s", f)
			}
		}
		if len(r.stdout) == 0 {
			t.Errorf("no report printed with --fail-on")
		}
		// A stack with only 1.37 in use: --fail-on warning exits 0 at
		// 2026-12-01 and 3 at 2027-11-01, the report printed both times.
		healthy := sharedFixtureCluster(t, healthyFixture)
		hw, _ := dirqualWorld(t, healthy, harness.IdentityReadOnly)
		before := hw.run(nil, "preview", "--stacks", hw.Stacks, "--stack", "dirqual", "--as-of", "2026-12-01", "--fail-on", "warning")
		wantCode(t, before, 0)
		wantContains(t, "report", before.stdout, "support judged as of 2026-12-01", "1.37        supported upstream until 2027-10-28")
		after := hw.run(nil, "preview", "--stacks", hw.Stacks, "--stack", "dirqual", "--as-of", "2027-11-01", "--fail-on", "warning")
		wantCode(t, after, 3)
		wantContains(t, "report", after.stdout, "FINDINGS", "1.37 reached end of life upstream on 2027-10-28")
		bad := hw.run(nil, "preview", "--stacks", hw.Stacks, "--stack", "dirqual", "--as-of", "next tuesday")
		wantCode(t, bad, 1)
		wantContains(t, "error", bad.stderr, "--as-of", "YYYY-MM-DD")
	})

	t.Run("the request count is preview's own: versions read nothing more", func(t *testing.T) {
		w := versionsWorld(t, c, "1.37")
		_, withVersions := previewVersions(t, w)
		w2 := versionsWorld(t, c, "")
		_, without := previewVersions(t, w2)
		// The one request more is the upgrade report's: the upgrade-node
		// steps the declared version plans drain nodes, so the
		// PodDisruptionBudgets are listed (once).
		extra := 0
		for _, e := range withVersions.audit[0] {
			if strings.HasPrefix(e.RequestURI, "/apis/policy/v1/poddisruptionbudgets") {
				extra++
			}
		}
		if extra != 1 || len(withVersions.audit[0]) != len(without.audit[0])+1 {
			t.Errorf("requests: %d with kubernetes.version (%d PodDisruptionBudget lists), %d without", len(withVersions.audit[0]), extra, len(without.audit[0]))
		}
		for _, e := range withVersions.audit[0] {
			if strings.Contains(e.RequestURI, "version") && !strings.HasPrefix(e.RequestURI, "/version") {
				t.Errorf("unexpected request %s", e.RequestURI)
			}
		}
	})
}
