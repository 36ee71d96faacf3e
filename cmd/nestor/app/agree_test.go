package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// reporting are the commands that report: each takes -o text|json|yaml.
var reporting = [][]string{{"preview"}, {"discover"}, {"next"}, {"env"}, {"stack", "list"}, {"stack", "show"}, {"fleet"}}

// onStack are the commands that work on one stack: each takes NAME,
// --stack NAME and -f FILE.
var onStack = [][]string{{"preview"}, {"discover"}, {"next"}, {"env"}, {"stack", "show"}, {"stack", "select"}}

func findCmd(t *testing.T, path []string) *cobra.Command {
	t.Helper()
	a, _, _ := testApp(t, nil, false, nil)
	c, rest, err := newRoot(a).Find(path)
	if err != nil || len(rest) > 0 {
		t.Fatalf("no command %v: %v", path, err)
	}
	return c
}

// TestCommandsAgree: every reporting command takes -o text|json|yaml (text
// first, the default), refused at parse time when it is another word, in
// the same words; every command on one stack takes NAME, --stack and -f;
// fleet takes NAMEs, --stack and -f.
func TestCommandsAgree(t *testing.T) {
	for _, path := range reporting {
		c := findCmd(t, path)
		f := c.Flags().Lookup("output")
		if f == nil {
			t.Errorf("%v has no -o", path)
			continue
		}
		o := f.Value.(*outputFlag)
		if o.value != "text" || len(o.allowed) < 3 || !slices.Equal(o.allowed[:3], []string{"text", "json", "yaml"}) {
			t.Errorf("%v: -o %s of %v, want text|json|yaml first, text the default", path, o.value, o.allowed)
		}
		w := newGoldenWorld(t)
		a, _, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
		if code := Run(a, append(slices.Clone(path), "-o", "xml")); code != ExitError || !strings.Contains(errOut.String(), `invalid argument "xml" for "-o, --output" flag: unknown format "xml" (one of: text, json, yaml`) {
			t.Errorf("%v -o xml: exit %d, stderr %s", path, code, errOut)
		}
	}
	for _, path := range append(onStack, []string{"fleet"}) {
		c := findCmd(t, path)
		for _, flag := range []string{"stack", "file"} {
			if c.Flags().Lookup(flag) == nil {
				t.Errorf("%v has no --%s", path, flag)
			}
		}
		if c.Args != nil && c.Args(c, []string{"dirqual"}) != nil {
			t.Errorf("%v refuses a NAME argument", path)
		}
	}
}

// TestReportsAsYAML: next, env, stack list and stack show print YAML that
// decodes, with their format_version.
func TestReportsAsYAML(t *testing.T) {
	for _, args := range [][]string{{"next", "dirqual"}, {"env", "dirqual"}, {"stack", "list"}, {"stack", "show", "dirqual"}, {"preview", "dirqual"}} {
		w := newGoldenWorld(t)
		a, out, errOut := testApp(t, map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}, false, nil)
		if code := Run(a, append(args, "-o", "yaml")); code != ExitOK {
			t.Errorf("%v -o yaml: exit %d: %s", args, code, errOut)
			continue
		}
		var doc map[string]any
		if err := yaml.Unmarshal(out.Bytes(), &doc); err != nil || doc["format_version"] == nil && args[1] != "show" {
			t.Errorf("%v -o yaml: %v, %v:\n%s", args, err, doc, out)
		}
	}
}

