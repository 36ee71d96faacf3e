package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// sameTopology fails the test when got and want differ in any key of the
// topology (their paths and warnings aside).
func sameTopology(t *testing.T, what string, got, want *topology.Topology) {
	t.Helper()
	doc := func(tp *topology.Topology) string {
		c := *tp
		c.Path, c.Warnings = "", nil
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if g, w := doc(got), doc(want); g != w {
		t.Errorf("%s loads back as another topology:\n%s\nwant\n%s", what, g, w)
	}
}

// TestStackShowLoadsBack: what stack show prints as text and as YAML is a
// topology file that loads back — saved as NAME.yaml in a stacks folder —
// as the very topology it showed, for every stack of the golden worlds
// (prod, lima, kapsule, without endpoint, a kubeconfig elsewhere) and
// every shipped example.
func TestStackShowLoadsBack(t *testing.T) {
	w, _ := viewsWorld(t)
	examples, err := filepath.Abs("../../../stacks/examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{w.stacks, examples} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, file := range files {
			want, err := stacks.Load(file)
			if err != nil {
				continue // an invalid stack has nothing to show
			}
			for _, format := range []string{"text", "yaml"} {
				a, out, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": dir}, false, nil)
				if code := Run(a, []string{"stack", "show", want.Name, "-o", format}); code != ExitOK {
					t.Errorf("stack show %s -o %s: exit %d: %s", want.Name, format, code, errOut)
					continue
				}
				saved := filepath.Join(t.TempDir(), want.Name+".yaml")
				if err := os.WriteFile(saved, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := stacks.Load(saved)
				if err != nil {
					t.Errorf("stack show %s -o %s does not load back: %v\n%s", want.Name, format, err, out)
					continue
				}
				sameTopology(t, "stack show "+want.Name+" -o "+format, got, want)
			}
		}
	}
}

// TestDraftsLoadBack: the topology drafts discover printed against the
// real API server and the provider's stand-in (the golden files of
// tests/e2e TestGoldenViewsDiscover), saved as draft.yaml as discover's
// help says, are read by -f draft.yaml: the name that is not the file's
// base name is a warning there, never a refusal. Inside the stacks folder
// it stays an error: a stack is found by its name.
func TestDraftsLoadBack(t *testing.T) {
	w := newGoldenWorld(t)
	for _, c := range []struct{ golden, name string }{{"prod-draft", "demo"}, {"kapsule-draft", "lyneko-apps"}} {
		data, err := os.ReadFile(filepath.Join(goldenRoot, "discover", c.golden, "stdout.golden"))
		if err != nil {
			t.Fatal(err)
		}
		draft := strings.NewReplacer("$API", w.closedURL, "$SCW", w.closedURL, "$ROOT", w.root, "$DATE", "2026-11-30").Replace(string(data))
		file := filepath.Join(w.root, "drafts", "draft.yaml")
		w.write(t, file, draft)
		a, out, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
		code := Run(a, []string{"stack", "show", "-f", file})
		if code != ExitOK || !strings.Contains(errOut.String(), `"`+c.name+`" is not the file's base name "draft"`) || !strings.HasPrefix(out.String(), "# Stack "+c.name) {
			t.Errorf("stack show -f draft.yaml (%s): exit %d\nstdout:\n%s\nstderr:\n%s", c.golden, code, out, errOut)
		}
		if strings.Contains(errOut.String(), "must equal") {
			t.Errorf("%s refused for its name: %s", c.golden, errOut)
		}
	}
	// preview reads the prod draft: no target yet (its kubeconfig: is not
	// on this machine), a report all the same.
	file := filepath.Join(w.root, "drafts", "draft.yaml")
	data, _ := os.ReadFile(filepath.Join(goldenRoot, "discover", "prod-draft", "stdout.golden"))
	w.write(t, file, strings.NewReplacer("$API", w.closedURL, "$ROOT", w.root, "$DATE", "2026-11-30").Replace(string(data)))
	a, out, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
	if code := Run(a, []string{"preview", "-f", file}); code != ExitOK || !strings.Contains(out.String(), "Stack demo (prod)") {
		t.Errorf("preview -f draft.yaml: exit %d\n%s%s", code, out, errOut)
	}
	// In the stacks folder, the name must be the file's.
	inFolder := filepath.Join(w.stacks, "draft.yaml")
	w.write(t, inFolder, "name: demo\ntarget_kind: prod\nlayers: []\n")
	a, _, errOut = testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
	if code := Run(a, []string{"preview", "-f", inFolder}); code != ExitError || !strings.Contains(errOut.String(), `"demo" must equal the file's base name "draft"`) {
		t.Errorf("preview -f STACKS/draft.yaml: exit %d, %s", code, errOut)
	}
}
