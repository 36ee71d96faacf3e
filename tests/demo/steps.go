package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// runLimit bounds one nestor run; nestor's own --timeout (10 s) bounds its
// reads well within it.
const runLimit = 60 * time.Second

// nestorUserAgent is the prefix of nestor's user agent (nestor/<version>),
// by which the audit log tells its requests apart.
const nestorUserAgent = "nestor/"

// result is one finished nestor run.
type result struct {
	code int
	// stdout is nestor's stdout when it was kept apart (split); output is
	// what a terminal would have shown: stdout and stderr in the order
	// written, or stderr alone when split.
	stdout, output string
}

// env is nestor's environment, built from scratch so nothing of the
// caller's (a KUBECONFIG of a real cluster above all) reaches it: PATH, an
// empty HOME, the demo's stacks folder, no colour, then extra.
func (d *demo) env(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + d.home(),
		"NESTOR_STACKS=" + d.stacksDir(),
		"NO_COLOR=1",
	}
	return append(env, extra...)
}

// runNestor runs the built nestor with args (stdin /dev/null, environment
// d.env(extra...), bounded by runLimit). Its output is what a terminal
// would have shown: stdout and stderr in the order written; with split,
// stdout is kept apart in stdout and output holds stderr alone.
func (d *demo) runNestor(ctx context.Context, split bool, extra []string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, runLimit)
	defer cancel()
	cmd := command(ctx, d.nestorBin(), args...)
	cmd.Dir = d.work
	cmd.Env = d.env(extra...)
	var stdout, output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if split {
		cmd.Stdout = &stdout
	}
	err := cmd.Run()
	r := result{stdout: stdout.String(), output: output.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return r, fmt.Errorf("nestor %s did not end within %v (killed); its output:\n%s", strings.Join(args, " "), runLimit, r.output)
	case ctx.Err() != nil:
		return r, errInterrupted
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	case err != nil:
		return r, fmt.Errorf("run nestor %s: %v", strings.Join(args, " "), err)
	}
	return r, nil
}

// judged is args with --as-of DATE appended when the demo was given one
// (preview and fleet judge the support calendar at that date).
func (d *demo) judged(args ...string) []string {
	if d.asOf != "" {
		args = append(args, "--as-of", d.asOf)
	}
	return args
}

// say prints one line of the demo's story.
func (d *demo) say(format string, a ...any) {
	fmt.Fprintf(d.out, format+"\n", a...)
}

// step introduces a step: a blank line, then its one-line title.
func (d *demo) step(n int, title string) {
	d.say("")
	d.say("── %d. %s", n, title)
}

// show prints a nestor run's output as a terminal would, then its exit code.
func (d *demo) show(r result) {
	fmt.Fprint(d.out, r.output)
	if r.output != "" && !strings.HasSuffix(r.output, "\n") {
		d.say("")
	}
	d.say("exit code %d", r.code)
}

