package formats

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
)

// TestGoldenMarkdown draws the preview and the mixed fleet as Markdown and
// compares them with tests/testdata/golden/formats (go test
// ./cmd/nestor/action -run Golden -update rewrites them).
func TestGoldenMarkdown(t *testing.T) {
	dir := t.TempDir()
	var preview, fleet, failure bytes.Buffer
	if err := WriteMarkdown(&preview, fixtureProd(t, dir)); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&fleet, fixtureFleet(t, dir)); err != nil {
		t.Fatal(err)
	}
	f := fixtureFleet(t, dir).Stacks[3]
	if err := WriteMarkdown(&failure, (&action.Failure{Name: f.Name, File: f.File, Outcome: f.Outcome, Err: f.Err})); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "preview.md", dir, preview.Bytes())
	checkGolden(t, "fleet.md", dir, fleet.Bytes())
	checkGolden(t, "failure.md", dir, failure.Bytes())
}

// TestMarkdownLiteral: text read from a cluster or a provider cannot make
// markup, a mention, an issue reference, HTML or a new table cell or line
// in the comment.
func TestMarkdownLiteral(t *testing.T) {
	r := fixtureProd(t, t.TempDir())
	r.Plan.Steps[0].Reason = "see @admin #12 <img src=x> **bold** [x](http://evil) `code` a|b\nline2 _u_ ~s~"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "&#64;admin") {
			row = l
		}
	}
	want := `| ~ | repair-node | dirqual2 | see &#64;admin &#35;12 &lt;img src=x&gt; \*\*bold\*\* \[x\](http://evil) ` + "\\`code\\`" + ` a\|b line2 \_u\_ \~s\~ |`
	if row != want {
		t.Errorf("row\n%s\nwant\n%s", row, want)
	}
}

// A fleet that read no stack at all (no stacks folder, a name that
// matches none) is headed as fleet's, and its JUnit suite and testcase
// have names.
func TestFailureWithoutStackNamesItsCommand(t *testing.T) {
	fail := action.NewFailure(nil, errors.New(`no stack matches "nosuch"`))
	fail.Command = "fleet"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fail); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "### nestor fleet: (no stack) — invalid\n") {
		t.Errorf("markdown:\n%s", b.String())
	}
	b.Reset()
	if err := WriteJUnit(&b, fail, JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, `name=""`) || strings.Contains(s, `classname=".stack"`) || !strings.Contains(s, `<testsuite name="(no stack)"`) {
		t.Errorf("junit:\n%s", s)
	}
}
