package harness

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// SshdBinary is the OpenSSH server the tests start (Debian's openssh-server;
// .ci/run installs it when missing). sshd must be started by absolute path.
const SshdBinary = "/usr/sbin/sshd"

// SshdAddresses are the loopback addresses the test sshd listens on, on the
// same port: a test uses 127.0.0.2 as a second "node" address (for example
// to prove the rewrite of a loopback server URL to the node's address).
var SshdAddresses = []string{"127.0.0.1", "127.0.0.2"}

// Sshd is a running OpenSSH server for the tests: its own host key, one
// authorized client key, a temporary folder, and a ForceCommand that stands
// in for the remote machine's files (see RemoteRoot). Fields are set by
// StartSshd and read-only afterwards.
type Sshd struct {
	// Port is the port sshd listens on, on every address of SshdAddresses.
	Port int
	// User is the login name that may connect: the user running the tests
	// (sshd, not running as a service, can only let that user in).
	User string
	// Dir is the temporary folder holding the configuration, the keys, the
	// log and RemoteRoot; Stop removes it.
	Dir string
	// ClientKey is the path of the private key (ed25519, no passphrase, mode
	// 0600) that sshd accepts for User; ClientKey+".pub" is its public half.
	ClientKey string
	// HostKeyPub is the server's public host key, "ssh-ed25519 AAAA…".
	HostKeyPub string
	// RemoteRoot stands in for the remote machine's root: a command
	// `[sudo -n] cat -- '/some/path'` is answered with RemoteRoot/some/path
	// when that file exists (PutRemoteFile), else runs as sent, so any real
	// path of the test machine can be read too. When sudo is not installed,
	// a leading "sudo -n " is dropped (the login user is the test's).
	RemoteRoot string
	// CommandLog is the file where every command received is appended,
	// one line each (Commands reads it).
	CommandLog string

	proc     *process
	stopOnce sync.Once
	stopErr  error
}

// StartSshdT starts an sshd for the test t (StartSshd) and registers its
// Stop with t.Cleanup. It fails the test when sshd cannot start and skips it
// in -short mode; it fails with the install hint when sshd is missing.
func StartSshdT(t testing.TB) *Sshd {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real sshd; skipped in -short mode")
	}
	s, err := StartSshd()
	if err != nil {
		t.Fatalf("start test sshd: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop test sshd: %v", err)
		}
	})
	return s
}

// StartSshd starts SshdBinary in the foreground (-D -e) with an absolute
// -f configuration in a new temporary folder: a free port on 127.0.0.1 and
// 127.0.0.2, its own ed25519 host key, public-key authentication only with
// one generated client key (AuthorizedKeysFile in the folder, StrictModes
// no, UsePAM no), and the ForceCommand of RemoteRoot. /run/sshd (its
// privilege-separation folder) is created when missing. It returns once both
// addresses accept connections (10 s at most); the caller must call Stop.
// Keys are made with ssh-keygen. On error nothing is left running and the
// folder is removed; the error quotes sshd's log.
func StartSshd() (*Sshd, error) {
	if _, err := os.Stat(SshdBinary); err != nil {
		return nil, fmt.Errorf("%s is missing: install Debian's openssh-server (apt-get install -y openssh-server; .ci/run does it)", SshdBinary)
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		return nil, errors.New("ssh-keygen is missing: install the OpenSSH client (apt-get install -y openssh-client)")
	}
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return nil, fmt.Errorf("create /run/sshd (sshd's privilege-separation folder): %w", err)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startSshd(u.Username)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	return nil, lastErr
}

