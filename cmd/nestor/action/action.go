// Package action is the work of nestor's commands, without the command
// line: one type per command (Preview, Discover, Fetch, Next, Env,
// StackSelect, StackList, StackShow) whose Run returns the command's report
// model. It draws no view of a model: the human views are package views',
// the machine formats package formats'. It imports neither cobra nor
// survey: package app parses the flags, completes a Config once, calls Run
// and writes the model in the format asked for.
//
// Every action that reads a cluster opens it through the one target
// pipeline (Config.Open → probes.Open → Opened.Read).
package action

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// Exit codes every command shares (README "Exit codes").
const (
	ExitOK          = 0
	ExitError       = 1
	ExitChanges     = 2
	ExitFindings    = 3
	ExitInterrupted = 130
)

// SilentError ends a command with Code after the command already said
// everything it had to say (a report printed, a refusal explained).
type SilentError struct{ Code int }

func (e SilentError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Prompter asks the operator a question. Config.Prompter is one that
// refuses every question when the command may not prompt, so a forgotten
// check can never open a prompt in CI.
type Prompter interface {
	// Confirm asks a yes/no question; def is the answer on a bare Enter.
	Confirm(message string, def bool) (bool, error)
}

// Refusing is the Prompter of a command that must not prompt: every
// question is an error that names the question and Why.
type Refusing struct{ Why string }

// Confirm implements Prompter.
func (r Refusing) Confirm(message string, _ bool) (bool, error) {
	return false, fmt.Errorf("cannot ask %q: %s", message, r.Why)
}

// Logger receives one message for the operator: a note, a warning, the
// context of a question, what a command did, without a trailing newline (a
// message may hold several lines; the reads' progress goes to
// Config.Progress). The command line writes each on standard error,
// as Helm's action configuration logs through a function and never prints.
type Logger func(message string)

// logf says the message format and args make on c.Log, when set.
func (c Config) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(fmt.Sprintf(format, args...))
	}
}

// Config is what every action needs from the process, completed once
// before any command runs and never changed afterwards.
type Config struct {
	// Log receives notes, warnings, prompts' context and what a command
	// did, one message per call (nil drops them).
	Log Logger
	// ShowTarget, when set, shows part of the guard's view of the target
	// to the operator (the command line draws it on standard error): Open's
	// before any request and before the question, discover --cp's once
	// access is proven without one.
	ShowTarget func(v probes.GuardView, part TargetPart)
	// Env looks up environment variables; Home is $HOME ("" when unset).
	Env  probes.Env
	Home string
	// StacksFlag is --stacks as given ("" when not given); Stacks is the
	// stacks folder chosen (--stacks, else $NESTOR_STACKS, else ./stacks).
	StacksFlag string
	Stacks     stacks.Store
	// Kubeconfig and Context are --kubeconfig and --context.
	Kubeconfig, Context string
	// Timeout bounds each read of a cluster (--timeout).
	Timeout time.Duration
	// AsOf is the day the support calendars are judged at (--as-of, else
	// today).
	AsOf time.Time
	// Interactive says the operator may be asked: not --no-input, not
	// NESTOR_NO_INPUT, stdin and stderr terminals, and not a machine output
	// format. Prompter refuses every question when it is false.
	Interactive bool
	Prompter    Prompter
	// Exec runs external programs (limactl, ssh).
	Exec probes.Runner
	// UserAgent is sent with every API request ("nestor/<version>").
	UserAgent string
	// benchList, when set, waits for the lima stacks' bench kubeconfigs
	// that prefetchBenches started reading (once per command, however many
	// stacks it opens).
	benchList func() []probes.Bench

	// Progress, when set, is told what is being read (a terminal's
	// progress line); nil for machine output and without a terminal.
	// Progress("", -1) says the reads paused for the operator (the guard
	// shows the target and asks): the line must be erased.
	Progress func(resource string, items int)
	// ownOnly: each stack is read through its own kubeconfig: only
	// (fleet's ownKubeconfigs).
	ownOnly bool
}

// NoPrompt returns a copy of c that may not prompt (a machine output
// format asks no question): Interactive false, a refusing Prompter.
func (c Config) NoPrompt(why string) Config {
	c.Interactive = false
	c.Prompter = Refusing{Why: why}
	return c
}

// Selection is how a command chose its stack: -f FILE, --stack NAME, else
// the active stack of the stacks folder.
type Selection struct {
	File, Stack string
}

// Stack is a loaded topology and how it was chosen, so that the commands
// nestor suggests act on the same stack.
type Stack struct {
	*topology.Topology
	// Kind is the stack's target kind (KindOf), through which it is read.
	Kind probes.Kind
	// flags are the command-line words that choose this stack again
	// ("-f FILE", "--stack NAME --stacks DIR", "" for the active stack).
	flags string
}

