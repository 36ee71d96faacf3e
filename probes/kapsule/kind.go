package kapsule

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	k8s "github.com/scaleway/scaleway-sdk-go/api/k8s/v1"
	"github.com/scaleway/scaleway-sdk-go/logger"
	"github.com/scaleway/scaleway-sdk-go/scw"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// Kind is target_kind kapsule: a managed cluster whose identity is the
// provider's (Scaleway Kapsule, k8s/v1 API), read through the SDK
// scaleway-sdk-go with a read-only transport pinned to the API's host, and,
// when a kubeconfig is resolved and proven to be the cluster's, the same
// kube read as prod for the layers. Its target is the provider's cluster
// (scaleway.cluster_id in scaleway.region), never "no target"; its guard is
// its own (Guard), not the kube endpoint guard.
type Kind struct{ Rules }

// Name is kapsule.
func (Kind) Name() topology.TargetKind { return topology.TargetKapsule }

// Resolve applies the kubeconfig rules (probes.ResolveKubeconfig): the
// kubeconfig, when one is resolved, reads the layers inside the cluster.
func (Kind) Resolve(o probes.ResolveOptions) (probes.Kubeconfig, error) {
	return probes.ResolveKubeconfig(o)
}

// NoTarget: never; the provider's cluster is always the target.
func (Kind) NoTarget(*topology.Topology, probes.Kubeconfig) *probes.NoTarget { return nil }

// Guarded: no, the cluster's identity is the provider's (Guard).
func (Kind) Guarded() bool { return false }

// state is what the kapsule guard read and decided, for Read (op.State).
type state struct {
	creds *ScalewayCredentials
	view  *probes.ProviderView
	obs   *topology.KapsuleObserved
	// inClusterWhy says why the in-cluster part is not read ("" when the
	// kubeconfig's server was proven to be the cluster's cluster_url).
	inClusterWhy string
}

func stateOf(op *probes.Opened) *state {
	st, _ := op.State.(*state)
	return st
}

// KapsuleMismatchError: the provider's answer proves that what the topology
// or the kubeconfig names is not the declared cluster (another cluster_url,
// project, region or id). Nothing was sent to any Kubernetes API.
type KapsuleMismatchError struct {
	Stack, File string
	// What is compared ("the kubeconfig's server", "endpoint:",
	// "project_id"…), Got what it holds, Want the cluster's.
	What, Got, Want string
}

// Refusal marks the error as a refusal: the target is not the stack's, or
// may not be read for it; nothing was sent.
func (e *KapsuleMismatchError) Refusal() {}

// TopologyKey is the topology key the refusal concerns (the scaleway: section).
func (e *KapsuleMismatchError) TopologyKey() string { return topology.KeyScaleway }

func (e *KapsuleMismatchError) Error() string {
	return fmt.Sprintf("refusing: %s is %s, but the cluster of stack %s (scaleway.cluster_id in %s) has %s; nothing was sent to its Kubernetes API",
		e.What, e.Got, e.Stack, e.File, e.Want)
}

// KapsuleUnreadError: the interactive guard could not read the cluster
// from the provider's API, so there is nothing to confirm.
type KapsuleUnreadError struct {
	ClusterID, Region, APIURL, Reason string
}

func (e *KapsuleUnreadError) Error() string {
	return fmt.Sprintf("cannot read the cluster %s in %s from %s: %s", e.ClusterID, e.Region, e.APIURL, e.Reason)
}

