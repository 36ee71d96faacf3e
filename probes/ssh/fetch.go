package ssh

import (
	"nestor.dev/nestor/topology"

	"nestor.dev/nestor/probes"

	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"strconv"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
)

// DefaultRemotePath is where kubeadm writes the admin kubeconfig on a
// control-plane node. k3s writes /etc/rancher/k3s/k3s.yaml and RKE2
// /etc/rancher/rke2/rke2.yaml (FetchOptions.RemotePath).
const DefaultRemotePath = "/etc/kubernetes/admin.conf"

// FetchOptions say how to reach a control-plane node with the system ssh.
// Every field but Host may be empty: ssh then applies ~/.ssh/config, the
// agent and its own defaults.
type FetchOptions struct {
	// Node is the node's name, for messages.
	Node string
	// Host is the ssh destination (ansible_host, else the topology's
	// address, else the node's name).
	Host string
	// User is the remote user ("" lets ssh decide).
	User string
	// Port is the ssh port (0 lets ssh decide).
	Port int
	// IdentityFile is the private key passed with -i ("" for none).
	IdentityFile string
	// CommonArgs and ExtraArgs are ansible_ssh_common_args and
	// ansible_ssh_extra_args, split with SplitArgs (jump hosts,
	// ProxyCommand, UserKnownHostsFile live there).
	CommonArgs, ExtraArgs string
	// Become runs the read with sudo even for root (ansible_become).
	Become bool
	// RemotePath is the file to read; "" means DefaultRemotePath.
	RemotePath string
	// Interactive is false when nobody can answer ssh's questions: ssh then
	// gets -o BatchMode=yes (no password, passphrase or host-key prompt) and
	// -o ConnectTimeout=10.
	Interactive bool
	// Address is the node's address for the API server, used to rewrite a
	// loopback server URL ("" means Host).
	Address string
}

// FetchError is a failed ssh run: the command (no secret in it), ssh's exit
// code (255 is ssh's own failure, anything else the remote command's) and
// what ssh and the remote command wrote on stderr.
type FetchError struct {
	Command  string
	ExitCode int
	Stderr   string
	// Hint says what usually fixes this failure ("" when nestor has none).
	Hint string
	err  error
}

func (e *FetchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed", e.Command)
	if e.ExitCode >= 0 {
		fmt.Fprintf(&b, " (exit %d)", e.ExitCode)
	} else if e.err != nil {
		fmt.Fprintf(&b, ": %v", e.err)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, ":\n  %s", strings.ReplaceAll(e.Stderr, "\n", "\n  "))
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "\n%s", e.Hint)
	}
	return b.String()
}

func (e *FetchError) Unwrap() error { return e.err }

// AdminConf is a fetched kubeconfig, checked by CheckAdminConf. Only Data
// holds credentials: never print it.
type AdminConf struct {
	// Data is the kubeconfig to write: the bytes fetched, or, when the server
	// was rewritten, the kubeconfig re-encoded by clientcmd.Write.
	Data []byte
	// Context, Cluster and User are the names of the current context, its
	// cluster and its user.
	Context, Cluster, User string
	// Server is the current context's server URL, after any rewrite.
	Server string
	// RewrittenFrom is the loopback server URL the file had ("" when the
	// server was not rewritten).
	RewrittenFrom string
}

