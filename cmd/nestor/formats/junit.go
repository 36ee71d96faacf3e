package formats

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

// JUnitOptions are what a JUnit report says beside the reports.
type JUnitOptions struct {
	// ReadAt is when the read finished (each testsuite's timestamp).
	ReadAt time.Time
}

// WriteJUnit writes d as a JUnit XML report (see writeJUnit):
// <testsuites> holding a <testsuite> per stack; a stack without a report
// is a testsuite whose one testcase is an <error>.
func WriteJUnit(w io.Writer, d action.Documents, o JUnitOptions) error {
	return writeJUnit(w, d.Docs(), o)
}

type junitSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	// No skipped count here: the published JUnit schema (the Jenkins xUnit
	// plugin's junit-10.xsd) has it on each testsuite only.
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// junitCaseKeys are the testcases of a stack, by topology key: each
// declared node, pool and layer, the version rules (kubernetes.version,
// whether declared or not: the version findings concern it), the backend
// when declared, the provider's cluster (kapsule), and the stack itself
// (name) for whatever concerns no other.
func junitCaseKeys(r *action.Report) []string {
	var keys []string
	for _, n := range r.Desired.Nodes {
		keys = append(keys, topology.NodeKey(n.Name))
	}
	for _, p := range r.Desired.Pools {
		keys = append(keys, topology.PoolKey(p.Name))
	}
	for _, l := range r.Desired.Layers {
		keys = append(keys, topology.LayerKey(l))
	}
	keys = append(keys, topology.KeyVersion)
	if r.Desired.Backend != "" {
		keys = append(keys, topology.KeyBackend)
	}
	if r.Topology != nil && r.Topology.Scaleway != nil {
		keys = append(keys, topology.KeyScaleway)
	}
	return append(keys, topology.KeyName)
}

// junitName splits a key into the testcase's classname suffix and name:
// nodes/dirqual1 → (nodes, dirqual1), kubernetes.version → (kubernetes,
// version), name → (stack, STACK).
func junitName(stack, key string) (class, name string) {
	switch {
	case key == topology.KeyName:
		return "stack", stack
	case strings.Contains(key, "/"):
		class, name, _ = strings.Cut(key, "/")
		return class, name
	}
	return "settings", key
}

// writeJUnit writes docs as JUnit XML, as Jenkins' JUnit plugin and
// GitLab's test reports read it: per stack a <testsuite> (its properties:
// file, target kind, status) with a <testcase> per junitCaseKeys entry; a
// testcase has a <failure> when a plan step that changes the cluster or an
// error finding concerns it (PlanItem.Key; one failure per testcase,
// typed with the first one's rule, its text listing them all), else <skipped message="…"> with the reason
// when a part it depends on could not be read or the provider is moving
// it; information (undeclared things, info and warning findings) is in
// its <system-out>. A stack without a report is one testcase with an
// <error> (type: its status). Nothing here is timed: no time attribute is
// written rather than a made-up one.
func writeJUnit(w io.Writer, docs []action.StackDoc, o JUnitOptions) error {
	out := junitSuites{Name: "nestor"}
	for _, d := range docs {
		s := junitSuite{Name: d.Name, Properties: []junitProperty{{"file", d.File}, {"status", string(d.Outcome)}}}
		if d.Kind != "" {
			s.Properties = append(s.Properties, junitProperty{"target_kind", string(d.Kind)})
		}
		if !o.ReadAt.IsZero() {
			s.Timestamp = o.ReadAt.UTC().Format("2006-01-02T15:04:05")
		}
		if d.Failed() {
			if d.Name == "" {
				// No stack was chosen (no stacks folder, a name that
				// matches none): the failure is the run's.
				s.Name = "(no stack)"
			}
			s.Cases = []junitCase{{Name: s.Name, ClassName: cmp.Or(d.Name, "nestor") + ".stack",
				Error: &junitMessage{Message: string(d.Outcome) + ": " + firstLine(d.Reason), Type: string(d.Outcome), Text: d.Reason}}}
			s.Tests, s.Errors = 1, 1
		} else {
			s.Cases = junitCases(d.Report)
			for _, c := range s.Cases {
				switch {
				case c.Failure != nil:
					s.Failures++
				case c.Skipped != nil:
					s.Skipped++
				}
			}
			s.Tests = len(s.Cases)
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitCases is r's testcases with their outcomes.
func junitCases(r *action.Report) []junitCase {
	keys := junitCaseKeys(r)
	isCase := map[string]bool{}
	for _, k := range keys {
		isCase[k] = true
	}
	type outcome struct {
		failures, skips, info []string
		failRule              string // the first failure's rule
	}
	by := map[string]*outcome{}
	for _, k := range keys {
		by[k] = &outcome{}
	}
	for _, it := range Items(r) {
		k := it.Key()
		for _, parent := range keyChain(k) { // scaleway.type → scaleway; else name
			if isCase[k] {
				break
			}
			k = parent
		}
		o := by[k]
		switch {
		case it.Step != nil && !r.Judged():
			// A step of a plan built on no read is an assumption, never a
			// test outcome.
			o.skips = append(o.skips, "unverified "+it.Message())
		case it.Step != nil && it.Step.IsChange(), it.Finding != nil && it.Finding.Severity == topology.SeverityError:
			if len(o.failures) == 0 {
				o.failRule = it.Rule()
			}
			o.failures = append(o.failures, it.Message())
		case it.Unknown != nil, it.Waiting != nil:
			o.skips = append(o.skips, it.Message())
		default:
			o.info = append(o.info, it.Message())
		}
	}
	if r.Plan.Unverified {
		by[topology.KeyName].skips = append(by[topology.KeyName].skips, "unverified: no target was read, the plan assumes an empty cluster")
	}
	// What an unread part takes with it is not read either (the whole
	// cluster, every node of an unread node list…): such a testcase is
	// skipped with the reason, never passed.
	for _, u := range r.Plan.Unknowns {
		for _, k := range keys {
			if k != (PlanItem{Unknown: &u}).Key() && u.Subject.Covers(k) && len(by[k].skips) == 0 {
				by[k].skips = append(by[k].skips, "not read: "+u.String())
			}
		}
	}
	var cases []junitCase
	for _, k := range keys {
		class, name := junitName(r.Stack.Name, k)
		c := junitCase{Name: name, ClassName: r.Stack.Name + "." + class}
		o := by[k]
		switch {
		case len(o.failures) > 0:
			msg := o.failures[0]
			if n := len(o.failures) - 1; n > 0 {
				msg += fmt.Sprintf(" (and %d more)", n)
			}
			c.Failure = &junitMessage{Message: msg, Type: o.failRule, Text: strings.Join(append(o.failures, o.skips...), "\n")}
		case len(o.skips) > 0:
			c.Skipped = &junitMessage{Message: strings.Join(o.skips, "; ")}
		}
		c.SystemOut = strings.Join(o.info, "\n")
		cases = append(cases, c)
	}
	return cases
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
