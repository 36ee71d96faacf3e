package app

import (
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/cmd/nestor/action"
)

// withBuild makes Build return b for the test.
func withBuild(t *testing.T, b action.Build) {
	t.Helper()
	saved := buildOnce
	buildOnce = func() action.Build { return b }
	t.Cleanup(func() { buildOnce = saved })
}

// releaseBuild is a release's build as its stamps make it.
func releaseBuild() action.Build {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "nestor.dev/nestor", Version: "(devel)"}}
	return action.NewBuild(info, action.Stamps{Version: "1.2.0", Commit: "3759d393147b0a1749cb0e3fe82bb3009c69fc85",
		Date: "2026-12-02T18:47:01Z", TreeState: "clean", ProjectURL: ProjectURL}, "linux", "amd64")
}

// TestVersionFormats: nestor version writes the same document as JSON and
// YAML, its text starts with what --version prints, and -o refuses a
// format it does not know.
func TestVersionFormats(t *testing.T) {
	withBuild(t, releaseBuild())
	run := func(args ...string) (int, string, string) {
		a, out, errOut := testApp(t, map[string]string{"HOME": t.TempDir()}, false, nil)
		code := Run(a, args)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run("version", "-o", "json")
	if code != ExitOK {
		t.Fatalf("version -o json: exit %d: %s", code, errOut)
	}
	var fromJSON, fromYAML map[string]any
	if err := json.Unmarshal([]byte(out), &fromJSON); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if fromJSON["version"] != "v1.2.0" || fromJSON["release"] != true || fromJSON["format_version"] != float64(action.BuildFormatVersion) {
		t.Errorf("version -o json:\n%s", out)
	}
	if vcs, _ := fromJSON["vcs"].(map[string]any); vcs["known"] != true || vcs["value"].(map[string]any)["revision"] != "3759d393147b0a1749cb0e3fe82bb3009c69fc85" {
		t.Errorf("version -o json: vcs %v", fromJSON["vcs"])
	}
	_, out, _ = run("version", "-o", "yaml")
	if err := yaml.Unmarshal([]byte(out), &fromYAML); err != nil {
		t.Fatalf("version -o yaml: %v\n%s", err, out)
	}
	a, _ := json.Marshal(fromJSON)
	b, _ := json.Marshal(fromYAML)
	if string(a) != string(b) {
		t.Errorf("JSON and YAML differ:\n%s\n%s", a, b)
	}
	_, text, _ := run("version")
	_, flag, _ := run("--version")
	if !strings.HasPrefix(text, "nestor v1.2.0\n") || flag != "nestor v1.2.0\n" {
		t.Errorf("version's first line %q, --version %q: want both nestor v1.2.0", text, flag)
	}
	if code, _, errOut := run("version", "-o", "xml"); code != ExitError || !strings.Contains(errOut, `unknown format "xml" (one of: text, json, yaml`) {
		t.Errorf("version -o xml: exit %d, stderr %q", code, errOut)
	}
}

// TestSARIFFollowsTheBuild: a release's SARIF names its version (and
// semanticVersion) and its rules' helpUri point into the RUNBOOK.md of
// its tag; a development build's say so and point at the main branch.
func TestSARIFFollowsTheBuild(t *testing.T) {
	dir := t.TempDir()
	writeStack(t, dir, "lab", prodNoKubeconfig)
	dev := action.NewBuild(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261202184701-3759d393147b+dirty"}},
		action.Stamps{ProjectURL: ProjectURL}, "linux", "amd64")
	for _, c := range []struct {
		name                  string
		build                 action.Build
		version, semver, help string
	}{
		{"release", releaseBuild(), "v1.2.0", "1.2.0", "https://nestor.dev/nestor/blob/v1.2.0/RUNBOOK.md#"},
		{"development", dev, "v0.0.0-20261202184701-3759d393147b+dirty (development build)", "0.0.0-20261202184701-3759d393147b+dirty", "https://nestor.dev/nestor/blob/main/RUNBOOK.md#"},
	} {
		t.Run(c.name, func(t *testing.T) {
			withBuild(t, c.build)
			a, out, errOut := testApp(t, map[string]string{"HOME": dir}, false, nil)
			if code := Run(a, []string{"preview", "-f", filepath.Join(dir, "lab.yaml"), "-o", "sarif"}); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Version         string `json:"version"`
							SemanticVersion string `json:"semanticVersion"`
							Rules           []struct {
								HelpURI string `json:"helpUri"`
							} `json:"rules"`
						} `json:"driver"`
					} `json:"tool"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(out.Bytes(), &log); err != nil || len(log.Runs) != 1 {
				t.Fatalf("not one SARIF run (%v):\n%s", err, out)
			}
			d := log.Runs[0].Tool.Driver
			if d.Version != c.version || d.SemanticVersion != c.semver {
				t.Errorf("driver version %q semanticVersion %q, want %q %q", d.Version, d.SemanticVersion, c.version, c.semver)
			}
			if len(d.Rules) == 0 {
				t.Fatal("no rules")
			}
			for _, r := range d.Rules {
				if !strings.HasPrefix(r.HelpURI, c.help) {
					t.Errorf("helpUri %q, want it under %q", r.HelpURI, c.help)
				}
			}
		})
	}
}
