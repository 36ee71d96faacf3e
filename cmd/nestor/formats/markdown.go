package formats

import (
	"fmt"
	"io"
	"strings"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

// WriteMarkdown writes d as GitHub-flavoured Markdown for a pull request
// comment or a job summary ($GITHUB_STEP_SUMMARY). A preview's stack: a
// heading with its status, the summary line, the steps, the findings, the
// unknown and waiting parts, and the details (target, declaration) folded
// in a <details> block. A fleet: a table of the stacks, then each stack's
// plan (or why it has none) folded under its name. A failure: the stack,
// its status and why.
func WriteMarkdown(w io.Writer, d action.Documents) error {
	if f, ok := d.(*action.FleetReport); ok {
		return writeFleetMarkdown(w, f)
	}
	doc := d.Docs()[0]
	if doc.Failed() {
		name, title := doc.Name, "nestor preview"
		if name == "" {
			name = "(no stack)"
		}
		if f, ok := d.(*action.Failure); ok {
			title = f.Title()
		}
		_, err := fmt.Fprintf(w, "### %s: %s — %s\n\nNo report: %s\n", title, md(name), md(string(doc.Outcome)), md(doc.Err.Error()))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### nestor preview: %s (%s) — %s\n\n", md(doc.Name), md(string(doc.Kind)), md(string(doc.Outcome)))
	markdownBody(&b, doc.Report)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFleetMarkdown writes the fleet's table, then each stack's plan (or
// why it has none) folded under its name.
func writeFleetMarkdown(w io.Writer, f *action.FleetReport) error {
	var b strings.Builder
	docs := f.Docs()
	fmt.Fprintf(&b, "### nestor fleet: %s\n\n", md(f.Summary()))
	// The columns of the text view, in its order; "-" where it has none
	// (no report, or nothing read: Report.Counts).
	b.WriteString("| stack | kind | status | changes | waiting | unknown |\n|---|---|---|--:|--:|--:|\n")
	for _, d := range docs {
		changes, waiting, unknown := "-", "-", "-"
		if !d.Failed() {
			c, w, u := d.Report.Counts()
			changes, waiting, unknown = action.CountText(c), action.CountText(w), action.CountText(u)
		}
		kind := string(d.Kind)
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", md(d.Name), md(kind), md(string(d.Outcome)), changes, waiting, unknown)
	}
	for _, d := range docs {
		fmt.Fprintf(&b, "\n<details><summary>%s: %s</summary>\n\n", html(d.Name), html(string(d.Outcome)))
		if d.Failed() {
			fmt.Fprintf(&b, "No report: %s\n", md(d.Reason))
		} else {
			markdownBody(&b, d.Report)
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownBody is a report's summary line, steps, findings, unknowns,
// waiting objects and details.
func markdownBody(b *strings.Builder, r *action.Report) {
	b.WriteString(md(summaryLine(r)) + "\n")
	if r.Plan.Unverified {
		b.WriteString("\n> [!WARNING]\n> **Unverified**: no target was read, so the plan assumes an empty cluster.\n")
	}
	if len(r.Plan.Steps) > 0 {
		b.WriteString("\n| | step | target | why |\n|---|---|---|---|\n")
		for _, s := range r.Plan.Steps {
			mark := "~"
			switch {
			case !s.IsChange():
				mark = "i"
			case addStep(s.Kind):
				mark = "+"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mark, md(string(s.Kind)), md(s.Target), md(s.Reason))
		}
	}
	if len(r.Plan.Findings) > 0 {
		b.WriteString("\n| severity | finding | subject | message |\n|---|---|---|---|\n")
		for _, f := range r.Plan.Findings {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", md(string(f.Severity)), md(string(f.Kind)), md(f.Subject.Text), md(f.Message))
		}
	}
	if len(r.Plan.Unknowns) > 0 {
		b.WriteString("\n**Unknown** (could not be read; nothing is planned for it):\n\n")
		for _, u := range r.Plan.Unknowns {
			b.WriteString("- " + md(u.String()) + "\n")
		}
	}
	if len(r.Plan.Waiting) > 0 {
		b.WriteString("\n**Waiting** (the provider is moving it):\n\n")
		for _, wt := range r.Plan.Waiting {
			b.WriteString("- " + md(wt.String()) + "\n")
		}
	}
	b.WriteString("\n<details><summary>Target and declaration</summary>\n\n")
	fmt.Fprintf(b, "- file: %s\n", md(r.Stack.File))
	switch t := r.Target; {
	case t != nil && t.Endpoint != "":
		line := "- target: " + md(t.Endpoint)
		if t.Context != "" {
			line += ", context " + md(t.Context)
		}
		if t.EndpointMatches != nil {
			line += map[bool]string{true: " (endpoint matches the topology)", false: " (endpoint does **not** match the topology's " + md(t.DeclaredEndpoint) + ")"}[*t.EndpointMatches]
		}
		b.WriteString(line + "\n")
	case t != nil && t.Provider != nil:
		fmt.Fprintf(b, "- target: cluster %s in %s via %s\n", md(t.Provider.ClusterID), md(t.Provider.Region), md(t.Provider.APIURL))
	case r.Actual.NoTarget:
		b.WriteString("- target: none (" + md(r.Actual.NoTargetReason) + ")\n")
	}
	if v := r.Actual.Versions; v.Known {
		b.WriteString("- server: " + md(v.Value.APIServer.Raw) + "\n")
	}
	if r.Desired.Kubernetes != "" {
		b.WriteString("- kubernetes.version: " + md(r.Desired.Kubernetes) + "\n")
	}
	if len(r.Desired.Nodes) > 0 {
		var names []string
		for _, n := range r.Desired.Nodes {
			names = append(names, n.Name)
		}
		b.WriteString("- nodes: " + md(strings.Join(names, ", ")) + "\n")
	}
	if len(r.Desired.Pools) > 0 {
		var names []string
		for _, p := range r.Desired.Pools {
			names = append(names, p.Name)
		}
		b.WriteString("- pools: " + md(strings.Join(names, ", ")) + "\n")
	}
	if len(r.Desired.Layers) > 0 {
		b.WriteString("- layers: " + md(strings.Join(r.Desired.Layers, ", ")) + "\n")
	}
	fmt.Fprintf(b, "- support calendar judged as of %s\n\n</details>\n", md(r.AsOf))
}

// summaryLine is the report's plan line (Report.PlanLine, the text's
// words), and "In sync." when it is.
func summaryLine(r *action.Report) string {
	line := r.PlanLine()
	if r.Outcome() == topology.OutcomeInSync {
		line += " In sync."
	}
	return line
}

// addStep reports whether a step kind adds something (+ in the plan).
func addStep(k topology.StepKind) bool {
	switch k {
	case topology.StepCreateVM, topology.StepBootstrap, topology.StepJoinNode, topology.StepInstall, topology.StepCreatePool:
		return true
	}
	return false
}

// md makes s, which may come from the cluster or the provider, literal
// text in a Markdown table cell or line: no markup (emphasis, links,
// headings, code, HTML), no mention or reference (@user, #123), no cell
// break (|), one line.
func md(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '@':
			b.WriteString("&#64;")
		case '#':
			b.WriteString("&#35;")
		case '\\', '`', '*', '_', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// html makes s literal text inside an HTML element (<summary>).
func html(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "@", "&#64;", "\n", " ").Replace(s)
}
