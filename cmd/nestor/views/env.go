package views

import (
	"fmt"
	"io"

	"nestor.dev/nestor/cmd/nestor/action"
)

// Env writes env's report r: its exports on out in shell's syntax (bash,
// zsh or fish), its notes on log as shell comments.
func Env(out, log io.Writer, r *action.EnvReport, shell string) {
	for _, v := range r.Variables {
		if shell == "fish" {
			fmt.Fprintf(out, "set -gx %s %s;\n", v.Name, action.ShellQuote("fish", v.Value))
		} else {
			fmt.Fprintf(out, "export %s=%s\n", v.Name, action.ShellQuote("sh", v.Value))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(log, "# %s\n", n)
	}
}
