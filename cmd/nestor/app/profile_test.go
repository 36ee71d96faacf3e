package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileKinds runs each --profile kind through start and stop and
// checks what it wrote: a pprof profile (gzip-compressed protobuf) for cpu
// and heap, an execution trace ("go 1." header) for trace, no file for
// none; an unknown kind is refused before anything is written.
func TestProfileKinds(t *testing.T) {
	for _, tc := range []struct {
		kind, head string // head: how the file starts; "" when none is written
	}{
		{"cpu", "\x1f\x8b"},
		{"heap", "\x1f\x8b"},
		{"trace", "go 1."},
		{"none", ""},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "profile.out")
			p := &profiling{kind: tc.kind, output: out}
			if err := p.start(); err != nil {
				t.Fatal(err)
			}
			work := make([]int, 0)
			for i := range 100000 {
				work = append(work, i*i)
			}
			_ = work
			if err := p.stop(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out)
			if tc.head == "" {
				if err == nil {
					t.Fatalf("--profile %s wrote %s", tc.kind, out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), tc.head) {
				t.Errorf("--profile %s wrote %q…, want it to start with %q", tc.kind, data[:min(len(data), 16)], tc.head)
			}
		})
	}
	p := &profiling{kind: "mutex", output: filepath.Join(t.TempDir(), "x")}
	if err := p.start(); err == nil || !strings.Contains(err.Error(), "none, cpu, heap or trace") {
		t.Errorf("--profile mutex: %v", err)
	}
}