// Suggest returns the nestor command line of sub (e.g. "next", "discover
// --cp dirqual1") for this stack.
func (s *Stack) Suggest(sub string) string {
	if s == nil || s.flags == "" {
		return "nestor " + sub
	}
	return "nestor " + sub + " " + s.flags
}

// LoadStack loads the topology sel chooses. Errors: both -f and --stack;
// no active stack; the topology's load error (file:line:col and the fix);
// a target_kind this build does not implement (KindOf).
func (c Config) LoadStack(sel Selection) (*Stack, error) {
	if sel.File != "" && sel.Stack != "" {
		return nil, fmt.Errorf("use either -f FILE or --stack NAME, not both")
	}
	if sel.File != "" {
		t, err := c.loadFile(sel.File)
		if err != nil {
			return nil, err
		}
		k, err := KindOf(t)
		if err != nil {
			return nil, err
		}
		return &Stack{Topology: t, Kind: k, flags: "-f " + ShellQuote("sh", sel.File)}, nil
	}
	name := sel.Stack
	if name == "" {
		n, err := c.Stacks.Active()
		if err != nil {
			if errors.Is(err, stacks.ErrNoActive) {
				if _, _, ok := c.Stacks.Examples(); ok {
					return nil, fmt.Errorf("%w (or pass --stack NAME or -f FILE). %s", err, c.NoStacks())
				}
				return nil, fmt.Errorf("%w (or pass --stack NAME or -f FILE)", err)
			}
			return nil, err
		}
		name = n
	}
	t, err := c.Stacks.Load(name)
	if err != nil {
		return nil, err
	}
	c.warnTopology(t)
	return c.named(t, sel.Stack != "")
}

// loadFile loads the topology file at path given with -f, its load
// warnings written on Log: a name: other than the file's base name is one
// of them (stacks.LoadFile), unless the file is in the stacks folder,
// where a stack is found by its name and the two must agree.
func (c Config) loadFile(path string) (*topology.Topology, error) {
	load := stacks.LoadFile // anywhere on disk: another name is a warning
	if canonicalDir(filepath.Dir(path)) == canonicalDir(c.Stacks.Dir) {
		load = stacks.Load // a stack of the folder is found by its name
	}
	t, err := load(path)
	if err != nil {
		return nil, err
	}
	c.warnTopology(t)
	return t, nil
}

// warnTopology says the topology's load warnings on Log.
func (c Config) warnTopology(t *topology.Topology) {
	for _, w := range t.Warnings {
		c.logf("Warning: %s", w)
	}
}

// named is t chosen by name (withName) or as the active stack. Errors: as
// KindOf.
func (c Config) named(t *topology.Topology, withName bool) (*Stack, error) {
	k, err := KindOf(t)
	if err != nil {
		return nil, err
	}
	var words []string
	if withName {
		words = append(words, "--stack "+t.Name)
	}
	if c.StacksFlag != "" {
		words = append(words, "--stacks "+ShellQuote("sh", c.StacksFlag))
	}
	return &Stack{Topology: t, Kind: k, flags: strings.Join(words, " ")}, nil
}

