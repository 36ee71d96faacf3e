package e2e

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"gopkg.in/yaml.v3"
)

// goreleaserBinary is the goreleaser tools/release/build.sh built:
// $NESTOR_GORELEASER (which .ci/run exports), else the one build.sh keeps
// in its cache folder for the version tools/release/go.mod pins. Without
// either the test is skipped, saying how to get it; in CI (CI=true) it
// fails.
func goreleaserBinary(t *testing.T) string {
	t.Helper()
	p := os.Getenv("NESTOR_GORELEASER")
	if p == "" {
		p = cachedGoreleaser(t)
	}
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("NESTOR_GORELEASER is not set, and CI=true: .ci/run exports it (tools/release/build.sh)")
		}
		t.Skip("the release tool is not built: NESTOR_GORELEASER=$(tools/release/build.sh) go test ./tests/e2e -run Release")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("NESTOR_GORELEASER=%s: %v", p, err)
	}
	return p
}

// cachedGoreleaser is the path tools/release/build.sh gives the pinned
// goreleaser (${XDG_CACHE_HOME:-$HOME/.cache}/nestor-release/goreleaser-<version>),
// "" when it is not there.
func cachedGoreleaser(t *testing.T) string {
	t.Helper()
	path := filepath.Join(repoRoot(t), "tools", "release", "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	version := ""
	for _, r := range f.Require {
		if r.Mod.Path == "github.com/goreleaser/goreleaser/v2" {
			version = r.Mod.Version
		}
	}
	if version == "" {
		t.Fatalf("%s pins no github.com/goreleaser/goreleaser/v2", path)
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "nestor-release", "goreleaser-"+version)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// hostConfig writes into dir the release configuration with this machine's
// platform as its only target, everything else as .goreleaser.yaml says
// (goreleaser release has no --single-target), and returns its path.
func hostConfig(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(src, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	builds, _ := cfg["builds"].([]any)
	if len(builds) == 0 {
		t.Fatal(".goreleaser.yaml has no builds")
	}
	for _, b := range builds {
		m := b.(map[string]any)
		goos, goarch := m["goos"].([]any), m["goarch"].([]any)
		if !slices.Contains(goos, any(runtime.GOOS)) || !slices.Contains(goarch, any(runtime.GOARCH)) {
			t.Skipf("the release builds no %s/%s archive", runtime.GOOS, runtime.GOARCH)
		}
		m["goos"], m["goarch"] = []string{runtime.GOOS}, []string{runtime.GOARCH}
		delete(m, "ignore")
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "goreleaser-host.yaml")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// buildInfo is the part of `nestor version -o json` the release tests read.
type buildInfo struct {
	Version string `json:"version"`
	Release bool   `json:"release"`
	VCS     fact[struct {
		Revision string `json:"revision"`
		Time     string `json:"time"`
		Modified bool   `json:"modified"`
	}] `json:"vcs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	RunbookURL string `json:"runbook_url"`
}

// releaseOf runs `goreleaser release` (with the extra args) in the clone
// src with this machine's platform as the only target, checks the archive
// the checksums file vouches for (the binary, the man pages, the
// completion scripts, every entry dated at the commit), unpacks it into
// a new folder and returns the version the archives are named with, that
// folder, and its nestor's `version -o json`.
func releaseOf(t *testing.T, goreleaser, src string, commitTime time.Time, args ...string) (string, string, buildInfo) {
	t.Helper()
	tmp := t.TempDir()
	cmd := exec.Command(goreleaser, append([]string{"release", "--clean", "--config", hostConfig(t, src, tmp)}, args...)...)
	cmd.Dir = src
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser release %v: %v\n%s", args, err, out)
	}
	t.Logf("release %v of %s/%s built in %s", args, runtime.GOOS, runtime.GOARCH, time.Since(start).Round(time.Second))

	dist := filepath.Join(src, "dist")
	sums, _ := filepath.Glob(filepath.Join(dist, "nestor_*_checksums.txt"))
	if len(sums) != 1 {
		t.Fatalf("checksums files in dist: %v", sums)
	}
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(sums[0]), "nestor_"), "_checksums.txt")
	archive := "nestor_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	listed := verifyChecksums(t, sums[0])
	if !slices.Contains(listed, archive) {
		t.Fatalf("the checksums file lists %v, not %s", listed, archive)
	}
	unpacked := filepath.Join(tmp, "unpacked")
	names := untar(t, filepath.Join(dist, archive), unpacked, commitTime)
	for _, want := range []string{"nestor", "README.md", "RUNBOOK.md", "man/man1/nestor.1", "man/man1/nestor-preview.1",
		"man/man1/nestor-version.1", "completions/nestor", "completions/_nestor", "completions/nestor.fish"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s lacks %s (it holds %v)", archive, want, names)
		}
	}
	out, err := exec.Command(filepath.Join(unpacked, "nestor"), "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("the archive's nestor version -o json: %v", err)
	}
	var doc buildInfo
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if !doc.VCS.Known || doc.VCS.Value.Modified {
		t.Errorf("%s does not name a clean commit:\n%s", archive, out)
	}
	if got, err := time.Parse(time.RFC3339, doc.VCS.Value.Time); err != nil || !got.Equal(commitTime) {
		t.Errorf("commit time %q, want %s", doc.VCS.Value.Time, commitTime)
	}
	if doc.OS != runtime.GOOS || doc.Arch != runtime.GOARCH {
		t.Errorf("platform %s/%s:\n%s", doc.OS, doc.Arch, out)
	}
	return version, unpacked, doc
}

// TestRelease builds releases of HEAD, from a clone of it, with the pinned
// goreleaser: `goreleaser check` accepts .goreleaser.yaml; a snapshot and
// then a release of a tag put on HEAD (the same configuration, this
// machine's platform only: goreleaser release has no --single-target)
// each make an archive that the checksums file vouches for, holding the
// binary, the man pages and the completion scripts, dated at the commit.
// The snapshot's nestor names its version and the commit and says it is a
// development build; the tag's says it is that release, and its SARIF
// rules link to the RUNBOOK.md of the tag.
func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release; skipped in -short mode")
	}
	goreleaser := goreleaserBinary(t)
	root := repoRoot(t)
	head := gitOut(t, root, "rev-parse", "HEAD")
	commitTime, err := time.Parse(time.RFC3339, gitOut(t, root, "show", "-s", "--format=%cI", head))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "nestor")
	gitOut(t, root, "clone", "--quiet", "--shared", "--no-checkout", root, src)
	gitOut(t, src, "checkout", "--quiet", "--detach", head)
	check := exec.Command(goreleaser, "check")
	check.Dir = src
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}

	version, _, doc := releaseOf(t, goreleaser, src, commitTime, "--snapshot")
	if doc.Version != "v"+version || doc.Release || !strings.Contains(version, "-dev+") || doc.VCS.Value.Revision != head {
		t.Errorf("the snapshot %s says version %q release %v revision %s, want v%s, a development build of %s", version, doc.Version, doc.Release, doc.VCS.Value.Revision, version, head)
	}
	if !strings.HasSuffix(doc.RunbookURL, "/blob/main/RUNBOOK.md") {
		t.Errorf("the snapshot's runbook %s, want main's", doc.RunbookURL)
	}

	gitOut(t, src, "-c", "user.name=nestor tests", "-c", "user.email=tests@nestor.invalid", "tag", "-a", "v9.9.9", "-m", "v9.9.9")
	version, unpacked, doc := releaseOf(t, goreleaser, src, commitTime)
	if version != "9.9.9" || doc.Version != "v9.9.9" || !doc.Release || doc.VCS.Value.Revision != head ||
		!strings.HasSuffix(doc.RunbookURL, "/blob/v9.9.9/RUNBOOK.md") {
		t.Errorf("the release of tag v9.9.9 (archives %s) says %+v", version, doc)
	}
	stack := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(stack, []byte("name: lab\ntarget_kind: prod\nkubeconfig: /nonexistent\nnodes:\n  - {name: lab1, role: control-plane}\nlayers: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(unpacked, "nestor"), "preview", "-f", stack, "--no-input", "-o", "sarif").Output()
	if err != nil {
		t.Fatalf("the release's preview -o sarif: %v", err)
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
	if err := json.Unmarshal(out, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Tool.Driver.Rules) == 0 {
		t.Fatalf("not a SARIF run with rules (%v):\n%s", err, out)
	}
	d := log.Runs[0].Tool.Driver
	if d.Version != "v9.9.9" || d.SemanticVersion != "9.9.9" || !strings.Contains(d.Rules[0].HelpURI, "/blob/v9.9.9/RUNBOOK.md#") {
		t.Errorf("the release's SARIF driver: version %q semanticVersion %q helpUri %q", d.Version, d.SemanticVersion, d.Rules[0].HelpURI)
	}
}

// verifyChecksums checks every file the checksums file (sha256sum's
// format: "<hex>  <name>") lists against the file beside it, and returns
// the names.
func verifyChecksums(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s: not sha256sum's format: %q", filepath.Base(path), sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(path), name))
		if err != nil {
			t.Fatalf("%s lists %s: %v", filepath.Base(path), name, err)
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, the checksums file says %s", name, got, sum)
		}
		names = append(names, name)
	}
	return names
}

// untar unpacks the .tar.gz archive into dir, checks that every entry is
// dated at the commit (reproducible archives), and returns the entries'
// names.
func untar(t *testing.T, archive, dir string, commitTime time.Time) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(commitTime) {
			t.Errorf("%s is dated %s, not at the commit (%s)", h.Name, h.ModTime, commitTime)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		names = append(names, h.Name)
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, os.FileMode(h.Mode)&0o777); err != nil {
			t.Fatal(err)
		}
	}
	return names
}
