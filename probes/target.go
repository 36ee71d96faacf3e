package probes

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// DefaultTimeout bounds one whole read (ReadNodes, ProbeCluster, ProbeTarget) when
// KubeOptions.Timeout is zero: issue 3, `--timeout` default 10s.
const DefaultTimeout = 10 * time.Second

// KubeOptions tunes the kube prober.
type KubeOptions struct {
	// Timeout bounds one whole read: every request of one ReadNodes, of
	// one ProbeCluster or of one ProbeTarget, together. 0 means DefaultTimeout. A deadline on the
	// context passed to the read also applies, whichever is sooner.
	Timeout time.Duration
}

// Target is the cluster a kubeconfig names: DESIGN.md "The target and its
// confirmation". It holds no credential in any printable field.
type Target struct {
	// Kubeconfig is what was loaded and the rule that chose it.
	Kubeconfig Kubeconfig `json:"kubeconfig"`
	// Context is the context used (--context, else current-context).
	Context string `json:"context"`
	// Cluster and AuthInfo are the names the context refers to.
	Cluster  string `json:"cluster"`
	AuthInfo string `json:"user"`
	// Endpoint is the server URL of the context's cluster, as written in the
	// kubeconfig (compare with SameEndpoint).
	Endpoint string `json:"endpoint"`
	// Options bounds the reads made through this target.
	Options KubeOptions `json:"-"`
	// Config is the client configuration: read-only transport pinned to
	// the endpoint's host (ReadOnlyTo), nestor's user agent, no client-side rate limiter
	// (each read sets its own Accept: server-side Tables for
	// nodes, namespaces and CRDs, JSON for the rest). It carries credentials: never
	// print it. For a Target from LoadTargetWith, the client of the reads
	// is built from it once, on the first ReadNodes, ProbeCluster or ProbeTarget, and
	// kept for the Target's life (one connection pool, one TLS handshake):
	// change Config before that first read, not after.
	Config *rest.Config `json:"-"`

	// cache holds the clients built from Config (Target.clients); set by
	// LoadTargetWith, shared by copies of the Target. A Target made
	// without LoadTargetWith has none and builds its clients per read.
	cache *clientCache
}

// clientCache is the lazily built clients of a Target; once makes building
// them safe when reads start from several goroutines.
type clientCache struct {
	once sync.Once
	c    *clients
	err  error
}

// LoadOptions are the inputs of LoadTargetWith.
type LoadOptions struct {
	// Context overrides the kubeconfig's current-context (--context).
	Context string
	// UserAgent is nestor's own, "nestor/<version>", so an audit log tells
	// nestor's requests apart.
	UserAgent string
	// Interactive says a terminal is there for an exec credential plugin to
	// prompt on. When false, the plugin is told stdin is unavailable (a
	// plugin that needs it fails at once instead of hanging).
	Interactive bool
	// Kube bounds the reads made through the target.
	Kube KubeOptions
}

// LoadTarget is LoadTargetWith with no terminal for exec plugins and the
// default timeout (DefaultTimeout): the safe choice for a command that must
// never hang. Callers that honour --timeout use LoadTargetWith.
func LoadTarget(kc Kubeconfig, contextOverride string, userAgent string) (*Target, error) {
	return LoadTargetWith(kc, LoadOptions{Context: contextOverride, UserAgent: userAgent})
}