// ShellQuote quotes s for a POSIX shell or fish as a single-quoted word.
func ShellQuote(shell, s string) string {
	if shell == "fish" {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FirstControlPlane names the first declared control-plane node, for the
// commands nestor suggests ("NODE" when none is declared).
func FirstControlPlane(t *topology.Topology) string { return probes.FirstControlPlane(t) }

// TargetPart is which part of the guard's view of the target
// Config.ShowTarget shows.
type TargetPart int

const (
	// TargetOffline is what is known without a request: the endpoint and
	// how it compares with endpoint:, the context, the kubeconfig and its
	// rule. Open shows it before any request.
	TargetOffline TargetPart = iota
	// TargetRead is what the guard read: the server version and the
	// nodes. Open shows it after TargetOffline, before the question.
	TargetRead
	// TargetWhole is both parts, or a managed cluster as its provider
	// describes it. Open shows it before the question when TargetOffline
	// was not shown.
	TargetWhole
	// TargetProven is the whole target read back through a kubeconfig
	// discover --cp wrote, shown without a question: the record of the
	// access it proved.
	TargetProven
)

// show shows part of v through ShowTarget, when set.
func (c Config) show(v probes.GuardView, part TargetPart) {
	if c.ShowTarget != nil {
		c.ShowTarget(v, part)
	}
}

// OpenOptions adjust Config.Open for one call.
type OpenOptions struct {
	// Kubeconfig replaces the resolution rules (discover --cp reads back
	// the file it wrote).
	Kubeconfig *probes.Kubeconfig
	// Wrote names a file the command already wrote before the guard ran,
	// so a "not confirmed" says the truth about it ("" for none).
	Wrote string
}

// Open opens the target of s through the one target pipeline
// (probes.Open) with c's settings: the bench kubeconfigs of the stacks
// folder are refused for prod, the interactive guard shows the target
// (ShowTarget) and asks through Prompter, a stack with no target gets the command
// that gives it one. Errors are the pipeline's, in words for the operator:
// the offline check's refusals name both endpoints and what to fix; No at
// the prompt says so on Log and returns SilentError{ExitError}.
func (c Config) Open(ctx context.Context, s *Stack, o OpenOptions) (*probes.Opened, error) {
	shown := "" // the endpoint the prompt showed
	offline := false
	contacted := true // false when No was answered before any request
	po := c.pipelineOptions(s, o)
	po.Show = func(v probes.GuardView) {
		// Before any request: the endpoint and how it compares, so a
		// mismatch is said even when the target then does not answer.
		if c.Progress != nil {
			c.Progress("", -1)
		}
		c.show(v, TargetOffline)
		offline = true
	}
	po.Contact = func(v probes.GuardView) (bool, error) {
		// The offline view above says the endpoint is not the stack's:
		// nothing is sent to it unless the operator says so.
		shown = v.Target.Endpoint
		yes, err := c.Prompter.Confirm(fmt.Sprintf("%s is not the endpoint of stack %s. Send it the requests that show its version and nodes?", v.Target.Endpoint, s.Name), false)
		contacted = yes
		return yes, err
	}
	po.Confirm = func(v probes.GuardView) (bool, error) {
		if c.Progress != nil {
			c.Progress("", -1)
		}
		switch {
		case v.Provider != nil && v.Provider.Cluster.Known:
			shown = "cluster " + v.Provider.Cluster.Value.Name + " (" + v.Provider.Cluster.Value.URL + ")"
		case v.Target != nil:
			shown = v.Target.Endpoint
		}
		if offline && v.Provider == nil {
			c.show(v, TargetRead)
		} else {
			c.show(v, TargetWhole)
		}
		return c.Prompter.Confirm(fmt.Sprintf("Is this the stack %s?", s.Name), false)
	}
	op, err := probes.Open(ctx, s.Kind, s.Topology, po)
	if op != nil {
		c.warn(op.Kubeconfig)
	}
	if err == nil {
		return op, nil
	}
	var missing *probes.MissingEndpointError
	var mismatch *probes.EndpointMismatchError
	switch {
	case errors.Is(err, probes.ErrNotConfirmed) && !contacted:
		c.notContacted(shown, o.Wrote)
		return nil, SilentError{Code: ExitError}
	case errors.Is(err, probes.ErrNotConfirmed):
		c.notConfirmed(shown, o.Wrote)
		return nil, SilentError{Code: ExitError}
	case errors.As(err, &missing):
		return nil, explained(err, "prod stack %s declares no endpoint:, so a run without a prompt (--no-input, NESTOR_NO_INPUT, -o json, or stdin not a terminal) cannot check its target; "+
			"if %s is this stack's API server, add this line to %s:\n  %s",
			s.Name, missing.Actual, s.Path, missing.Line)
	case errors.As(err, &mismatch):
		fix := "Point the kubeconfig at the stack's API server, or fix endpoint: in the topology."
		if mismatch.Kubeconfig.Source == probes.SourceEnv {
			fix = "The exported KUBECONFIG names another cluster: unset it (or pass --kubeconfig with this stack's), or fix endpoint: in the topology."
		}
		return nil, explained(err, "refusing: the target is not stack %s\n  target endpoint:   %s (context %s, kubeconfig %s, from %s)\n  declared endpoint: %s (%s)\nNothing was sent to the target. %s",
			s.Name, mismatch.Actual, mismatch.Context, strings.Join(mismatch.Kubeconfig.Paths, ":"), probes.SourceText(mismatch.Kubeconfig), mismatch.Declared, mismatch.File, fix)
	}
	return op, err // op is what was opened when the guard's read failed
}

// Resolve says which kubeconfig stack s is read through, without opening
// it (probes.Resolve with c's settings): the Kubeconfig, or a *NoTarget
// with the command that gives s a target.
func (c Config) Resolve(s *Stack) (probes.Kubeconfig, *probes.NoTarget, error) {
	kc, none, err := probes.Resolve(s.Kind, s.Topology, c.pipelineOptions(s, OpenOptions{}))
	c.warn(kc)
	return kc, none, err
}

// warn says on Log what the kubeconfig rules skipped (kubectl's rules for
// a KUBECONFIG list: missing and empty entries).
func (c Config) warn(kc probes.Kubeconfig) {
	for _, w := range kc.Warnings {
		c.logf("Warning: %s", w)
	}
}

// pipelineOptions are the pipeline's options for stack s: c's settings,
// the bench kubeconfigs to refuse, the fix of a missing target.
func (c Config) pipelineOptions(s *Stack, o OpenOptions) probes.OpenOptions {
	return probes.OpenOptions{
		KubeconfigFlag: c.Kubeconfig, Kubeconfig: o.Kubeconfig, Context: c.Context, OwnKubeconfigOnly: c.ownOnly,
		Env: c.Env, Home: c.Home, UserAgent: c.UserAgent, Timeout: c.Timeout, Progress: c.Progress,
		Interactive: c.Interactive, Run: c.Exec, Benches: c.benches,
		Fix: func(n *probes.NoTarget) string { return noTargetFix(s, n) },
	}
}

// explainedError is an error of the pipeline told in the operator's words;
// errors.As still finds the pipeline's typed error behind it.
type explainedError struct {
	msg string
	err error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.err }

func explained(err error, format string, args ...any) error {
	return &explainedError{msg: fmt.Sprintf(format, args...), err: err}
}

// notContacted says that the operator declined a target whose endpoint
// is not the stack's before anything was sent to it.
func (c Config) notContacted(endpoint, wrote string) {
	if wrote == "" {
		c.logf("Not confirmed: nothing was sent to %s; nothing was written.", endpoint)
		return
	}
	c.logf("Not confirmed: nothing was sent to %s; %s stays written, nothing else was.", endpoint, wrote)
}

func (c Config) notConfirmed(endpoint, wrote string) {
	what := "the target"
	if endpoint != "" {
		what = endpoint
	}
	if wrote == "" {
		c.logf("Not confirmed: stopped before reading anything more of %s; nothing was written.", what)
		return
	}
	c.logf("Not confirmed: stopped before reading anything more of %s; %s stays written, nothing else was.", what, wrote)
}

// noTargetFix is the command that gives stack s a target.
func noTargetFix(s *Stack, n *probes.NoTarget) string {
	fetch := probes.FetchCommand(s.Topology, s.Suggest)
	switch n.Kind {
	case probes.NoKubeconfig:
		return fmt.Sprintf("add `kubeconfig: ~/.kube/%s.config` (`nestor stack select %s` offers it), then fetch it with %s", s.Name, s.Name, fetch)
	case probes.KubeconfigMissing:
		return "fetch it from the control plane with " + fetch
	}
	return "" // the bench: preview's hint and next say what runs
}

// benches lists the bench kubeconfigs of the lima stacks of the stacks
// folder (none when it cannot be listed: no bench to mistake then); the
// pipeline asks for them only when a stack is about to be read through a
// kubeconfig that is not its own bench. After prefetchBenches (preview,
// fleet) it waits for the list being read since the command started,
// needed or not; otherwise it reads it now.
func (c Config) benches() []probes.Bench {
	if c.benchList != nil {
		return c.benchList()
	}
	return c.readBenches()
}

// prefetchBenches returns c with the bench kubeconfigs being read in the
// background from now on, while the command parses its own topology (the
// list reads every stack file of the folder: ~1–2 ms for 32 files of 500
// nodes), so that the read of the target is not delayed by it; every stack
// the returned Config opens shares the one list. slots, when not nil, is
// the command's parse slots (a buffered channel, one per CPU): the read
// holds one while it runs, as a parse does. Every stack waits for this
// list before its first connection, so it must not queue behind the
// parses for a CPU: on two CPUs, two parses running leave it waiting for
// the scheduler's 10 ms time slice after each file it reads (measured:
// 0–18 ms added to a 32-stack fleet's first connection).
func (c Config) prefetchBenches(slots chan struct{}) Config {
	ch := make(chan []probes.Bench, 1)
	if slots != nil {
		slots <- struct{}{}
	}
	go func() {
		if slots != nil {
			defer func() { <-slots }()
		}
		ch <- c.readBenches()
	}()
	c.benchList = sync.OnceValue(func() []probes.Bench { return <-ch })
	return c
}

// Contexts lists the contexts defined by the kubeconfig the stack sel
// chooses would be read through (probes.ContextNames: the files only, read
// as they are, nothing sent): --kubeconfig, else KUBECONFIG, else the
// stack's kubeconfig: — or, when no stack loads, --kubeconfig or
// KUBECONFIG alone. It is nil when there is none or a file cannot be read
// (a shell completion has nowhere to say why).
func (c Config) Contexts(sel Selection) []string {
	var kc probes.Kubeconfig
	if s, err := c.LoadStack(sel); err == nil {
		if kc, _, err = c.Resolve(s); err != nil {
			return nil
		}
	} else {
		k, err := probes.ResolveKubeconfig(probes.ResolveOptions{Flag: c.Kubeconfig, Env: c.Env, Home: c.Home})
		if err != nil {
			return nil
		}
		kc = k
	}
	names, err := probes.ContextNames(kc)
	if err != nil {
		return nil
	}
	return names
}