// SSHArgs returns the arguments of the ssh command that prints the remote
// kubeconfig on stdout, in this order:
//
//	[-o BatchMode=yes] [-i KEY] [-p PORT] COMMON... EXTRA... [-o ConnectTimeout=10]
//	-- [USER@]HOST [sudo -n] cat -- 'REMOTE_PATH'
//
// BatchMode comes first because ssh keeps the first value it obtains for an
// option (ssh_config(5)), so no inventory argument can turn it off;
// ConnectTimeout comes after the inventory's so theirs wins. sudo -n is used
// when User is not "root" (an unknown user included) or Become is set; -n
// makes sudo fail instead of asking for a password. Nothing weakens host-key
// checking: ssh checks host keys as configured, and nestor never adds an
// option that skips it. The remote path is single-quoted for the remote shell.
//
// Errors: no Host; a Host or User starting with "-" (it would be read as an
// option); a port out of range; CommonArgs or ExtraArgs that SplitArgs
// refuses.
func SSHArgs(o FetchOptions) ([]string, error) {
	if o.Host == "" {
		return nil, fmt.Errorf("node %s: no address to connect to (set address: in the topology, or ansible_host in the inventory)", o.Node)
	}
	if strings.HasPrefix(o.Host, "-") || strings.HasPrefix(o.User, "-") {
		return nil, fmt.Errorf("node %s: a host or user starting with '-' would be read by ssh as an option: %q", o.Node, o.User+"@"+o.Host)
	}
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("node %s: port %d is not a TCP port", o.Node, o.Port)
	}
	var args []string
	if !o.Interactive {
		args = append(args, "-o", "BatchMode=yes")
	}
	if o.IdentityFile != "" {
		args = append(args, "-i", o.IdentityFile)
	}
	if o.Port != 0 {
		args = append(args, "-p", strconv.Itoa(o.Port))
	}
	for _, s := range []struct{ name, v string }{{"ansible_ssh_common_args", o.CommonArgs}, {"ansible_ssh_extra_args", o.ExtraArgs}} {
		words, err := SplitArgs(s.v)
		if err != nil {
			return nil, fmt.Errorf("node %s: %s: %v", o.Node, s.name, err)
		}
		args = append(args, words...)
	}
	if !o.Interactive {
		args = append(args, "-o", "ConnectTimeout=10")
	}
	dest := o.Host
	if o.User != "" {
		dest = o.User + "@" + o.Host
	}
	args = append(args, "--", dest)
	if o.User != "root" || o.Become {
		args = append(args, "sudo", "-n")
	}
	path := o.RemotePath
	if path == "" {
		path = DefaultRemotePath
	}
	args = append(args, "cat", "--", "'"+strings.ReplaceAll(path, "'", `'\''`)+"'")
	return args, nil
}

// FetchAdminConf runs the system ssh (SSHArgs) through run to read the
// control-plane node's admin kubeconfig, then checks it with CheckAdminConf
// (the loopback rewrite uses o.Address, else o.Host).
//
// Errors: a *FetchError when ssh fails (its stderr, its exit code, a hint
// for the usual causes: unknown host key, refused key, sudo asking for a
// password, missing file); the errors of SSHArgs and CheckAdminConf. No
// error contains what the remote file holds.
func FetchAdminConf(ctx context.Context, run probes.Runner, o FetchOptions) (*AdminConf, error) {
	args, err := SSHArgs(o)
	if err != nil {
		return nil, err
	}
	stdout, stderr, err := run(ctx, "ssh", args...)
	if err != nil {
		fe := &FetchError{Command: "ssh " + strings.Join(args, " "), ExitCode: -1, Stderr: strings.TrimSpace(string(stderr)), err: err}
		var ee *exec.ExitError
		switch {
		case errors.Is(err, exec.ErrNotFound):
			fe.Hint = "ssh is not installed (not found on PATH): install the OpenSSH client"
		case errors.As(err, &ee):
			fe.ExitCode = ee.ExitCode()
		}
		if ctx.Err() != nil {
			fe.Hint = "ssh did not finish: " + probes.StopWords(ctx.Err())
		}
		if fe.Hint == "" {
			fe.Hint = fetchHint(fe.Stderr, o)
		}
		return nil, fe
	}
	addr := o.Address
	if addr == "" {
		addr = o.Host
	}
	path := o.RemotePath
	if path == "" {
		path = DefaultRemotePath
	}
	ac, err := CheckAdminConf(stdout, addr)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", o.Node, path, err)
	}
	return ac, nil
}

