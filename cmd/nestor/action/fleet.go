package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"nestor.dev/nestor/kube"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/stacks"
	"nestor.dev/nestor/topology"
	"nestor.dev/nestor/upgrade"
)

// FleetFormatVersion is the version of fleet's JSON document: 2 since a
// stack's status is one word of a fixed vocabulary ("changes", not "N
// changes") with the counts in fields of their own; 3 since each stack's
// report is preview's document of format version 2 (typed claims).
const FleetFormatVersion = 3

// The fleet's outcomes, its STATUS column: a report's (topology.Outcome:
// in sync, changes, waiting, unknown, no target), or why no report could be
// made.
const (
	OutcomeInSync      = topology.OutcomeInSync
	OutcomeChanges     = topology.OutcomeChanges
	OutcomeWaiting     = topology.OutcomeWaiting
	OutcomeUnknown     = topology.OutcomeUnknown
	OutcomeNoTarget    = topology.OutcomeNoTarget
	OutcomeRefused     = topology.Outcome("refused")
	OutcomeUnreachable = topology.Outcome("unreachable")
	OutcomeInvalid     = topology.Outcome("invalid")
)

// FleetReport is fleet's model: the JSON document and the source of the
// table.
type FleetReport struct {
	FormatVersion int `json:"format_version"`
	// AsOf is the date the support calendars were judged at (YYYY-MM-DD).
	AsOf   string       `json:"as_of"`
	Stacks []FleetStack `json:"stacks"`
}

// FleetStack is one stack's line: its outcome, why (every outcome but in
// sync), where it was read, its version and counts, and, when a report
// could be made, exactly preview's JSON document for it.
type FleetStack struct {
	Name       string              `json:"name"`
	File       string              `json:"file"`
	TargetKind topology.TargetKind `json:"target_kind,omitempty"`
	// Outcome is one word: in sync, changes, waiting, unknown, no target
	// (the report's, topology.Plan.Outcome), refused, unreachable, invalid
	// (no report could be made).
	Outcome topology.Outcome `json:"status"`
	// Reason says why the stack is not in sync: the changes by kind, what
	// the provider is moving, the parts not read, why nothing was read or
	// why no report could be made ("" in sync).
	Reason string `json:"reason,omitempty"`
	// Target says where the stack was read: the API server's endpoint,
	// "lima (N VMs)", or a managed cluster's name, region and id; for a
	// stack refused or unreachable, the endpoint it would have been read
	// from; "" when none is known.
	Target string `json:"target,omitempty"`
	// Version is the cluster's Kubernetes version as read: the API
	// server's, else the provider's ("" when unknown).
	Version string `json:"version,omitempty"`
	// Changes, Waiting and Unknown count the report's plan (null when no
	// report was made).
	Changes *int `json:"changes"`
	Waiting *int `json:"waiting"`
	Unknown *int `json:"unknown"`
	// Deadline is the stack's next hard date (Report.HardDate: the earliest
	// end of life of its minor, upstream or at the provider, the minor it
	// forces and the upgrade blockers counted before it); null when no
	// calendar gives one or no report was made.
	Deadline *upgrade.HardDate `json:"deadline"`
	// Headroom is the report's plan.headroom: how full a managed cluster
	// is against its offer's limits; null for a stack without an offer or
	// without a report.
	Headroom *topology.Headroom `json:"headroom"`
	// Report is preview's document for this stack (null when none).
	Report *Report `json:"report"`
	// Err is why there is no report, and Topology the stack's topology
	// when it loaded (the machine formats locate the error in it).
	Err      error              `json:"-"`
	Topology *topology.Topology `json:"-"`
}

