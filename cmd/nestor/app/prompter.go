package app

import (
	"errors"
	"fmt"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
)

// Prompter asks the operator a question. It is the only way commands reach
// the terminal for input, so every command is testable without one.
type Prompter interface {
	// Confirm asks a yes/no question and returns the answer; def is the
	// answer on a bare Enter. It returns errInterrupted on Ctrl-C.
	Confirm(message string, def bool) (bool, error)
	// Select asks to choose one of options and returns it.
	Select(message string, options []string, def string) (string, error)
}

// errInterrupted is returned by a Prompter when the operator pressed Ctrl-C;
// Run maps it to exit code 130.
var errInterrupted = errors.New("interrupted")

// SurveyPrompter asks with survey on a terminal: In is the terminal's input,
// Out where the prompt is drawn (stderr, so stdout stays the program's output).
type SurveyPrompter struct {
	In  terminal.FileReader
	Out terminal.FileWriter
}

// Confirm implements Prompter.
func (p SurveyPrompter) Confirm(message string, def bool) (bool, error) {
	ans := def
	err := survey.AskOne(&survey.Confirm{Message: message, Default: def}, &ans,
		survey.WithStdio(p.In, p.Out, p.Out))
	return ans, mapSurveyErr(err)
}

// Select implements Prompter.
func (p SurveyPrompter) Select(message string, options []string, def string) (string, error) {
	var ans string
	q := &survey.Select{Message: message, Options: options}
	if def != "" {
		q.Default = def
	}
	err := survey.AskOne(q, &ans, survey.WithStdio(p.In, p.Out, p.Out))
	return ans, mapSurveyErr(err)
}

func mapSurveyErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, terminal.InterruptErr) {
		return errInterrupted
	}
	return fmt.Errorf("prompt: %w", err)
}

// noPrompter answers every question with an error naming what to pass
// instead; it stands in when nestor must not prompt.
type noPrompter struct{ hint string }

func (p noPrompter) Confirm(message string, _ bool) (bool, error) {
	return false, fmt.Errorf("cannot ask %q without a terminal: %s", message, p.hint)
}

func (p noPrompter) Select(message string, _ []string, _ string) (string, error) {
	return "", fmt.Errorf("cannot ask %q without a terminal: %s", message, p.hint)
}
