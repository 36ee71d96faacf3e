package app

import (
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
)

// What a release stamps at build time with -ldflags -X (.goreleaser.yaml),
// each beating what Go's build information says (action.NewBuild); a
// build that stamps nothing says what Go recorded:
//
//	-X nestor.dev/nestor/cmd/nestor/app.Version=v1.2.0
//	-X nestor.dev/nestor/cmd/nestor/app.Commit=<full hash>
//	-X nestor.dev/nestor/cmd/nestor/app.CommitDate=<RFC 3339>
//	-X nestor.dev/nestor/cmd/nestor/app.TreeState=clean|dirty
//
// ProjectURL is nestor's page (SARIF tool.driver.informationUri); RunbookURL,
// when stamped, the RUNBOOK.md each SARIF rule's helpUri points into
// (#anchor appended), else ProjectURL's blob/<tag>/RUNBOOK.md for a release
// and blob/main/RUNBOOK.md for a development build.
var (
	Version    string
	Commit     string
	CommitDate string
	TreeState  string
	ProjectURL = "https://nestor.dev/nestor"
	RunbookURL string
)

// buildOnce reads the binary's build information once.
var buildOnce = sync.OnceValue(func() action.Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return action.NewBuild(info, stamps(), runtime.GOOS, runtime.GOARCH)
})

// Build is what this binary says of itself: Go's build information with
// the release's stamps over it (action.NewBuild).
func Build() action.Build { return buildOnce() }

// stamps are the -ldflags -X variables above.
func stamps() action.Stamps {
	return action.Stamps{Version: Version, Commit: Commit, Date: CommitDate, TreeState: TreeState,
		ProjectURL: ProjectURL, RunbookURL: RunbookURL}
}

func newVersionCmd(a *App) *cobra.Command {
	out := newOutputFlag("text", reportFormats...)
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print nestor's version, the commit it was built from, its Go toolchain and platform",
		Long: `Print what this binary says of itself: its version (a release's tag, else the
module version Go recorded, else "(devel)"), whether it is a release or a
development build, the commit it was built from (when the build recorded it),
the Go toolchain, the platform, and the RUNBOOK.md its SARIF rules link to.
The first line of the text is what nestor --version prints.`,
		Example: `  nestor version
  nestor version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := Build()
			return write(a.Out, out.value, b, func(w io.Writer) error { return views.Build(w, b) })
		},
	}
	out.register(cmd)
	return cmd
}
