// Package arch holds the test of ARCHITECTURE.md's arrows: which of
// nestor's packages may import which, and where the process, the terminal
// and the provider's SDK may be reached from.
package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "nestor.dev/nestor"

// allowed is, for each production package, the packages of nestor it may
// import (ARCHITECTURE.md "Packages": imports point one way). A package not
// listed here fails the test: a new package says where it stands.
var allowed = map[string][]string{
	"kube":                          {},
	"kube/internal/genapilifecycle": {},
	"topology":                      {"kube"},
	"plan":                          {"kube", "topology"},
	"health":                        {"kube", "topology"},
	"upgrade":                       {"kube", "topology"},
	"stacks":                        {"topology"},
	"probes":                        {"health", "kube", "plan", "topology", "upgrade"},
	"probes/internal/probetest":     {},
	"internal/fixtures":             {"plan", "topology"}, // the tests' shared stacks: no row lists it, so no production package imports it
	"probes/prod":                   {"plan", "probes", "topology"},
	"probes/lima":                   {"plan", "probes", "topology"},
	"probes/kapsule":                {"health", "kube", "plan", "probes", "topology"},
	"probes/ssh":                    {"probes", "topology"},
	"cmd/nestor/action":             {"health", "kube", "plan", "probes", "probes/prod", "probes/lima", "probes/kapsule", "probes/ssh", "stacks", "topology", "upgrade"},
	"cmd/nestor/views":              {"cmd/nestor/action", "kube", "probes", "topology", "upgrade"},
	"cmd/nestor/formats":            {"cmd/nestor/action", "kube", "topology", "upgrade"},
	"cmd/nestor/app":                {"cmd/nestor/action", "cmd/nestor/formats", "cmd/nestor/views", "kube", "probes", "probes/ssh", "stacks", "topology"},
	"cmd/nestor":                    {"cmd/nestor/app"},
	"cmd/nestor-docs":               {"cmd/nestor/app"},
}

// kindPackages are the target kinds: only the registry of kinds imports
// them (ARCHITECTURE.md "What a target kind implements").
var kindPackages = []string{"probes/prod", "probes/lima", "probes/kapsule"}

// kindRegistry is the one file that imports the kind packages.
const kindRegistry = "cmd/nestor/action/kinds.go"

// only maps an outside import (a prefix) to the packages that alone may
// import it: the command line's libraries to app, the provider's SDK to its
// kind.
var only = map[string][]string{
	"github.com/spf13/cobra":              {"cmd/nestor/app"},
	"github.com/AlecAivazis/survey":       {"cmd/nestor/app"},
	"golang.org/x/term":                   {"cmd/nestor/app"},
	"github.com/scaleway/scaleway-sdk-go": {"probes/kapsule"},
}

// noIO are the packages that do no I/O: every input is passed in. The
// files listed beside them are their remaining exceptions, each named so
// that a new one fails the test.
var noIO = map[string][]string{
	"kube":              {},
	"health":            {},
	"plan":              {},
	"internal/fixtures": {},
	"upgrade":           {},
	"topology":          {"readfix.go"}, // ReadFix names the system's errors (syscall.EMFILE…); it reads nothing
}

// ioImports are the imports that mean I/O ("net" is not one: its address
// and CIDR parsing is pure).
var ioImports = []string{"os", "os/exec", "net/http", "syscall", "io/ioutil"}

// pkgFile is one production Go file: its package (relative to the module)
// and its path.
type pkgFile struct {
	pkg, path string
	file      *ast.File
}

// productionFiles parses every non-test Go file outside tests/, testdata
// and hidden folders.
func productionFiles(t *testing.T) []pkgFile {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []pkgFile
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if rel == "tests" || base == "testdata" || (strings.HasPrefix(base, ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		full, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		out = append(out, pkgFile{pkg: filepath.ToSlash(filepath.Dir(rel)), path: filepath.ToSlash(rel), file: full})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("%d production files found under %s: the walk is wrong", len(out), root)
	}
	return out
}

func imports(f *ast.File) []string {
	var out []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		out = append(out, p)
	}
	return out
}

