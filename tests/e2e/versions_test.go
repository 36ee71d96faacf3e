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
			Kind, Phase, Target, Reason string
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
	t.Helper()
	w := newWorld(t, c)
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", "skew.config"), harness.IdentityReadOnly, "")
	k := ""
	if version != "" {
		k = fmt.Sprintf("kubernetes:\n  version: %q\n", version)
	}
	w.stackFile("skew", fmt.Sprintf("name: skew\ntarget_kind: prod\nkubeconfig: ~/.kube/skew.config\nendpoint: %s\n%snodes:\n"+
		"  - {name: skew1, role: control-plane}\n  - {name: skew2, role: worker}\n  - {name: skew3, role: worker}\n"+
		"backend: local-path\nlayers: [local-path]\n", c.URL, k))
	return w
}

func previewVersions(t *testing.T, w *world, args ...string) (versionsDoc, result) {
	t.Helper()
	r := w.run(nil, append([]string{"preview", "--stacks", w.Stacks, "--stack", "skew", "-o", "json"}, args...)...)
	var d versionsDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("preview -o json: %v\n%s", err, r)
	}
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
