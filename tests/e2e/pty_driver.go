// Package e2e holds nestor's end-to-end tests: the built binary against a
// real kube-apiserver (tests/harness), a real sshd and a pseudo-terminal.
// This file is the pseudo-terminal driver the interactive tests share.
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// cursorQuery is what survey writes to ask where the cursor is (DSR 6,
// "ESC [ 6 n"); the driver answers each one (screenModel).
const cursorQuery = "\x1b[6n"

// The pseudo-terminal's size: wide, so long prompts are not wrapped.
const (
	ptyRows = 50
	ptyCols = 300
)

// ptyWaitTimeout bounds wait(): a process still running after it is killed.
const ptyWaitTimeout = 60 * time.Second

// ansiRE matches the terminal control sequences survey and nestor write:
// CSI sequences, charset selections, OSC titles, and the two-byte escapes
// (ESC 7 / ESC 8 save and restore the cursor, keypad modes…).
var ansiRE = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b\][^\x07]*\x07|\x1b[78=>DEHMc]`)

// stripANSI returns s without terminal control sequences and carriage returns.
func stripANSI(s string) string {
	return strings.ReplaceAll(ansiRE.ReplaceAllString(s, ""), "\r", "")
}

// ptyProc is a program running on a pseudo-terminal (its stdin, stdout and
// stderr are all the pty's slave side, so nestor sees a terminal on each,
// as an operator's shell would give it). It answers survey's cursor
// position queries (ESC [ 6 n) by itself, from a model of the screen
// (screenModel): a bare pty does not answer, and survey would wait forever
// (TESTING-NOTES.md). Use expect to wait for text, send to type, wait for
// the exit code. All methods fail the test (t.Fatalf) on a timeout, with
// everything the program printed so far.
type ptyProc struct {
	t   testing.TB
	cmd *exec.Cmd
	pty *os.File

	mu      sync.Mutex
	raw     bytes.Buffer // everything read from the pty, as written
	screen  *screenModel // where the cursor is, to answer cursor queries
	matched int          // offset in the stripped text after the last expect match
	changed chan struct{}

	// lastActivity is when the program last printed (or was last answered
	// a cursor query): send waits for quiet after it.
	lastActivity time.Time

	readDone chan struct{} // closed when the pty reader ends (EIO once the program exits)
	waitDone chan struct{} // closed when the program has exited
	exitCode int
}

// startPTY starts bin with args on a new pseudo-terminal of ptyRows ×
// ptyCols, with
// exactly env as its environment (pass TERM, HOME, PATH… yourself: nothing
// of the test's environment is inherited), the program being the session
// leader with the pty as its controlling terminal. The process is killed
// and the pty closed when the test ends.
func startPTY(t testing.TB, bin string, env []string, args ...string) *ptyProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: ptyRows, Cols: ptyCols})
	if err != nil {
		t.Fatalf("start %s on a pty: %v", bin, err)
	}
	p := &ptyProc{t: t, cmd: cmd, pty: f, screen: newScreenModel(ptyRows, ptyCols), changed: make(chan struct{}), readDone: make(chan struct{}), waitDone: make(chan struct{}), exitCode: -1}
	go p.read()
	go func() {
		err := cmd.Wait()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
		} else if err != nil {
			code = -1
		}
		p.mu.Lock()
		p.exitCode = code
		p.mu.Unlock()
		close(p.waitDone)
	}()
	t.Cleanup(func() {
		select {
		case <-p.waitDone:
		default:
			_ = cmd.Process.Kill()
			<-p.waitDone
		}
		f.Close()
	})
	return p
}

// read copies the pty's output into raw and answers each cursor query
// with the position the screen model says the cursor is at.
func (p *ptyProc) read() {
	defer close(p.readDone)
	buf := make([]byte, 4096)
	for {
		n, err := p.pty.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.raw.Write(buf[:n])
			replies := p.screen.feed(buf[:n])
			for _, r := range replies {
				_, _ = p.pty.Write([]byte(r))
			}
			// Set after the replies are written, so a send that waited for
			// quiet always types after them.
			p.lastActivity = time.Now()
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
		}
		if err != nil {
			p.mu.Lock()
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
			return
		}
	}
}

// screenModel follows the cursor of a rows×cols terminal through what the
// program writes, as far as survey's prompts need: printable characters
// (auto-wrap), CR, LF, BS, TAB, the CSI cursor moves A B C D E F G H f,
// save/restore (CSI s/u, ESC 7/8). It answers a cursor position query
// (CSI 6n) with "ESC [ row ; col R", as a real terminal does — survey also
// measures the terminal by moving to 999;999 and asking, so a fixed 1;1
// answer would tell it the terminal is one cell wide.
type screenModel struct {
	rows, cols     int
	row, col       int
	savedR, savedC int
	state          int // 0 text, 1 after ESC, 2 in CSI
	params         []byte
}

func newScreenModel(rows, cols int) *screenModel {
	return &screenModel{rows: rows, cols: cols, row: 1, col: 1, savedR: 1, savedC: 1}
}

func (m *screenModel) clamp() {
	m.row = min(max(m.row, 1), m.rows)
	m.col = min(max(m.col, 1), m.cols)
}

// feed processes output bytes and returns the replies to cursor queries.
func (m *screenModel) feed(b []byte) []string {
	var replies []string
	for _, c := range b {
		switch m.state {
		case 1:
			switch c {
			case '[':
				m.state, m.params = 2, m.params[:0]
				continue
			case '7':
				m.savedR, m.savedC = m.row, m.col
			case '8':
				m.row, m.col = m.savedR, m.savedC
			}
			m.state = 0
		case 2:
			if c >= 0x40 && c <= 0x7e {
				if r := m.csi(c); r != "" {
					replies = append(replies, r)
				}
				m.state = 0
			} else {
				m.params = append(m.params, c)
			}
		default:
			switch {
			case c == 0x1b:
				m.state = 1
			case c == '\r':
				m.col = 1
			case c == '\n':
				m.row++
			case c == '\b':
				m.col--
			case c == '\t':
				m.col = (m.col-1)/8*8 + 9
			case c < 0x20 || (c >= 0x80 && c < 0xc0):
				// other controls, UTF-8 continuation bytes: no width
			default:
				if m.col > m.cols {
					m.col = 1
					m.row++
				}
				m.col++
				if m.col > m.cols+1 {
					m.col = m.cols + 1
				}
			}
			if m.row > m.rows {
				m.row = m.rows // scrolled
			}
			if m.col < 1 {
				m.col = 1
			}
		}
	}
	return replies
}

func (m *screenModel) csi(final byte) string {
	ps := strings.Split(strings.TrimLeft(string(m.params), "?"), ";")
	arg := func(i, def int) int {
		if i < len(ps) {
			if n, err := strconv.Atoi(ps[i]); err == nil && n > 0 {
				return n
			}
		}
		return def
	}
	switch final {
	case 'A':
		m.row -= arg(0, 1)
	case 'B':
		m.row += arg(0, 1)
	case 'C':
		m.col += arg(0, 1)
	case 'D':
		m.col -= arg(0, 1)
	case 'E':
		m.row, m.col = m.row+arg(0, 1), 1
	case 'F':
		m.row, m.col = m.row-arg(0, 1), 1
	case 'G':
		m.col = arg(0, 1)
	case 'H', 'f':
		m.row, m.col = arg(0, 1), arg(1, 1)
	case 's':
		m.savedR, m.savedC = m.row, m.col
	case 'u':
		m.row, m.col = m.savedR, m.savedC
	case 'n':
		if string(m.params) == "6" {
			m.clamp()
			return fmt.Sprintf("\x1b[%d;%dR", m.row, m.col)
		}
	}
	m.clamp()
	return ""
}

// output returns everything the program printed so far, without terminal
// control sequences and carriage returns.
func (p *ptyProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return stripANSI(p.raw.String())
}

// expect waits up to timeout until substr appears in the output (control
// sequences removed) after the end of the previous match, and moves past
// it, so successive expects follow the program's order. It fails the test
// when the text does not come in time or the program ends without it.
func (p *ptyProc) expect(substr string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		text := stripANSI(p.raw.String())
		changed := p.changed
		if p.matched <= len(text) {
			if i := strings.Index(text[p.matched:], substr); i >= 0 {
				p.matched += i + len(substr)
				p.mu.Unlock()
				return
			}
		}
		p.mu.Unlock()
		select {
		case <-changed:
		case <-p.readDone:
			// Drained: one last look, then give up.
			p.mu.Lock()
			text = stripANSI(p.raw.String())
			found := p.matched <= len(text) && strings.Contains(text[p.matched:], substr)
			if found {
				p.matched += strings.Index(text[p.matched:], substr) + len(substr)
			}
			p.mu.Unlock()
			if found {
				return
			}
			p.t.Fatalf("the program ended without printing %q; its output:\n%s", substr, text)
		case <-deadline.C:
			p.t.Fatalf("%q did not appear within %v; output so far:\n%s", substr, timeout, p.output())
		}
	}
}

// sendQuiet is how long the program must have printed nothing before send
// types: survey draws its prompt, then asks for the cursor position and
// reads the answer from the same input; typed keys that arrive before that
// answer are taken for a (broken) cursor report. Waiting for quiet puts
// them after it.
const sendQuiet = 150 * time.Millisecond

// send types s on the terminal, as a user would: "y\r" answers a survey
// Confirm with yes (Enter is "\r" on a terminal in raw mode), "\x03" is Ctrl-C.
// It first waits until the program has printed nothing for sendQuiet (5 s
// at most), so the keys come after any cursor query answered.
func (p *ptyProc) send(s string) {
	p.t.Helper()
	limit := time.Now().Add(5 * time.Second)
	for time.Now().Before(limit) {
		p.mu.Lock()
		idle := time.Since(p.lastActivity)
		p.mu.Unlock()
		if idle >= sendQuiet {
			break
		}
		time.Sleep(sendQuiet - idle)
	}
	if _, err := p.pty.Write([]byte(s)); err != nil {
		p.t.Fatalf("type %q on the pty: %v", s, err)
	}
}

// wait waits for the program to exit (at most ptyWaitTimeout, then it is
// killed and the test fails), lets the reader drain what it printed last,
// and returns its exit code (128+N when killed by signal N).
func (p *ptyProc) wait() (exitCode int) {
	p.t.Helper()
	select {
	case <-p.waitDone:
	case <-time.After(ptyWaitTimeout):
		_ = p.cmd.Process.Kill()
		<-p.waitDone
		p.t.Fatalf("the program did not exit within %v; output:\n%s", ptyWaitTimeout, p.output())
	}
	select {
	case <-p.readDone:
	case <-time.After(5 * time.Second):
		// Something else holds the pty open (a child that outlived the
		// program): stop reading; the output so far is what it is.
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitCode
}