// TestImportArrows fails on any import between nestor's packages that
// ARCHITECTURE.md does not draw, on a kind package imported outside the
// kinds' registry, on the command line's libraries or the provider's SDK
// imported outside their package, and on I/O in a package that does none.
func TestImportArrows(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range productionFiles(t) {
		seen[f.pkg] = true
		allow, listed := allowed[f.pkg]
		if !listed {
			t.Errorf("%s: package %s is not in the arrows' table (tests/arch): say which of nestor's packages it may import", f.path, f.pkg)
			continue
		}
		for _, im := range imports(f.file) {
			if rel, ok := strings.CutPrefix(im, module+"/"); ok {
				if !slices.Contains(allow, rel) {
					t.Errorf("%s imports %s: ARCHITECTURE.md draws no arrow %s → %s", f.path, rel, f.pkg, rel)
				}
				if slices.Contains(kindPackages, rel) && f.path != kindRegistry {
					t.Errorf("%s imports the kind package %s: only %s does", f.path, rel, kindRegistry)
				}
			}
			for prefix, who := range only {
				if (im == prefix || strings.HasPrefix(im, prefix+"/")) && !slices.Contains(who, f.pkg) {
					t.Errorf("%s imports %s: only %s may", f.path, im, strings.Join(who, ", "))
				}
			}
			if except, ok := noIO[f.pkg]; ok && slices.Contains(ioImports, im) && !slices.Contains(except, filepath.Base(f.path)) {
				t.Errorf("%s imports %s: package %s does no I/O (its inputs are passed in)", f.path, im, f.pkg)
			}
		}
	}
	var missing []string
	for pkg := range allowed {
		if !seen[pkg] {
			missing = append(missing, pkg)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the arrows' table lists packages that do not exist: %v", missing)
	}
}

// TestProcessReachedFromAppOnly: no package but cmd/nestor/app reads the
// process environment, and none but main exits (ARCHITECTURE.md
// "Packages"); the generator of the lifecycle table and nestor-docs (the
// man pages and completion scripts), programs of their own, may exit.
func TestProcessReachedFromAppOnly(t *testing.T) {
	for _, f := range productionFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || x.Name != "os" {
				return true
			}
			switch sel.Sel.Name {
			case "Getenv", "LookupEnv", "Environ", "Setenv", "Unsetenv":
				if f.pkg != "cmd/nestor/app" {
					t.Errorf("%s: os.%s: only cmd/nestor/app reads the environment (others take a lookup function)", f.path, sel.Sel.Name)
				}
			case "Exit":
				if f.pkg != "cmd/nestor" && f.pkg != "kube/internal/genapilifecycle" && f.pkg != "cmd/nestor-docs" {
					t.Errorf("%s: os.Exit: only main exits", f.path)
				}
			}
			return true
		})
	}
}

// TestKindsNamedInTheirOwnPackages: a target kind's name is compared only
// by its own package under probes/ and by the topology's grammar, never
// by a command or a view (ARCHITECTURE.md "What a target kind implements":
// the views draw the model keyed on its data, never on the kind's name).
// The tests' fixtures declare stacks of each kind, as a topology file
// does, and compare nothing.
func TestKindsNamedInTheirOwnPackages(t *testing.T) {
	own := map[string]string{"TargetLima": "probes/lima", "TargetProd": "probes/prod", "TargetKapsule": "probes/kapsule"}
	for _, f := range productionFiles(t) {
		if f.pkg == "topology" || f.pkg == "internal/fixtures" {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "topology" {
				if pkg, ok := own[sel.Sel.Name]; ok && f.pkg != pkg {
					t.Errorf("%s: topology.%s: only %s names its kind (a capability is an optional interface of probes, asked of the kind)", f.path, sel.Sel.Name, pkg)
				}
			}
			return true
		})
	}
}
