package app

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the line's ticker goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressLine(t *testing.T) {
	var w syncBuffer
	a := &App{Streams: Streams{ErrOut: &w}, StderrTTY: true}
	if a.newProgress(true) != nil {
		t.Fatal("a progress line for machine output")
	}
	if (&App{StderrTTY: false}).newProgress(false) != nil {
		t.Fatal("a progress line without a terminal")
	}
	// A quick read draws nothing.
	p := a.newProgress(false)
	p.reading("nodes", 500)
	p.done()
	if w.String() != "" {
		t.Fatalf("quick read drew %q", w.String())
	}
	// A slow one draws after the delay, then erases the line.
	p = a.newProgress(false)
	p.start = time.Now().Add(-progressDelay)
	p.reading("nodes", 1500)
	p.done()
	if got, want := w.String(), "\r\x1b[Kreading nodes… 1,500\r\x1b[K"; got != want {
		t.Fatalf("slow read wrote %q, want %q", got, want)
	}
	// A pause for a prompt erases it too.
	var w2 syncBuffer
	a.ErrOut = &w2
	p = a.newProgress(false)
	p.start = time.Now().Add(-progressDelay)
	p.reading("nodes", 0)
	p.reading("", -1)
	p.done()
	if got := w2.String(); !strings.HasSuffix(got, "\r\x1b[K") || strings.Count(got, "reading") != 1 {
		t.Fatalf("pause wrote %q", got)
	}
	if thousands(1234567) != "1,234,567" || thousands(12) != "12" {
		t.Fatalf("thousands: %s %s", thousands(1234567), thousands(12))
	}
}
