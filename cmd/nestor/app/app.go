// Package app is nestor's command line: one file per command, the streams,
// the Prompter (the only place survey is used), output formats and the
// exit-code mapping. It is the only package that imports cobra and survey.
// Run never calls os.Exit: it returns the process exit code.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"nestor.dev/nestor/probes"
)

// Version is nestor's version, stamped at build time with
// -ldflags "-X nestor.dev/nestor/cmd/nestor/app.Version=v0.1.0".
var Version = "v0.1.0-dev"

// UserAgent is sent with every API request, so an audit log tells nestor's
// requests apart (issue 3).
func UserAgent() string { return "nestor/" + Version }

// Exit codes. ExitChanges is only used by preview --detailed-exitcode.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitChanges     = 2
	ExitInterrupted = 130
)

// Streams are the three standard streams: program output on Out, progress,
// warnings, prompts and errors on ErrOut.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// App is everything a command needs from the process: streams, the
// environment (a lookup function, never os.Getenv directly), the terminal
// state, the prompter and the limactl runner. Tests build one with buffers.
type App struct {
	Streams
	// Env looks up an environment variable (os.LookupEnv's shape).
	Env func(string) (string, bool)
	// StdinTTY, StdoutTTY and StderrTTY tell which streams are terminals.
	StdinTTY, StdoutTTY, StderrTTY bool
	// Prompter asks questions; it is only used when the command is interactive.
	Prompter Prompter
	// Run executes external programs (limactl, ssh).
	Run probes.Runner

	// sel is how the running command chose its stack ("-f FILE",
	// "--stack NAME --stacks DIR", "" for the active stack), so that the
	// commands nestor suggests act on the same stack (set by loadStack).
	sel string
}

// suggest returns the nestor command line sub (e.g. "next", "discover --cp
// dirqual1") for the stack the running command works on.
func (a *App) suggest(sub string) string {
	if a.sel == "" {
		return "nestor " + sub
	}
	return "nestor " + sub + " " + a.sel
}

// System returns the App of the real process: os streams and environment,
// terminal detection, the survey prompter, and exec for external programs.
func System() *App {
	a := &App{
		Streams:   Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Env:       os.LookupEnv,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Run:       probes.ExecRunner,
	}
	a.Prompter = SurveyPrompter{In: os.Stdin, Out: os.Stderr}
	return a
}

// exitError carries an exit code on an error; Run unwraps it once.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode returns err carrying exit code code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// errSilent ends a command with a code after it already said everything.
type errSilent struct{ code int }

func (e errSilent) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Run runs nestor with args (without the program name) and returns the exit
// code: 0 success, 1 error, 2 changes (preview --detailed-exitcode), 130
// interrupted. Errors are printed once, here, on ErrOut.
func Run(a *App, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(a)
	root.SetArgs(args)
	root.SetIn(a.In)
	root.SetOut(a.Out)
	root.SetErr(a.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var s errSilent
	if errors.As(err, &s) {
		return s.code
	}
	code := ExitError
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if errors.Is(err, errInterrupted) {
		fmt.Fprintln(a.ErrOut, "Interrupted: nestor stopped; nothing more was read.")
		return ExitInterrupted
	}
	fmt.Fprintf(a.ErrOut, "Error: %s\n", err)
	return code
}

// globals are the flags every command shares.
type globals struct {
	stacks     string
	noInput    bool
	kubeconfig string
	context    string
	timeout    time.Duration
}

func newRoot(a *App) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "nestor",
		Short: "Keep a Kubernetes cluster in line with a declarative topology",
		Long: `nestor compares what a stack's topology declares (desired) with what really runs
(actual) and prints the steps that would close the gap (plan).

A stack is one cluster, described by a topology file in the stacks folder
(--stacks, else $NESTOR_STACKS, else ./stacks). Reading commands never write:
not the cluster, not the topology, not a kubeconfig.

Exit codes: 0 success, 1 error or refused, 2 changes (preview --detailed-exitcode),
130 interrupted.`,
		Version:           Version,
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.stacks, "stacks", "", "stacks folder (default $NESTOR_STACKS, else ./stacks)")
	pf.BoolVar(&g.noInput, "no-input", false, "never prompt: check the target strictly instead (also NESTOR_NO_INPUT=1, or stdin not a terminal)")
	pf.StringVar(&g.kubeconfig, "kubeconfig", "", "kubeconfig of a prod stack (beats $KUBECONFIG and the topology's kubeconfig:)")
	pf.StringVar(&g.context, "context", "", "kubeconfig context to use instead of its current-context")
	pf.DurationVar(&g.timeout, "timeout", 10*time.Second, "bound on each read of the cluster: the target check, then the full read")
	root.SetVersionTemplate("nestor {{.Version}}\n")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if g.timeout <= 0 {
			return fmt.Errorf("--timeout must be positive (got %s)", g.timeout)
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nSee '%s --help'.", err, c.CommandPath())
	})
	root.AddCommand(
		newVersionCmd(a),
		newPreviewCmd(a, g),
		newStackCmd(a, g),
		newDiscoverCmd(a, g),
		newEnvCmd(a, g),
		newNextCmd(a, g),
	)
	return root
}

// home returns $HOME, used to expand ~ in paths ("" when unset).
func (a *App) home() string {
	h, _ := a.Env("HOME")
	return h
}

// interactive reports whether nestor may prompt: not --no-input, not
// NESTOR_NO_INPUT, and both stdin and stderr are terminals (DESIGN.md: with
// no TTY on stdin nestor behaves as --no-input and never waits).
func (a *App) interactive(g *globals) bool {
	if g.noInput {
		return false
	}
	if v, ok := a.Env("NESTOR_NO_INPUT"); ok && isTrue(v) {
		return false
	}
	return a.StdinTTY && a.StderrTTY && a.Prompter != nil
}

// color reports whether human output on stdout may use colour: stdout is a
// terminal and NO_COLOR is not set to a non-empty value (no-color.org).
func (a *App) color() bool {
	if v, ok := a.Env("NO_COLOR"); ok && v != "" {
		return false
	}
	return a.StdoutTTY
}

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "y", "on":
		return true
	}
	return false
}

func newVersionCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print nestor's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.Out, "nestor %s\n", Version)
			return err
		},
	}
}
