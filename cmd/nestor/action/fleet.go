package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
)

// FleetFormatVersion is the version of fleet's JSON document.
const FleetFormatVersion = 1

// The fleet statuses: one fixed word (or "N changes") per stack.
const (
	StatusInSync      = "in sync"
	StatusWaiting     = "waiting"
	StatusUnknown     = "unknown"
	StatusNoTarget    = "no target"
	StatusRefused     = "refused"
	StatusUnreachable = "unreachable"
	StatusInvalid     = "invalid"
)

// FleetReport is fleet's model: the JSON document and the source of the
// table.
type FleetReport struct {
	FormatVersion int `json:"format_version"`
	// AsOf is the date the support calendars were judged at (YYYY-MM-DD).
	AsOf   string       `json:"as_of"`
	Stacks []FleetStack `json:"stacks"`
}

// FleetStack is one stack's line: its status and, when a report could be
// made, exactly preview's JSON document for it.
type FleetStack struct {
	Name       string              `json:"name"`
	File       string              `json:"file"`
	TargetKind topology.TargetKind `json:"target_kind,omitempty"`
	// Status is one of the Status words, or "N changes".
	Status string `json:"status"`
	// Reason says why a stack could not be judged ("" otherwise).
	Reason string `json:"reason,omitempty"`
	// Report is preview's document for this stack (null when none).
	Report *Report `json:"report"`
	// err is why there is no report, and topo the stack's topology when
	// it loaded (the machine formats locate the error in it).
	err  error
	topo *topology.Topology
}

// Fleet is `nestor fleet`: every stack of the stacks folder (or those
// named), previewed in parallel through the target pipeline, never with a
// prompt (the strict offline endpoint check of --no-input). One stack's
// failure is its own line.
type Fleet struct {
	Config
	// Names are the stacks to read (all of the folder when empty).
	Names []string
	// Parallel bounds how many stacks are read at once (default 8).
	Parallel int
	// Progress, when set, is called after each stack is read with the
	// number read and the total (a terminal's progress line).
	Progress func(done, total int)
}

// Run reads the fleet. It returns the report sorted by stack name.
// Errors: the stacks folder cannot be listed; it holds no stack; a named
// stack is not in it; ctx ended.
func (f Fleet) Run(ctx context.Context) (*FleetReport, error) {
	entries, err := f.entries()
	if err != nil {
		return nil, err
	}
	c := f.Config.NoPrompt("nestor fleet never prompts: each stack's endpoint is checked against its endpoint:")
	c.Exec = onceLimactl(c.Exec)
	if c.Log != nil {
		c.Log = &onceLines{w: c.Log, seen: map[string]bool{}}
	}
	benches := c.readBenches()
	c.benchList = &benches
	par := f.Parallel
	if par <= 0 {
		par = 8
	}
	out := make([]FleetStack, len(entries))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, e := range entries {
		wg.Add(1)
		go func(i int, e stacks.Entry) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				out[i] = FleetStack{Name: e.Name, File: e.Path, Status: StatusUnknown, Reason: ctx.Err().Error()}
				return
			}
			out[i] = c.fleetStack(ctx, e)
			mu.Lock()
			done++
			if f.Progress != nil {
				f.Progress(done, len(entries))
			}
			mu.Unlock()
		}(i, e)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &FleetReport{FormatVersion: FleetFormatVersion, AsOf: f.AsOf.Format(time.DateOnly), Stacks: out}, nil
}

