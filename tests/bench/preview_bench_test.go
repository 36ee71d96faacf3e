package bench

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"nestor.dev/nestor/cmd/nestor/app"
	"nestor.dev/nestor/tests/harness"
)

var benchNodes = flag.Int("nodes", 2000, "nodes of the cluster BenchmarkPreview loads")

// BenchmarkPreview runs `nestor preview -o json --no-input` in-process
// against a loaded test cluster (-nodes, default 2,000), so that `go test
// -cpuprofile/-memprofile` shows where nestor's time and memory go — the
// product has no profiling hook of its own. It is not a timed assertion:
// the side-by-side numbers come from tests/bench/run.sh.
//
//	go test ./tests/bench -run '^$' -bench Preview -benchtime 10x \
//	    -cpuprofile /tmp/cpu.out -memprofile /tmp/mem.out -args -nodes 2000
func BenchmarkPreview(b *testing.B) {
	c := harness.StartT(b, harness.Options{})
	f := Generate(Spec{Nodes: *benchNodes, Seed: 1})
	st, err := Load(context.Background(), c.AdminConfig(), f, DefaultWorkers)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d objects in %v", st.Objects, st.Elapsed)
	topo, err := WriteTopology(filepath.Join(b.TempDir(), "stacks"), f, c.ReadOnly, c.URL, true)
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	env := map[string]string{"HOME": home}
	args := []string{"preview", "-o", "json", "--no-input", "-f", topo}
	var out, errOut bytes.Buffer
	a := &app.App{
		Streams: app.Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env:     func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	b.ResetTimer()
	for b.Loop() {
		out.Reset()
		errOut.Reset()
		if code := app.Run(a, args); code != 0 {
			b.Fatalf("preview exited %d: %s", code, errOut.String())
		}
	}
	b.StopTimer()
	if !strings.Contains(out.String(), `"format_version"`) {
		b.Fatalf("preview printed no report: %.300s", out.String())
	}
}
