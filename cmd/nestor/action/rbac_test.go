package action

import (
	"strings"
	"testing"
)

func TestParseSubject(t *testing.T) {
	for in, want := range map[string]string{
		"user:bob":                  "User bob",
		"group:ops":                 "Group ops",
		"serviceaccount:ci:preview": "ServiceAccount ci/preview",
	} {
		s, err := parseSubject(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		got := s.Kind + " " + s.Name
		if s.Namespace != "" {
			got = s.Kind + " " + s.Namespace + "/" + s.Name
		}
		if got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"bob", "user:", "serviceaccount:ci", "robot:x"} {
		if _, err := parseSubject(bad); err == nil || !strings.Contains(err.Error(), "user:NAME") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