// Fleet is `nestor fleet`: every stack of the stacks folder (or those
// named), previewed in parallel through the target pipeline, never with a
// prompt (the strict offline endpoint check of --no-input). One stack's
// failure is its own line.
type Fleet struct {
	Config
	// Names are the stacks of the folder to read, and Files topology files
	// anywhere on disk (-f); all the stacks of the folder when both are
	// empty.
	Names, Files []string
	// Parallel bounds how many stacks are read at once (default 8).
	Parallel int
	// Sort orders the stacks: FleetSortName (the default) or
	// FleetSortDeadline (the earliest next hard date first, then the most
	// blockers; stacks without one last, by name).
	Sort string
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
	c = c.ownKubeconfigs()
	c.Exec = onceLimactl(c.Exec)
	c.Log = once(c.Log)
	par := f.Parallel
	if par <= 0 {
		par = 8
	}
	out := make([]FleetStack, len(entries))
	sem := make(chan struct{}, par)
	// The topologies are parsed as their stacks are read, as many at once
	// as there are CPUs: a parse is all CPU (~2.5 ms for 500 nodes), so
	// more at once only delays them all; this way each stack's first
	// connection leaves as soon as its own parse is done, not after every
	// stack's, and the last stack still starts as early as when all are
	// parsed at once. The bench list, which every stack waits for before
	// connecting, is read first, in one of these slots.
	parsing := make(chan struct{}, runtime.GOMAXPROCS(0))
	c = c.prefetchBenches(parsing)
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
				out[i] = FleetStack{Name: e.Name, File: e.Path, Outcome: OutcomeUnknown, Reason: "not read: " + probes.StopWords(ctx.Err())}
				return
			}
			if e.Topology == nil && e.Err == nil {
				select {
				case parsing <- struct{}{}:
				case <-ctx.Done():
					out[i] = FleetStack{Name: e.Name, File: e.Path, Outcome: OutcomeUnknown, Reason: "not read: " + probes.StopWords(ctx.Err())}
					return
				}
				e.Load()
				<-parsing
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
		return nil, fmt.Errorf("fleet: %w", probes.Stopped(err))
	}
	if f.Sort == FleetSortDeadline {
		sort.SliceStable(out, func(i, j int) bool { return upgrade.CompareHardDates(out[i].Deadline, out[j].Deadline) < 0 })
	}
	return &FleetReport{FormatVersion: FleetFormatVersion, AsOf: f.AsOf.Format(time.DateOnly), Stacks: out}, nil
}

// The orders of fleet's stacks (Fleet.Sort).
const (
	FleetSortName     = "name"
	FleetSortDeadline = "deadline"
)

// ownKubeconfigs is c for a fleet: each stack is read through its own
// kubeconfig (the topology's kubeconfig:, or its kind's own file) and that
// file's current context, never through an exported KUBECONFIG or
// --kubeconfig — one cluster's, which every other stack's endpoint check
// would refuse — nor with --context, a name of one kubeconfig's contexts,
// which the other stacks' kubeconfigs do not share. It says so once on Log
// when any is set.
func (c Config) ownKubeconfigs() Config {
	c.ownOnly = true
	var ignored []string
	if c.Kubeconfig != "" {
		ignored = append(ignored, "--kubeconfig")
	}
	if c.Context != "" {
		ignored = append(ignored, "--context")
	}
	if v, ok := c.Env("KUBECONFIG"); ok && strings.Trim(v, string(filepath.ListSeparator)) != "" {
		ignored = append(ignored, "the exported KUBECONFIG")
	}
	if len(ignored) == 0 {
		return c
	}
	verb := "is"
	if len(ignored) > 1 {
		verb = "are"
	}
	c.logf("Note: fleet reads each stack through its own kubeconfig: (or its kind's own) and that file's current context; %s %s not used.", kube.JoinAnd(ignored), verb)
	env := c.Env
	c.Kubeconfig, c.Context = "", ""
	c.Env = func(k string) (string, bool) {
		if k == "KUBECONFIG" {
			return "", false
		}
		return env(k)
	}
	return c
}

