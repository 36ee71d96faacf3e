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
// (TESTING-NOTES.md). Use expect to wait for text, send to answer a prompt,
// wait for the exit code. All methods fail the test (t.Fatalf) on a
// timeout, with everything the program printed so far.
//
// How keys reach a survey prompt without being lost: survey v2.3.7 reads
// each cursor report with a fresh bufio.Reader on the terminal
// (terminal.Cursor.Location): bytes that arrive in the same read(2) as the
// report, *after* it, are discarded; bytes that come *before* it are kept
// and handed to the prompt. A line prompt (Confirm, Input, Password: one
// RuneReader.ReadLine) draws its text, switches the terminal to raw mode,
// asks twice — the size probe (save the cursor, move to 999;999, ask) and
// then where the cursor is — and only then reads keys. So the driver holds
// its answer to that second query (the key-reading query,
// cursorQuery.readsKeys) until the test calls send, and writes the keys and
// the answer together, keys first, in one write: survey keeps them whatever
// the scheduler does. Typing after the answer — after a quiet spell, or as
// soon as it is written — races survey's read of it, and loses the keys
// whenever both land in one read. (survey's Select and MultiSelect ask no
// cursor query before reading keys: send does not serve them.)
type ptyProc struct {
	t   testing.TB
	cmd *exec.Cmd
	pty *os.File

	mu      sync.Mutex
	raw     bytes.Buffer // everything read from the pty, as written
	screen  *screenModel // where the cursor is, to answer cursor queries
	matched int          // offset in the stripped text after the last expect match
	changed chan struct{}

	// held is the answer to the key-reading query the program is blocked
	// on, kept back until send types the keys in front of it; nil when the
	// program is not waiting at a prompt.
	held *heldAnswer
	// keyQueries counts the key-reading queries seen (each prompt drawn,
	// or drawn again after an invalid answer, asks one).
	keyQueries int
	// stall, when set, freezes the program (SIGSTOP) before each answer is
	// written and lets it run again (SIGCONT) this long after: the worst a
	// loaded machine can do between an answer and survey's read of it.
	stall time.Duration

	readDone chan struct{} // closed when the pty reader ends (EIO once the program exits)
	waitDone chan struct{} // closed when the program has exited
	exitCode int
}

// heldAnswer is the driver's answer to a key-reading query, not yet written.
type heldAnswer struct {
	reply string
	// textEnd is the length of the stripped output up to the query: the
	// prompt it belongs to was drawn before it.
	textEnd int
}

// ptyOptions tune startPTYWith; the zero value is a plain terminal.
type ptyOptions struct {
	// stall freezes the program around each cursor answer (ptyProc.stall):
	// the driver's own tests use it to reproduce a loaded machine
	// deterministically.
	stall time.Duration
}

// startPTY starts bin with args on a new pseudo-terminal of ptyRows ×
// ptyCols, with exactly env as its environment (pass TERM, HOME, PATH…
// yourself: nothing of the test's environment is inherited), the program
// being the session leader with the pty as its controlling terminal. The
// process is killed and the pty closed when the test ends.
func startPTY(t testing.TB, bin string, env []string, args ...string) *ptyProc {
	t.Helper()
	return startPTYWith(t, ptyOptions{}, bin, env, args...)
}

