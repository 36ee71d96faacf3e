package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/views"
)

func newFleetCmd(a *App, g *globals) *cobra.Command {
	out := newOutputFlag("text", append(reportFormats, documentFormats...)...)
	var detailed, detailedExit bool
	parallel := defaultFleetParallel(openFileLimit())
	sortBy := action.FleetSortName
	var names, files []string
	var judge *judgeFlags
	cmd := &cobra.Command{
		Use:   "fleet [NAME...]",
		Short: "Preview every stack at once, one line each (never prompts)",
		Long: `fleet previews every stack of the stacks folder (or the NAMEs given, each
also as --stack NAME, and the files given with -f FILE) in
parallel, through the same pipeline as preview, and prints one line per stack:
its kind, where it was read, its status, its version, and how many changes,
waiting objects and unknown parts its plan has. It never prompts: each stack's target
is checked against its endpoint: as with --no-input, so a stack without
endpoint: is "refused" on its line. One stack's failure never stops the others.

STATUS is one word: in sync, changes, waiting (the provider is moving objects),
unknown (parts of ACTUAL could not be read), no target (nothing to read it with:
no kubeconfig, no provider credentials anywhere), refused (the offline
endpoint check, the bench kubeconfig refusal, another cluster's identity),
unreachable (the target did not answer within --timeout), invalid (the topology
or its kubeconfig cannot be used); CHANGES, WAITING and UNKNOWN count the plan.
--detailed prints each stack's plan, or why it has none, under its line.

Each stack is read through its own kubeconfig: (or its kind's own file) and
that file's current context: an exported KUBECONFIG or --kubeconfig names one
cluster, and --context one of its contexts, so fleet uses none of them, and
says so once on stderr. TARGET is where the stack was read, or the endpoint it
would have been read from when it is refused or unreachable.

-o json prints {format_version: 3, as_of, stacks: [{name, file, target_kind,
status, reason, target, version, changes, waiting, unknown, deadline, headroom, report}]}, where
report is exactly preview -o json's document (null when none could be made).

SUPPORT is where the API server's minor stands in the upstream support calendar
(judged today, or at --as-of; * marks an estimated date). DEADLINE is the
stack's next hard date: the earliest end of life of its minor, upstream or at
the provider ("forced": the provider moves the cluster that day), the minor it
moves to, and, once the upgrade report for that minor is due, how many findings
of warning or worse stand before it (removed APIs served, deprecated calls,
layers outside their supported range). --sort deadline lists the earliest first.
HEADROOM is a managed cluster's fullest node figure and its etcd, each as a
share of its cluster type's limits ("nodes 6%, etcd ?": ? not known, - no offer).

Exit codes: 0 the table was printed; 1 nothing to read (no stacks folder, no
stack, an unknown NAME, a FILE that cannot be read). With --detailed-exitcode: 0 all in sync, 2 some need
changes or are waiting and none failed, 1 any stack could not be judged.
--fail-on warning|error: 3 when any stack has a finding of that severity or worse.`,
		Example: `  nestor fleet
  nestor fleet dirqual bench --detailed
  nestor fleet -f stacks/examples/dirqual.yaml -f stacks/examples/bench.yaml
  nestor fleet -o json --detailed-exitcode
  nestor fleet --sort deadline`,
		ValidArgsFunction: completeStacks(a, g, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.checkFile(); err != nil {
				return err
			}
			c, err := judge.apply(g.cfg)
			if err != nil {
				return err
			}
			f := action.Fleet{Config: c, Names: append(args, names...), Files: files, Parallel: parallel, Sort: sortBy}
			progress := a.newProgress(out.machine())
			if progress != nil {
				f.Progress = func(done, total int) { progress.set(fmt.Sprintf("%d/%d stacks read…", done, total)) }
			}
			r, err := f.Run(cmd.Context())
			progress.done()
			if err != nil {
				fail := action.NewFailure(nil, err)
				fail.Command = "fleet"
				return errors.Join(err, out.emitFailure(a, fail))
			}
			if err := out.emit(a, r, func(w io.Writer) error { return views.Fleet(w, r, detailed) }); err != nil {
				return err
			}
			if code := r.ExitCode(); detailedExit && code != action.ExitOK {
				return action.SilentError{Code: code}
			}
			if code := r.FailOn(judge.severity()); code != action.ExitOK {
				return action.SilentError{Code: code}
			}
			return nil
		},
	}
	out.register(cmd)
	out.registerFile(cmd)
	cmd.Flags().BoolVar(&detailed, "detailed", false, "print each stack's plan (or why it has none) under its line")
	cmd.Flags().BoolVar(&detailedExit, "detailed-exitcode", false, "exit 0 all in sync, 2 changes or waiting, 1 any stack not judged")
	cmd.Flags().Var(atLeastOne{&parallel}, "parallel", "how many stacks are read at once (at least 1; the default follows the open-file limit, at most 64)")
	cmd.Flags().Var(oneOf{&sortBy, []string{action.FleetSortName, action.FleetSortDeadline}}, "sort", "order of the stacks: name, or deadline (the earliest next hard date first)")
	cmd.Flags().StringArrayVar(&names, "stack", nil, "a stack NAME of the stacks folder to read (repeatable; as NAME arguments)")
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "a topology FILE anywhere on disk to read (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("stack", completeStacks(a, g, 0))
	_ = cmd.RegisterFlagCompletionFunc("file", completeYAML)
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions([]string{action.FleetSortName, action.FleetSortDeadline}, cobra.ShellCompDirectiveNoFileComp))
	judge = addJudgeFlags(cmd)
	return cmd
}

// defaultFleetParallel is fleet's default --parallel for a process that may
// hold nofile open files (RLIMIT_NOFILE; 0 unknown): reading a stack is
// mostly waiting on its API server, so many are read at once — one per 16
// files the process may hold (an HTTP/2 connection to the API server, one
// to a provider's API, a program's pipes, the topology and kubeconfig
// files), at least 8 and at most 64 (1,024 files, a common default, gives
// 64).
func defaultFleetParallel(nofile uint64) int {
	n := nofile / 16
	switch {
	case n < 8:
		return 8
	case n > 64:
		return 64
	}
	return int(n)
}