// steps runs the demo's five steps against the running cluster, then
// reports what the audit log recorded of nestor.
func (d *demo) steps(ctx context.Context) error {
	before, err := d.cluster.AuditEvents(nestorUserAgent)
	if err != nil {
		return err
	}
	d.say("A real etcd and kube-apiserver %s run on 127.0.0.1, loaded with %s:", harness.K8sVersion, fixturePath)
	d.say("the objects of a production cluster (4 nodes, Cilium, Rook-Ceph, CloudNativePG, Argo CD, cert-manager)")
	d.say("with the status its kubelets and controllers would report; no container runs. The stack %s, which", stackName)
	d.say("declares that cluster, is the active stack of the folder NESTOR_STACKS=%s.", d.stacksDir())
	d.say("Each command runs with stdin not a terminal, so nestor asks nothing: it checks the server against the")
	d.say("stack's endpoint: instead.")

	d.step(1, "preview: DESIRED (the topology), ACTUAL (read now from the API server), the PLAN that closes the gap")
	args := d.judged("preview")
	d.say("$ nestor %s", strings.Join(args, " "))
	r, err := d.runNestor(ctx, false, nil, args...)
	if err != nil {
		return err
	}
	d.show(r)

	d.step(2, "preview --detailed-exitcode, as CI runs it: 0 in sync, 2 the plan has changes, 1 an error or an unknown")
	args = d.judged("preview", "--detailed-exitcode")
	d.say("$ nestor %s >/dev/null", strings.Join(args, " "))
	r, err = d.runNestor(ctx, true, nil, args...)
	if err != nil {
		return err
	}
	d.show(r)

	d.step(3, "preview -o json: the same report as a versioned document, decoded here by a few lines of Go")
	args = d.judged("preview", "-o", "json")
	d.say("$ nestor %s", strings.Join(args, " "))
	r, err = d.runNestor(ctx, true, nil, args...)
	if err != nil {
		return err
	}
	if err := d.summarize(r); err != nil {
		return err
	}

	d.step(4, "A phantom target: KUBECONFIG exported for another server; with --no-input nestor refuses, sending nothing")
	phantom := "KUBECONFIG=" + d.otherConfig()
	args = d.judged("preview", "--no-input")
	d.say("$ %s nestor %s", phantom, strings.Join(args, " "))
	mark, err := d.cluster.AuditEvents(nestorUserAgent)
	if err != nil {
		return err
	}
	r, err = d.runNestor(ctx, false, []string{phantom}, args...)
	if err != nil {
		return err
	}
	d.show(r)
	afterPhantom, err := d.cluster.AuditEvents(nestorUserAgent)
	if err != nil {
		return err
	}

	d.step(5, "fleet: every stack of the folder read at once, one line each")
	args = d.judged("fleet")
	d.say("$ nestor %s", strings.Join(args, " "))
	r, err = d.runNestor(ctx, false, nil, args...)
	if err != nil {
		return err
	}
	d.show(r)

	all, err := d.cluster.AuditEvents(nestorUserAgent)
	if err != nil {
		return err
	}
	d.say("")
	d.say("── The API server's audit log: nestor's requests in steps 1 to 5, %s; in step 4, %s.",
		describeRequests(all[len(before):]), describeRequests(afterPhantom[len(mark):]))
	if !d.keep {
		d.say("")
		d.say("Everything stops now; go run ./tests/demo --keep leaves the cluster running to try more.")
	}
	return nil
}

// readVerbs are the Kubernetes verbs that only read.
var readVerbs = map[string]bool{"get": true, "list": true, "watch": true}

