package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitOut runs git in dir and returns its trimmed stdout.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestVersionNamesItsCommit builds nestor from its git clone as an
// operator's `go build` does (-buildvcs=auto, the default, given on the
// command line so that a GOFLAGS=-buildvcs=false of the machine does not
// hide it) and checks that `version -o json` names the commit it was built
// from (git rev-parse HEAD), and says modified exactly when git status
// shows a change (cmd/go runs `git status --porcelain` for vcs.modified).
//
// cmd/go looks for a .git folder, so a linked `git worktree` (whose .git
// is a file) records no commit: there the test builds from a clone of
// HEAD instead, which is clean.
func TestVersionNamesItsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nestor; skipped in -short mode")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot tell which commit nestor was built from")
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("%s is not a git clone (%v): go build records no commit", root, err)
	}
	head := gitOut(t, root, "rev-parse", "HEAD")
	src, dirty := root, gitOut(t, root, "status", "--porcelain") != ""
	if fi, _ := os.Stat(filepath.Join(root, ".git")); !fi.IsDir() {
		src = filepath.Join(t.TempDir(), "nestor")
		gitOut(t, root, "clone", "--quiet", "--shared", "--no-checkout", root, src)
		gitOut(t, src, "checkout", "--quiet", "--detach", head)
		dirty = false
		t.Logf("%s is a linked git worktree, where go build records no commit: building a clone of %s", root, head)
	}
	bin := filepath.Join(t.TempDir(), "nestor")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "./cmd/nestor")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("nestor version -o json: %v", err)
	}
	var doc struct {
		FormatVersion int    `json:"format_version"`
		Version       string `json:"version"`
		Release       bool   `json:"release"`
		VCS           fact[struct {
			System   string `json:"system"`
			Revision string `json:"revision"`
			Time     string `json:"time"`
			Modified bool   `json:"modified"`
		}] `json:"vcs"`
		GoVersion string `json:"go_version"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if doc.FormatVersion != 1 || !doc.VCS.Known || doc.VCS.Value.System != "git" || doc.VCS.Value.Revision != head {
		t.Fatalf("version -o json does not name commit %s:\n%s", head, out)
	}
	if doc.VCS.Value.Modified != dirty {
		t.Errorf("modified = %v, git status says dirty = %v:\n%s", doc.VCS.Value.Modified, dirty, out)
	}
	if dirty && (doc.Release || !strings.HasSuffix(doc.Version, "+dirty")) {
		t.Errorf("a build from a modified tree is a release or its version lacks +dirty:\n%s", out)
	}
	tags := strings.Fields(gitOut(t, src, "tag", "--points-at", head))
	if !strings.Contains(doc.Version, head[:12]) && !(len(tags) > 0 && strings.HasPrefix(doc.Version, tags[0])) {
		t.Errorf("version %q is neither a pseudo-version of %s nor a tag of it (%v)", doc.Version, head[:12], tags)
	}
	if doc.GoVersion == "" {
		t.Errorf("no Go version:\n%s", out)
	}
	text, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(text), "nestor "+doc.Version) {
		t.Errorf("--version = %q (%v), want nestor %s…", text, err, doc.Version)
	}
}
