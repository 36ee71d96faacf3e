// Package probetest holds the test helpers the probe packages share
// (probes and each kind's package): an environment of exactly the given
// variables, files written for a test, test kubeconfigs. It is imported by
// tests only.
package probetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SecretToken is in every kubeconfig KubeconfigText writes; no error or
// output may ever show it.
const SecretToken = "s3cr3t-t0ken-NEVER-PRINT"

// EnvOf returns an environment lookup (probes.Env's shape) that knows
// exactly the given variables.
func EnvOf(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// WriteFile writes text to path (0600), creating its folders, and returns
// path; it fails t on any error.
func WriteFile(t testing.TB, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// KubeconfigText is a kubeconfig with the given clusters (name → server,
// TLS not verified), contexts (name → [cluster, user]), one token user
// (SecretToken) per user a context names — but for those whose name starts
// with "missing", left undefined — and current-context.
func KubeconfigText(current string, clusters map[string]string, contexts map[string][2]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\n")
	fmt.Fprintf(&b, "current-context: %q\n", current)
	b.WriteString("clusters:\n")
	for name, server := range clusters {
		fmt.Fprintf(&b, "- name: %q\n  cluster:\n    server: %s\n    insecure-skip-tls-verify: true\n", name, server)
	}
	b.WriteString("contexts:\n")
	users := map[string]bool{}
	for name, cu := range contexts {
		fmt.Fprintf(&b, "- name: %q\n  context:\n    cluster: %q\n    user: %q\n", name, cu[0], cu[1])
		users[cu[1]] = true
	}
	b.WriteString("users:\n")
	for u := range users {
		if strings.HasPrefix(u, "missing") {
			continue
		}
		fmt.Fprintf(&b, "- name: %q\n  user:\n    token: %s\n", u, SecretToken)
	}
	return b.String()
}
