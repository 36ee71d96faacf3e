package app

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// needTool returns the path of a program a test needs, skipping the test
// when it is missing outside CI and failing it in CI (CI=true), where
// .ci/run installs it.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed, and CI=true: .ci/run installs it (apt-get install %s)", name, pkg)
	}
	t.Skipf("%s is not installed (apt-get install %s): not checked", name, pkg)
	return ""
}

// TestManPages: ManPages writes a page per command --help lists, each with
// its title, name and synopsis, at the date given, and groff reads every
// page without a warning (-ww: all warnings; -k: preconv, as man does,
// for the help texts' UTF-8).
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	date := time.Date(2026, 12, 2, 18, 47, 1, 0, time.UTC)
	files, err := ManPages(dir, date)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c.HasParent() {
			return
		}
		want = append(want, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(docsRoot())
	if len(files) != len(want) {
		t.Errorf("%d pages written, want %d (%v)", len(files), len(want), want)
	}
	for _, name := range want {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page for %s: %v", strings.TrimSuffix(name, ".1"), err)
			continue
		}
		page := string(data)
		cmd := strings.TrimSuffix(name, ".1")
		for _, s := range []string{`.TH "NESTOR" "1" "Dec 2026" "nestor `, ".SH NAME\n" + cmd + " - ", ".SH SYNOPSIS\n", ".SH OPTIONS"} {
			if !strings.Contains(page, s) {
				t.Errorf("%s lacks %q", name, s)
			}
		}
		if cmd != "nestor" && !strings.Contains(page, ".SH SEE ALSO") {
			t.Errorf("%s has no SEE ALSO", name)
		}
	}
	groff := needTool(t, "groff", "groff-base")
	for _, f := range files {
		var stderr bytes.Buffer
		cmd := exec.Command(groff, "-k", "-man", "-Tutf8", "-ww", "-z", f)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("groff %s: %v %s", filepath.Base(f), err, stderr.String())
		}
	}
}

// TestCompletions: Completions writes the script of each shell under the
// name its system-wide folder expects, and bash reads the bash one.
func TestCompletions(t *testing.T) {
	dir := t.TempDir()
	files, err := Completions(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, has string }{
		{"nestor", "__start_nestor"},
		{"_nestor", "#compdef nestor"},
		{"nestor.fish", "complete -c nestor"},
		{"nestor.ps1", "Register-ArgumentCompleter"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil || !strings.Contains(string(data), c.has) {
			t.Errorf("%s: %v; want it to contain %q", c.name, err, c.has)
		}
	}
	if len(files) != 4 {
		t.Errorf("files = %v", files)
	}
	bash := needTool(t, "bash", "bash")
	if out, err := exec.Command(bash, "-n", filepath.Join(dir, "nestor")).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
}