// LoadTargetWith loads the files of kc explicitly (clientcmd.LoadFromFile,
// then ResolveLocalPaths so relative certificate paths are taken from each
// file's folder), merges them the way client-go merges a KUBECONFIG list
// (clusters, users and contexts: the first file that defines a name wins;
// current-context: the first non-empty one), picks o.Context or the
// current-context, and builds a rest.Config with
// clientcmd.NewNonInteractiveClientConfig and no ConfigAccess, so no default
// loading rule (~/.kube/config, migration) is involved and nothing is ever
// written back. The transport is wrapped with ReadOnlyTo the server's
// scheme and host, and the clients built from it refuse every redirect
// (RedirectRefusedError): nestor's requests and credentials go to that
// endpoint only.
//
// Errors (each names the file(s) and, for a missing file, the rule that chose
// it and the fix; none contains a credential): kc has no path; a file that
// does not exist or cannot be parsed; no context chosen (empty
// current-context and no --context); a context that is not defined; a context
// naming a cluster or user no file defines; a cluster without server; a
// server URL with user info ("https://user:pass@host": the error shows it
// as https://REDACTED@host); a client configuration client-go refuses
// (e.g. both insecure-skip-tls-verify and a CA).
func LoadTargetWith(kc Kubeconfig, o LoadOptions) (*Target, error) {
	if kc.None() {
		return nil, errors.New("no kubeconfig to load: " + kc.Detail)
	}
	merged := clientcmdapi.NewConfig()
	for _, p := range kc.Paths {
		cfg, err := clientcmd.LoadFromFile(p)
		if err != nil {
			return nil, loadError(kc, p, err)
		}
		if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %v", p, err)
		}
		for k, v := range cfg.Clusters {
			if _, ok := merged.Clusters[k]; !ok {
				merged.Clusters[k] = v
			}
		}
		for k, v := range cfg.AuthInfos {
			if _, ok := merged.AuthInfos[k]; !ok {
				merged.AuthInfos[k] = v
			}
		}
		for k, v := range cfg.Contexts {
			if _, ok := merged.Contexts[k]; !ok {
				merged.Contexts[k] = v
			}
		}
		if merged.CurrentContext == "" {
			merged.CurrentContext = cfg.CurrentContext
		}
	}
	files := strings.Join(kc.Paths, ", ")

	ctxName := o.Context
	if ctxName == "" {
		ctxName = merged.CurrentContext
	}
	if ctxName == "" {
		return nil, fmt.Errorf("kubeconfig %s has no current-context: pass --context NAME (contexts defined: %s)", files, names(merged.Contexts))
	}
	kctx, ok := merged.Contexts[ctxName]
	if !ok {
		how := "current-context"
		if o.Context != "" {
			how = "--context"
		}
		return nil, fmt.Errorf("kubeconfig %s: context %q (%s) is not defined (contexts defined: %s)", files, ctxName, how, names(merged.Contexts))
	}
	where := kctx.LocationOfOrigin
	cluster, ok := merged.Clusters[kctx.Cluster]
	if !ok {
		return nil, fmt.Errorf("kubeconfig %s: context %q names cluster %q, which no kubeconfig file defines (clusters defined: %s)", where, ctxName, kctx.Cluster, names(merged.Clusters))
	}
	if kctx.AuthInfo != "" {
		if _, ok := merged.AuthInfos[kctx.AuthInfo]; !ok {
			return nil, fmt.Errorf("kubeconfig %s: context %q names user %q, which no kubeconfig file defines (users defined: %s)", where, ctxName, kctx.AuthInfo, names(merged.AuthInfos))
		}
	}
	if cluster.Server == "" {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q has no server URL", cluster.LocationOfOrigin, kctx.Cluster)
	}
	if shown, ok := serverUserInfo(cluster.Server); ok {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q: server %s carries a user name or password: remove it from the URL (credentials belong in the user entry)", cluster.LocationOfOrigin, kctx.Cluster, shown)
	}
	if u := kctx.AuthInfo; u != "" {
		if exec := merged.AuthInfos[u].Exec; exec != nil {
			// A copy, so the loaded objects stay as read.
			e := *exec
			e.StdinUnavailable = !o.Interactive
			if !o.Interactive {
				e.StdinUnavailableMessage = "nestor runs without a terminal (--no-input or no TTY)"
			}
			a := *merged.AuthInfos[u]
			a.Exec = &e
			merged.AuthInfos[u] = &a
		}
	}

	cc := clientcmd.NewNonInteractiveClientConfig(*merged, ctxName, &clientcmd.ConfigOverrides{}, nil)
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %q: %v", where, ctxName, err)
	}
	rc.UserAgent = o.UserAgent
	// No client-side rate limiter: the prober bounds its own concurrency,
	// and a token bucket shared by all reads would queue node pages behind
	// workload lists (the API server applies its own fairness).
	rc.QPS = -1
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	base, _, err := rest.DefaultServerUrlFor(rc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q: server %s: %v", cluster.LocationOfOrigin, kctx.Cluster, cluster.Server, err)
	}
	rc.Wrap(ReadOnlyTo(base))

	return &Target{
		Kubeconfig: kc,
		Context:    ctxName,
		Cluster:    kctx.Cluster,
		AuthInfo:   kctx.AuthInfo,
		Endpoint:   cluster.Server,
		Options:    o.Kube,
		Config:     rc,
		cache:      &clientCache{},
	}, nil
}

// loadError explains a kubeconfig file that could not be loaded, naming the
// rule that chose it and what fixes it.
func loadError(kc Kubeconfig, p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		var fix string
		switch kc.Source {
		case SourceFlag:
			fix = "check the --kubeconfig path, or fetch it with `nestor discover --cp NODE`"
		case SourceEnv:
			fix = "fix or unset KUBECONFIG, or fetch it with `nestor discover --cp NODE`"
		case SourceTopology:
			fix = "run `nestor discover --cp NODE` to fetch it, or fix kubeconfig: (" + kc.Detail + ")"
		case SourceBench:
			fix = "the bench cluster is not bootstrapped yet"
		default:
			fix = "run `nestor discover --cp NODE` to fetch it"
		}
		return fmt.Errorf("kubeconfig %s (from %s) does not exist: %s", p, sourceName(kc.Source), fix)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("kubeconfig %s (from %s) cannot be read: %v", p, sourceName(kc.Source), pe.Err)
	}
	return fmt.Errorf("kubeconfig %s (from %s) is not a valid kubeconfig: %v", p, sourceName(kc.Source), err)
}

