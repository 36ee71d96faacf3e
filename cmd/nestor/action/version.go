package action

import (
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"nestor.dev/nestor/topology"
)

// BuildFormatVersion is the version of `nestor version -o json`.
const BuildFormatVersion = 1

// devel is the version Go's build information gives a binary built from a
// work tree without version control information (`go build
// -buildvcs=false`, or outside a git work tree); nestor says the same.
const devel = "(devel)"

// Build is what the nestor binary says of itself (`nestor version`): its
// version, the commit it was built from, the Go toolchain and the platform.
type Build struct {
	FormatVersion int `json:"format_version"`
	// Version is the release's tag (stamped with -ldflags), else the
	// module version Go recorded (`go install …@v1.2.0`, or a
	// pseudo-version such as v0.0.0-20261203154307-3759d39abcde+dirty
	// for `go build` in a git work tree), else "(devel)".
	Version string `json:"version"`
	// Release is true for a released build (see releaseVersion); false
	// for a development build.
	Release bool `json:"release"`
	// VCS is the commit the binary was built from: unknown, with the
	// reason, when the build recorded none.
	VCS topology.Fact[VCS] `json:"vcs"`
	// GoVersion is the Go toolchain that built it (go1.26.8).
	GoVersion string `json:"go_version"`
	// OS and Arch are the platform it was built for (GOOS, GOARCH).
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// RunbookURL is the RUNBOOK.md its SARIF rules' helpUri point into:
	// the one of its own tag for a release, of the main branch for a
	// development build.
	RunbookURL string `json:"runbook_url"`
}

// VCS is the version control information of a build.
type VCS struct {
	// System is the version control system ("git").
	System string `json:"system"`
	// Revision is the commit's full hash.
	Revision string `json:"revision"`
	// Time is the commit's time, RFC 3339 in UTC ("" when not recorded).
	Time string `json:"time,omitempty"`
	// Modified is true when the work tree had changes the commit has not.
	Modified bool `json:"modified"`
}

// Stamps are what a release build sets with -ldflags -X (see
// cmd/nestor/app's variables); each one set beats what Go's build
// information says.
type Stamps struct {
	// Version is the release's version ("1.2.0" or "v1.2.0").
	Version string
	// Commit is the commit's full hash, Date its time (RFC 3339), and
	// TreeState "clean" or "dirty".
	Commit, Date, TreeState string
	// ProjectURL is nestor's page; RunbookURL, when set, the RUNBOOK.md
	// the helpUri point into, as is.
	ProjectURL, RunbookURL string
}

// NewBuild returns the build information of a binary from Go's record of
// it (info, from runtime/debug.ReadBuildInfo; nil when the binary has
// none) and the release's stamps, which win; goos and goarch are the
// platform to say when info does not (runtime.GOOS, runtime.GOARCH).
//
// Go's record (runtime/debug.BuildInfo): Main.Version is the module
// version (a tag for `go install …@tag`; since Go 1.24 also for `go build`
// in a git work tree: the tag of a clean HEAD, else a pseudo-version with
// "+dirty" when modified); the settings vcs, vcs.revision, vcs.time and
// vcs.modified describe the commit when the build embedded VCS
// information (-buildvcs), GOOS and GOARCH the target platform.
func NewBuild(info *debug.BuildInfo, s Stamps, goos, goarch string) Build {
	b := Build{FormatVersion: BuildFormatVersion, Version: devel, OS: goos, Arch: goarch}
	var vcs VCS
	if info != nil {
		b.GoVersion = info.GoVersion
		if v := info.Main.Version; v != "" {
			b.Version = v
		}
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs":
				vcs.System = kv.Value
			case "vcs.revision":
				vcs.Revision = kv.Value
			case "vcs.time":
				vcs.Time = kv.Value
			case "vcs.modified":
				vcs.Modified = kv.Value == "true"
			case "GOOS":
				b.OS = kv.Value
			case "GOARCH":
				b.Arch = kv.Value
			}
		}
	}
	if s.Version != "" {
		b.Version = s.Version
		if !strings.HasPrefix(b.Version, "v") && semver.IsValid("v"+b.Version) {
			b.Version = "v" + b.Version
		}
	}
	if s.Commit != "" {
		vcs.Revision = s.Commit
		if vcs.System == "" {
			vcs.System = "git"
		}
	}
	if s.Date != "" {
		vcs.Time = s.Date
	}
	if s.TreeState != "" {
		vcs.Modified = s.TreeState != "clean"
	}
	switch {
	case vcs.Revision != "":
		b.VCS = topology.KnownFact(vcs)
	case info == nil:
		b.VCS = topology.UnknownFact[VCS](topology.Because(topology.ReasonNotReported, "the binary carries no build information"))
	default:
		b.VCS = topology.UnknownFact[VCS](topology.Because(topology.ReasonNotReported, "built without version control information (go build -buildvcs=false, outside a git clone, or in a linked git worktree, where Go finds no .git folder)"))
	}
	b.Release = releaseVersion(b.Version) && !vcs.Modified
	switch {
	case s.RunbookURL != "":
		b.RunbookURL = s.RunbookURL
	case b.Release:
		b.RunbookURL = strings.TrimSuffix(s.ProjectURL, "/") + "/blob/" + b.Version + "/RUNBOOK.md"
	default:
		b.RunbookURL = strings.TrimSuffix(s.ProjectURL, "/") + "/blob/main/RUNBOOK.md"
	}
	return b
}

// releaseVersion reports whether v names a release: a semantic version
// (SemVer 2.0.0, with Go's "v" prefix) that is not a Go pseudo-version
// (go.dev/ref/mod#pseudo-versions: a commit without a tag) and carries no
// build metadata (SemVer §10: Go's "+dirty" for a modified tree, the
// "+<commit>" of nestor's snapshot builds). A pre-release (v1.2.0-rc.1) is
// a release.
func releaseVersion(v string) bool {
	return semver.IsValid(v) && !module.IsPseudoVersion(v) && semver.Build(v) == ""
}

// SemanticVersion is b's version as SemVer 2.0.0 (without Go's "v"), ""
// when it is not one ("(devel)"): what SARIF's
// toolComponent.semanticVersion holds.
func (b Build) SemanticVersion() string {
	if !semver.IsValid(b.Version) {
		return ""
	}
	return strings.TrimPrefix(b.Version, "v")
}

// Describe is the version as told to people and in SARIF's
// tool.driver.version: the version, and "(development build)" after it
// when b is not a release.
func (b Build) Describe() string {
	if b.Release {
		return b.Version
	}
	if b.Version == devel {
		return "(development build)"
	}
	return b.Version + " (development build)"
}

// UserAgent is nestor's HTTP user agent, nestor/VERSION (RFC 9110 §10.1.5:
// a product token, so without the parentheses of "(devel)").
func (b Build) UserAgent() string {
	return "nestor/" + strings.Trim(b.Version, "()")
}
