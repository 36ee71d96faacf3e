package views

import (
	"fmt"
	"io"

	"nestor.dev/nestor/cmd/nestor/action"
)

// Next writes next's human answer n: the next phase and what runs it, or
// why it is unknown, or that every phase is done.
func Next(w io.Writer, n *action.NextStep) {
	switch {
	case n.Done:
		fmt.Fprintf(w, "Stack %s: every phase is done (%s).\n", n.Stack, n.Why)
	case n.Unknown:
		fmt.Fprintf(w, "Stack %s: next phase unknown — %s\n", n.Stack, n.Why)
		fmt.Fprintf(w, "Next: %s\n", n.Run)
	default:
		fmt.Fprintf(w, "Stack %s: next phase is %s — %s\n", n.Stack, n.Phase, n.Why)
		fmt.Fprintf(w, "Run:  %s\n", n.Run)
	}
}