func startSshd(login string) (s *Sshd, err error) {
	dir, err := os.MkdirTemp("", "nestor-sshd-")
	if err != nil {
		return nil, err
	}
	s = &Sshd{User: login, Dir: dir, RemoteRoot: filepath.Join(dir, "remote"), CommandLog: filepath.Join(dir, "commands.log")}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	if err := os.MkdirAll(s.RemoteRoot, 0o755); err != nil {
		return nil, err
	}
	hostKey := filepath.Join(dir, "ssh_host_ed25519_key")
	s.ClientKey = filepath.Join(dir, "client_ed25519")
	for _, k := range []struct{ path, comment string }{{hostKey, "nestor-test-host"}, {s.ClientKey, "nestor-test-client"}} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", k.comment, "-f", k.path).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("ssh-keygen %s: %v: %s", k.path, err, out)
		}
	}
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(pub))
	if len(f) < 2 {
		return nil, fmt.Errorf("%s.pub: unexpected content", hostKey)
	}
	s.HostKeyPub = f[0] + " " + f[1]
	clientPub, err := os.ReadFile(s.ClientKey + ".pub")
	if err != nil {
		return nil, err
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, clientPub, 0o600); err != nil {
		return nil, err
	}

	serve := filepath.Join(dir, "serve.sh")
	if err := os.WriteFile(serve, []byte(serveScript(s.CommandLog, s.RemoteRoot)), 0o755); err != nil {
		return nil, err
	}

	s.Port, err = freeCommonPort(SshdAddresses)
	if err != nil {
		return nil, err
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "Port %d\n", s.Port)
	for _, a := range SshdAddresses {
		fmt.Fprintf(&cfg, "ListenAddress %s\n", a)
	}
	fmt.Fprintf(&cfg, `HostKey %s
PidFile %s
AuthorizedKeysFile %s
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PrintMotd no
X11Forwarding no
AllowTcpForwarding no
ForceCommand %s
LogLevel VERBOSE
`, hostKey, filepath.Join(dir, "sshd.pid"), authorized, serve)
	cfgPath := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o600); err != nil {
		return nil, err
	}
	if out, err := exec.Command(SshdBinary, "-t", "-f", cfgPath).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sshd -t rejects the test configuration: %v: %s", err, out)
	}
	s.proc, err = startProcess("sshd", SshdBinary, []string{"-D", "-e", "-f", cfgPath}, filepath.Join(dir, "sshd.log"))
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, a := range SshdAddresses {
		addr := net.JoinHostPort(a, strconv.Itoa(s.Port))
		for {
			if s.proc.exited() {
				return nil, s.proc.failure("exited before listening on " + addr)
			}
			c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return nil, s.proc.failure("did not listen on " + addr + " within 10s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return s, nil
}

// serveScript is the ForceCommand: it logs the command, then answers a
// `cat -- 'PATH'` from root+PATH when that file exists.
func serveScript(log, root string) string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	return `#!/bin/sh
# nestor test sshd: stands in for a remote machine (see harness.Sshd.RemoteRoot).
printf '%s\n' "$SSH_ORIGINAL_COMMAND" >> ` + q(log) + `
cmd=$SSH_ORIGINAL_COMMAND
case "$cmd" in
"sudo -n "*) command -v sudo >/dev/null 2>&1 || cmd=${cmd#"sudo -n "} ;;
esac
case "$cmd" in
"cat -- '"*"'")
	p=${cmd#"cat -- '"}
	p=${p%"'"}
	if [ -f ` + q(root) + `"$p" ]; then exec cat -- ` + q(root) + `"$p"; fi
	;;
esac
exec /bin/sh -c "$cmd"
`
}

// freeCommonPort returns a TCP port free on every address of hosts.
func freeCommonPort(hosts []string) (int, error) {
	for try := 0; try < 20; try++ {
		l, err := net.Listen("tcp", net.JoinHostPort(hosts[0], "0"))
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		ok := true
		var others []net.Listener
		for _, h := range hosts[1:] {
			o, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			others = append(others, o)
		}
		l.Close()
		for _, o := range others {
			o.Close()
		}
		if ok {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no TCP port free on all of %s", strings.Join(hosts, ", "))
}

// KnownHostsLine returns the known_hosts line for this sshd reached as host
// (an address of SshdAddresses): "[host]:PORT ssh-ed25519 AAAA…".
func (s *Sshd) KnownHostsLine(host string) string {
	return fmt.Sprintf("[%s]:%d %s", host, s.Port, s.HostKeyPub)
}

// WriteKnownHosts writes a known_hosts file at path (0600) trusting this
// sshd's host key for each of hosts; with no hosts the file is empty (ssh
// then knows no key at all).
func (s *Sshd) WriteKnownHosts(path string, hosts ...string) error {
	var b strings.Builder
	for _, h := range hosts {
		b.WriteString(s.KnownHostsLine(h) + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// PutRemoteFile makes `cat -- 'remotePath'` on this "remote machine"
// answer data (written under RemoteRoot, mode 0600), whatever the test
// machine has at remotePath.
func (s *Sshd) PutRemoteFile(remotePath string, data []byte) error {
	if !filepath.IsAbs(remotePath) {
		return fmt.Errorf("remote path %q must be absolute", remotePath)
	}
	p := filepath.Join(s.RemoteRoot, remotePath)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o600)
}

// Commands returns the commands sshd received so far, in order, as the
// client sent them (e.g. "sudo -n cat -- '/etc/kubernetes/admin.conf'").
func (s *Sshd) Commands() ([]string, error) {
	data, err := os.ReadFile(s.CommandLog)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	text := strings.TrimRight(string(data), "\n")
	if text == "" {
		return nil, nil
	}
	return strings.Split(text, "\n"), nil
}

// Log returns the end of sshd's log (its -e output), for test messages.
func (s *Sshd) Log() string {
	if s.proc == nil {
		return ""
	}
	return s.proc.tail(40)
}

// Stop ends sshd (SIGTERM to its process group, SIGKILL after 5 s), waits
// for it, and removes Dir. It may be called any number of times; later calls
// return the first call's result.
func (s *Sshd) Stop() error {
	s.stopOnce.Do(func() {
		if s.proc != nil {
			s.proc.stop(5 * time.Second)
		}
		if s.Dir != "" {
			if err := os.RemoveAll(s.Dir); err != nil {
				s.stopErr = fmt.Errorf("remove test sshd folder: %w", err)
			}
		}
	})
	return s.stopErr
}