func sourceName(s Source) string {
	switch s {
	case SourceTopology:
		return "the topology's kubeconfig:"
	case SourceBench:
		return "the bench"
	case SourceNone:
		return "no rule"
	}
	return string(s)
}

func names[V any](m map[string]V) string {
	if len(m) == 0 {
		return "none"
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// NormalizeEndpoint returns the canonical form of an API server URL, for
// comparing a kubeconfig's server with a topology's `endpoint:` (issue 4):
// scheme and host lower-cased, the default port made explicit (443 for
// https, 80 for http), an IPv6 host in brackets, the path kept without its
// trailing slash. "HTTPS://Api.Example:443/" → "https://api.example:443".
//
// Errors: not a URL; a scheme other than http/https; no host; a bad port;
// user info, query or fragment in the URL (the error never repeats user info).
// A port is a number in 1..65535, written without leading zeros; a host
// other than an IPv6 literal must be a DNS name or an IPv4 address (ASCII).
func NormalizeEndpoint(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("endpoint %q is not a URL: write https://HOST:PORT", redact(s))
	}
	shown := redact(s)
	if u.User != nil {
		return "", fmt.Errorf("endpoint %s must not carry a user name or password: write https://HOST:PORT", shown)
	}
	scheme := strings.ToLower(u.Scheme)
	var defPort string
	switch scheme {
	case "https":
		defPort = "443"
	case "http":
		defPort = "80"
	case "":
		return "", fmt.Errorf("endpoint %q has no scheme: write https://HOST:PORT", shown)
	default:
		return "", fmt.Errorf("endpoint %q: scheme %q is not http or https", shown, u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("endpoint %q has no host: write https://HOST:PORT", shown)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("endpoint %q: an API server URL has no query or fragment", shown)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("endpoint %q has no host: write https://HOST:PORT", shown)
	}
	port := u.Port()
	if port == "" {
		if strings.HasSuffix(u.Host, ":") {
			return "", fmt.Errorf("endpoint %q has an empty port", shown)
		}
		port = defPort
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return "", fmt.Errorf("endpoint %q: port %q is not a number", shown, port)
		}
	}
	// A port is a number (RFC 3986 3.2.3: leading zeros allowed): written
	// canonically, and in the TCP range.
	portNum, err := strconv.Atoi(port)
	if err != nil || portNum < 1 || portNum > 65535 {
		return "", fmt.Errorf("endpoint %q: port %s is not between 1 and 65535", shown, port)
	}
	port = strconv.Itoa(portNum)
	if !strings.Contains(host, ":") && !validHostName(host) {
		return "", fmt.Errorf("endpoint %q: host %q is not a DNS name or an IP address (write an internationalised name in its xn-- form)", shown, host)
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	return scheme + "://" + net.JoinHostPort(host, port) + path, nil
}

// validHostName reports whether host is made of the characters of a DNS
// name or an IPv4 address: ASCII letters, digits, '-', '.' and '_' (found in
// some internal names, and accepted by Go's resolver).
func validHostName(host string) bool {
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return host != ""
}

// SameEndpoint reports whether a and b name the same API server after
// NormalizeEndpoint. The error is the first normalisation error.
func SameEndpoint(a, b string) (bool, error) {
	na, err := NormalizeEndpoint(a)
	if err != nil {
		return false, err
	}
	nb, err := NormalizeEndpoint(b)
	if err != nil {
		return false, err
	}
	return na == nb, nil
}

// serverUserInfo reports whether a kubeconfig server URL carries user info
// (also when written without a scheme, "user:pass@host:6443", which
// client-go reads as https://…), and returns the URL to show instead, with
// the user info replaced by REDACTED.
func serverUserInfo(server string) (string, bool) {
	u, err := url.Parse(server)
	if err != nil || u.Scheme == "" || u.Host == "" {
		u, err = url.Parse("https://" + server)
	}
	if err != nil {
		if strings.Contains(server, "@") {
			return redact(server), true
		}
		return "", false
	}
	if u.User == nil {
		return "", false
	}
	return u.Scheme + "://REDACTED@" + u.Host + u.EscapedPath(), true
}

// redact drops anything that looks like user info from a URL-ish string
// before it goes into an error.
func redact(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "REDACTED@" + s[i+1:]
		}
		return "REDACTED@" + s[i+1:]
	}
	return s
}
