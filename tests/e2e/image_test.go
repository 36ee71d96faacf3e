package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"nestor.dev/nestor/tests/harness"
)

// TestContainerfile: the image is built from nothing (FROM scratch: no base
// image to pull), runs as a numeric user that is not root, starts nestor,
// and carries the OCI image-spec annotations.
func TestContainerfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "tools", "image", "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(text, -1)
	if len(froms) != 1 || froms[0][1] != "scratch" {
		t.Errorf("FROM lines %v, want only FROM scratch", froms)
	}
	if m := regexp.MustCompile(`(?m)^USER\s+(\d+)(:\d+)?$`).FindStringSubmatch(text); m == nil || m[1] == "0" {
		t.Errorf("no numeric USER other than root: %v", m)
	}
	if !strings.Contains(text, `ENTRYPOINT ["nestor"]`) {
		t.Error(`no ENTRYPOINT ["nestor"]`)
	}
	for _, k := range []string{"title", "description", "version", "revision", "created", "source", "url", "documentation"} {
		if !strings.Contains(text, "org.opencontainers.image."+k+"=") {
			t.Errorf("no org.opencontainers.image.%s label", k)
		}
	}
}

// TestImage builds the image with tools/image/build.sh and buildah (in a
// storage of its own, removed after), checks its configuration (user,
// entrypoint, the annotations naming the commit) and runs `nestor version`
// in it. buildah missing: skipped outside CI, a failure in CI (.ci/run
// installs it).
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image; skipped in -short mode")
	}
	buildah, err := exec.LookPath("buildah")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("buildah is not installed, and CI=true: .ci/run installs it (apt-get install buildah runc)")
		}
		t.Skip("buildah is not installed (apt-get install buildah runc): the image is not built")
	}
	root := repoRoot(t)
	head := gitOut(t, root, "rev-parse", "HEAD")
	store := t.TempDir()
	// vfs: no overlay mount needed, so it works inside a container too.
	global := []string{"--root", filepath.Join(store, "root"), "--runroot", filepath.Join(store, "run"), "--storage-driver", "vfs"}
	t.Cleanup(func() {
		// vfs layers are written read-only by some runtimes: let RemoveAll in.
		_ = exec.Command(buildah, append(global, "rm", "--all")...).Run()
		_ = exec.Command(buildah, append(global, "rmi", "--all", "--force")...).Run()
	})
	cmd := exec.Command(filepath.Join(root, "tools", "image", "build.sh"), "localhost/nestor:test")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "IMAGE_BUILDER=buildah", "BUILDAH_FLAGS="+strings.Join(global, " "), "VERSION=v9.9.9-test")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("tools/image/build.sh: %v\n%s", err, stderr)
	}
	if tag := strings.TrimSpace(string(out)); tag != "localhost/nestor:test" {
		t.Errorf("build.sh printed %q", tag)
	}
	raw, err := exec.Command(buildah, append(global, "inspect", "--type", "image", "localhost/nestor:test")...).Output()
	if err != nil {
		t.Fatalf("buildah inspect: %v", err)
	}
	var img struct {
		OCIv1 struct {
			Config struct {
				User       string
				Entrypoint []string
				Labels     map[string]string
			} `json:"config"`
		}
	}
	if err := json.Unmarshal(raw, &img); err != nil {
		t.Fatal(err)
	}
	c := img.OCIv1.Config
	if c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != "nestor" {
		t.Errorf("user %q entrypoint %v", c.User, c.Entrypoint)
	}
	if c.Labels["org.opencontainers.image.revision"] != head || c.Labels["org.opencontainers.image.version"] != "v9.9.9-test" {
		t.Errorf("labels %v, want revision %s version v9.9.9-test", c.Labels, head)
	}
	ctr, err := exec.Command(buildah, append(global, "from", "localhost/nestor:test")...).Output()
	if err != nil {
		t.Fatalf("buildah from: %v", err)
	}
	// chroot isolation: no OCI runtime or cgroup needed; the image's user
	// still applies.
	run := exec.Command(buildah, append(global, "run", "--isolation", "chroot", strings.TrimSpace(string(ctr)), "--", "nestor", "version", "-o", "json")...)
	got, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("nestor version in the image: %v\n%s", err, got)
	}
	var doc struct {
		Version string `json:"version"`
		VCS     fact[struct {
			Revision string `json:"revision"`
		}] `json:"vcs"`
		OS string `json:"os"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if doc.Version != "v9.9.9-test" || doc.VCS.Value.Revision != head || doc.OS != "linux" {
		t.Errorf("nestor version in the image:\n%s", got)
	}
	whoami, err := exec.Command(buildah, append(global, "run", "--isolation", "chroot", strings.TrimSpace(string(ctr)), "--", "nestor", "--version")...).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(whoami), "nestor v9.9.9-test") {
		t.Errorf("nestor --version in the image: %v %s", err, whoami)
	}

	// A preview in the image, against the test cluster: the image's user
	// reads the stack and its kubeconfig from a read-only mount (as a CI
	// job mounts its checkout), reaches the API server (chroot isolation
	// keeps the host's network) and finds the healthy cluster in sync.
	cl := sharedFixtureCluster(t, healthyFixture)
	w := newWorld(t, cl)
	w.kubeconfig(cl, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, "")
	w.dirqualStack(cl.URL, "/work/home/.kube/dirqual.config")
	if err := filepath.WalkDir(w.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode) // the image's user (65532) must read them
	}); err != nil {
		t.Fatal(err)
	}
	preview := exec.Command(buildah, append(global, "run", "--isolation", "chroot", "-v", w.Root+":/work:ro", strings.TrimSpace(string(ctr)),
		"--", "nestor", "preview", "--stacks", "/work/stacks", "dirqual", "--no-input", "--detailed-exitcode", "-o", "json")...)
	var stdout, stderr bytes.Buffer
	preview.Stdout, preview.Stderr = &stdout, &stderr
	err = preview.Run()
	var rep struct {
		Actual struct {
			ServerVersion fact[string] `json:"server_version"`
		}
		Summary struct {
			InSync bool `json:"in_sync"`
		}
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &rep); err != nil || jerr != nil || !rep.Summary.InSync || rep.Actual.ServerVersion.Value != harness.K8sVersion {
		t.Errorf("nestor preview in the image against %s: %v %v\nstdout:\n%s\nstderr:\n%s", cl.URL, err, jerr, stdout.String(), stderr.String())
	}
}
