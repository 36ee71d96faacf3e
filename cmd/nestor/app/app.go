// Package app is nestor's command line: the cobra commands (flags, help,
// completion), the options completed once into an action.Config before any
// command runs, the survey Prompter, the one output writer and the
// exit-code mapping. It is the only package that imports cobra and survey;
// the work itself is in package action. Run never calls os.Exit: it returns
// the process exit code.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/klog/v2"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
)

// UserAgent is sent with every API request, so an audit log tells nestor's
// requests apart: nestor/VERSION (see Build).
func UserAgent() string { return Build().UserAgent() }

// Exit codes (README "Exit codes").
const (
	ExitOK          = action.ExitOK
	ExitError       = action.ExitError
	ExitChanges     = action.ExitChanges
	ExitFindings    = action.ExitFindings
	ExitInterrupted = action.ExitInterrupted
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
	// Prompter asks questions; commands reach it only when they may prompt
	// (action.Config.Prompter refuses otherwise).
	Prompter action.Prompter
	// Run executes external programs (limactl, ssh).
	Run probes.Runner

	// profile is this run's --profile (set by Run).
	profile *profiling
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

// Run runs nestor with args (without the program name) and returns the exit
// code: 0 success, 1 error, 2 changes (preview --detailed-exitcode), 130
// interrupted. Errors are printed once, here, on ErrOut.
func Run(a *App, args []string) int {
	quietKlog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := &countingWriter{w: a.Out}
	run := *a
	run.Out = out
	run.profile = &profiling{}
	root := newRoot(&run)
	defer func() {
		if err := run.profile.stop(); err != nil {
			fmt.Fprintln(a.ErrOut, "nestor: profile:", err)
		}
	}()
	root.SetArgs(args)
	root.SetIn(a.In)
	root.SetOut(out)
	root.SetErr(a.ErrOut)
	done := make(chan error, 1)
	var executed *cobra.Command
	go func() {
		cmd, err := root.ExecuteContextC(ctx)
		executed = cmd
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// Interrupted: every read ends with ctx; a call that would not is
		// not waited for beyond interruptGrace — the process ends now.
		select {
		case err = <-done:
		case <-time.After(interruptGrace):
			err = errInterrupted
		}
	}
	if err == nil {
		return ExitOK
	}
	var s action.SilentError
	if errors.As(err, &s) {
		return s.Code
	}
	if errors.Is(err, errInterrupted) || (errors.Is(err, context.Canceled) && ctx.Err() != nil) {
		fmt.Fprintln(a.ErrOut, "Interrupted: nestor stopped; nothing more was read.")
		return ExitInterrupted
	}
	fmt.Fprintf(a.ErrOut, "Error: %s\n", err)
	errorDocument(out, executed, err)
	return ExitError
}

// errorDocument writes, when the command was asked for -o json or yaml and
// wrote nothing, the error document in that format (action.Failure), so a
// job that saves the output gets a document, never an empty file.
func errorDocument(out *countingWriter, cmd *cobra.Command, err error) {
	if cmd == nil || out.n > 0 {
		return
	}
	f := cmd.Flags().Lookup("output")
	if f == nil || (f.Value.String() != "json" && f.Value.String() != "yaml") {
		return
	}
	if file := cmd.Flags().Lookup("output-file"); file != nil && file.Value.String() != "" {
		return // emitFailure wrote it there
	}
	_ = write(out, f.Value.String(), action.NewFailure(nil, err), nil)
}

// countingWriter counts what a command writes on stdout.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// globals are the flags every command shares, and the Config completed
// from them, the environment and the terminal before any command runs.
type globals struct {
	stacks     string
	noInput    bool
	kubeconfig string
	context    string
	timeout    time.Duration

	// cfg is set once, by the root's PersistentPreRunE; commands read it.
	cfg action.Config
	// profile is --profile and --profile-output.
	profile *profiling
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

Colour: on a terminal; CLICOLOR_FORCE=1 or FORCE_COLOR=1 forces it, NO_COLOR
or TERM=dumb turns it off, forced or not.

Exit codes: 0 success, 1 error or refused, 2 changes (preview and fleet with
--detailed-exitcode), 3 a finding at --fail-on's severity or worse, 130 interrupted.`,
		Version:           Build().Describe(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.stacks, "stacks", "", "stacks folder (default $NESTOR_STACKS, else ./stacks)")
	pf.BoolVar(&g.noInput, "no-input", false, "never prompt: check the target strictly instead (also NESTOR_NO_INPUT=1, or stdin not a terminal)")
	pf.StringVar(&g.kubeconfig, "kubeconfig", "", "kubeconfig of a prod stack (beats $KUBECONFIG and the topology's kubeconfig:)")
	pf.StringVar(&g.context, "context", "", "kubeconfig context to use instead of its current-context")
	g.timeout = 10 * time.Second
	pf.Var(positiveDuration{&g.timeout}, "timeout", "one deadline for the whole read of a stack, shared by its stages (the target check, then the read)")
	_ = root.RegisterFlagCompletionFunc("context", completeContexts(a, g))
	g.profile = a.profile
	if g.profile == nil { // a root made outside Run (tests, docs)
		g.profile = &profiling{}
	}
	pf.StringVar(&g.profile.kind, "profile", "none", "write a profile of this run: none, cpu or heap (for go tool pprof), or trace (for go tool trace)")
	pf.StringVar(&g.profile.output, "profile-output", "profile.pprof", "the file --profile writes")
	_ = pf.MarkHidden("profile")
	_ = pf.MarkHidden("profile-output")
	root.SetVersionTemplate("nestor {{.Version}}\n")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		g.cfg = a.complete(g)
		return g.profile.start()
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
		newFleetCmd(a, g),
		newRBACCmd(a, g),
	)
	return root
}

