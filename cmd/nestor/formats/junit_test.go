package formats

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/action"
)

// The JUnit schemas of the tests (tests/testdata/junit/SOURCES.md):
// nestor's own, and the one the Jenkins xUnit plugin publishes.
const (
	junitXSD        = "../../../tests/testdata/junit/nestor-junit.xsd"
	junitJenkinsXSD = "../../../tests/testdata/junit/junit-10.xsd"
)

func junitFleet(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJUnit(&b, fixtureFleet(t, dir), JUnitOptions{ReadAt: fixtureReadAt}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestJUnitFleet decodes the fleet's report back and checks it: a suite
// per stack, the counts adding up, a failure on the testcase each change
// or error finding concerns (all of them in its text), skipped with the
// reason where a part was not read or is moving, an error for a stack
// without a report; then the golden file.
func TestJUnitFleet(t *testing.T) {
	dir := t.TempDir()
	data := junitFleet(t, dir)
	var got junitSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(got.Suites) != 4 {
		t.Fatalf("%d suites", len(got.Suites))
	}
	total := 0
	cases := map[string]junitCase{}
	for _, s := range got.Suites {
		f, e, sk := 0, 0, 0
		for _, c := range s.Cases {
			cases[c.ClassName+"/"+c.Name] = c
			if c.Failure != nil {
				f++
			}
			if c.Error != nil {
				e++
			}
			if c.Skipped != nil {
				sk++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			t.Errorf("suite %s: counts %d/%d/%d/%d, cases say %d/%d/%d/%d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk)
		}
		total += s.Tests
	}
	if got.Tests != total {
		t.Errorf("testsuites tests=%d, the suites hold %d", got.Tests, total)
	}
	check := func(id string, pred func(junitCase) bool, what string) {
		t.Helper()
		c, ok := cases[id]
		if !ok {
			t.Errorf("no testcase %s", id)
			return
		}
		if !pred(c) {
			t.Errorf("testcase %s: want %s, got %+v", id, what, c)
		}
	}
	check("dirqual.nodes/dirqual2", func(c junitCase) bool {
		return c.Failure != nil && strings.Contains(c.Failure.Message, "(and 3 more)") && strings.Count(c.Failure.Text, "\n") == 3
	}, "a failure listing its four steps")
	check("dirqual.nodes/dirqual1", func(c junitCase) bool { return c.Failure == nil && c.Skipped == nil && c.Error == nil }, "a pass")
	check("dirqual.layers/rook-ceph", func(c junitCase) bool {
		return c.Failure != nil && strings.HasPrefix(c.Failure.Message, "repair rook-ceph")
	}, "the repair")
	check("dirqual.layers/cnpg", func(c junitCase) bool { return c.Skipped != nil && strings.Contains(c.Skipped.Message, "forbidden") }, "skipped, forbidden")
	check("dirqual.settings/kubernetes.version", func(c junitCase) bool {
		return c.Failure != nil && strings.Contains(c.Failure.Message, "kubelet-skew") && strings.Contains(c.SystemOut, "end-of-life")
	}, "the skew as failure, the end of life as information")
	check("dirqual.stack/dirqual", func(c junitCase) bool {
		return c.Failure == nil && strings.Contains(c.SystemOut, "undeclared dirqual9") && strings.Contains(c.SystemOut, "undeclared cert-manager")
	}, "the undeclared things as information")
	check("apps.pools/burst", func(c junitCase) bool {
		return c.Skipped != nil && strings.Contains(c.Skipped.Message, "waiting: pool burst: scaling")
	}, "skipped, waiting")
	check("apps.pools/default", func(c junitCase) bool { return c.Failure != nil && strings.Contains(c.Failure.Message, "replace-node") }, "the replace-node")
	check("edge.stack/edge", func(c junitCase) bool {
		return c.Error != nil && c.Error.Type == "refused" && strings.Contains(c.Error.Text, "10.9.0.2")
	}, "an error: refused")
	check("broken.stack/broken", func(c junitCase) bool {
		return c.Error != nil && c.Error.Type == "invalid" && strings.Contains(c.Error.Text, "Bad_Node")
	}, "an error: invalid")
	checkGolden(t, "fleet.junit.xml", dir, data)
}

// TestJUnitValidatesAgainstXSD validates the fleet's, a preview's and a
// failure's reports against tests/testdata/junit/nestor-junit.xsd and the
// Jenkins xUnit plugin's published junit-10.xsd with xmllint (Debian's
// libxml2-utils), and checks the validation is live: a testcase without
// classname, a failure without message, are refused by nestor's; a
// testsuite without its counts by both. Skipped when xmllint is not
// installed.
func TestJUnitValidatesAgainstXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils)")
	}
	dir := t.TempDir()
	var preview, failure bytes.Buffer
	if err := WriteJUnit(&preview, fixtureProd(t, dir), JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&failure, action.NewFailure(nil, os.ErrNotExist), JUnitOptions{ReadAt: fixtureReadAt}); err != nil {
		t.Fatal(err)
	}
	validateWith := func(xsd, name string, data []byte) error {
		p := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", xsd, p).CombinedOutput()
		if err != nil {
			return &xmlError{string(out)}
		}
		return nil
	}
	validate := func(name string, data []byte) error { return validateWith(junitXSD, name, data) }
	for name, data := range map[string][]byte{"fleet": junitFleet(t, dir), "preview": preview.Bytes(), "failure": failure.Bytes()} {
		for _, xsd := range []string{junitXSD, junitJenkinsXSD} {
			if err := validateWith(xsd, name, data); err != nil {
				t.Errorf("%s does not validate against %s: %v\n%s", name, filepath.Base(xsd), err, data)
			}
		}
	}
	noCounts := `<testsuites><testsuite name="s"><testcase name="c" classname="s"/></testsuite></testsuites>`
	for _, xsd := range []string{junitXSD, junitJenkinsXSD} {
		if validateWith(xsd, "no-counts", []byte(noCounts)) == nil {
			t.Errorf("%s accepts a testsuite without tests, failures, errors", filepath.Base(xsd))
		}
	}
	for name, bad := range map[string]string{
		"no-classname":       `<testsuites tests="1" failures="0" errors="0"><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"/></testsuite></testsuites>`,
		"failure-no-message": `<testsuites tests="1" failures="1" errors="0"><testsuite name="s" tests="1" failures="1" errors="0"><testcase name="c" classname="s"><failure>x</failure></testcase></testsuite></testsuites>`,
	} {
		if validate(name, []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", name)
		}
	}
}

type xmlError struct{ out string }

func (e *xmlError) Error() string { return e.out }