// entries lists the stacks to read, sorted by name.
func (f Fleet) entries() ([]stacks.Entry, error) {
	all, err := f.Stacks.List()
	if err != nil {
		return nil, err
	}
	if len(f.Names) > 0 {
		byName := map[string]stacks.Entry{}
		for _, e := range all {
			byName[e.Name] = e
		}
		var picked []stacks.Entry
		for _, n := range f.Names {
			e, ok := byName[n]
			if !ok {
				return nil, fmt.Errorf("no stack %q in %s (stacks: %s)", n, f.Stacks.Dir, entryNames(all))
			}
			picked = append(picked, e)
		}
		all = picked
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no stacks in %s: write NAME.yaml there (see stacks/examples/)", f.Stacks.Dir)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

func entryNames(es []stacks.Entry) string {
	if len(es) == 0 {
		return "none"
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

// fleetStack previews one stack and says its status; every failure is
// the stack's own status, never the fleet's error.
func (c Config) fleetStack(ctx context.Context, e stacks.Entry) FleetStack {
	fs := FleetStack{Name: e.Name, File: e.Path}
	if abs, err := filepath.Abs(e.Path); err == nil {
		fs.File = abs
	}
	if e.Err != nil {
		fs.Status, fs.Reason, fs.err = StatusInvalid, e.Err.Error(), e.Err
		return fs
	}
	s := c.named(e.Topology, true)
	fs.TargetKind, fs.topo = s.TargetKind, e.Topology
	op, err := c.Open(ctx, s, OpenOptions{})
	if err == nil {
		var obs *topology.Observed
		if obs, _, err = op.Read(ctx, probes.ReadAll); err == nil {
			fs.Report = NewReport(op, obs, c.Home, c.AsOf)
			fs.Status = fleetStatus(fs.Report)
			if fs.Status == StatusNoTarget {
				fs.Reason = obs.NoTargetReason
			}
			return fs
		}
	}
	fs.Status, fs.Reason, fs.err = fleetError(err), err.Error(), err
	return fs
}

// fleetStatus is the status of a stack whose report was made.
func fleetStatus(r *Report) string {
	switch {
	case r.Actual.NoTarget:
		return StatusNoTarget
	case r.Summary.Unknown > 0 || r.Plan.Unverified:
		return StatusUnknown
	case r.Summary.Changes > 0:
		return fmt.Sprintf("%d changes", r.Summary.Changes)
	}
	return StatusInSync
}

// fleetError is the status of a stack the pipeline could not open or read:
// refused (the guard's offline check, the bench kubeconfig for prod),
// unreachable (the target did not answer, or the read ran out of time),
// invalid (the stack's files cannot be used: a kubeconfig that does not
// load, a flag that does not apply).
func fleetError(err error) string {
	var missing *probes.MissingEndpointError
	var mismatch *probes.EndpointMismatchError
	var bench *probes.BenchKubeconfigError
	var unreachable *probes.UnreachableError
	switch {
	case errors.As(err, &missing), errors.As(err, &mismatch), errors.As(err, &bench):
		return StatusRefused
	case errors.As(err, &unreachable), errors.Is(err, context.DeadlineExceeded):
		return StatusUnreachable
	}
	return StatusInvalid
}

// onceLines writes each distinct message to w once, from any goroutine:
// the warnings that do not depend on the stack (KUBECONFIG entries
// skipped) are said once per fleet run, not once per stack. A message is
// one Write call (every warning is one Fprintf).
type onceLines struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
}

func (o *onceLines) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen[string(p)] {
		return len(p), nil
	}
	o.seen[string(p)] = true
	return o.w.Write(p)
}

// onceLimactl runs `limactl list --json` once for all the lima stacks of
// one fleet run (its answer does not depend on the stack); every other
// program is run as run would.
func onceLimactl(run probes.Runner) probes.Runner {
	if run == nil {
		run = probes.ExecRunner
	}
	var once sync.Once
	var out, errOut []byte
	var err error
	return func(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
		if name != "limactl" || strings.Join(args, " ") != "list --json" {
			return run(ctx, name, args...)
		}
		once.Do(func() { out, errOut, err = run(ctx, name, args...) })
		return out, errOut, err
	}
}

// ExitCode is fleet's --detailed-exitcode: 1 when any stack could not be
// judged (invalid, refused, unreachable, unknown parts, no target), else 2
// when some need changes or are waiting, else 0 (all in sync).
func (r *FleetReport) ExitCode() int {
	code := ExitOK
	for _, s := range r.Stacks {
		switch {
		case s.Status == StatusInSync:
		case s.Status == StatusWaiting || strings.HasSuffix(s.Status, " changes"):
			code = ExitChanges
		default:
			return ExitError
		}
	}
	return code
}

// FailOn is fleet's --fail-on over all stacks: ExitFindings when any
// stack's report has a finding of severity min or worse.
func (r *FleetReport) FailOn(min topology.Severity) int {
	for _, s := range r.Stacks {
		if s.Report != nil && s.Report.FailOn(min) != ExitOK {
			return ExitFindings
		}
	}
	return ExitOK
}

// summary counts the stacks by status, in one line.
func (r *FleetReport) summary() string {
	var inSync, changes, waiting int
	other := map[string]int{}
	for _, s := range r.Stacks {
		switch {
		case s.Status == StatusInSync:
			inSync++
		case strings.HasSuffix(s.Status, " changes"):
			changes++
		case s.Status == StatusWaiting:
			waiting++
		default:
			other[s.Status]++
		}
	}
	stacks := "stacks"
	if len(r.Stacks) == 1 {
		stacks = "stack"
	}
	line := fmt.Sprintf("%d %s read, %d in sync, %d need changes, %d waiting", len(r.Stacks), stacks, inSync, changes, waiting)
	var rest []string
	for _, st := range []string{StatusUnknown, StatusNoTarget, StatusUnreachable, StatusRefused, StatusInvalid} {
		if n := other[st]; n > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(rest) > 0 {
		line += "; " + strings.Join(rest, ", ")
	}
	return line
}

// WriteText writes the fleet table, one line per stack, then the summary;
// detailed adds each stack's plan (or why there is none) under its line.
func (r *FleetReport) WriteText(w io.Writer, detailed bool) error {
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STACK\tKIND\tTARGET\tSTATUS\tVERSION\tSUPPORT\tCHANGES\tUNKNOWN")
	asOf, _ := time.Parse(time.DateOnly, r.AsOf)
	estimated := false
	for _, s := range r.Stacks {
		kind := string(s.TargetKind)
		if kind == "" {
			kind = "-"
		}
		target, version, support, changes, unknown := "-", "-", "-", "-", "-"
		if s.Report != nil {
			target = fleetTarget(s.Report)
			if v := s.Report.Actual.Versions; v.Known {
				version = v.Value.APIServer.Canonical()
				support = SupportText(v.Value.APIServer, asOf, true)
				estimated = estimated || strings.HasSuffix(support, "*")
			}
			if !s.Report.Actual.NoTarget {
				changes = fmt.Sprint(s.Report.Summary.Changes)
				unknown = fmt.Sprint(s.Report.Summary.Unknown)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, kind, target, s.Status, version, support, changes, unknown)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
	fmt.Fprintln(w, lines[0])
	for i, s := range r.Stacks {
		fmt.Fprintln(w, lines[i+1])
		if !detailed {
			continue
		}
		if s.Report == nil {
			fmt.Fprintf(w, "    %s\n", s.Reason)
			continue
		}
		var b strings.Builder
		renderPlan(&b, s.Report, newPalette(false))
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	summary := r.summary()
	if estimated {
		summary += "   (* estimated date)"
	}
	_, err := fmt.Fprintln(w, summary)
	return err
}

// fleetTarget is the TARGET column: where the stack was read.
func fleetTarget(r *Report) string {
	switch {
	case r.Actual.NoTarget:
		return "-"
	case r.Stack.TargetKind == topology.TargetLima:
		if r.Actual.VMs == nil || !r.Actual.VMs.Known {
			return "lima"
		}
		// limactl lists every instance of the machine: count this stack's.
		declared := map[string]bool{}
		for _, n := range r.Desired.Nodes {
			declared[n.Name] = true
		}
		n := 0
		for _, vm := range r.Actual.VMs.Value {
			if declared[vm.Name] {
				n++
			}
		}
		return fmt.Sprintf("lima (%d VMs)", n)
	case r.Target != nil && r.Target.Endpoint != "":
		return r.Target.Endpoint
	}
	return "-"
}
