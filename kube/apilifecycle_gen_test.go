package kube

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// goModAPIVersion returns the k8s.io/api version the repository's go.mod
// selects (a replacement's version when go.mod replaces it).
func goModAPIVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatalf("reading the repository's go.mod: %v", err)
	}
	f, err := modfile.Parse("../go.mod", data, nil)
	if err != nil {
		t.Fatalf("parsing ../go.mod: %v", err)
	}
	version := ""
	for _, r := range f.Require {
		if r.Mod.Path == "k8s.io/api" {
			version = r.Mod.Version
		}
	}
	for _, r := range f.Replace {
		if r.Old.Path == "k8s.io/api" && (r.Old.Version == "" || r.Old.Version == version) {
			if r.New.Version == "" {
				t.Fatalf("../go.mod replaces k8s.io/api by the folder %s: the table cannot record its version", r.New.Path)
			}
			version = r.New.Version
		}
	}
	if version == "" {
		t.Fatal("../go.mod does not require k8s.io/api")
	}
	return version
}

// TestAPILifecycleFresh fails when go.mod's k8s.io/api moved and the table
// was not generated again.
func TestAPILifecycleFresh(t *testing.T) {
	if got, want := apiLifecycleModuleVersion, goModAPIVersion(t); got != want {
		t.Fatalf("apilifecycle_gen.go was generated from k8s.io/api %s, go.mod requires %s: run go generate ./kube", got, want)
	}
}

// TestAPILifecycleRegenerates runs the generator into a temp file and
// compares it with apilifecycle_gen.go byte for byte: a hand edit, or a
// generator changed without regenerating, fails.
func TestAPILifecycleRegenerates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator (client-go's scheme)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to run the generator: %v", err)
	}
	out := filepath.Join(t.TempDir(), "apilifecycle_gen.go")
	cmd := exec.Command(goBin, "run", "./internal/genapilifecycle", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/genapilifecycle: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("apilifecycle_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, have) {
		t.Fatalf("apilifecycle_gen.go differs from what the generator writes (%d bytes vs %d): run go generate ./kube, never edit it by hand\n%s",
			len(have), len(got), firstDiff(have, got))
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  file:      " + x + "\n  generated: " + y
		}
	}
	return ""
}

// TestAPILifecycleTable checks the generated table's shape: sorted without
// duplicates (LookupAPILifecycle searches it), every release a known minor in
// order, the horizon the module's minor.
func TestAPILifecycleTable(t *testing.T) {
	if len(apiLifecycleTable) < 100 {
		t.Fatalf("the table has %d rows: k8s.io/api has hundreds of kinds", len(apiLifecycleTable))
	}
	for i, r := range apiLifecycleTable {
		gvk := GroupVersionKind{r.Group, r.Version, r.Kind}
		if i > 0 {
			p := apiLifecycleTable[i-1]
			if compareGVK(GroupVersionKind{p.Group, p.Version, p.Kind}, gvk) >= 0 {
				t.Fatalf("row %d (%v) is not after row %d (%s/%s %s)", i, gvk, i-1, p.Group, p.Version, p.Kind)
			}
		}
		if got, ok := LookupAPILifecycle(gvk); !ok || got != r {
			t.Errorf("LookupAPILifecycle(%v) = %v, %v; want row %d", gvk, got, ok, i)
		}
		var prev Version
		for _, rel := range []struct{ name, v string }{{"introduced", r.Introduced}, {"deprecated", r.Deprecated}, {"removed", r.Removed}} {
			if rel.v == "" {
				continue
			}
			v := ParseVersion(rel.v)
			if !v.Known || v.HasPatch {
				t.Errorf("%v: %s %q is not a minor", gvk, rel.name, rel.v)
			}
			if prev.Known && CompareMinor(prev, v) > 0 {
				t.Errorf("%v: %s %s comes before an earlier release %s", gvk, rel.name, rel.v, prev.Raw)
			}
			prev = v
		}
		if !slices.Contains(builtinGroupVersions, gvk.GroupVersion()) {
			t.Errorf("%v: its group version is not in builtinGroupVersions", gvk)
		}
	}
	module, horizon := APILifecycleSource()
	if module != "k8s.io/api "+apiLifecycleModuleVersion {
		t.Errorf("module %q, want k8s.io/api %s", module, apiLifecycleModuleVersion)
	}
	want := ParseVersion(strings.Replace(apiLifecycleModuleVersion, "v0.", "1.", 1))
	if !horizon.Known || CompareMinor(horizon, want) != 0 {
		t.Errorf("horizon %v, want the minor of %s (%s)", horizon, apiLifecycleModuleVersion, want.MinorString())
	}
	// One row read against k8s.io/api's own flowcontrol/v1beta3 generated
	// methods, to catch a generator that reads the wrong method.
	fs, ok := LookupAPILifecycle(GroupVersionKind{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"})
	wantFS := APILifecycle{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Kind: "FlowSchema",
		Introduced: "1.26", Deprecated: "1.29", Removed: "1.32",
		Replacement: GroupVersionKind{"flowcontrol.apiserver.k8s.io", "v1", "FlowSchema"}, Resource: "flowschemas"}
	if !ok || fs != wantFS {
		t.Errorf("flowcontrol v1beta3 FlowSchema = %+v, %v; want %+v", fs, ok, wantFS)
	}
	if _, ok := LookupAPILifecycle(GroupVersionKind{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchemaList"}); ok {
		t.Error("FlowSchemaList repeats FlowSchema and should not be in the table")
	}
}
