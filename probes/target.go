package probes

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	// The oidc auth-provider, the one Kubernetes clients still carry: a
	// kubeconfig kubectl accepts is read by nestor too (see LoadTargetWith).
	_ "k8s.io/client-go/plugin/pkg/client/auth/oidc"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"

	"nestor.dev/nestor/topology"
)

// DefaultTimeout bounds one whole read (ReadNodes, ProbeCluster, ProbeTarget) when
// KubeOptions.Timeout is zero: the `--timeout` default, 10s.
const DefaultTimeout = 10 * time.Second

// KubeOptions tunes the kube prober.
type KubeOptions struct {
	// Timeout bounds one whole read: every request of one ReadNodes, of
	// one ProbeCluster or of one ProbeTarget, together. 0 means DefaultTimeout. A deadline on the
	// context passed to the read also applies, whichever is sooner.
	Timeout time.Duration
	// Progress, when set, is told how many items of a paged list (nodes,
	// namespaces, CRDs) have been read so far: 0 when the list starts, then
	// after each page. It is called from the reading goroutines: it must
	// be safe for concurrent use and quick.
	Progress func(resource string, items int)
}

// Target is the cluster a kubeconfig names: ARCHITECTURE.md "The target and its
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
	// conns are the connections the clients dialed (they dial through
	// rest.Config.Dial), for Close.
	conns *connSet
}

// Close ends the connections t's reads opened, once the stack has been
// read: the reads made through t (or a copy) after Close fail to connect.
// A Target made without LoadTargetWith holds none. Safe on nil and more
// than once.
func (t *Target) Close() {
	if t != nil && t.cache != nil && t.cache.conns != nil {
		t.cache.conns.close()
	}
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
	// Now is the time a client certificate's validity is judged at; nil
	// means time.Now.
	Now func() time.Time
}

// LoadTargetWith loads the files of kc explicitly (clientcmd.LoadFromFile,
// then ResolveLocalPaths so relative certificate paths are taken from each
// file's folder), merges them the way client-go merges a KUBECONFIG list
// (clusters, users and contexts: the first file that defines a name wins;
// current-context: the first non-empty one), picks o.Context or the
// current-context, and builds a rest.Config with
// clientcmd.NewNonInteractiveClientConfig and no ConfigAccess, so no default
// loading rule (~/.kube/config, migration) is involved and nothing is ever
// written back: with no ConfigAccess, client-go gives an auth-provider no
// persister (clientcmd's DirectClientConfig.ClientConfig), and
// rest.GetAuthProvider then hands it a no-op one, so the tokens the oidc
// provider refreshes stay in memory. The transport is wrapped with
// ReadOnlyTo the server's scheme and host, and the clients built from it
// refuse every redirect (RedirectRefusedError): nestor's requests to the
// cluster, and their credentials, go to that endpoint only.
//
// Credentials are read as kubectl reads them: client certificates, tokens,
// exec plugins (run on the first request, not here; told stdin is
// unavailable unless o.Interactive), and the one auth-provider left in
// Kubernetes clients, oidc (its token refresh goes to the identity
// provider's issuer, as kubectl's does).
//
// Before any request, what can be known locally is checked, so a kubeconfig
// certain to fail is refused here, naming its endpoint: the TLS settings and
// credentials are built once (certificate and key files read and parsed, the
// CA parsed, the auth-provider set up — nothing is run and nothing is sent),
// and a client certificate that is the user's only credential must be
// within its validity period at o.Now (*CertificateValidityError).
//
// Errors (each names the file(s), and the endpoint once the context's
// cluster and its server are known; none contains a credential): kc has no
// path; a file that does not exist (naming the rule that chose it and the
// fix) or cannot be parsed; no context chosen (empty current-context and no
// --context); a context that is not defined; a context naming a cluster or
// user no file defines; a cluster without server; a server URL with user
// info ("https://user:pass@host": the error shows it as
// https://REDACTED@host); a server whose IPv6 host lacks its brackets (with
// the URL to write, topology.IPv6BracketHint); a server client-go cannot
// use; an auth-provider removed from Kubernetes clients (gcp, azure: the
// exec plugin that replaces it) or unknown to them; a configuration
// client-go refuses (certificate files that do not exist — with the fix —,
// both insecure-skip-tls-verify and a CA…); a CA, certificate or key that
// cannot be parsed; an expired (or not yet valid) client certificate.
func LoadTargetWith(kc Kubeconfig, o LoadOptions) (*Target, error) {
	if kc.None() {
		return nil, errors.New("no kubeconfig to load: " + kc.Detail)
	}
	merged, err := mergeKubeconfigs(kc)
	if err != nil {
		return nil, err
	}
	sel, err := selectContext(merged, kc, o.Context)
	if err != nil {
		return nil, err
	}
	// From here the endpoint is known: every error names it, so the
	// operator sees which cluster the kubeconfig is about.
	if redacted, ok := serverUserInfo(sel.cluster.Server); ok {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q: server %s carries a user name or password: remove it from the URL (credentials belong in the user entry)", sel.cluster.LocationOfOrigin, sel.kctx.Cluster, redacted)
	}
	if hint := topology.IPv6BracketHint(sel.cluster.Server); hint != "" {
		return nil, sel.fail("cluster %q: server is not a valid URL: %s (in %s)", sel.kctx.Cluster, hint, sel.cluster.LocationOfOrigin)
	}
	if err := prepareUser(merged, sel, o.Interactive); err != nil {
		return nil, err
	}
	conns := newConnSet()
	rc, err := restConfig(merged, sel, o, time.Now, conns)
	if err != nil {
		return nil, err
	}
	return &Target{
		Kubeconfig: kc,
		Context:    sel.name,
		Cluster:    sel.kctx.Cluster,
		AuthInfo:   sel.kctx.AuthInfo,
		Endpoint:   sel.cluster.Server,
		Options:    o.Kube,
		Config:     rc,
		cache:      &clientCache{conns: conns},
	}, nil
}

