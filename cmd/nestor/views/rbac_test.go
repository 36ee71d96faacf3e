package views

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/cmd/nestor/action"
)

// TestRBACDocument: the text form is a YAML stream of the same objects as
// the JSON List, every rule commented, get and list only, never secrets.
func TestRBACDocument(t *testing.T) {
	c := action.Config{Home: t.TempDir(), Env: func(string) (string, bool) { return "", false }}
	doc, err := action.RBAC{Config: c, Selection: action.Selection{File: filepath.Join("..", "..", "..", "stacks", "examples", "dirqual.yaml")}, Subject: "user:bob", Namespaced: true}.Run()
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := RBAC(&text, doc); err != nil {
		t.Fatal(err)
	}
	written := text.String()
	dec := yaml.NewDecoder(&text)
	var kinds []string
	for {
		var obj struct {
			Kind  string
			Rules []struct {
				APIGroups []string `yaml:"apiGroups"`
				Resources []string
				Verbs     []string
			}
		}
		if err := dec.Decode(&obj); err != nil {
			break
		}
		kinds = append(kinds, obj.Kind)
		for _, r := range obj.Rules {
			for _, v := range r.Verbs {
				if v != "get" && v != "list" {
					t.Errorf("verb %s in %+v", v, r)
				}
			}
			for _, res := range r.Resources {
				if res == "secrets" || res == "*" {
					t.Errorf("resource %s", res)
				}
			}
		}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Kind  string
		Items []struct{ Kind string }
	}
	if err := json.Unmarshal(raw, &list); err != nil || list.Kind != "List" || len(list.Items) != len(kinds) || len(kinds) < 4 {
		t.Fatalf("JSON %s: %d items, text %v (%v)", list.Kind, len(list.Items), kinds, err)
	}
	for i, it := range list.Items {
		if it.Kind != kinds[i] {
			t.Errorf("object %d: %s in JSON, %s in text", i, it.Kind, kinds[i])
		}
	}
	if kinds[0] != "ClusterRole" || kinds[1] != "ClusterRoleBinding" || kinds[2] != "Role" || kinds[3] != "RoleBinding" {
		t.Errorf("kinds %v", kinds)
	}
	if n := strings.Count(written, "\n  # "); n == 0 {
		t.Errorf("no rule is commented:\n%s", written)
	}
}
