package probes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextNames lists the contexts of a KUBECONFIG list merged (a name
// defined twice listed once), and none of no kubeconfig.
func TestContextNames(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for p, ctxs := range map[string][]string{a: {"blue", "green"}, b: {"green", "red"}} {
		body := "apiVersion: v1\nkind: Config\ncontexts:\n"
		for _, c := range ctxs {
			body += "- name: " + c + "\n  context: {cluster: c}\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ContextNames(Kubeconfig{Paths: []string{a, b}, Source: SourceEnv})
	if err != nil || strings.Join(got, ",") != "blue,green,red" {
		t.Errorf("ContextNames = %v, %v", got, err)
	}
	if got, err := ContextNames(Kubeconfig{Source: SourceNone}); err != nil || got != nil {
		t.Errorf("ContextNames of none = %v, %v", got, err)
	}
}

// TestEmptyKubeconfigSaysItDefinesNoContext: a kubeconfig without any
// context is told as such, not as "pass --context NAME (contexts
// defined: none)", a flag that cannot help; one with contexts but no
// current-context still names them.
func TestEmptyKubeconfigSaysItDefinesNoContext(t *testing.T) {
	dir := t.TempDir()
	empty, two := filepath.Join(dir, "empty"), filepath.Join(dir, "two")
	os.WriteFile(empty, []byte("apiVersion: v1\nkind: Config\n"), 0o600)
	os.WriteFile(two, []byte("apiVersion: v1\nkind: Config\ncontexts:\n- name: one\n  context: {cluster: c}\n- name: two\n  context: {cluster: c}\n"), 0o600)
	_, err := LoadTargetWith(Kubeconfig{Paths: []string{empty}, Source: SourceFlag}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "defines no context") || strings.Contains(err.Error(), "--context") {
		t.Errorf("empty kubeconfig: %v", err)
	}
	_, err = LoadTargetWith(Kubeconfig{Paths: []string{two}, Source: SourceFlag}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "pass --context NAME (contexts defined: one, two)") {
		t.Errorf("no current-context: %v", err)
	}
}