// mergeKubeconfigs loads the files of kc explicitly (clientcmd.LoadFromFile,
// then ResolveLocalPaths) and merges them the way client-go merges a
// KUBECONFIG list: clusters, users and contexts, the first file that
// defines a name wins; current-context, the first non-empty one.
func mergeKubeconfigs(kc Kubeconfig) (*clientcmdapi.Config, error) {
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
	return merged, nil
}

// selected is the context LoadTargetWith reads through: its name, the
// context and the cluster it names, and where it was defined.
type selected struct {
	name    string
	kctx    *clientcmdapi.Context
	cluster *clientcmdapi.Cluster
	// where is the file that defined the context.
	where string
}

// fail is an error of the selected context's target, naming the file, the
// context and the endpoint: a *TargetLoadError, so the identity check can
// still compare that endpoint with the stack's.
func (s selected) fail(format string, args ...any) error {
	return &TargetLoadError{Endpoint: s.cluster.Server, Context: s.name,
		Err: fmt.Errorf("kubeconfig %s, context %q, endpoint %s: %w", s.where, s.name, s.cluster.Server, fmt.Errorf(format, args...))}
}

// TargetLoadError is LoadTargetWith's error once the context's server is
// known: whatever else is wrong with the kubeconfig (a CA or certificate
// that does not parse, an auth-provider removed from Kubernetes clients),
// the server it names is the target's identity, which the guard compares
// with the stack's before it reports the rest (ARCHITECTURE.md "The target
// and its confirmation").
type TargetLoadError struct {
	// Endpoint is the server URL of the context's cluster, as written;
	// Context the context's name.
	Endpoint, Context string
	Err               error
}

func (e *TargetLoadError) Error() string { return e.Err.Error() }
func (e *TargetLoadError) Unwrap() error { return e.Err }

