package app

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// progressDelay is how long a read runs before the progress line shows: a
// quick read prints nothing.
const progressDelay = time.Second

// progressLine is one self-erasing line on a terminal's stderr saying what
// is being read ("reading nodes… 1,500"). It is drawn only after
// progressDelay, at most every 100 ms, and erased by done, before the
// command writes its output.
type progressLine struct {
	w     io.Writer
	start time.Time

	mu    sync.Mutex
	text  string
	drawn time.Time
	shown bool
	over  bool
	stop  chan struct{}
}

// newProgress returns the progress line of a command, or nil when there
// must be none: stderr is not a terminal, or the output is for programs.
func (a *App) newProgress(machine bool) *progressLine {
	if !a.StderrTTY || machine {
		return nil
	}
	p := &progressLine{w: a.ErrOut, start: time.Now(), stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw(false)
			}
		}
	}()
	return p
}

// reading is the probes' progress callback: items of resource read so far;
// items < 0 erases the line until the next read (a prompt is shown).
func (p *progressLine) reading(resource string, items int) {
	if items < 0 {
		p.mu.Lock()
		p.text = ""
		if p.shown {
			fmt.Fprint(p.w, "\r\x1b[K")
			p.shown = false
		}
		p.mu.Unlock()
		return
	}
	text := "reading " + resource + "…"
	if items > 0 {
		text += " " + thousands(items)
	}
	p.set(text)
}

// set replaces the line's text.
func (p *progressLine) set(text string) {
	p.mu.Lock()
	p.text = text
	p.mu.Unlock()
	p.draw(false)
}

// draw writes the line when it is due (or always, with force).
func (p *progressLine) draw(force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.over || p.text == "" || now.Sub(p.start) < progressDelay || (!force && now.Sub(p.drawn) < 100*time.Millisecond) {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", p.text)
	p.drawn, p.shown = now, true
}

// done stops the line and erases it if it was drawn. A nil line is a no-op.
func (p *progressLine) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.over {
		return
	}
	p.over = true
	close(p.stop)
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// callback is the line's reading method, nil for no line.
func (p *progressLine) callback() func(string, int) {
	if p == nil {
		return nil
	}
	return p.reading
}

// thousands writes n with a comma every three digits (1,500).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
