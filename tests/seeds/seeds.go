// Package seeds reads the seed inputs of nestor's fuzz targets: every file
// matching glob patterns, relative to the test's package folder.
package seeds

import (
	"os"
	"path/filepath"
	"testing"
)

// Files returns the contents of every file matching patterns, in pattern
// then name order. It fails f when a pattern matches nothing (a seed folder
// that moved would otherwise fuzz from nothing) or a file cannot be read.
func Files(f *testing.F, patterns ...string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, pattern := range patterns {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			f.Fatalf("no seed file matches %s (%v)", pattern, err)
		}
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, data)
		}
	}
	return out
}