// Guard is the kapsule guard, before any request to the cluster's
// Kubernetes API (and the exec credential plugin of a kubeconfig never
// runs before it has passed):
//
//  1. offline: the credentials and the API URL (ResolveScalewayCredentials:
//     an undeclared API URL is refused before any request to anything); a
//     declared endpoint: and the kubeconfig's server must be equal;
//  2. the provider's API is read (cluster, available versions, pools,
//     nodes, version list, ACL rules, cluster types, available types: GET
//     only, bounded by the timeout);
//  3. the cluster's identity: its id, region and project (scaleway.project_id
//     when declared) must be the declared ones; endpoint: and the
//     kubeconfig's server must equal its cluster_url; a mismatch is a
//     *KapsuleMismatchError naming both sides;
//  4. interactive: the cluster is returned for the operator to confirm
//     (probes.ProviderView); a cluster the API did not give is a
//     *KapsuleUnreadError. Non-interactive, a cluster the API did not give
//     leaves the whole report unknown with the reason, and the in-cluster
//     part unread.
func (Kind) Guard(ctx context.Context, op *probes.Opened) (*probes.GuardView, error) {
	t, o := op.Topology, op.Options()
	creds, err := ResolveScalewayCredentials(t, o.Env, o.Home)
	if err != nil {
		return nil, err
	}
	// The kubeconfig's server is compared even when the kubeconfig does not
	// load (a CA that does not parse): it names the cluster it is for.
	server, svContext, hasServer := op.Server()
	if hasServer && t.Endpoint != "" {
		if same, err := topology.SameEndpoint(server, t.Endpoint); err != nil || !same {
			return nil, &KapsuleMismatchError{Stack: t.Name, File: t.Path,
				What: fmt.Sprintf("the kubeconfig's server (%s, context %s)", strings.Join(op.Kubeconfig.Paths, ":"), svContext),
				Got:  server, Want: "endpoint: " + t.Endpoint + " declared"}
		}
	}
	obs := readKapsule(ctx, op.Timeout(), creds, t, o.UserAgent) // within the stack's one deadline (ctx's)
	if err := ctx.Err(); errors.Is(err, context.Canceled) {
		// Interrupted; a deadline reached leaves the parts unknown, timed out.
		return nil, fmt.Errorf("reading stack %s from the provider's API: %w", t.Name, probes.Stopped(err))
	}
	op.Provider = &probes.Provider{ClusterID: t.Scaleway.ClusterID, Region: t.Scaleway.Region, APIURL: creds.APIURL, Credentials: creds.Source, AccessKey: creds.Masked()}
	st := &state{creds: creds, obs: obs, view: &probes.ProviderView{Provider: *op.Provider, Cluster: obs.Cluster, Pools: obs.Pools, Nodes: obs.Nodes, Waiting: obs.Transient["cluster"]}}
	if obs.Cluster.Known {
		if err := checkKapsuleIdentity(t, op, obs.Cluster.Value); err != nil {
			return nil, err
		}
	} else {
		st.inClusterWhy = "the provider's API did not give the cluster's cluster_url (" + obs.Cluster.Reason + "), so nothing proves the kubeconfig is this cluster's"
		if obs.Transient["cluster"] != "" {
			st.inClusterWhy = "the cluster is " + obs.Transient["cluster"] + " (the provider's API answered transient_state), so its cluster_url was not given"
		}
	}
	op.State = st
	if !o.Interactive {
		return nil, nil
	}
	if !obs.Cluster.Known && obs.Transient["cluster"] == "" {
		return nil, &KapsuleUnreadError{ClusterID: t.Scaleway.ClusterID, Region: t.Scaleway.Region, APIURL: creds.APIURL, Reason: obs.Cluster.Reason}
	}
	return &probes.GuardView{Topology: t, Target: op.Target, Provider: st.view}, nil
}