// selectContext picks the context (--context, else the current-context)
// and the cluster it names. Errors: no context chosen; a context, or the
// cluster it names, that no file defines; a cluster without server.
func selectContext(merged *clientcmdapi.Config, kc Kubeconfig, contextFlag string) (selected, error) {
	files := strings.Join(kc.Paths, ", ")
	name := contextFlag
	if name == "" {
		name = merged.CurrentContext
	}
	if name == "" && len(merged.Contexts) == 0 {
		return selected{}, fmt.Errorf("kubeconfig %s defines no context (no contexts: entry), so it names no cluster to read: use the kubeconfig of the stack's cluster", files)
	}
	if name == "" {
		return selected{}, fmt.Errorf("kubeconfig %s has no current-context: pass --context NAME (contexts defined: %s)", files, KeyList(merged.Contexts))
	}
	kctx, ok := merged.Contexts[name]
	if !ok {
		how := "current-context"
		if contextFlag != "" {
			how = "--context"
		}
		return selected{}, fmt.Errorf("kubeconfig %s: context %q (%s) is not defined (contexts defined: %s)", files, name, how, KeyList(merged.Contexts))
	}
	cluster, ok := merged.Clusters[kctx.Cluster]
	if !ok {
		return selected{}, fmt.Errorf("kubeconfig %s: context %q names cluster %q, which no kubeconfig file defines (clusters defined: %s)", kctx.LocationOfOrigin, name, kctx.Cluster, KeyList(merged.Clusters))
	}
	if cluster.Server == "" {
		return selected{}, fmt.Errorf("kubeconfig %s: cluster %q has no server URL", cluster.LocationOfOrigin, kctx.Cluster)
	}
	return selected{name: name, kctx: kctx, cluster: cluster, where: kctx.LocationOfOrigin}, nil
}

// prepareUser checks the context's user before anything is built or run:
// it must be defined, its auth-provider one Kubernetes clients still have
// (checkAuthProvider); an exec plugin is told whether a terminal is there
// (stdin unavailable unless interactive), on a copy of the user.
func prepareUser(merged *clientcmdapi.Config, sel selected, interactive bool) error {
	u := sel.kctx.AuthInfo
	if u == "" {
		return nil
	}
	user, ok := merged.AuthInfos[u]
	if !ok {
		return sel.fail("context names user %q, which no kubeconfig file defines (users defined: %s)", u, KeyList(merged.AuthInfos))
	}
	if err := checkAuthProvider(u, user.AuthProvider); err != nil {
		return sel.fail("%w", err)
	}
	if exec := user.Exec; exec != nil {
		// A copy, so the loaded objects stay as read.
		e := *exec
		e.StdinUnavailable = !interactive
		if !interactive {
			e.StdinUnavailableMessage = "nestor runs without a terminal (--no-input or no TTY)"
		}
		a := *user
		a.Exec = &e
		merged.AuthInfos[u] = &a
	}
	return nil
}

// restConfig builds the client configuration of the selected context with
// clientcmd.NewNonInteractiveClientConfig and no ConfigAccess (nothing is
// ever written back), nestor's user agent, no client-side rate limiter,
// protobuf where the API server offers it, and the read-only transport
// pinned to the server, dialing through conns (so Target.Close can end the
// connections); then it builds the transport once, on a copy, to
// learn now what the first request would fail on (files read and parsed,
// the auth-provider set up; nothing is run, nothing sent), and checks the
// client certificate's validity at now() (checkClientCertificate).
func restConfig(merged *clientcmdapi.Config, sel selected, o LoadOptions, now func() time.Time, conns *connSet) (*rest.Config, error) {
	cc := clientcmd.NewNonInteractiveClientConfig(*merged, sel.name, &clientcmd.ConfigOverrides{}, nil)
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, sel.fail("%w", configError(err))
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
		return nil, sel.fail("cluster %q: server %s: %v", sel.kctx.Cluster, sel.cluster.Server, err)
	}
	rc.Wrap(ReadOnlyTo(base))
	rc.Dial = conns.dial
	if _, err := rest.TransportFor(rest.CopyConfig(rc)); err != nil {
		if sel.kctx.AuthInfo == "" {
			return nil, sel.fail("cannot use the TLS settings of cluster %q: %v", sel.kctx.Cluster, err)
		}
		return nil, sel.fail("cannot use the TLS settings or credentials of cluster %q and user %q: %v", sel.kctx.Cluster, sel.kctx.AuthInfo, err)
	}
	if o.Now != nil {
		now = o.Now
	}
	if err := checkClientCertificate(rc, sel.kctx.AuthInfo, now()); err != nil {
		return nil, sel.fail("%w", err)
	}
	return rc, nil
}