// fetchHint names the usual fix of a failed fetch from ssh's message.
func fetchHint(stderr string, o FetchOptions) string {
	s := strings.ToLower(stderr)
	switch {
	case strings.Contains(s, "host key verification failed"), strings.Contains(s, "no ed25519 host key is known"),
		strings.Contains(s, "host key is known"):
		return "ssh does not know this node's host key: connect once with ssh yourself and check the fingerprint, " +
			"or add it to the known_hosts file your ssh uses (e.g. -o UserKnownHostsFile=… in ansible_ssh_common_args). nestor never disables host-key checking."
	case strings.Contains(s, "remote host identification has changed"):
		return "the node's host key CHANGED: check why before anything else; nestor never ignores host keys."
	case strings.Contains(s, "permission denied (publickey"):
		return "the node refused the key: pass --identity KEY, set ansible_ssh_private_key_file, or load the key in your ssh agent."
	case strings.Contains(s, "a password is required"), strings.Contains(s, "a terminal is required"):
		return "sudo wants a password: nestor runs sudo -n; allow the read without a password, or connect as root (--user root)."
	case strings.Contains(s, strings.ToLower(remotePath(o))+": no such file"):
		return fmt.Sprintf("%s does not exist on the node: for k3s pass --remote-path /etc/rancher/k3s/k3s.yaml, for RKE2 /etc/rancher/rke2/rke2.yaml", remotePath(o))
	case o.IdentityFile != "" && strings.Contains(s, "identity file") && strings.Contains(s, "not accessible"):
		return fmt.Sprintf("the key %s does not exist here: fix --identity, ansible_ssh_private_key_file or the topology's key:", o.IdentityFile)
	}
	return ""
}

// remotePath is o.RemotePath, else DefaultRemotePath.
func remotePath(o FetchOptions) string {
	if o.RemotePath == "" {
		return DefaultRemotePath
	}
	return o.RemotePath
}

// CheckAdminConf checks that data is a kubeconfig (clientcmd.Load) whose
// current-context is set and names a defined context, cluster (with a server
// URL) and user, whose credentials are embedded (a file path would name a
// file on the node, not copied), and returns its names and server.
//
// When the server of the current context's cluster is a loopback address
// (127.0.0.0/8, ::1, localhost — k3s and RKE2 write https://127.0.0.1:6443),
// it is rewritten to address, keeping the scheme, port and path, and the
// kubeconfig is re-encoded; RewrittenFrom holds the old URL. A loopback
// server with an empty address is an error saying what to declare.
//
// Errors never quote the data.
func CheckAdminConf(data []byte, address string) (*AdminConf, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, errors.New("the file is empty: not a kubeconfig")
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("not a kubeconfig (%d bytes): %v", len(data), err)
	}
	ac := &AdminConf{Data: data, Context: cfg.CurrentContext}
	if ac.Context == "" && len(cfg.Contexts) == 0 {
		return nil, errors.New("the kubeconfig defines no context (no contexts: entry), so it names no cluster")
	}
	if ac.Context == "" {
		return nil, fmt.Errorf("the kubeconfig has no current-context (contexts: %s)", probes.KeyList(cfg.Contexts))
	}
	kctx, ok := cfg.Contexts[ac.Context]
	if !ok {
		return nil, fmt.Errorf("current-context %q is not defined (contexts: %s)", ac.Context, probes.KeyList(cfg.Contexts))
	}
	ac.Cluster, ac.User = kctx.Cluster, kctx.AuthInfo
	cl, ok := cfg.Clusters[kctx.Cluster]
	if !ok {
		return nil, fmt.Errorf("context %q names cluster %q, which is not defined (clusters: %s)", ac.Context, kctx.Cluster, probes.KeyList(cfg.Clusters))
	}
	if cl.Server == "" {
		return nil, fmt.Errorf("cluster %q has no server URL", kctx.Cluster)
	}
	var files []string
	if cl.CertificateAuthority != "" {
		files = append(files, "certificate-authority of cluster "+kctx.Cluster)
	}
	if kctx.AuthInfo != "" {
		u, ok := cfg.AuthInfos[kctx.AuthInfo]
		if !ok {
			return nil, fmt.Errorf("context %q names user %q, which is not defined (users: %s)", ac.Context, kctx.AuthInfo, probes.KeyList(cfg.AuthInfos))
		}
		if u.ClientCertificate != "" {
			files = append(files, "client-certificate of user "+kctx.AuthInfo)
		}
		if u.ClientKey != "" {
			files = append(files, "client-key of user "+kctx.AuthInfo)
		}
		if u.TokenFile != "" {
			files = append(files, "tokenFile of user "+kctx.AuthInfo)
		}
	}
	if len(files) > 0 {
		return nil, fmt.Errorf("the kubeconfig refers to files on the node (%s) that were not copied: fetch a kubeconfig with embedded data (kubeadm's admin.conf embeds them)", strings.Join(files, ", "))
	}
	ac.Server = cl.Server
	u, err := url.Parse(cl.Server)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("cluster %q: server %q is not a URL", kctx.Cluster, topology.RedactUserInfo(cl.Server))
	}
	if !IsLoopbackHost(u.Hostname()) {
		return ac, nil
	}
	if address == "" {
		return nil, fmt.Errorf("the server is %s, a loopback address of the node; nestor needs the node's address to rewrite it: set address: on the node in the topology", cl.Server)
	}
	nu := *u
	if p := u.Port(); p != "" {
		nu.Host = net.JoinHostPort(address, p)
	} else if strings.Contains(address, ":") {
		nu.Host = "[" + address + "]"
	} else {
		nu.Host = address
	}
	if nu.String() == cl.Server {
		return ac, nil // the node's address is that loopback address: nothing to rewrite
	}
	ac.RewrittenFrom = cl.Server
	ac.Server = nu.String()
	out := cfg.DeepCopy()
	out.Clusters[kctx.Cluster].Server = ac.Server
	ac.Data, err = clientcmd.Write(*out)
	if err != nil {
		return nil, fmt.Errorf("cannot re-encode the kubeconfig after rewriting its server: %v", err)
	}
	return ac, nil
}

