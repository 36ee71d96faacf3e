package topology

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReasonCodesAreTheClosedSet: every ReasonCode constant is in
// ReasonCodes, once, and docs/topology.md names each one, so a code cannot
// be added where no consumer and no reader would know it.
func TestReasonCodesAreTheClosedSet(t *testing.T) {
	src, err := os.ReadFile("claim.go")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile("../docs/topology.md")
	if err != nil {
		t.Fatal(err)
	}
	declared := regexp.MustCompile(`(?m)^\s*Reason\w+\s+ReasonCode\s*=\s*"([^"]+)"`).FindAllStringSubmatch(string(src), -1)
	listed := map[ReasonCode]int{}
	for _, c := range ReasonCodes() {
		listed[c]++
	}
	if len(declared) != len(ReasonCodes()) {
		t.Errorf("%d codes declared, %d in ReasonCodes", len(declared), len(ReasonCodes()))
	}
	for _, m := range declared {
		c := ReasonCode(m[1])
		if listed[c] != 1 {
			t.Errorf("code %s is in ReasonCodes %d times", c, listed[c])
		}
		if !strings.Contains(string(docs), "`"+m[1]+"`") {
			t.Errorf("docs/topology.md does not name the reason code %s", c)
		}
	}
}
