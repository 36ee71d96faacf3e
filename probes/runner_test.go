package probes

import (
	"bytes"
	"runtime"
	"testing"
)

// What a boundedBuffer keeps is what was written, cut at its bound, in
// order, whatever the sizes of the writes; overflow is called once.
func TestBoundedBufferKeepsTheFirstMaxBytes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int
		writes []int
	}{
		{"nothing", 100, nil},
		{"under the bound", 100, []int{10, 20, 30}},
		{"exactly the bound", 100, []int{50, 50}},
		{"one byte over", 100, []int{50, 51}},
		{"one write past it", 100, []int{1000}},
		{"many blocks", 3*bufferBlock + 17, []int{32 << 10, bufferBlock + 3, 2 * bufferBlock, 5}},
		{"flood in pipe-sized writes", 2*bufferBlock + 1, repeat(32<<10, 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			b := &boundedBuffer{max: tc.max, overflow: func() { calls++ }}
			var all bytes.Buffer
			for i, n := range tc.writes {
				p := bytes.Repeat([]byte{byte('a' + i%26)}, n)
				all.Write(p)
				if got, err := b.Write(p); got != n || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v; want %d, nil", n, got, err, n)
				}
			}
			want := all.Bytes()
			over := len(want) > tc.max
			if over {
				want = want[:tc.max]
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("kept %d bytes, not the first %d written", len(b.Bytes()), len(want))
			}
			if b.over != over {
				t.Errorf("over = %v, want %v", b.over, over)
			}
			if wantCalls := map[bool]int{true: 1, false: 0}[over]; calls != wantCalls {
				t.Errorf("overflow called %d times, want %d", calls, wantCalls)
			}
		})
	}
}

// A flood allocates the bound and little more: the kept bytes are never
// copied while the buffer grows (a doubling buffer allocates about twice
// the bound, and a reader without a bound all of it).
func TestBoundedBufferFloodAllocatesTheBoundOnly(t *testing.T) {
	const bound = 8 << 20
	p := make([]byte, 32<<10)
	b := &boundedBuffer{max: bound}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 4 * bound / len(p) {
		b.Write(p)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a flood of %d MiB into a %d MiB bound allocated %.1f MiB", 4*bound>>20, bound>>20, float64(allocated)/(1<<20))
	if allocated > bound+bound/8 {
		t.Errorf("allocated %d bytes for a bound of %d", allocated, bound)
	}
	if len(b.Bytes()) != bound {
		t.Errorf("kept %d bytes, want %d", len(b.Bytes()), bound)
	}
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}
