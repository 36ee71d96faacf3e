package action

import (
	"runtime/debug"
	"strings"
	"testing"
)

// goInfo is Go's build information as `go build` records it in a git work
// tree at revision rev (modified: "true" or "false").
func goInfo(version, rev, modified string) *debug.BuildInfo {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "nestor.dev/nestor", Version: version}}
	info.Settings = []debug.BuildSetting{{Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"}}
	if rev != "" {
		info.Settings = append(info.Settings,
			debug.BuildSetting{Key: "vcs", Value: "git"},
			debug.BuildSetting{Key: "vcs.revision", Value: rev},
			debug.BuildSetting{Key: "vcs.time", Value: "2026-12-02T18:47:01Z"},
			debug.BuildSetting{Key: "vcs.modified", Value: modified})
	}
	return info
}

const rev = "3759d393147b0a1749cb0e3fe82bb3009c69fc85"

// TestNewBuild: the version, release flag, commit and RUNBOOK.md of each
// way nestor is built: go build without VCS information, go build in a
// clean and a modified work tree, go install of a tag, a release stamped
// by -ldflags, a snapshot, a stamp over a modified tree, and no build
// information at all.
func TestNewBuild(t *testing.T) {
	project := Stamps{ProjectURL: "https://nestor.dev/nestor"}
	stamped := func(s Stamps) Stamps { s.ProjectURL = project.ProjectURL; return s }
	for _, c := range []struct {
		name        string
		info        *debug.BuildInfo
		stamps      Stamps
		version     string
		release     bool
		vcsKnown    bool
		modified    bool
		runbook     string
		describe    string
		semver, ua  string
		platform    string
		reasonMatch string
	}{
		{name: "go build -buildvcs=false", info: goInfo("(devel)", "", ""), stamps: project,
			version: "(devel)", runbook: "https://nestor.dev/nestor/blob/main/RUNBOOK.md", describe: "(development build)",
			ua: "nestor/devel", platform: "darwin/arm64", reasonMatch: "-buildvcs=false"},
		{name: "go build, clean tree", info: goInfo("v0.0.0-20261202184701-3759d393147b", rev, "false"), stamps: project,
			version: "v0.0.0-20261202184701-3759d393147b", vcsKnown: true,
			runbook: "https://nestor.dev/nestor/blob/main/RUNBOOK.md", describe: "v0.0.0-20261202184701-3759d393147b (development build)",
			semver: "0.0.0-20261202184701-3759d393147b", ua: "nestor/v0.0.0-20261202184701-3759d393147b", platform: "darwin/arm64"},
		{name: "go build, modified tree", info: goInfo("v0.0.0-20261202184701-3759d393147b+dirty", rev, "true"), stamps: project,
			version: "v0.0.0-20261202184701-3759d393147b+dirty", vcsKnown: true, modified: true,
			runbook: "https://nestor.dev/nestor/blob/main/RUNBOOK.md", describe: "v0.0.0-20261202184701-3759d393147b+dirty (development build)",
			semver: "0.0.0-20261202184701-3759d393147b+dirty", ua: "nestor/v0.0.0-20261202184701-3759d393147b+dirty", platform: "darwin/arm64"},
		{name: "go build, clean tagged HEAD", info: goInfo("v1.2.0", rev, "false"), stamps: project,
			version: "v1.2.0", release: true, vcsKnown: true,
			runbook: "https://nestor.dev/nestor/blob/v1.2.0/RUNBOOK.md", describe: "v1.2.0", semver: "1.2.0", ua: "nestor/v1.2.0", platform: "darwin/arm64"},
		{name: "go install @v1.3.0-rc.1", info: goInfo("v1.3.0-rc.1", "", ""), stamps: project,
			version: "v1.3.0-rc.1", release: true, reasonMatch: "version control",
			runbook: "https://nestor.dev/nestor/blob/v1.3.0-rc.1/RUNBOOK.md", describe: "v1.3.0-rc.1", semver: "1.3.0-rc.1", ua: "nestor/v1.3.0-rc.1", platform: "darwin/arm64"},
		{name: "release stamped by -ldflags",
			info:    goInfo("v0.0.0-20261202184701-3759d393147b", rev, "false"),
			stamps:  stamped(Stamps{Version: "1.2.0", Commit: rev, Date: "2026-12-02T18:47:01Z", TreeState: "clean"}),
			version: "v1.2.0", release: true, vcsKnown: true,
			runbook: "https://nestor.dev/nestor/blob/v1.2.0/RUNBOOK.md", describe: "v1.2.0", semver: "1.2.0", ua: "nestor/v1.2.0", platform: "darwin/arm64"},
		{name: "snapshot stamped by -ldflags", info: goInfo("(devel)", "", ""),
			stamps:  stamped(Stamps{Version: "1.2.1-dev+3759d39", Commit: rev, TreeState: "clean"}),
			version: "v1.2.1-dev+3759d39", vcsKnown: true,
			runbook: "https://nestor.dev/nestor/blob/main/RUNBOOK.md", describe: "v1.2.1-dev+3759d39 (development build)",
			semver: "1.2.1-dev+3759d39", ua: "nestor/v1.2.1-dev+3759d39", platform: "darwin/arm64"},
		{name: "tag stamped over a dirty tree", info: goInfo("(devel)", "", ""),
			stamps:  stamped(Stamps{Version: "v1.2.0", Commit: rev, TreeState: "dirty"}),
			version: "v1.2.0", vcsKnown: true, modified: true,
			runbook: "https://nestor.dev/nestor/blob/main/RUNBOOK.md", describe: "v1.2.0 (development build)", semver: "1.2.0", ua: "nestor/v1.2.0", platform: "darwin/arm64"},
		{name: "RUNBOOK.md stamped", info: goInfo("v1.2.0", "", ""),
			stamps:  stamped(Stamps{RunbookURL: "https://example.org/nestor/v1.2.0/RUNBOOK.md"}),
			version: "v1.2.0", release: true, reasonMatch: "version control",
			runbook: "https://example.org/nestor/v1.2.0/RUNBOOK.md", describe: "v1.2.0", semver: "1.2.0", ua: "nestor/v1.2.0", platform: "darwin/arm64"},
		{name: "no build information", info: nil, stamps: project,
			version: "(devel)", runbook: "https://nestor.dev/nestor/blob/main/RUNBOOK.md", describe: "(development build)",
			ua: "nestor/devel", platform: "plan9/386", reasonMatch: "no build information"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuild(c.info, c.stamps, "plan9", "386")
			if b.FormatVersion != BuildFormatVersion || b.Version != c.version || b.Release != c.release || b.RunbookURL != c.runbook {
				t.Errorf("got version %q release %v runbook %q, want %q %v %q", b.Version, b.Release, b.RunbookURL, c.version, c.release, c.runbook)
			}
			if b.VCS.Known != c.vcsKnown || b.VCS.Value.Modified != c.modified {
				t.Errorf("vcs = %+v, want known %v modified %v", b.VCS, c.vcsKnown, c.modified)
			}
			if c.vcsKnown && b.VCS.Value.Revision != rev {
				t.Errorf("revision = %q, want %q", b.VCS.Value.Revision, rev)
			}
			if !c.vcsKnown && !strings.Contains(b.VCS.Reason, c.reasonMatch) {
				t.Errorf("unknown vcs reason %q, want it to contain %q", b.VCS.Reason, c.reasonMatch)
			}
			if got := b.Describe(); got != c.describe {
				t.Errorf("Describe() = %q, want %q", got, c.describe)
			}
			if got := b.SemanticVersion(); got != c.semver {
				t.Errorf("SemanticVersion() = %q, want %q", got, c.semver)
			}
			if got := b.UserAgent(); got != c.ua {
				t.Errorf("UserAgent() = %q, want %q", got, c.ua)
			}
			if got := b.OS + "/" + b.Arch; got != c.platform {
				t.Errorf("platform = %q, want %q", got, c.platform)
			}
		})
	}
}
