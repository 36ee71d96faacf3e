// Package e2e holds the end-to-end tests of nestor: the built binary
// (go build ./cmd/nestor, once per test binary) run against real
// kube-apiservers (tests/harness), a limactl stand-in
// (tests/testdata/limactl) and a pseudo-terminal for the prompts, with an
// environment built from scratch for every run. They skip in -short mode.
//
// Tests of preview: preview_test.go. Tests of the target guard, env and
// next: guard_test.go and envnext_test.go.
package e2e

import (
	"os"
	"testing"

	// The tests run the binary they build from ./cmd/nestor, which go test's
	// cache cannot see. Importing the command's package makes the cached
	// result depend on nestor's code, so a change to it reruns these tests.
	_ "nestor.dev/nestor/cmd/nestor/app"
)

// TestMain runs the tests, then stops the clusters they shared and removes
// the built binary.
func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedClusters()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