// removedAuthProviders are the auth-provider plugins Kubernetes clients
// (client-go, so kubectl) no longer have, with the exec credential plugin
// that replaces each: gcp and azure were removed in v1.26 (client-go keeps
// only stubs that fail, plugin/pkg/client/auth/gcp/gcp_stub.go and
// azure/azure_stub.go).
var removedAuthProviders = map[string]string{
	"gcp": "install gke-gcloud-auth-plugin (`gcloud components install gke-gcloud-auth-plugin`), then let " +
		"`gcloud container clusters get-credentials CLUSTER` rewrite this user as an exec plugin",
	"azure": "install kubelogin (https://github.com/Azure/kubelogin), then let " +
		"`kubelogin convert-kubeconfig -l azurecli` rewrite this user as an exec plugin",
}

// inTreeAuthProviders are the auth-provider plugins this binary registers:
// oidc, the one Kubernetes clients still carry (the blank import of
// k8s.io/client-go/plugin/pkg/client/auth/oidc in this file).
var inTreeAuthProviders = map[string]bool{"oidc": true}

// checkAuthProvider refuses, before anything is built or run, a user whose
// auth-provider Kubernetes clients removed (removedAuthProviders: the error
// says so and names the exec plugin that replaces it) or never had. nil
// for no auth-provider or an in-tree one.
func checkAuthProvider(user string, ap *clientcmdapi.AuthProviderConfig) error {
	if ap == nil || inTreeAuthProviders[ap.Name] {
		return nil
	}
	if fix, ok := removedAuthProviders[ap.Name]; ok {
		return fmt.Errorf("user %q authenticates with the auth-provider %q, which was removed from Kubernetes clients (kubectl, client-go) in v1.26; nothing was run. "+
			"Fix: use its exec credential plugin instead: %s", user, ap.Name, fix)
	}
	return fmt.Errorf("user %q authenticates with the auth-provider %q, which Kubernetes clients do not have (the only auth-provider left in them is oidc); nothing was run. "+
		"Fix: use the provider's exec credential plugin (users[].user.exec)", user, ap.Name)
}

// configError rewords client-go's refusal of a configuration
// (clientcmd's "invalid configuration: [a, b]") one problem a line, and adds
// the fix when certificate files it names do not exist on this machine.
func configError(err error) error {
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) || len(agg.Errors()) == 0 {
		return err
	}
	var b strings.Builder
	b.WriteString("the kubeconfig cannot be used as it is:")
	for _, e := range agg.Errors() {
		b.WriteString("\n  " + e.Error())
	}
	if errors.Is(err, fs.ErrNotExist) {
		b.WriteString("\nthe files it names are not on this machine: copy them here and fix their paths, " +
			"or use a kubeconfig that embeds them (`nestor discover --cp NODE` fetches the control plane's admin.conf)")
	}
	return errors.New(b.String())
}

// CertificateValidityError: the client certificate a kubeconfig user
// authenticates with (its only credential) is outside its validity period
// at Now. The API server would answer 401 Unauthorized to every request
// (its x509 authenticator checks NotBefore/NotAfter), so nestor refuses the
// target before sending any.
type CertificateValidityError struct {
	// User is the kubeconfig user; From says where the certificate was
	// read ("client-certificate-data", or "client-certificate FILE").
	User, From string
	// Subject is the certificate's subject (CN=…, O=…).
	Subject string
	// NotBefore and NotAfter are its validity period; Now the time it was
	// judged at.
	NotBefore, NotAfter, Now time.Time
}

