// Package arch holds the test of ARCHITECTURE.md's arrows: which of
// nestor's packages may import which, and where the process, the terminal
// and the provider's SDK may be reached from.
package arch

import (
	"fmt"
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
	"topology": {
		"readfix.go", // ReadFix names the system's errors (syscall.EMFILE…); it reads nothing
		"paths.go",   // ExpandHome makes a flag's relative path absolute against the working directory (filepath.Abs)
	},
}

// ioImports are the imports that mean I/O, each with the packages below
// it ("net" is not one: its address and CIDR parsing is pure); a
// Kubernetes client or the provider's SDK is I/O too.
var ioImports = []string{"os", "net/http", "net/rpc", "syscall", "io/ioutil", "k8s.io/client-go", "github.com/scaleway/scaleway-sdk-go"}

// ioCalls are the calls of pure-looking packages that read the machine:
// the working directory, the file system, the clock (a pure package takes
// its date, asOf, as an argument).
var ioCalls = map[string][]string{
	"path/filepath": {"Abs", "Glob", "Walk", "WalkDir", "EvalSymlinks"},
	"time":          {"Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc"},
}

// isIOImport reports whether import path im is one of ioImports or below one.
func isIOImport(im string) bool {
	for _, p := range ioImports {
		if im == p || strings.HasPrefix(im, p+"/") {
			return true
		}
	}
	return false
}

// localNames maps each name file f gives an imported package to the
// package's path: "os" for import "os", "sys" for import sys "os".
func localNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = p
	}
	return out
}

// calls returns each pkg.Func selector of f whose pkg is an import, as
// (import path, name).
func calls(f *ast.File) []call {
	names := localNames(f)
	var out []call
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil {
			if p, ok := names[x.Name]; ok {
				out = append(out, call{pkg: p, name: sel.Sel.Name})
			}
		}
		return true
	})
	return out
}

// call is a selector pkg.name of an imported package.
type call struct{ pkg, name string }

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
		for _, e := range arrowErrors(f) {
			t.Error(e)
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

// arrowErrors returns what is wrong with file f's imports and calls: an
// import between nestor's packages ARCHITECTURE.md does not draw, a kind
// package imported outside the kinds' registry, a library imported outside
// its package, I/O or a clock in a package that does none.
func arrowErrors(f pkgFile) []string {
	var errs []string
	allow, listed := allowed[f.pkg]
	if !listed {
		return []string{fmt.Sprintf("%s: package %s is not in the arrows' table (tests/arch): say which of nestor's packages it may import", f.path, f.pkg)}
	}
	for _, im := range imports(f.file) {
		if rel, ok := strings.CutPrefix(im, module+"/"); ok {
			if !slices.Contains(allow, rel) {
				errs = append(errs, fmt.Sprintf("%s imports %s: ARCHITECTURE.md draws no arrow %s → %s", f.path, rel, f.pkg, rel))
			}
			if slices.Contains(kindPackages, rel) && f.path != kindRegistry {
				errs = append(errs, fmt.Sprintf("%s imports the kind package %s: only %s does", f.path, rel, kindRegistry))
			}
		}
		for prefix, who := range only {
			if (im == prefix || strings.HasPrefix(im, prefix+"/")) && !slices.Contains(who, f.pkg) {
				errs = append(errs, fmt.Sprintf("%s imports %s: only %s may", f.path, im, strings.Join(who, ", ")))
			}
		}
		if except, ok := noIO[f.pkg]; ok && isIOImport(im) && !slices.Contains(except, filepath.Base(f.path)) {
			errs = append(errs, fmt.Sprintf("%s imports %s: package %s does no I/O (its inputs are passed in)", f.path, im, f.pkg))
		}
	}
	if except, ok := noIO[f.pkg]; ok && !slices.Contains(except, filepath.Base(f.path)) {
		for _, c := range calls(f.file) {
			if slices.Contains(ioCalls[c.pkg], c.name) {
				errs = append(errs, fmt.Sprintf("%s calls %s.%s: package %s does no I/O and reads no clock (its inputs are passed in)", f.path, c.pkg, c.name, f.pkg))
			}
		}
	}
	return errs
}

// TestArrowsCatchMutations: the checks fail on the ways around them — an
// aliased import, a package below an I/O import, a third-party client, a
// clock read, a nestor import with no arrow — and pass a pure file.
func TestArrowsCatchMutations(t *testing.T) {
	for _, c := range []struct {
		pkg, src, want string
	}{
		{"health", "import sys \"os\"\nvar _ = sys.Args", "imports os"},
		{"health", "import \"net/http/httptest\"\nvar _ = httptest.NewServer", "imports net/http/httptest"},
		{"upgrade", "import \"k8s.io/client-go/kubernetes\"\nvar _ kubernetes.Interface", "imports k8s.io/client-go/kubernetes"},
		{"plan", "import \"time\"\nvar _ = time.Now()", "calls time.Now"},
		{"kube", "import clock \"time\"\nvar _ = clock.Since", "calls time.Since"},
		{"topology", "import \"path/filepath\"\nvar _, _ = filepath.Abs(\"x\")", "calls path/filepath.Abs"},
		{"health", "import \"nestor.dev/nestor/probes\"\nvar _ probes.Kind", "draws no arrow health → probes"},
		{"kube", "import \"time\"\nvar _ = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)", ""},
	} {
		file, err := parser.ParseFile(token.NewFileSet(), "zz.go", "package x\n"+c.src+"\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		errs := arrowErrors(pkgFile{pkg: c.pkg, path: c.pkg + "/zz.go", file: file})
		got := strings.Join(errs, "\n")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %s\ngot %q, want %q", c.pkg, c.src, got, c.want)
		}
	}
	file, _ := parser.ParseFile(token.NewFileSet(), "zz.go", "package x\nimport sys \"os\"\nvar _ = sys.Getenv(\"X\")\n", 0)
	if errs := processErrors(pkgFile{pkg: "probes", path: "probes/zz.go", file: file}); len(errs) != 1 {
		t.Errorf("os aliased as sys, Getenv outside app: %q, want one error", errs)
	}
}

// TestProcessReachedFromAppOnly: no package but cmd/nestor/app reads the
// process environment, and none but main exits (ARCHITECTURE.md
// "Packages"); the generator of the lifecycle table and nestor-docs (the
// man pages and completion scripts), programs of their own, may exit.
func TestProcessReachedFromAppOnly(t *testing.T) {
	for _, f := range productionFiles(t) {
		for _, e := range processErrors(f) {
			t.Error(e)
		}
	}
}

// processErrors returns file f's reads of the environment outside
// cmd/nestor/app and its exits outside main, whatever name it gives "os".
func processErrors(f pkgFile) []string {
	var errs []string
	for _, c := range calls(f.file) {
		if c.pkg != "os" {
			continue
		}
		switch c.name {
		case "Getenv", "LookupEnv", "Environ", "Setenv", "Unsetenv":
			if f.pkg != "cmd/nestor/app" {
				errs = append(errs, fmt.Sprintf("%s: os.%s: only cmd/nestor/app reads the environment (others take a lookup function)", f.path, c.name))
			}
		case "Exit":
			if f.pkg != "cmd/nestor" && f.pkg != "kube/internal/genapilifecycle" && f.pkg != "cmd/nestor-docs" {
				errs = append(errs, fmt.Sprintf("%s: os.Exit: only main exits", f.path))
			}
		}
	}
	return errs
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
