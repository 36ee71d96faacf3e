package e2e

// The progress line on slow reads: shown on a terminal's stderr once a read
// has taken more than a second, never with -o json, never without a
// terminal, never on stdout. The read is made slow by a throttling proxy on
// loopback between nestor and the real API server.

import (
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"nestor.dev/nestor/tests/harness"
)

// throttle is a TCP proxy on 127.0.0.1 to target that holds every chunk the
// server sends for delay before passing it on (TLS passes through intact:
// the cluster's serving certificate is valid for 127.0.0.1 on any port).
func throttle(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close(); wg.Wait() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(s, c); s.Close() }()
			go func() {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 {
						select {
						case <-time.After(delay):
						case <-done:
							return
						}
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return "https://" + l.Addr().String()
}

func TestProgressOnSlowReads(t *testing.T) {
	c := sharedFixtureCluster(t, healthyFixture)
	u, err := url.Parse(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	slow := throttle(t, u.Host, 400*time.Millisecond)
	w := newWorld(t, c)
	w.dirqualStack(slow, "~/.kube/dirqual.config")
	w.kubeconfig(c, filepath.Join(w.Home, ".kube", "dirqual.config"), harness.IdentityReadOnly, slow)
	args := []string{"preview", "--stacks", w.Stacks, "--stack", "dirqual", "--timeout", "60s"}

	// A terminal: the line shows while the read is slow, then is erased.
	r := w.runPTY([]string{"NESTOR_NO_INPUT=1"}, func(p *ptyProc) {}, args...)
	wantCode(t, result{args: args, code: r.code, stdout: r.output}, 0)
	wantContains(t, "terminal", r.output, "reading ", "…", "Plan: ")

	// -o json on a terminal: never.
	j := w.runPTY([]string{"NESTOR_NO_INPUT=1"}, func(p *ptyProc) {}, append(args, "-o", "json")...)
	wantNotContains(t, "-o json on a terminal", j.output, "reading ")

	// Piped (no terminal): never, on either stream.
	pr := w.run(nil, args...)
	wantCode(t, pr, 0)
	wantNotContains(t, "piped stderr", pr.stderr, "reading ")
	wantNotContains(t, "piped stdout", pr.stdout, "reading ")
	if os.Getenv("NESTOR_E2E_TIMING") != "" {
		t.Logf("slow read took %v", pr.took)
	}
	if !strings.Contains(pr.stdout, "In sync.") {
		t.Errorf("the slow read is still a whole read:\n%s", pr)
	}
}