// TestStackArgument: NAME is --stack NAME, for every command on one stack;
// NAME beside another --stack or beside -f is refused.
func TestStackArgument(t *testing.T) {
	w := newGoldenWorld(t)
	env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}
	run := func(args ...string) (string, string, int) {
		a, out, errOut := testApp(t, env, false, nil)
		code := Run(a, args)
		return out.String(), errOut.String(), code
	}
	for _, cmd := range [][]string{{"preview"}, {"next"}, {"env"}, {"stack", "show"}, {"discover"}} {
		o1, e1, c1 := run(append(slices.Clone(cmd), "dirqual")...)
		o2, e2, c2 := run(append(slices.Clone(cmd), "--stack", "dirqual")...)
		if o1 != o2 || e1 != e2 || c1 != c2 {
			t.Errorf("%v dirqual differs from --stack dirqual:\n%s%s(%d)\nvs\n%s%s(%d)", cmd, o1, e1, c1, o2, e2, c2)
		}
		if strings.Contains(e1, "accepts") || strings.Contains(e1, "no active stack") {
			t.Errorf("%v dirqual: %s", cmd, e1)
		}
		if _, e, c := run(append(slices.Clone(cmd), "dirqual", "--stack", "bench")...); c != ExitError || !strings.Contains(e, "stack dirqual and --stack bench name two stacks") {
			t.Errorf("%v dirqual --stack bench: exit %d, %s", cmd, c, e)
		}
		if _, e, c := run(append(slices.Clone(cmd), "dirqual", "-f", "x.yaml")...); c != ExitError || !strings.Contains(e, "stack dirqual and -f x.yaml name two stacks") {
			t.Errorf("%v dirqual -f x.yaml: exit %d, %s", cmd, c, e)
		}
	}
	o1, _, _ := run("stack", "show", "-f", filepath.Join(w.stacks, "dirqual.yaml"))
	o2, _, _ := run("stack", "show", "dirqual")
	if o1 != o2 || o1 == "" {
		t.Errorf("stack show -f differs from stack show NAME:\n%s\nvs\n%s", o1, o2)
	}
}

// TestStackSelectWithoutName lists the stacks, as kubectx lists the
// contexts, instead of cobra's "accepts 1 arg(s)"; -f FILE of the folder
// selects it by name, -f FILE elsewhere says what to do.
func TestStackSelectWithoutName(t *testing.T) {
	w := newGoldenWorld(t)
	env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}
	a, out, errOut := testApp(t, env, false, nil)
	if code := Run(a, []string{"stack", "select"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "ACTIVE  NAME") || !strings.Contains(out.String(), "dirqual") || !strings.Contains(errOut.String(), "nestor stack select NAME") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	a, _, errOut = testApp(t, env, false, nil)
	if code := Run(a, []string{"stack", "select", "-f", filepath.Join(w.stacks, "bench.yaml")}); code != ExitOK || !strings.Contains(errOut.String(), "Active stack: bench") {
		t.Errorf("select -f of the folder: exit %d, %s", code, errOut)
	}
	other := filepath.Join(w.root, "elsewhere.yaml")
	a, _, errOut = testApp(t, env, false, nil)
	if code := Run(a, []string{"stack", "select", "-f", other}); code != ExitError || !strings.Contains(errOut.String(), "is not a stack of the stacks folder") || !strings.Contains(errOut.String(), "pass -f") {
		t.Errorf("select -f elsewhere: exit %d, %s", code, errOut)
	}
}

