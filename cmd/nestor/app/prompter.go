package app

import (
	"errors"
	"fmt"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/core"
	"github.com/AlecAivazis/survey/v2/terminal"
)

// errInterrupted is returned by the Prompter when the operator pressed
// Ctrl-C; Run maps it to exit code 130.
var errInterrupted = errors.New("interrupted")

// SurveyPrompter asks with survey on a terminal: In is the terminal's input,
// Out where the prompt is drawn (stderr, so stdout stays the program's
// output). It implements action.Prompter, the only way commands reach the
// terminal for input.
type SurveyPrompter struct {
	In  terminal.FileReader
	Out terminal.FileWriter
	// Color is whether the prompt may carry colour: App.colorFor of its
	// stream (stderr), the one rule of every output — so TERM=dumb and
	// NO_COLOR both draw it plain, and CLICOLOR_FORCE colours it. survey
	// alone reads NO_COLOR and CLICOLOR only.
	Color bool
}

// Confirm asks a yes/no question and returns the answer; def is the answer
// on a bare Enter. It returns errInterrupted on Ctrl-C.
func (p SurveyPrompter) Confirm(message string, def bool) (bool, error) {
	// survey's one switch, read when a prompt's template is first drawn
	// (one process asks with one colour rule).
	core.DisableColor = !p.Color
	ans := def
	err := survey.AskOne(&survey.Confirm{Message: message, Default: def}, &ans,
		survey.WithStdio(p.In, p.Out, p.Out))
	if err == nil {
		return ans, nil
	}
	if errors.Is(err, terminal.InterruptErr) {
		return false, errInterrupted
	}
	return false, fmt.Errorf("prompt: %w", err)
}