// complete turns the global flags, the environment and the terminal into
// the one action.Config every command uses (kubectl's Complete): the
// stacks folder, $HOME, and whether nestor may prompt — not --no-input, not
// NESTOR_NO_INPUT, and both stdin and stderr are terminals (ARCHITECTURE.md "The target and its confirmation": with
// no TTY on stdin nestor behaves as --no-input and never waits). A command
// that may not prompt gets a Prompter that refuses every question.
func (a *App) complete(g *globals) action.Config {
	home, _ := a.Env("HOME")
	c := action.Config{
		Log: func(m string) { fmt.Fprintln(a.ErrOut, m) }, Env: a.Env, Home: home,
		StacksFlag: g.stacks, Stacks: stacks.Store{Dir: stacks.Dir(g.stacks, a.Env)},
		Kubeconfig: g.kubeconfig, Context: g.context, Timeout: g.timeout, AsOf: time.Now(),
		Exec: a.Run, UserAgent: UserAgent(),
		Interactive: true, Prompter: a.Prompter,
	}
	// The guard's view is drawn on stderr in its colour, but for the
	// record of an access proven, which is never coloured.
	logColor := a.colorFor(a.StderrTTY)
	c.ShowTarget = func(v probes.GuardView, part action.TargetPart) {
		views.Target(a.ErrOut, v, part, logColor && part != action.TargetProven)
	}
	if sp, ok := a.Prompter.(SurveyPrompter); ok {
		// The prompt is drawn on stderr: stderr's colour rule.
		sp.Color = a.colorFor(a.StderrTTY)
		c.Prompter = sp
	}
	switch {
	case g.noInput:
		return c.NoPrompt("--no-input was given")
	case envTrue(a.Env, "NESTOR_NO_INPUT"):
		return c.NoPrompt("NESTOR_NO_INPUT is set")
	case !a.StdinTTY || !a.StderrTTY || a.Prompter == nil:
		return c.NoPrompt("stdin or stderr is not a terminal")
	}
	return c
}

// color reports whether human output on stdout may use colour (colorFor).
func (a *App) color() bool { return a.colorFor(a.StdoutTTY) }

// colorFor reports whether a stream that is a terminal when tty may carry
// colour, by the de-facto conventions: never with NO_COLOR set to a
// non-empty value (no-color.org) nor with TERM=dumb (a terminal that draws
// no escape sequence); else always with CLICOLOR_FORCE (bixense.com/clicolors)
// or FORCE_COLOR (force-color.org) set to a value other than "", "0" or
// "false"; else only on a terminal.
func (a *App) colorFor(tty bool) bool {
	if v, ok := a.Env("NO_COLOR"); ok && v != "" {
		return false
	}
	if v, _ := a.Env("TERM"); v == "dumb" {
		return false
	}
	for _, name := range []string{"CLICOLOR_FORCE", "FORCE_COLOR"} {
		if v, ok := a.Env(name); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "", "0", "false":
			default:
				return true
			}
		}
	}
	return tty
}

// envTrue reports whether the variable name is set to a true word (1,
// true, yes, y, on; any case).
func envTrue(env func(string) (string, bool), name string) bool {
	v, ok := env(name)
	if !ok {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "y", "on":
		return true
	}
	return false
}

// interruptGrace is how long an interrupted command is given to return
// before Run reports the interrupt anyway (exit 130).
const interruptGrace = 500 * time.Millisecond

var quietKlogOnce sync.Once

// quietKlog silences client-go's own log (klog writes some read errors to
// stderr: "Unexpected error when reading response body"): nothing but
// nestor's own words reaches the operator, and what failed is in the
// report, unknown with its reason.
func quietKlog() {
	quietKlogOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	})
}