// IsLoopbackHost reports whether host (a URL's hostname, without port or
// brackets) is loopback: "localhost" or a name under ".localhost" (RFC 6761),
// or an IP in 127.0.0.0/8 or ::1.
func IsLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// KubeconfigSummary is what may be shown of a kubeconfig: names and the
// server, never a credential.
type KubeconfigSummary struct {
	Context, Cluster, User, Server string
}

// SummarizeKubeconfig returns the current context, its cluster, user and
// server of the kubeconfig data, for showing how two files differ. The error
// (not a kubeconfig, no current context) never quotes the data.
func SummarizeKubeconfig(data []byte) (KubeconfigSummary, error) {
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return KubeconfigSummary{}, fmt.Errorf("not a kubeconfig: %v", err)
	}
	s := KubeconfigSummary{Context: cfg.CurrentContext}
	if s.Context == "" {
		return s, errors.New("no current-context")
	}
	if c, ok := cfg.Contexts[s.Context]; ok {
		s.Cluster, s.User = c.Cluster, c.AuthInfo
		if cl, ok := cfg.Clusters[c.Cluster]; ok {
			s.Server = cl.Server
		}
	}
	return s, nil
}

// SplitArgs splits s into words the way a POSIX shell (and Python's
// shlex.split, which Ansible applies to ansible_ssh_common_args) does:
// blanks separate words; '…' keeps everything literally; "…" keeps blanks
// and honours \" \\ \$ \` and a backslash-newline; a backslash outside
// quotes escapes the next character. No expansion of any kind is done.
// Errors: an unterminated quote or a trailing backslash.
func SplitArgs(s string) ([]string, error) {
	return splitWords(s, false)
}

// splitWords is SplitArgs; with comments, a # outside quotes ends the line,
// as shlex.split(s, comments=True) does (Ansible's INI host lines).
func splitWords(s string, comments bool) ([]string, error) {
	var (
		out   []string
		cur   strings.Builder
		inTok bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if comments && c == '#' {
			break
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inTok {
				out = append(out, cur.String())
				cur.Reset()
				inTok = false
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("%q ends with a backslash", s)
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
			inTok = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("%q has an unterminated ' quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inTok = true
		case c == '"':
			i++
			closed := false
			for ; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(s[i])
			}
			if !closed {
				return nil, fmt.Errorf("%q has an unterminated \" quote", s)
			}
			inTok = true
		default:
			cur.WriteByte(c)
			inTok = true
		}
	}
	if inTok {
		out = append(out, cur.String())
	}
	return out, nil
}
