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

	"gopkg.in/yaml.v3"
)

// goreleaserBinary is the goreleaser tools/release/build.sh built
// ($NESTOR_GORELEASER, which .ci/run exports). Without it the test is
// skipped, saying how to get it; in CI (CI=true) it fails.
func goreleaserBinary(t *testing.T) string {
	t.Helper()
	p := os.Getenv("NESTOR_GORELEASER")
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("NESTOR_GORELEASER is not set, and CI=true: .ci/run exports it (tools/release/build.sh)")
		}
		t.Skip("the release tool is not available: NESTOR_GORELEASER=$(tools/release/build.sh) go test ./tests/e2e -run Release")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("NESTOR_GORELEASER=%s: %v", p, err)
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

// TestReleaseSnapshot builds a snapshot release of HEAD, from a clone of
// it, with the pinned goreleaser: `goreleaser check` accepts
// .goreleaser.yaml, and the release of this machine's platform (the same
// configuration, one target) makes an archive that the checksums file
// vouches for, holding the binary, the man pages and the completion
// scripts, dated at the commit; the unpacked binary's `version -o json`
// names the snapshot's version and the commit, and says it is a
// development build.
func TestReleaseSnapshot(t *testing.T) {
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
	tmp := t.TempDir()
	src := filepath.Join(tmp, "nestor")
	gitOut(t, root, "clone", "--quiet", "--shared", "--no-checkout", root, src)
	gitOut(t, src, "checkout", "--quiet", "--detach", head)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goreleaser, args...)
		cmd.Dir = src
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("goreleaser %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("check")
	start := time.Now()
	run("release", "--snapshot", "--clean", "--config", hostConfig(t, src, tmp))
	t.Logf("snapshot release of %s/%s built in %s", runtime.GOOS, runtime.GOARCH, time.Since(start).Round(time.Second))

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
	var doc struct {
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
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if doc.Version != "v"+version || doc.Release || !strings.Contains(version, "-dev+") {
		t.Errorf("the snapshot %s says version %q release %v, want v%s, a development build:\n%s", version, doc.Version, doc.Release, version, out)
	}
	if !doc.VCS.Known || doc.VCS.Value.Revision != head || doc.VCS.Value.Modified {
		t.Errorf("the snapshot does not name clean commit %s:\n%s", head, out)
	}
	if got, err := time.Parse(time.RFC3339, doc.VCS.Value.Time); err != nil || !got.Equal(commitTime) {
		t.Errorf("commit time %q, want %s", doc.VCS.Value.Time, commitTime)
	}
	if doc.OS != runtime.GOOS || doc.Arch != runtime.GOARCH || !strings.HasSuffix(doc.RunbookURL, "/blob/main/RUNBOOK.md") {
		t.Errorf("platform %s/%s, runbook %s:\n%s", doc.OS, doc.Arch, doc.RunbookURL, out)
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
