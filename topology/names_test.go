package topology

import (
	"strings"
	"testing"
)

func TestSuggestName(t *testing.T) {
	for in, want := range map[string]string{"Bad_Name": "bad-name", "dirqual": "dirqual", "__x__y": "x-y", "Prod.EU 2": "prod-eu-2", "___": "stack", "é": "stack"} {
		if got := SuggestName(in); got != want || CheckName(got) != nil {
			t.Errorf("SuggestName(%q) = %q, want %q (a valid name)", in, got, want)
		}
	}
}

// TestBadFileNameSuggestsAValidName: a file whose base name is no stack
// name (Bad_Name.yaml) is never answered with that invalid name: the fix
// names a valid one and the file's new name.
func TestBadFileNameSuggestsAValidName(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"target_kind: prod\n", "add name: bad-name and rename the file to bad-name.yaml"},
		{"name: Bad_Name\ntarget_kind: prod\n", "name: bad-name"},
		{"name: good\ntarget_kind: prod\n", "rename the file to good.yaml)"},
	} {
		_, err := Parse("/stacks/Bad_Name.yaml", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "name: Bad_Name") && !strings.Contains(c.body, "Bad_Name") || strings.Contains(err.Error(), "set name: Bad_Name") {
			t.Errorf("%q: %v, want a fix with %q", c.body, err, c.want)
		}
	}
}