// startPTYWith is startPTY with options (ptyOptions).
func startPTYWith(t testing.TB, o ptyOptions, bin string, env []string, args ...string) *ptyProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: ptyRows, Cols: ptyCols})
	if err != nil {
		t.Fatalf("start %s on a pty: %v", bin, err)
	}
	p := &ptyProc{t: t, cmd: cmd, pty: f, screen: newScreenModel(ptyRows, ptyCols), changed: make(chan struct{}), stall: o.stall, readDone: make(chan struct{}), waitDone: make(chan struct{}), exitCode: -1}
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
// with the position the screen model says the cursor is at, except the
// key-reading query, whose answer it holds for send.
func (p *ptyProc) read() {
	defer close(p.readDone)
	buf := make([]byte, 4096)
	for {
		n, err := p.pty.Read(buf)
		if n > 0 {
			p.mu.Lock()
			base := p.raw.Len()
			p.raw.Write(buf[:n])
			for _, q := range p.screen.feed(buf[:n]) {
				if !q.readsKeys {
					p.answer(q.reply)
					continue
				}
				if p.held != nil {
					// A second prompt while one still waits cannot come
					// from survey (it blocks on the first); answer the
					// first bare rather than leave it hanging.
					p.answer(p.held.reply)
				}
				p.keyQueries++
				p.held = &heldAnswer{reply: q.reply, textEnd: len(stripANSI(string(p.raw.Bytes()[:base+q.end])))}
			}
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

// answer writes b (a cursor report, maybe preceded by keys) to the
// program's terminal in one write. With p.stall set, the program is frozen
// first and runs again p.stall after the write, so b waits, unread, as long
// as a loaded machine could make it wait. Called with p.mu held.
func (p *ptyProc) answer(b string) {
	frozen := p.stall > 0 && p.freeze()
	// An error means the program has exited (the pty is closing): nobody
	// is left to answer.
	_, _ = p.pty.Write([]byte(b))
	if frozen {
		pid := p.cmd.Process.Pid
		time.AfterFunc(p.stall, func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	}
}

// freezeTimeout bounds freeze's wait for the program to stop: a failure
// guard only (a stop takes effect as soon as each thread is scheduled).
const freezeTimeout = 30 * time.Second

// freeze stops the program (SIGSTOP to it alone, not its children) and
// waits until each of its threads is stopped (/proc/PID/task/*/stat). It
// returns whether the program is stopped, so that the caller resumes it
// (SIGCONT); it fails the test (t.Errorf) when the program is still running
// after freezeTimeout, and resumes it itself.
func (p *ptyProc) freeze() bool {
	pid := p.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return false // exited
	}
	deadline := time.Now().Add(freezeTimeout)
	for !allThreadsStopped(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGCONT)
			p.t.Errorf("pty driver: process %d not stopped %v after SIGSTOP", pid, freezeTimeout)
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// allThreadsStopped reports whether every thread of process pid is in
// state T (stopped) or t (traced), as proc(5) gives it in
// /proc/PID/task/TID/stat. A process that is gone counts as stopped.
func allThreadsStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return true
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread ended
		}
		// pid (comm) state …: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) {
			return false
		}
		if s := stat[i+2]; s != 'T' && s != 't' && s != 'Z' && s != 'X' {
			return false
		}
	}
	return true
}

// cursorQuery is one cursor position query found in the program's output.
type cursorQuery struct {
	reply string // ESC [ row ; col R
	// readsKeys: survey reads keys once this query is answered (the
	// query right after the size probe, which opens each line prompt).
	readsKeys bool
	end       int // offset just past the query in the bytes fed
}

// screenModel follows the cursor of a rows×cols terminal through what the
// program writes, as far as survey's prompts need: printable characters
// (auto-wrap), CR, LF, BS, TAB, the CSI cursor moves A B C D E F G H f,
// save/restore (CSI s/u, ESC 7/8). It answers a cursor position query
// (CSI 6n) with "ESC [ row ; col R", as a real terminal does — survey also
// measures the terminal by moving to 999;999 and asking, so a fixed 1;1
// answer would tell it the terminal is one cell wide.
//
// It also tells survey's key-reading query apart (cursorQuery.readsKeys):
// survey's RuneReader.ReadLine opens with terminal.Cursor.Size — save the
// cursor, move to 999;999, ask (the size probe) — then Cursor.Location —
// restore, ask — and then reads keys. The query asked right after a size
// probe, with nothing printed in between, is the key-reading one. The
// query survey asks while a line is edited (after a character inserted
// before the end of the line) follows no size probe.
type screenModel struct {
	rows, cols     int
	row, col       int
	savedR, savedC int
	state          int // 0 text, 1 after ESC, 2 in CSI
	params         []byte
	// probing: the cursor was moved to the bottom-right corner or beyond
	// since the last query, as a size probe does.
	probing bool
	// afterProbe: the last query was a size probe, and nothing was printed
	// since.
	afterProbe bool
}

func newScreenModel(rows, cols int) *screenModel {
	return &screenModel{rows: rows, cols: cols, row: 1, col: 1, savedR: 1, savedC: 1}
}

func (m *screenModel) clamp() {
	m.row = min(max(m.row, 1), m.rows)
	m.col = min(max(m.col, 1), m.cols)
}