// entries lists the stacks to read, sorted by name: those named and the
// files given, else every stack of the folder. Errors: the folder cannot
// be listed (when it is read), a name not in it, a file given that cannot
// be read at all (as a name not in the folder: nothing names a stack
// there, so it is not a line of the fleet), a name given twice. A file
// that is read but is not a valid topology is its stack's line, invalid.
func (f Fleet) entries() ([]stacks.Entry, error) {
	var all []stacks.Entry
	if len(f.Names) > 0 || len(f.Files) == 0 {
		var err error
		if all, err = f.Stacks.Files(); err != nil {
			return nil, err
		}
	}
	if len(f.Names) > 0 || len(f.Files) > 0 {
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
		for _, file := range f.Files {
			t, err := f.loadFile(file)
			var unread *fs.PathError
			if errors.As(err, &unread) {
				return nil, err
			}
			e := stacks.Entry{Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), Path: file, Topology: t, Err: err}
			if t != nil {
				e.Name = t.Name
			}
			picked = append(picked, e)
		}
		seen := map[string]bool{}
		for _, e := range picked {
			if seen[e.Name] {
				return nil, fmt.Errorf("stack %s is given twice: each stack is one line of the fleet", e.Name)
			}
			seen[e.Name] = true
		}
		all = picked
	}
	if len(all) == 0 {
		return nil, errors.New(f.NoStacks())
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

// fleetStack previews one stack and says its outcome; every failure is
// the stack's own outcome, never the fleet's error. e is loaded (Run parses
// the folder's files; entries, the files given).
func (c Config) fleetStack(ctx context.Context, e stacks.Entry) FleetStack {
	fs := FleetStack{Name: e.Name, File: e.Path}
	if abs, err := filepath.Abs(e.Path); err == nil {
		fs.File = abs
	}
	if e.Err != nil {
		fs.Outcome, fs.Reason, fs.Err = OutcomeInvalid, e.Err.Error(), e.Err
		return fs
	}
	fs.TargetKind, fs.Topology = e.Topology.TargetKind, e.Topology
	s, err := c.named(e.Topology, true)
	if err != nil {
		fs.Outcome, fs.Reason, fs.Err = OutcomeInvalid, err.Error(), err
		return fs
	}
	op, err := c.Open(ctx, s, OpenOptions{})
	defer op.Close()
	if err == nil {
		if fs.Report, err = ReadReport(ctx, s.Kind, op, c.AsOf); err == nil {
			fs.FromReport()
			return fs
		}
	}
	fs.Outcome, fs.Reason, fs.Err = fleetError(err), err.Error(), err
	fs.Target = errorTarget(err)
	return fs
}

// errorTarget is the TARGET of a stack that could not be read: the
// endpoint the error names (the server that did not answer, the one the
// endpoint check refused), "" when it names none.
func errorTarget(err error) string {
	var s probes.ServerError
	if errors.As(err, &s) {
		return s.Server()
	}
	return ""
}

// fleetError is the outcome of a stack the pipeline could not open or read:
// refused (the guard's offline check, the bench kubeconfig for prod),
// unreachable (the target did not answer, or the read ran out of time),
// invalid (the stack's files
// cannot be used: a kubeconfig that does not load, a flag that does not
// apply).
func fleetError(err error) topology.Outcome {
	var refusal probes.Refusal
	var unreachable *probes.UnreachableError
	switch {
	case errors.As(err, &refusal):
		return OutcomeRefused
	case errors.As(err, &unreachable), errors.Is(err, context.DeadlineExceeded):
		return OutcomeUnreachable
	}
	return OutcomeInvalid
}

// once says each distinct message to l once, from any goroutine: the
// warnings that do not depend on the stack (KUBECONFIG entries skipped)
// are said once per fleet run, not once per stack (nil stays nil).
func once(l Logger) Logger {
	if l == nil {
		return nil
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(message string) {
		mu.Lock()
		defer mu.Unlock()
		if !seen[message] {
			seen[message] = true
			l(message)
		}
	}
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

// ExitCode is fleet's --detailed-exitcode, from each stack's outcome
// (DetailedExitCode): 1 when any stack could not be judged (invalid,
// refused, unreachable, unknown parts, no target), else 2 when some need
// changes or are waiting, else 0 (all in sync).
func (r *FleetReport) ExitCode() int {
	code := ExitOK
	for _, s := range r.Stacks {
		switch c := DetailedExitCode(s.Outcome); c {
		case ExitError:
			return c
		case ExitChanges:
			code = c
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

// Summary counts the stacks by outcome, in one line: "3 stacks: 1 in sync,
// 1 need changes, 0 waiting; 1 refused".
func (r *FleetReport) Summary() string {
	var inSync, changes, waiting int
	other := map[topology.Outcome]int{}
	for _, s := range r.Stacks {
		switch s.Outcome {
		case OutcomeInSync:
			inSync++
		case OutcomeChanges:
			changes++
		case OutcomeWaiting:
			waiting++
		default:
			other[s.Outcome]++
		}
	}
	stacks := "stacks"
	if len(r.Stacks) == 1 {
		stacks = "stack"
	}
	// Not "read": a stack refused, unreachable or invalid was not.
	line := fmt.Sprintf("%d %s: %d in sync, %d need changes, %d waiting", len(r.Stacks), stacks, inSync, changes, waiting)
	var rest []string
	for _, st := range []topology.Outcome{OutcomeUnknown, OutcomeNoTarget, OutcomeUnreachable, OutcomeRefused, OutcomeInvalid} {
		if n := other[st]; n > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(rest) > 0 {
		line += "; " + strings.Join(rest, ", ")
	}
	return line
}

// fleetTarget is the TARGET column: where the stack was read.
func fleetTarget(r *Report) string {
	switch {
	case r.Actual.NoTarget:
		return ""
	case r.Actual.VMs != nil:
		// The stack's VMs are its target: named by its kind, counted when
		// they were listed.
		kind := string(r.Stack.TargetKind)
		if !r.Actual.VMs.Known {
			return kind
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
		return fmt.Sprintf("%s (%d VMs)", kind, n)
	case r.Target != nil && r.Target.Provider != nil:
		p := r.Target.Provider
		if k := r.Actual.Kapsule; k != nil && k.Cluster.Known {
			return fmt.Sprintf("%s (%s, %s)", k.Cluster.Value.Name, p.Region, p.ClusterID)
		}
		return p.Region + ", " + p.ClusterID
	case r.Target != nil && r.Target.Endpoint != "":
		return r.Target.Endpoint
	}
	return ""
}

// FromReport fills the stack's line from its Report: the outcome, its
// reason, where it was read, the version and the counts.
func (s *FleetStack) FromReport() {
	r := s.Report
	s.Outcome = r.Outcome()
	s.Reason = outcomeReason(r)
	s.Target = fleetTarget(r)
	s.Deadline = r.HardDate
	s.Headroom = r.Plan.Headroom
	if v, ok := r.ClusterVersion(); ok {
		s.Version = v.Canonical()
	}
	s.Changes, s.Waiting, s.Unknown = r.Counts()
}

// outcomeReason says why a report is not in sync, for its outcome: the
// changes by step kind (and what waits beside them), what the provider is
// moving, the parts of ACTUAL not read, or why nothing was; "" in sync.
func outcomeReason(r *Report) string {
	join := func(items []string) string {
		const max = 3
		if len(items) > max {
			return strings.Join(items[:max], "; ") + fmt.Sprintf("; … and %d more", len(items)-max)
		}
		return strings.Join(items, "; ")
	}
	switch r.Outcome() {
	case OutcomeNoTarget:
		return r.Actual.NoTargetReason
	case OutcomeUnknown:
		return "not read: " + join(GroupUnknowns(r.Plan.Unknowns))
	case OutcomeChanges:
		reason := r.Summary.ByKindText()
		if len(r.Plan.Waiting) > 0 {
			reason += "; waiting: " + join(topology.Texts(r.Plan.Waiting))
		}
		return reason
	case OutcomeWaiting:
		return "waiting: " + join(topology.Texts(r.Plan.Waiting))
	}
	return ""
}
