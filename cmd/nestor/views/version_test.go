package views

import (
	"runtime/debug"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
)

// TestBuild: the text's first line is what --version prints; the
// commit and toolchain follow, an unknown commit with its reason.
func TestBuild(t *testing.T) {
	var out strings.Builder
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "nestor.dev/nestor", Version: "v0.0.0-20261202184701-3759d393147b+dirty"},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "3759d393147b0a1749cb0e3fe82bb3009c69fc85"}, {Key: "vcs.time", Value: "2026-12-02T18:47:01Z"}, {Key: "vcs.modified", Value: "true"}}}
	b := action.NewBuild(info, action.Stamps{ProjectURL: "https://nestor.dev/nestor"}, "", "")
	if err := Build(&out, b); err != nil {
		t.Fatal(err)
	}
	want := `nestor v0.0.0-20261202184701-3759d393147b+dirty (development build)
  commit:   3759d393147b0a1749cb0e3fe82bb3009c69fc85 (2026-12-02T18:47:01Z), with uncommitted changes
  go:       go1.26.8
  platform: darwin/arm64
  runbook:  https://nestor.dev/nestor/blob/main/RUNBOOK.md
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	_ = Build(&out, action.NewBuild(nil, action.Stamps{}, "linux", "amd64"))
	if !strings.Contains(out.String(), "commit:   unknown: the binary carries no build information") {
		t.Errorf("an unknown commit is not said with its reason:\n%s", out.String())
	}
}