// feed processes output bytes and returns the cursor queries in them, in
// order, each with its answer.
func (m *screenModel) feed(b []byte) []cursorQuery {
	var queries []cursorQuery
	for i, c := range b {
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
				if q, ok := m.csi(c); ok {
					q.end = i + 1
					queries = append(queries, q)
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
				m.afterProbe = false
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
	return queries
}

// csi applies the CSI sequence ending in final; for a cursor position
// query it returns the query and its answer, and ok.
func (m *screenModel) csi(final byte) (q cursorQuery, ok bool) {
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
		m.probing = m.row >= m.rows && m.col >= m.cols
	case 's':
		m.savedR, m.savedC = m.row, m.col
	case 'u':
		m.row, m.col = m.savedR, m.savedC
	case 'n':
		if string(m.params) == "6" {
			m.clamp()
			q = cursorQuery{reply: fmt.Sprintf("\x1b[%d;%dR", m.row, m.col)}
			switch {
			case m.probing:
				m.probing, m.afterProbe = false, true
			case m.afterProbe:
				m.afterProbe, q.readsKeys = false, true
			}
			return q, true
		}
	}
	m.clamp()
	return q, false
}

// output returns everything the program printed so far, without terminal
// control sequences and carriage returns.
func (p *ptyProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return stripANSI(p.raw.String())
}

// rawOutput is everything printed so far, control sequences kept (the
// colour a terminal would draw).
func (p *ptyProc) rawOutput() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.String()
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

// sendTimeout bounds send's wait for the prompt to ask for keys: a failure
// guard only (a prompt normally asks within milliseconds of being drawn).
const sendTimeout = 60 * time.Second

// send types s at the survey line prompt (Confirm, Input, Password) the
// program is at or is about to reach, as a user would: "y\r" answers a
// Confirm with yes (Enter is "\r" on a terminal in raw mode), "\x03" is
// Ctrl-C. s is the whole answer, Enter included: each prompt takes one send
// (an invalid answer draws the prompt again, which takes the next one).
//
// It waits for the event that makes typing safe, not for silence: the
// prompt has been drawn and survey has asked its key-reading cursor query
// (ptyProc, screenModel), whose answer the driver holds. It then writes s
// and that answer in one write, s first, so survey keeps the keys however
// late it reads them. The prompt must come after the text the last expect
// matched (else the keys would answer an older prompt: the test fails).
// It fails the test when the program exits first or asks nothing within
// sendTimeout. s may not hold a capital R (survey would hang, see below).
func (p *ptyProc) send(s string) {
	p.t.Helper()
	if s == "" {
		p.t.Fatalf("send needs the keys of a whole answer (Enter is \"\\r\")")
	}
	if strings.Contains(s, "R") {
		// terminal.Cursor.Location reads up to the first R: a typed R
		// ahead of the report ends its read early, and survey then waits
		// for a report it has already swallowed.
		p.t.Fatalf("send %q: survey v2.3.7 mistakes a typed R ahead of a cursor report for the report's end and hangs; type r", s)
	}
	deadline := time.NewTimer(sendTimeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		if h := p.held; h != nil {
			if h.textEnd < p.matched {
				text := stripANSI(p.raw.String())
				p.mu.Unlock()
				p.t.Fatalf("a prompt drawn before the text expected last waits for keys: %q would answer it; output:\n%s", s, text)
			}
			p.held = nil
			p.answer(s + h.reply)
			p.mu.Unlock()
			return
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-p.readDone:
			p.t.Fatalf("the program ended before a prompt asked for keys (%q not typed); its output:\n%s", s, p.output())
		case <-deadline.C:
			p.t.Fatalf("no prompt asked for keys within %v (%q not typed; %d prompt(s) answered so far); output so far:\n%s", sendTimeout, s, p.keyQueryCount(), p.output())
		}
	}
}

// interrupt types Ctrl-C while no prompt is up (the program reads, its
// terminal in its normal mode): the terminal's line discipline turns it
// into SIGINT for the program, as for a user at a shell. At a prompt, use
// send("\x03") instead (survey reads the key in raw mode).
func (p *ptyProc) interrupt() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.pty.Write([]byte{0x03}); err != nil {
		p.t.Fatalf("type Ctrl-C: %v", err)
	}
}

// keyQueryCount returns how many key-reading queries the program asked.
func (p *ptyProc) keyQueryCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keyQueries
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