// Clusters lists the clusters of the stack's project (the declared
// scaleway.project_id, else the cluster's) in its region, every page, GET
// only, bounded by the timeout: what discover shows beside the declared
// cluster. Unknown with the reason when the list fails or the project is
// not known.
func (Kind) Clusters(ctx context.Context, op *probes.Opened) topology.Fact[[]topology.KapsuleCluster] {
	st := stateOf(op)
	if st == nil {
		return topology.UnknownFact[[]topology.KapsuleCluster](topology.Because(topology.ReasonNotRead, "the provider's API was not read"))
	}
	project := op.Topology.Scaleway.ProjectID
	if project == "" && st.obs.Cluster.Known {
		project = st.obs.Cluster.Value.ProjectID
	}
	if project == "" {
		return topology.UnknownFact[[]topology.KapsuleCluster](topology.Because(topology.ReasonNotRead, "the project is not known: declare scaleway.project_id"))
	}
	ctx, cancel := context.WithTimeout(ctx, op.Timeout())
	defer cancel()
	api, closeAPI, err := kapsuleAPI(ctx, st.creds, op.Topology, op.Options().UserAgent)
	if err != nil {
		return topology.UnknownFact[[]topology.KapsuleCluster](topology.Because(topology.ReasonFailed, st.creds.redact(err.Error())))
	}
	defer closeAPI()
	res, err := api.ListClusters(&k8s.ListClustersRequest{Region: scw.Region(op.Topology.Scaleway.Region), ProjectID: &project}, scw.WithContext(ctx), scw.WithAllPages())
	if err != nil {
		r, _ := kapsuleReason(ctx, op.Timeout(), err, st.creds)
		return topology.UnknownFact[[]topology.KapsuleCluster](r)
	}
	out := []topology.KapsuleCluster{}
	for _, c := range res.Clusters {
		if c != nil {
			out = append(out, clusterOf(c))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return topology.KnownFact(out)
}

// checkKapsuleIdentity compares what the provider said of cluster c with
// the topology and the server of the kubeconfig op is read through (loaded
// or not; none when there is no kubeconfig), see Guard.
func checkKapsuleIdentity(t *topology.Topology, op *probes.Opened, c topology.KapsuleCluster) error {
	sc := t.Scaleway
	mismatch := func(what, got, want string) error {
		return &KapsuleMismatchError{Stack: t.Name, File: t.Path, What: what, Got: got, Want: want}
	}
	if !strings.EqualFold(c.ID, sc.ClusterID) {
		return mismatch("the cluster the API answered for "+sc.ClusterID, c.ID, "id "+sc.ClusterID)
	}
	if c.Region != "" && c.Region != sc.Region {
		return mismatch("the cluster's region", c.Region, "scaleway.region "+sc.Region)
	}
	if sc.ProjectID != "" && !strings.EqualFold(c.ProjectID, sc.ProjectID) {
		return mismatch("the cluster's project", c.ProjectID, "scaleway.project_id "+sc.ProjectID+" declared")
	}
	if t.Endpoint != "" {
		if same, err := topology.SameEndpoint(t.Endpoint, c.URL); err != nil || !same {
			return mismatch("endpoint: "+t.Endpoint+" declared", t.Endpoint, "cluster_url "+c.URL)
		}
	}
	if server, svContext, ok := op.Server(); ok {
		if same, err := topology.SameEndpoint(server, c.URL); err != nil || !same {
			return mismatch(fmt.Sprintf("the kubeconfig's server (%s, context %s, from %s)", strings.Join(op.Kubeconfig.Paths, ":"), svContext, probes.SourceText(op.Kubeconfig)),
				server, "cluster_url "+c.URL+" (another cluster's kubeconfig?)")
		}
	}
	return nil
}

// Read is the kapsule observation: what the guard read of the provider,
// and the in-cluster part through the kubeconfig when the guard proved it
// is the cluster's (probes.ProbeTarget, then the provider's objects listed
// once, then etcd's size from /metrics: Opened.ReadStorageSize; unknown,
// with why, when the in-cluster part is not read; and for preview
// (ReadAll) kube-system's objects, their marks and writes:
// providerObjects).
func (Kind) Read(ctx context.Context, op *probes.Opened, scope probes.Scope) (*topology.Observed, topology.ClusterFacts) {
	if op.NoTarget != nil {
		// No credentials anywhere: the guard read nothing (probes.Open).
		return probes.NoTargetObservation(op.NoTarget.Error()), topology.ClusterFacts{}
	}
	st := stateOf(op)
	t := op.Topology
	why := st.inClusterWhy
	code := topology.ReasonNotRead // the cluster's identity was not proven
	noKubeconfig := op.Target == nil && op.LoadErr == nil
	switch {
	case noKubeconfig:
		why, code = "no kubeconfig is declared; `scw k8s kubeconfig install` writes one, declare it as kubeconfig: to read the layers inside the cluster", topology.ReasonNoTarget
	case why != "":
	case op.LoadErr != nil:
		why, code = op.LoadErr.Error(), topology.ReasonFailed
	default:
		why, code = execPluginMissing(op.Target, op.Options().Env), topology.ReasonNotInstalled
	}
	if why != "" {
		// why is the cause alone (InCluster, in_cluster_unread, whose
		// name says "not read"); the unknowns it makes say so in words.
		obs := probes.UnknownObservation(t, topology.Because(code, "not read: "+why))
		st.obs.InCluster = why
		if noKubeconfig {
			// Nothing was declared to read the cluster through: what
			// lives inside it is unknown only where something declared
			// depends on it. A kubeconfig that is there but cannot be
			// used leaves the in-cluster part unknown.
			obs.InClusterUnread = why
		}
		st.obs.Provider = providerParts(st.obs, topology.Fact[[]topology.WorkloadState]{}, topology.ClusterFacts{})
		// Said once, on the in-cluster line (in_cluster_unread): here, only
		// that /metrics rests on it.
		st.obs.Etcd = topology.UnknownFact[topology.StorageSize](topology.Because(code, "/metrics was not read, as the in-cluster part is not"))
		obs.Kapsule = st.obs
		if !noKubeconfig && scope == probes.ReadAll {
			obs.ProviderObjects = unreadProviderObjects(topology.Because(code, "not read: "+why))
		}
		return obs, topology.ClusterFacts{}
	}
	obs, facts := probes.ProbeTarget(ctx, op.Target, t)
	objects := make(chan *topology.ProviderObjects, 1)
	if scope == probes.ReadAll {
		go func() { objects <- providerObjects(ctx, op.Target) }()
	} else {
		objects <- nil // discover: kube-system's objects are preview's
	}
	system := probes.ReadWorkloads(ctx, op.Target, "kube-system", topology.KindDaemonSet, topology.KindDeployment)
	st.obs.Etcd = op.ReadStorageSize(ctx)
	obs.ProviderObjects = <-objects
	st.obs.Provider = providerParts(st.obs, system, facts)
	obs.Kapsule = st.obs
	return obs, facts
}

// ProviderLayer says whether l, an undeclared layer found on the cluster,
// is the provider's rather than the stack's (probes.ProviderLayers): the
// provider's CNI (topology.KapsuleProviderLayer), or a catalog layer whose
// only sign is in kube-system (metrics-server…): kube-system is the
// provider's, and both are listed once in its part of ACTUAL, never planned.
func (Kind) ProviderLayer(l topology.LayerState, facts topology.ClusterFacts) bool {
	if l.Declared {
		return false
	}
	if _, provider := topology.KapsuleProviderLayer(l.Name); provider {
		return true
	}
	def, ok := topology.CatalogLayer(l.Name)
	return ok && !health.SignalSeen(def, withoutNamespace(facts, "kube-system"))
}

// withoutNamespace returns facts without the workloads of namespace ns (on
// a Kapsule cluster kube-system is the provider's: an undeclared catalog
// layer whose only sign is there is the provider's component).
func withoutNamespace(facts topology.ClusterFacts, ns string) topology.ClusterFacts {
	out := facts
	out.WorkloadNamespaces = nil
	for _, n := range facts.WorkloadNamespaces {
		if n != ns {
			out.WorkloadNamespaces = append(out.WorkloadNamespaces, n)
		}
	}
	if facts.Workloads.Known {
		var ws []topology.WorkloadState
		for _, w := range facts.Workloads.Value {
			if w.Namespace != ns {
				ws = append(ws, w)
			}
		}
		out.Workloads = topology.KnownFact(ws)
	}
	return out
}

// execPluginMissing says why the in-cluster part cannot be read when the
// kubeconfig's user runs an exec credential plugin that is not installed
// (a Kapsule kubeconfig written by `scw k8s kubeconfig install` runs `scw
// k8s exec-credential`), with the install hint; "" otherwise. PATH is read
// through env.
func execPluginMissing(t *probes.Target, env probes.Env) string {
	if t.Config == nil || t.Config.ExecProvider == nil {
		return ""
	}
	cmd := t.Config.ExecProvider.Command
	if lookPath(cmd, env) {
		return ""
	}
	// The kubeconfig's own installHint is its author's word: kept, and
	// nestor's added after it.
	var hints []string
	if h := strings.TrimSpace(t.Config.ExecProvider.InstallHint); h != "" {
		hints = append(hints, h)
	}
	switch {
	case filepath.Base(cmd) == "scw":
		hints = append(hints, "install the Scaleway CLI (scw), which the kubeconfig runs as `scw k8s exec-credential`")
	case len(hints) == 0:
		hints = append(hints, "install it, or use a kubeconfig with a token")
	}
	hint := strings.Join(hints, "; ")
	return fmt.Sprintf("the kubeconfig's credential plugin %q is not installed: %s", cmd, strings.TrimSpace(hint))
}

// lookPath reports whether cmd is an executable file: as given when it
// holds a '/', else in one of PATH's folders (PATH from env).
func lookPath(cmd string, env probes.Env) bool {
	isExec := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
	}
	if strings.Contains(cmd, "/") {
		return isExec(cmd)
	}
	path := ""
	if env != nil {
		path, _ = env("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if dir != "" && isExec(filepath.Join(dir, cmd)) {
			return true
		}
	}
	return false
}

// csiProvisioner is the Scaleway Block Storage CSI driver's provisioner
// (scaleway/scaleway-csi README: StorageClasses scw-bssd, scw-bssd-retain,
// sbs-default…).
const csiProvisioner = "csi.scaleway.com"

// providerParts lists the provider's objects found: the CNI the API names
// (cluster.cni), the kube-system workloads (every one is the provider's on
// a Kapsule cluster), the StorageClasses of the provider's CSI.
func providerParts(k *topology.KapsuleObserved, system topology.Fact[[]topology.WorkloadState], facts topology.ClusterFacts) []string {
	out := []string{}
	if k.Cluster.Known && k.Cluster.Value.CNI != "" {
		out = append(out, "CNI "+k.Cluster.Value.CNI+" (cluster.cni)")
	}
	switch {
	case system.Known:
		for _, w := range system.Value {
			out = append(out, fmt.Sprintf("kube-system %s %s %d/%d", w.Kind, w.Name, w.Ready, w.Desired))
		}
	case system.Reason != "":
		out = append(out, "kube-system workloads: unknown ("+system.Reason+")")
	}
	if facts.StorageClasses.Known {
		for _, sc := range facts.StorageClasses.Value {
			if sc.Provisioner == csiProvisioner {
				s := "StorageClass " + sc.Name + " (" + sc.Provisioner + ")"
				if sc.Default {
					s += " default"
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// quietSDK silences the SDK's logger once: at debug level (SCW_DEBUG) it
// writes request and response bodies to stderr, which nestor's output must
// never carry.
var quietSDK sync.Once

type silentLogger struct{}

func (silentLogger) Debugf(string, ...any)          {}
func (silentLogger) Infof(string, ...any)           {}
func (silentLogger) Warningf(string, ...any)        {}
func (silentLogger) Errorf(string, ...any)          {}
func (silentLogger) ShouldLog(logger.LogLevel) bool { return false }

// kubeconfigRouteError: a request to the provider's kubeconfig route, which
// answers a credential; nestor never sends one.
type kubeconfigRouteError struct{ Path string }

func (e *kubeconfigRouteError) Error() string {
	return "nestor refused to send GET " + e.Path + ": the kubeconfig route answers a credential, and nestor never reads it"
}

// noKubeconfigRoute refuses any request to a …/kubeconfig path before it
// is sent.
type noKubeconfigRoute struct{ next http.RoundTripper }

func (r noKubeconfigRoute) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL != nil && strings.HasSuffix(strings.TrimRight(req.URL.Path, "/"), "/kubeconfig") {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &kubeconfigRouteError{Path: req.URL.Path}
	}
	return r.next.RoundTrip(req)
}

// kapsuleHTTPClient is the HTTP client of the provider's API: the
// read-only transport pinned to the API's scheme and host (ReadOnlyTo: GET,
// HEAD and OPTIONS only, no other host, redirects refused), the kubeconfig
// route refused, no redirect followed, and every request bounded by ctx as
// well as by its own (bounded): the SDK sends GET /metadata after its calls
// with a context of its own, which ctx's deadline and cancellation must end
// too.
//
// The client has a connection pool of its own; the returned closeIdle ends
// its connections (http.Transport.CloseIdleConnections), once the reads
// made through it are done, so that a fleet does not keep one connection
// to the provider per stack read until it exits.
func kapsuleHTTPClient(ctx context.Context, apiURL string) (hc *http.Client, closeIdle func(), err error) {
	u, err := url.Parse(apiURL)
	if err != nil {
		return nil, nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil // the environment is read through probes.Env only
	return &http.Client{
		Transport:     bounded{ctx: ctx, next: probes.ReadOnlyTo(u)(noKubeconfigRoute{next: base})},
		CheckRedirect: probes.RefuseRedirect,
	}, base.CloseIdleConnections, nil
}

// providerBodyBound is what one answer of the provider's API may take: a
// page of 100 pools or nodes is a few hundred KiB.
const providerBodyBound = 16 << 20

// bounded ends every request when ctx ends (deadline or interrupt), whatever
// context the request carries, and refuses a body larger than
// providerBodyBound.
type bounded struct {
	ctx  context.Context
	next http.RoundTripper
}

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	rctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(b.ctx, cancel)
	done := func() { stop(); cancel() }
	resp, err := b.next.RoundTrip(req.WithContext(rctx))
	if err != nil {
		done()
		if b.ctx.Err() != nil {
			return nil, b.ctx.Err()
		}
		return nil, err
	}
	resp.Body = &boundedBody{r: resp.Body, left: providerBodyBound, done: done, path: req.URL.Path}
	return resp, nil
}

// boundedBody reads at most left bytes, then fails; Close ends the
// request's context.
type boundedBody struct {
	r    io.ReadCloser
	left int64
	done func()
	path string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the provider's answer to %s is larger than %d MiB: refused", b.path, providerBodyBound>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.r.Close()
	b.done()
	return err
}

// readKapsule reads the provider's part of a kapsule stack, every request
// a GET bounded by ctx: the cluster, then (when the cluster answered or is
// moving) its available versions, its pools and its nodes (every page,
// read by pages), the version list, its ACL rules, the region's cluster
// types (every page) and the types the cluster may switch to. Each part that could
// not be read is unknown with its reason (kapsuleReason); a 409
// transient_state answer is kept in Transient; a list that contradicts
// itself (an id twice, a total its pages do not add up to) is unknown. It
// never reads the kubeconfig route.
func readKapsule(ctx context.Context, budget time.Duration, creds *ScalewayCredentials, t *topology.Topology, userAgent string) *topology.KapsuleObserved {
	k := &topology.KapsuleObserved{Transient: map[string]string{}, Provider: []string{}}
	api, closeAPI, err := kapsuleAPI(ctx, creds, t, userAgent)
	if err != nil {
		unknownKapsule(k, topology.Because(topology.ReasonFailed, creds.redact(err.Error())))
		return k
	}
	defer closeAPI()
	r := &kapsuleReader{ctx: ctx, budget: budget, creds: creds, api: api, k: k,
		region: scw.Region(t.Scaleway.Region), id: t.Scaleway.ClusterID}
	if !r.cluster() {
		return k
	}
	r.available()
	r.pools()
	r.nodes()
	r.versions()
	r.acl()
	r.types()
	r.availableTypes()
	if len(k.Transient) == 0 {
		k.Transient = nil
	}
	return k
}

// unknownKapsule makes every part of k unknown with reason r.
func unknownKapsule(k *topology.KapsuleObserved, r topology.Why) {
	k.Cluster = topology.UnknownFact[topology.KapsuleCluster](r)
	k.Pools = topology.UnknownFact[[]topology.KapsulePool](r)
	k.Nodes = topology.UnknownFact[[]topology.KapsuleNode](r)
	k.Available = topology.UnknownFact[[]string](r)
	k.Versions = topology.UnknownFact[[]topology.KapsuleVersion](r)
	k.ACL = topology.UnknownFact[[]string](r)
	k.ACLRules = topology.UnknownFact[[]topology.ACLRule](r)
	k.Types = topology.UnknownFact[[]topology.KapsuleType](r)
	k.AvailableTypes = topology.UnknownFact[[]string](r)
	k.Etcd = topology.UnknownFact[topology.StorageSize](r)
}

// kapsuleReader is one read of the provider's API (readKapsule's steps).
type kapsuleReader struct {
	ctx    context.Context
	budget time.Duration
	creds  *ScalewayCredentials
	api    *k8s.API
	k      *topology.KapsuleObserved
	region scw.Region
	id     string
}

// reason is the reason of a failed read of part, and a 409 kept as the
// part's transient state.
func (r *kapsuleReader) reason(part string, err error) topology.Why {
	why, transient := kapsuleReason(r.ctx, r.budget, err, r.creds)
	if transient != "" {
		r.k.Transient[part] = transient
	}
	return why
}

// cluster reads the cluster; false when it could not be read (and is not
// moving): then nothing else is, every part unknown saying so.
func (r *kapsuleReader) cluster() bool {
	cl, err := r.api.GetCluster(&k8s.GetClusterRequest{Region: r.region, ClusterID: r.id}, scw.WithContext(r.ctx))
	if err == nil {
		r.k.Cluster = topology.KnownFact(clusterOf(cl))
		return true
	}
	why := r.reason("cluster", err)
	r.k.Cluster = topology.UnknownFact[topology.KapsuleCluster](why)
	if r.k.Transient["cluster"] != "" {
		return true
	}
	unknownKapsule(r.k, topology.Because(topology.ReasonNotRead, "not read: the cluster could not be read ("+why.Text+")"))
	r.k.Cluster = topology.UnknownFact[topology.KapsuleCluster](why)
	r.k.Transient = nil
	return false
}

func (r *kapsuleReader) available() {
	av, err := r.api.ListClusterAvailableVersions(&k8s.ListClusterAvailableVersionsRequest{Region: r.region, ClusterID: r.id}, scw.WithContext(r.ctx))
	if err != nil {
		r.k.Available = topology.UnknownFact[[]string](r.reason("available_versions", err))
		return
	}
	names := []string{}
	for _, v := range av.Versions {
		if v != nil {
			names = append(names, probes.SanitizeName(v.Name))
		}
	}
	r.k.Available = topology.KnownFact(names)
}

// providerPageSize is the page size nestor asks the provider's lists for
// (a variable only so tests can force several pages).
var providerPageSize = 100

func (r *kapsuleReader) pools() {
	pools, err := allPages(r.ctx, "pools", func(page int32) ([]*k8s.Pool, uint64, error) {
		size := uint32(providerPageSize)
		res, err := r.api.ListPools(&k8s.ListPoolsRequest{Region: r.region, ClusterID: r.id, Page: &page, PageSize: &size}, scw.WithContext(r.ctx))
		if err != nil {
			return nil, 0, err
		}
		return res.Pools, res.TotalCount, nil
	}, func(p *k8s.Pool) string { return p.ID })
	if err != nil {
		r.k.Pools = topology.UnknownFact[[]topology.KapsulePool](r.reason("pools", err))
		return
	}
	out := []topology.KapsulePool{}
	for _, p := range pools {
		out = append(out, poolOf(p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	r.k.Pools = topology.KnownFact(out)
}

func (r *kapsuleReader) nodes() {
	nodes, err := allPages(r.ctx, "nodes", func(page int32) ([]*k8s.Node, uint64, error) {
		size := uint32(providerPageSize)
		res, err := r.api.ListNodes(&k8s.ListNodesRequest{Region: r.region, ClusterID: r.id, Page: &page, PageSize: &size}, scw.WithContext(r.ctx))
		if err != nil {
			return nil, 0, err
		}
		return res.Nodes, res.TotalCount, nil
	}, func(n *k8s.Node) string { return n.ID })
	if err != nil {
		r.k.Nodes = topology.UnknownFact[[]topology.KapsuleNode](r.reason("nodes", err))
		return
	}
	out := []topology.KapsuleNode{}
	for _, n := range nodes {
		out = append(out, topology.KapsuleNode{Name: probes.SanitizeName(n.Name), PoolID: n.PoolID, Status: probes.SanitizeName(n.Status.String()), ErrorMessage: probes.Sanitize(deref(n.ErrorMessage))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	r.k.Nodes = topology.KnownFact(out)
}

func (r *kapsuleReader) versions() {
	vs, err := r.api.ListVersions(&k8s.ListVersionsRequest{Region: r.region}, scw.WithContext(r.ctx))
	if err != nil {
		r.k.Versions = topology.UnknownFact[[]topology.KapsuleVersion](r.reason("versions", err))
		return
	}
	out := []topology.KapsuleVersion{}
	for _, v := range vs.Versions {
		if v != nil {
			out = append(out, topology.KapsuleVersion{Name: probes.SanitizeName(v.Name), ReleasedAt: v.ReleasedAt, DeprecatedAt: v.DeprecatedAt, EndOfLifeAt: v.EndOfLifeAt})
		}
	}
	r.k.Versions = topology.KnownFact(out)
}

func (r *kapsuleReader) acl() {
	rules, err := allPages(r.ctx, "acls", func(page int32) ([]*k8s.ACLRule, uint64, error) {
		size := uint32(providerPageSize)
		res, err := r.api.ListClusterACLRules(&k8s.ListClusterACLRulesRequest{Region: r.region, ClusterID: r.id, Page: &page, PageSize: &size}, scw.WithContext(r.ctx))
		if err != nil {
			return nil, 0, err
		}
		return res.Rules, res.TotalCount, nil
	}, func(a *k8s.ACLRule) string { return a.ID })
	if err != nil {
		why := r.reason("acl", err)
		r.k.ACL = topology.UnknownFact[[]string](why)
		r.k.ACLRules = topology.UnknownFact[[]topology.ACLRule](why)
		return
	}
	out, typed := []string{}, []topology.ACLRule{}
	for _, a := range rules {
		rule := topology.ACLRule{Description: probes.Sanitize(a.Description)}
		ranges := a.ScalewayRanges != nil && *a.ScalewayRanges
		if (a.IP != nil) == ranges {
			// "Precisely one of IP, ScalewayRanges must be set": a rule
			// that holds both, or neither, contradicts the API's own
			// contract; the list is not taken as complete without it.
			what := "both an ip and scaleway_ranges"
			if !ranges {
				what = "neither an ip nor scaleway_ranges"
			}
			why := topology.Because(topology.ReasonAnswerRefused, fmt.Sprintf("the provider's list of acls is inconsistent: rule %s holds %s", probes.SanitizeName(a.ID), what))
			r.k.ACL = topology.UnknownFact[[]string](why)
			r.k.ACLRules = topology.UnknownFact[[]topology.ACLRule](why)
			return
		}
		if ranges {
			rule.ScalewayRanges = true
		} else {
			rule.IP = probes.SanitizeName(a.IP.String())
		}
		out = append(out, rule.String())
		typed = append(typed, rule)
	}
	r.k.ACL = topology.KnownFact(out)
	r.k.ACLRules = topology.KnownFact(typed)
}

// inconsistentError: a provider list that contradicts itself.
type inconsistentError struct{ part, why string }

func (e *inconsistentError) Error() string {
	return "the provider's list of " + e.part + " is inconsistent: " + e.why
}

// allPages reads every page of a provider list itself (page 1, 2, …, as
// the SDK's WithAllPages would, but bounded): it stops when the items
// reach the total the API gives. An id listed twice, a total that changes
// between pages, more items than the total, an empty page before it, or
// more pages than the total can need are an *inconsistentError: the list
// is unknown, never counted twice nor short. nil items are skipped.
func allPages[T any](ctx context.Context, part string, fetch func(page int32) ([]*T, uint64, error), id func(*T) string) ([]*T, error) {
	var out []*T
	seen := map[string]bool{}
	var total uint64
	for page := int32(1); ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items, t, err := fetch(page)
		if err != nil {
			return nil, err
		}
		switch {
		case page == 1:
			total = t
		case t != total:
			return nil, &inconsistentError{part, fmt.Sprintf("its total changed from %d to %d between pages", total, t)}
		}
		for _, it := range items {
			if it == nil {
				continue
			}
			if seen[id(it)] {
				return nil, &inconsistentError{part, fmt.Sprintf("it lists %s twice (page %d)", probes.SanitizeName(id(it)), page)}
			}
			seen[id(it)] = true
			out = append(out, it)
		}
		if uint64(len(out)) > total {
			return nil, &inconsistentError{part, fmt.Sprintf("its pages hold %d items, more than its total of %d", len(out), total)}
		}
		if uint64(len(out)) == total {
			return out, nil
		}
		if len(items) == 0 {
			return nil, &inconsistentError{part, fmt.Sprintf("its pages end at %d items, short of its total of %d", len(out), total)}
		}
		if int64(page) > int64(total)/int64(providerPageSize)+2 {
			return nil, &inconsistentError{part, fmt.Sprintf("%d pages do not reach its total of %d", page, total)}
		}
	}
}

// kapsuleAPI is the SDK's k8s/v1 client for t: nestor's HTTP client
// (kapsuleHTTPClient), the API URL and credentials creds resolved, t's
// region, nestor's user agent; the SDK's logger silenced. closeIdle ends its
// connections once the caller's reads are done (nil with an error).
func kapsuleAPI(ctx context.Context, creds *ScalewayCredentials, t *topology.Topology, userAgent string) (api *k8s.API, closeIdle func(), err error) {
	quietSDK.Do(func() { logger.SetLogger(silentLogger{}) })
	hc, closeIdle, err := kapsuleHTTPClient(ctx, creds.APIURL)
	if err != nil {
		return nil, nil, fmt.Errorf("the API URL: %v", err)
	}
	if userAgent == "" {
		userAgent = "nestor"
	}
	client, err := scw.NewClient(scw.WithHTTPClient(hc), scw.WithAPIURL(creds.APIURL), scw.WithAuth(creds.AccessKey, creds.secretKey),
		scw.WithDefaultRegion(scw.Region(t.Scaleway.Region)), scw.WithDefaultUserAgent(userAgent))
	if err != nil {
		// checkKeys ran first; the SDK's own text may quote a key, and the
		// caller redacts it.
		closeIdle()
		return nil, nil, fmt.Errorf("the Scaleway client refused its settings: %v", err)
	}
	return k8s.NewAPI(client), closeIdle, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// clusterOf is the provider's cluster in nestor's model: names, statuses
// and versions escaped (sanitizeName); the cluster URL, an endpoint that
// SameEndpoint compares with the topology's, made printable and trimmed
// (an escape is not a URL).
func clusterOf(c *k8s.Cluster) topology.KapsuleCluster {
	out := topology.KapsuleCluster{ID: c.ID, Name: probes.SanitizeName(c.Name), Region: c.Region.String(), ProjectID: c.ProjectID,
		Status: probes.SanitizeName(c.Status.String()), Version: probes.SanitizeName(c.Version), Type: probes.SanitizeName(c.Type), CNI: probes.SanitizeName(c.Cni.String()),
		URL: strings.TrimSpace(probes.Sanitize(c.ClusterURL)), UpgradeAvailable: c.UpgradeAvailable,
		CreatedAt: c.CreatedAt, CommitmentEndsAt: c.CommitmentEndsAt}
	if c.AutoUpgrade != nil {
		out.AutoUpgrade = c.AutoUpgrade.Enabled
	}
	out.PrivateNetworkID = probes.SanitizeName(deref(c.PrivateNetworkID))
	out.PodCIDR, out.ServiceCIDR = ipNetText(c.PodCidr), ipNetText(c.ServiceCidr)
	return out
}

// ipNetText is a range the API gave, as text ("" when it gave none).
func ipNetText(n scw.IPNet) string {
	if n.IP == nil || n.Mask == nil {
		return ""
	}
	return probes.SanitizeName(n.String())
}

func poolOf(p *k8s.Pool) topology.KapsulePool {
	return topology.KapsulePool{ID: p.ID, Name: probes.SanitizeName(p.Name), Status: probes.SanitizeName(p.Status.String()), Version: probes.SanitizeName(p.Version),
		NodeType: probes.SanitizeName(p.NodeType), Zone: p.Zone.String(), Size: int(p.Size), MinSize: int(p.MinSize), MaxSize: int(p.MaxSize),
		Autoscaling: p.Autoscaling, Autohealing: p.Autohealing, ErrorMessage: probes.Sanitize(deref(p.ErrorMessage)),
		PlacementGroupID: probes.SanitizeName(deref(p.PlacementGroupID)), RootVolumeType: probes.SanitizeName(p.RootVolumeType.String()),
		RootVolumeSize: rootVolumeSize(p.RootVolumeSize), PublicIPDisabled: p.PublicIPDisabled}
}

// rootVolumeSize is a pool's root volume size in bytes (0 when the API gave
// none).
func rootVolumeSize(s *scw.Size) uint64 {
	if s == nil {
		return 0
	}
	return uint64(*s)
}

// kapsuleReason turns the error of one provider read into the reason shown
// after "unknown", and, for a 409 transient_state answer, the object's
// current state (then the part is waiting, not unknown). Shapes:
//
//	timed out after 10s
//	unauthorized: the provider refused the credentials (401)
//	forbidden: the credentials may not read it (403 permissions_denied)
//	not found (404 not_found): no such object in the region for these credentials
//	the provider's API answered 501 Not Implemented (type "x", which nestor does not know)
//	the provider's API answered 503 Service Unavailable (a server error)
//	refused by nestor: … (a write, another host, a redirect, the kubeconfig route)
//
// The text never contains the secret key (creds.redact) and is sanitized.
func kapsuleReason(ctx context.Context, budget time.Duration, err error, creds *ScalewayCredentials) (why topology.Why, transient string) {
	var (
		reason string
		code   topology.ReasonCode
	)
	var (
		ts     *scw.TransientStateError
		nf     *scw.ResourceNotFoundError
		pd     *scw.PermissionsDeniedError
		da     *scw.DeniedAuthenticationError
		re     *scw.ResponseError
		host   *probes.HostRefusedError
		write  *probes.WriteRefusedError
		redir  *probes.RedirectRefusedError
		kroute *kubeconfigRouteError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		code, reason = topology.ReasonTimedOut, (&probes.TimeoutError{After: budget.Round(100 * time.Millisecond)}).Error()
	case errors.Is(err, context.Canceled):
		code, reason = topology.ReasonInterrupted, "interrupted"
	case errors.As(err, &ts):
		state := ts.CurrentState
		if state == "" {
			state = "a transient state"
		}
		return topology.Because(topology.ReasonNotRead, probes.Sanitize("waiting: transient_state (current state "+state+")")), probes.Sanitize(state)
	case errors.As(err, &nf):
		code, reason = topology.ReasonNotServed, "not found (404 not_found): no such object in the region for these credentials"
	case errors.As(err, &pd):
		code, reason = topology.ReasonForbidden, "forbidden: the credentials may not read it (403 permissions_denied)"
	case errors.As(err, &da):
		code, reason = topology.ReasonUnauthorized, "unauthorized: the provider refused the credentials (401 denied_authentication)"
	case errors.As(err, &kroute):
		code, reason = topology.ReasonRefused, "refused by nestor: "+kroute.Error()
	case errors.As(err, &host):
		code, reason = topology.ReasonRefused, "refused by nestor: "+host.Error()
	case errors.As(err, &write):
		code, reason = topology.ReasonRefused, "refused by nestor: "+write.Error()
	case errors.As(err, &redir):
		code, reason = topology.ReasonRefused, "refused by nestor: "+redir.Error()
	case errors.As(err, &re):
		switch {
		case re.StatusCode == http.StatusUnauthorized:
			code, reason = topology.ReasonUnauthorized, "unauthorized: the provider refused the credentials (401)"
		case re.StatusCode == http.StatusForbidden:
			code, reason = topology.ReasonForbidden, "forbidden: the credentials may not read it (403)"
		case re.Type != "":
			code, reason = topology.ReasonServerError, fmt.Sprintf("the provider's API answered %s (type %q, which nestor does not know)", re.Status, re.Type)
		case re.StatusCode >= 500:
			code, reason = topology.ReasonServerError, fmt.Sprintf("the provider's API answered %s (a server error)", re.Status)
		default:
			code, reason = topology.ReasonServerError, "the provider's API answered "+re.Status
		}
		if re.Message != "" && re.StatusCode != http.StatusUnauthorized {
			reason += ": " + re.Message
		}
	default:
		var ue *url.Error
		if errors.As(err, &ue) {
			code, reason = topology.ReasonUnreachable, "unreachable: "+ue.Err.Error()
		} else {
			code, reason = topology.ReasonFailed, strings.TrimPrefix(err.Error(), "scaleway-sdk-go: ")
		}
	}
	return topology.Because(code, probes.Sanitize(creds.redact(reason))), ""
}