// describeRequests says how many requests events holds, their verbs, and
// whether they only read: "128 (get 4, list 124), all reads".
func describeRequests(events []harness.AuditEvent) string {
	verbs := map[string]int{}
	var writes []string
	for _, e := range events {
		verbs[e.Verb]++
		if !readVerbs[e.Verb] {
			writes = append(writes, e.Verb+" "+e.RequestURI)
		}
	}
	var parts []string
	for _, v := range sortedKeys(verbs) {
		parts = append(parts, fmt.Sprintf("%s %d", v, verbs[v]))
	}
	if len(events) == 0 {
		return "none"
	}
	s := fmt.Sprintf("%d (%s)", len(events), strings.Join(parts, ", "))
	if len(writes) > 0 {
		return s + ", NOT all reads: " + strings.Join(writes, ", ")
	}
	return s + ", all reads"
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fact is a probed value of the preview document ({known, reason, value}).
type fact[T any] struct {
	Known  bool   `json:"known"`
	Reason string `json:"reason"`
	Value  T      `json:"value"`
}

// previewDoc is the part of preview's JSON document (README "preview -o
// json") the summary reads, decoded the way a script would.
type previewDoc struct {
	FormatVersion int `json:"format_version"`
	Stack         struct {
		Name       string `json:"name"`
		TargetKind string `json:"target_kind"`
	} `json:"stack"`
	Target *struct {
		Endpoint        string `json:"endpoint"`
		EndpointMatches *bool  `json:"endpoint_matches"`
	} `json:"target"`
	Actual struct {
		ServerVersion fact[string] `json:"server_version"`
		Nodes         fact[[]struct {
			Name           string `json:"name"`
			Ready          bool   `json:"ready"`
			KubeletVersion string `json:"kubelet_version"`
		}] `json:"nodes"`
		Layers []struct {
			Name     string `json:"name"`
			Declared bool   `json:"declared"`
			Health   string `json:"health"`
		} `json:"layers"`
	} `json:"actual"`
	Summary struct {
		Changes    int            `json:"changes"`
		ByKind     map[string]int `json:"by_kind"`
		Undeclared int            `json:"undeclared"`
		Unknown    int            `json:"unknown"`
		InSync     bool           `json:"in_sync"`
	} `json:"summary"`
}

// summarize decodes preview's JSON document and prints four lines of it;
// nestor's stderr, when it wrote any, is shown first.
func (d *demo) summarize(r result) error {
	fmt.Fprint(d.out, r.output)
	var doc previewDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		return fmt.Errorf("preview -o json (exit code %d) is not its JSON document: %v\n%s", r.code, err, r.stdout)
	}
	target := "no target"
	if doc.Target != nil {
		target = "target " + doc.Target.Endpoint
		if m := doc.Target.EndpointMatches; m != nil && *m {
			target += " (endpoint matches the topology)"
		} else if m != nil {
			target += " (endpoint does NOT match the topology)"
		}
	}
	d.say("  format_version %d, stack %s (%s), %s", doc.FormatVersion, doc.Stack.Name, doc.Stack.TargetKind, target)

	if n := doc.Actual.Nodes; n.Known {
		ready, notReady := 0, []string{}
		kubelets := map[string][]string{}
		var versions []string
		for _, node := range n.Value {
			if node.Ready {
				ready++
			} else {
				notReady = append(notReady, node.Name)
			}
			if kubelets[node.KubeletVersion] == nil {
				versions = append(versions, node.KubeletVersion)
			}
			kubelets[node.KubeletVersion] = append(kubelets[node.KubeletVersion], node.Name)
		}
		var kl []string
		for _, v := range versions {
			kl = append(kl, v+" on "+strings.Join(kubelets[v], ", "))
		}
		line := fmt.Sprintf("  actual.nodes   %d registered, %d Ready", len(n.Value), ready)
		if len(notReady) > 0 {
			line += ", NotReady: " + strings.Join(notReady, ", ")
		}
		line += "; kubelet " + strings.Join(kl, "; ")
		if s := doc.Actual.ServerVersion; s.Known {
			line += "; server " + s.Value
		}
		d.say("%s", line)
	} else {
		d.say("  actual.nodes   unknown: %s", n.Reason)
	}

	groups := map[string][]string{}
	order := []string{"healthy", "degraded", "absent", "unknown", "undeclared"}
	for _, l := range doc.Actual.Layers {
		key := l.Health
		if !l.Declared {
			key = "undeclared"
		}
		groups[key] = append(groups[key], l.Name)
	}
	var layers []string
	for _, k := range order {
		if len(groups[k]) > 0 {
			layers = append(layers, k+" "+strings.Join(groups[k], ", "))
		}
	}
	d.say("  actual.layers  %s", strings.Join(layers, "; "))

	s := doc.Summary
	var kinds []string
	for _, k := range sortedKeys(s.ByKind) {
		kinds = append(kinds, fmt.Sprintf("%d %s", s.ByKind[k], k))
	}
	line := fmt.Sprintf("  summary        %s", plural(s.Changes, "change"))
	if len(kinds) > 0 {
		line += " (" + strings.Join(kinds, ", ") + ")"
	}
	d.say("%s, %d undeclared, %d unknown, in_sync %t", line, s.Undeclared, s.Unknown, s.InSync)
	d.say("exit code %d", r.code)
	return nil
}