// TestZeroRefusedAlike: --timeout 0 and --parallel 0 are refused when
// parsed, in the same words, each with the command's help line.
func TestZeroRefusedAlike(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"preview", "--timeout", "0"}, `Error: invalid argument "0" for "--timeout" flag: must be more than 0 (e.g. 30s)` + "\nSee 'nestor preview --help'.\n"},
		{[]string{"fleet", "--timeout", "-1s"}, `Error: invalid argument "-1s" for "--timeout" flag: must be more than 0 (e.g. 30s)` + "\nSee 'nestor fleet --help'.\n"},
		{[]string{"fleet", "--parallel", "0"}, `Error: invalid argument "0" for "--parallel" flag: must be at least 1` + "\nSee 'nestor fleet --help'.\n"},
		{[]string{"fleet", "--parallel", "x"}, `Error: invalid argument "x" for "--parallel" flag: not a whole number` + "\nSee 'nestor fleet --help'.\n"},
	} {
		a, _, errOut := testApp(t, nil, false, nil)
		if code := Run(a, c.args); code != ExitError || errOut.String() != c.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// complete runs cobra's hidden completion command, as the shell scripts
// do, and returns the candidates and the directive.
func complete(t *testing.T, env map[string]string, args ...string) ([]string, string) {
	t.Helper()
	a, out, _ := testApp(t, env, false, nil)
	if code := Run(a, append([]string{"__complete"}, args...)); code != ExitOK {
		t.Fatalf("__complete %v: exit %d", args, code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// TestCompletion, through cobra's __complete: --context offers the
// contexts of the kubeconfig the command would read (--kubeconfig, else
// KUBECONFIG, else the stack's kubeconfig:), -f the YAML files, a stack
// NAME the stacks of the folder, never one already on the line.
func TestCompletion(t *testing.T) {
	w := newGoldenWorld(t)
	kc := filepath.Join(w.root, "two.config")
	w.write(t, kc, "apiVersion: v1\nkind: Config\ncontexts:\n- name: blue\n  context: {cluster: c}\n- name: green\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:1}\n")
	env := map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks}
	stacksAll := []string{"bench", "broken", "dirqual", "lab", "noep"}
	cases := []struct {
		env  map[string]string
		args []string
		want []string
		dir  string
	}{
		{env, []string{"preview", "--kubeconfig", kc, "--context", ""}, []string{"blue", "green"}, ":4"},
		{map[string]string{"HOME": w.home, "NESTOR_STACKS": w.stacks, "KUBECONFIG": kc}, []string{"discover", "--context", ""}, []string{"blue", "green"}, ":4"},
		{env, []string{"preview", "--stack", "lab", "--context", ""}, []string{"lab"}, ":4"},
		{env, []string{"preview", "lab", "--context", ""}, []string{"lab"}, ":4"},
		{env, []string{"preview", "--context", ""}, []string{}, ":4"},
		{env, []string{"preview", "-f", ""}, []string{"yaml", "yml"}, ":8"},
		{env, []string{"fleet", "-f", ""}, []string{"yaml", "yml"}, ":8"},
		{env, []string{"preview", ""}, stacksAll, ":4"},
		{env, []string{"preview", "dirqual", ""}, []string{}, ":4"},
		{env, []string{"preview", "--stack", ""}, stacksAll, ":4"},
		{env, []string{"fleet", "dirqual", ""}, []string{"bench", "broken", "lab", "noep"}, ":4"},
		{env, []string{"fleet", "dirqual", "lab", ""}, []string{"bench", "broken", "noep"}, ":4"},
		{env, []string{"stack", "select", ""}, stacksAll, ":4"},
		{env, []string{"stack", "show", ""}, stacksAll, ":4"},
		{env, []string{"discover", "--stack", "lab", "--cp", ""}, []string{"lab1"}, ":4"},
	}
	for _, c := range cases {
		got, dir := complete(t, c.env, c.args...)
		if strings.Join(got, ",") != strings.Join(c.want, ",") || dir != c.dir {
			t.Errorf("__complete %v = %v %s, want %v %s", c.args, got, dir, c.want, c.dir)
		}
	}
}

// TestHintsNameRealFlags: every --flag the code writes in a message names
// a flag some nestor command has (or a flag of the external programs
// nestor runs or names: ansible-inventory, limactl, xmllint); a hint never
// sends anyone to a flag that does not exist.
func TestHintsNameRealFlags(t *testing.T) {
	external := []string{"json", "list", "yaml", "export", "playbook-dir", "schema", "noout", "help"}
	a, _, _ := testApp(t, nil, false, nil)
	flags := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.InitDefaultVersionFlag() // the root's --version, as Execute adds it
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { flags[f.Name] = true })
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot(a))
	flag := regexp.MustCompile(`--([a-z][a-z-]+)`)
	for _, dir := range []string{"..", "../../../probes", "../../../stacks", "../../../topology"} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range flag.FindAllStringSubmatch(string(data), -1) {
				if !flags[m[1]] && !slices.Contains(external, m[1]) {
					t.Errorf("%s writes --%s, which no nestor command has", p, m[1])
				}
			}
			return nil
		})
	}
}
