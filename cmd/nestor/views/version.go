package views

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"nestor.dev/nestor/cmd/nestor/action"
)

// Build writes build b for people: the first line is `nestor VERSION`
// (what `nestor --version` prints), then the commit, the toolchain and the
// platform.
func Build(w io.Writer, b action.Build) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "nestor %s\n", b.Describe())
	if b.VCS.Known {
		c := b.VCS.Value
		line := c.Revision
		if c.Time != "" {
			line += " (" + c.Time + ")"
		}
		if c.Modified {
			line += ", with uncommitted changes"
		}
		fmt.Fprintf(&sb, "  commit:   %s\n", line)
	} else {
		fmt.Fprintf(&sb, "  commit:   unknown: %s\n", b.VCS.Reason)
	}
	fmt.Fprintf(&sb, "  go:       %s\n", cmp.Or(b.GoVersion, "unknown"))
	fmt.Fprintf(&sb, "  platform: %s/%s\n", b.OS, b.Arch)
	fmt.Fprintf(&sb, "  runbook:  %s\n", b.RunbookURL)
	_, err := io.WriteString(w, sb.String())
	return err
}