func (e *CertificateValidityError) Error() string {
	const day = 24 * time.Hour
	if e.Now.Before(e.NotBefore) {
		return fmt.Sprintf("the client certificate of user %q (%s, from %s) is not valid before %s, and this machine's clock says %s: "+
			"the API server would refuse it (401 Unauthorized), so nothing was sent. Check this machine's clock",
			e.User, e.Subject, e.From, e.NotBefore.UTC().Format(time.DateTime+" MST"), e.Now.UTC().Format(time.DateTime+" MST"))
	}
	ago := "less than a day ago"
	switch days := int(e.Now.Sub(e.NotAfter) / day); {
	case days == 1:
		ago = "1 day ago"
	case days > 1:
		ago = fmt.Sprintf("%d days ago", days)
	}
	return fmt.Sprintf("the client certificate of user %q (%s, from %s) expired on %s (%s): "+
		"the API server would refuse it (401 Unauthorized), so nothing was sent. "+
		"Renew it on the control plane (kubeadm: `kubeadm certs renew admin.conf`), then fetch the kubeconfig again with `nestor discover --cp NODE`",
		e.User, e.Subject, e.From, e.NotAfter.UTC().Format(time.DateTime+" MST"), ago)
}

// checkClientCertificate reads the client certificate of rc (CertData, else
// the file CertFile; the first certificate of the PEM is the one presented,
// as crypto/tls does) and returns a *CertificateValidityError when it is
// outside its validity period at now and it is the user's only credential
// (with a token, basic auth, an exec plugin or an auth-provider as well, the
// API server may still accept the request). nil when there is no client
// certificate; an unparsable one was already refused by rest.TransportFor.
func checkClientCertificate(rc *rest.Config, userName string, now time.Time) error {
	if rc.BearerToken != "" || rc.BearerTokenFile != "" || rc.Username != "" || rc.ExecProvider != nil || rc.AuthProvider != nil {
		return nil
	}
	data, from := rc.CertData, "client-certificate-data"
	if len(data) == 0 {
		if rc.CertFile == "" {
			return nil
		}
		var err error
		if data, err = os.ReadFile(rc.CertFile); err != nil {
			return fmt.Errorf("user %q: cannot read its client certificate: %v", userName, err)
		}
		from = "client-certificate " + rc.CertFile
	}
	certs, err := certutil.ParseCertsPEM(data)
	if err != nil || len(certs) == 0 {
		return nil
	}
	c := certs[0]
	if now.Before(c.NotBefore) || now.After(c.NotAfter) {
		return &CertificateValidityError{User: userName, From: from, Subject: c.Subject.String(),
			NotBefore: c.NotBefore, NotAfter: c.NotAfter, Now: now}
	}
	return nil
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
			if missing := missingFiles(kc.Paths); len(kc.Paths) > 1 && len(missing) == len(kc.Paths) {
				return fmt.Errorf("KUBECONFIG lists no kubeconfig that exists (%s): %s", strings.Join(missing, ", "), fix)
			}
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
		if fix := topology.ReadFix(err); fix != "" {
			return fmt.Errorf("kubeconfig %s (from %s) cannot be read: %v: %s", p, sourceName(kc.Source), pe.Err, fix)
		}
		return fmt.Errorf("kubeconfig %s (from %s) cannot be read: %v", p, sourceName(kc.Source), pe.Err)
	}
	return fmt.Errorf("kubeconfig %s (from %s) is not a valid kubeconfig: %v", p, sourceName(kc.Source), err)
}

// missingFiles returns the paths that do not exist.
func missingFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
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

// KeyList returns the keys of m sorted and comma-separated ("none" for an
// empty map), for errors that list what a kubeconfig defines.
func KeyList[V any](m map[string]V) string {
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
			return topology.RedactUserInfo(server), true
		}
		return "", false
	}
	if u.User == nil {
		return "", false
	}
	return u.Scheme + "://REDACTED@" + u.Host + u.EscapedPath(), true
}
