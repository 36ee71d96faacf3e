package probes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	storagev1client "k8s.io/client-go/kubernetes/typed/storage/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"nestor.dev/nestor/topology"
)

// pageSize is the limit of every list request (issue 3: paginated lists,
// limit=500, followed with continue). A variable only so the integration
// test can force several pages.
var pageSize int64 = 500

// maxParallel bounds the workload lists in flight at once.
const maxParallel = 8

// Default-class annotations of a StorageClass (k8s.io/api storage/v1 docs;
// the beta one is still honoured by the admission plugin).
const (
	annDefaultClass     = "storageclass.kubernetes.io/is-default-class"
	annBetaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
)

var (
	gvrNamespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	gvrCRDs       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// clients are the typed and metadata clients of one read, sharing one HTTP
// client (one connection pool) built from the target's read-only config.
type clients struct {
	core     *corev1client.CoreV1Client
	apps     *appsv1client.AppsV1Client
	storage  *storagev1client.StorageV1Client
	metadata metadata.Interface
}

// clients returns the clients of t's reads, built from t.Config on the
// first call and kept (safe for concurrent use; a Target not made by
// LoadTargetWith builds them per call): every read of one Target
// shares one HTTP client and its connection pool. Their HTTP client refuses
// every redirect (RedirectRefusedError). The error is "no target loaded"
// for a nil Target or Config, or client-go's refusal of the configuration.
func (t *Target) clients() (*clients, error) {
	if t == nil || t.Config == nil {
		return nil, fmt.Errorf("no target loaded")
	}
	if t.cache == nil {
		return buildClients(t)
	}
	t.cache.once.Do(func() { t.cache.c, t.cache.err = buildClients(t) })
	return t.cache.c, t.cache.err
}

func buildClients(t *Target) (*clients, error) {
	cfg := rest.CopyConfig(t.Config)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot build a client for %s: %v", t.Endpoint, err)
	}
	// net/http follows redirects by default, and client-go's wrappers put
	// the credentials back on the redirected request: never follow one.
	hc.CheckRedirect = refuseRedirect
	c := &clients{}
	if c.core, err = corev1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	if c.apps, err = appsv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	if c.storage, err = storagev1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	if c.metadata, err = metadata.NewForConfigAndClient(metadata.ConfigFor(cfg), hc); err != nil {
		return nil, err
	}
	return c, nil
}

// bound returns ctx limited by the target's timeout (KubeOptions.Timeout,
// default DefaultTimeout) or by ctx's own deadline when sooner, and that
// bound rounded for messages.
func (t *Target) bound(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	d := t.Options.Timeout
	if d <= 0 {
		d = DefaultTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		if rem := time.Until(dl); rem < d {
			d = rem
		}
	}
	c, cancel := context.WithTimeout(ctx, d)
	if d > time.Second {
		d = d.Round(100 * time.Millisecond)
	}
	return c, cancel, d
}

// ReadNodes reads what the target guard needs, and nothing more: the server
// version (GET /version) and the nodes (GET /api/v1/nodes, limit=500 pages).
// Both requests run concurrently under one bound (Target.Options.Timeout,
// default 10s, or ctx's deadline when sooner).
//
// It returns the version ("v1.37.2") and the nodes sorted by name: roles from
// the node-role.kubernetes.io/ROLE labels (and the legacy kubernetes.io/role
// label), Ready from the Ready condition, the kubelet version and the first
// InternalIP. A probe that fails gives an unknown fact whose Reason is
// Classify's ("unreachable: dial tcp …: connection refused", "timed out after
// 10s", "forbidden (user X cannot list nodes)"); it is never an empty known
// list. Callers decide what an unreachable endpoint means.
func ReadNodes(ctx context.Context, t *Target) (topology.Fact[string], topology.Fact[[]topology.NodeState]) {
	c, err := t.clients()
	if err != nil {
		r := Classify(err)
		return topology.UnknownFact[string](r), topology.UnknownFact[[]topology.NodeState](r)
	}
	ctx, cancel, budget := t.bound(ctx)
	defer cancel()

	var (
		wg    sync.WaitGroup
		ver   topology.Fact[string]
		nodes topology.Fact[[]topology.NodeState]
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		v, err := serverVersion(ctx, c)
		if err != nil {
			ver = topology.UnknownFact[string](failReason(ctx, budget, err))
			return
		}
		ver = topology.KnownFact(v)
	}()
	go func() {
		defer wg.Done()
		list, err := listNodes(ctx, c)
		if err != nil {
			nodes = topology.UnknownFact[[]topology.NodeState](failReason(ctx, budget, err))
			return
		}
		nodes = topology.KnownFact(list)
	}()
	wg.Wait()
	return ver, nodes
}

func serverVersion(ctx context.Context, c *clients) (string, error) {
	raw, err := c.core.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var info version.Info
	if err := json.Unmarshal(raw, &info); err != nil {
		return "", fmt.Errorf("the /version answer is not a version document: %v", err)
	}
	if info.GitVersion == "" {
		return "", fmt.Errorf("the /version answer has no gitVersion")
	}
	return sanitize(info.GitVersion), nil
}

func listNodes(ctx context.Context, c *clients) ([]topology.NodeState, error) {
	out := []topology.NodeState{}
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := c.core.Nodes().List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			out = append(out, nodeState(&list.Items[i]))
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// nodeState keeps what nestor shows of a Node.
func nodeState(n *corev1.Node) topology.NodeState {
	s := topology.NodeState{Name: n.Name, Roles: []string{}, KubeletVersion: sanitize(n.Status.NodeInfo.KubeletVersion)}
	seen := map[string]bool{}
	for k, v := range n.Labels {
		role := ""
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			role = strings.TrimPrefix(k, "node-role.kubernetes.io/")
		case k == "kubernetes.io/role":
			role = v
		}
		if role != "" && !seen[role] {
			seen[role] = true
			s.Roles = append(s.Roles, role)
		}
	}
	sort.Strings(s.Roles)
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			s.Ready = cond.Status == corev1.ConditionTrue
		}
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			s.InternalIP = a.Address
			break
		}
	}
	return s
}

// ProbeCluster reads what layer detection needs and returns the whole
// observation of a kube target plus the raw facts it was made from.
//
// Reads, under one bound (Target.Options.Timeout, default 10s, or ctx's
// deadline when sooner), every list paginated with limit=500: first,
// concurrently, namespaces and CustomResourceDefinitions through the
// metadata client (a CRD's group is its name after the first dot) and
// StorageClasses (storage/v1); then Deployments, DaemonSets and
// StatefulSets with one list per (kind, namespace), at most 8 at once, in
// the namespaces of workloadNamespaces: those of the declared layers, plus
// those of the undeclared catalog layers whose CRD group or provisioner was
// seen — only the ones that exist when the namespaces are known. Never a
// request per node or per CRD.
//
// Each probe keeps its own error: a failed one makes its fact unknown with
// Classify's reason, never empty-known. Workloads are judged per namespace:
// a namespace where any of the three lists failed is left out of
// facts.WorkloadNamespaces and its reason kept in facts.WorkloadErrors
// ("deployments in argocd: forbidden (…)"); Workloads stays known with what
// the other namespaces hold, and is unknown (first failure's reason) only
// when every namespace failed.
//
// version and nodes are ReadNodes' results, copied into the observation.
// Layers are the declared layers in order (topology.LayerDefFor +
// topology.Evaluate, via topology.ObserveLayers), then topology.Undeclared;
// Storage is topology.DefaultStorage.
func ProbeCluster(ctx context.Context, t *Target, topo *topology.Topology, version topology.Fact[string], nodes topology.Fact[[]topology.NodeState]) (*topology.Observed, topology.ClusterFacts) {
	facts := readClusterFacts(ctx, t, topo)
	obs := &topology.Observed{ServerVersion: version, Nodes: nodes}
	fillLayers(obs, topo, facts)
	return obs, facts
}

// readClusterFacts runs the cluster reads of ProbeCluster.
func readClusterFacts(ctx context.Context, t *Target, topo *topology.Topology) topology.ClusterFacts {
	facts := topology.ClusterFacts{WorkloadNamespaces: []string{}}
	c, err := t.clients()
	if err != nil {
		r := Classify(err)
		facts.Namespaces = topology.UnknownFact[[]string](r)
		facts.CRDGroups = topology.UnknownFact[[]string](r)
		facts.StorageClasses = topology.UnknownFact[[]topology.StorageClass](r)
		facts.Workloads = topology.UnknownFact[[]topology.WorkloadState](r)
		return facts
	}
	ctx, cancel, budget := t.bound(ctx)
	defer cancel()

	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		groups, err := listCRDGroups(ctx, c)
		if err != nil {
			facts.CRDGroups = topology.UnknownFact[[]string](failReason(ctx, budget, err))
			return
		}
		facts.CRDGroups = topology.KnownFact(groups)
	}()
	go func() {
		defer wg.Done()
		scs, err := listStorageClasses(ctx, c)
		if err != nil {
			facts.StorageClasses = topology.UnknownFact[[]topology.StorageClass](failReason(ctx, budget, err))
			return
		}
		facts.StorageClasses = topology.KnownFact(scs)
	}()
	go func() {
		defer wg.Done()
		ns, err := listNamespaces(ctx, c)
		if err != nil {
			facts.Namespaces = topology.UnknownFact[[]string](failReason(ctx, budget, err))
			return
		}
		facts.Namespaces = topology.KnownFact(ns)
	}()
	wg.Wait()

	w := listWorkloads(ctx, budget, c, workloadNamespaces(topo, facts))
	facts.Workloads, facts.WorkloadNamespaces, facts.WorkloadErrors = w.fact, w.read, w.errors
	return facts
}

func listNamespaces(ctx context.Context, c *clients) ([]string, error) {
	out := []string{}
	err := listMetadata(ctx, c, gvrNamespaces, func(m *metav1.PartialObjectMetadata) {
		out = append(out, m.Name)
	})
	sort.Strings(out)
	return out, err
}

func listCRDGroups(ctx context.Context, c *clients) ([]string, error) {
	seen := map[string]bool{}
	out := []string{}
	err := listMetadata(ctx, c, gvrCRDs, func(m *metav1.PartialObjectMetadata) {
		// A CRD is named <plural>.<group> (apiextensions validation).
		_, group, ok := strings.Cut(m.Name, ".")
		if ok && group != "" && !seen[group] {
			seen[group] = true
			out = append(out, group)
		}
	})
	sort.Strings(out)
	return out, err
}

func listMetadata(ctx context.Context, c *clients, gvr schema.GroupVersionResource, each func(*metav1.PartialObjectMetadata)) error {
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := c.metadata.Resource(gvr).List(ctx, opts)
		if err != nil {
			return err
		}
		for i := range list.Items {
			each(&list.Items[i])
		}
		if list.Continue == "" {
			return nil
		}
		opts.Continue = list.Continue
	}
}

func listStorageClasses(ctx context.Context, c *clients) ([]topology.StorageClass, error) {
	out := []topology.StorageClass{}
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := c.storage.StorageClasses().List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, sc := range list.Items {
			out = append(out, topology.StorageClass{
				Name:        sc.Name,
				Provisioner: sc.Provisioner,
				Default:     sc.Annotations[annDefaultClass] == "true" || sc.Annotations[annBetaDefaultClass] == "true",
			})
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// workloadLists is the result of listWorkloads.
type workloadLists struct {
	// fact is known with the workloads of the namespaces read (sorted by
	// namespace, kind, name) unless every namespace failed.
	fact topology.Fact[[]topology.WorkloadState]
	// read are the namespaces whose three lists all succeeded, in order.
	read []string
	// errors maps each other namespace to its reason
	// ("deployments in argocd: forbidden (…)"); nil when none failed.
	errors map[string]string
}

// kindResource is the resource name of a workload kind, for reasons.
var kindResource = map[string]string{
	topology.KindDeployment:  "deployments",
	topology.KindDaemonSet:   "daemonsets",
	topology.KindStatefulSet: "statefulsets",
}

// listWorkloads lists the three workload kinds in each namespace, at most
// maxParallel requests at once. A namespace where a list failed is left
// out of the result and its reason kept (the first failing kind, in
// Deployment, DaemonSet, StatefulSet order): a partial list would say
// "absent" of what could not be seen. The fact is unknown, with the first
// failed namespace's reason, only when every namespace failed; no
// namespace at all gives a known empty list.
func listWorkloads(ctx context.Context, budget time.Duration, c *clients, namespaces []string) workloadLists {
	kinds := []string{topology.KindDeployment, topology.KindDaemonSet, topology.KindStatefulSet}
	type result struct {
		items []topology.WorkloadState
		err   error
	}
	results := make([]result, len(kinds)*len(namespaces))
	sem := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for ni, ns := range namespaces {
		for ki, kind := range kinds {
			i := ni*len(kinds) + ki
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					results[i].err = ctx.Err()
					return
				}
				defer func() { <-sem }()
				results[i].items, results[i].err = listWorkloadKind(ctx, c, kind, ns)
			}()
		}
	}
	wg.Wait()

	out := workloadLists{read: []string{}}
	items := []topology.WorkloadState{}
	firstReason := ""
	for ni, ns := range namespaces {
		failed := false
		for ki, kind := range kinds {
			r := results[ni*len(kinds)+ki]
			if r.err == nil {
				continue
			}
			reason := failReason(ctx, budget, r.err)
			if firstReason == "" {
				firstReason = reason
			}
			if out.errors == nil {
				out.errors = map[string]string{}
			}
			out.errors[ns] = kindResource[kind] + " in " + ns + ": " + reason
			failed = true
			break
		}
		if failed {
			continue
		}
		out.read = append(out.read, ns)
		for ki := range kinds {
			items = append(items, results[ni*len(kinds)+ki].items...)
		}
	}
	if len(namespaces) > 0 && len(out.read) == 0 {
		out.fact = topology.UnknownFact[[]topology.WorkloadState](firstReason)
		return out
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	out.fact = topology.KnownFact(items)
	return out
}

func listWorkloadKind(ctx context.Context, c *clients, kind, ns string) ([]topology.WorkloadState, error) {
	var out []topology.WorkloadState
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		var cont string
		switch kind {
		case topology.KindDeployment:
			list, err := c.apps.Deployments(ns).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for i := range list.Items {
				out = append(out, deploymentState(&list.Items[i]))
			}
			cont = list.Continue
		case topology.KindDaemonSet:
			list, err := c.apps.DaemonSets(ns).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for _, d := range list.Items {
				out = append(out, topology.WorkloadState{Kind: kind, Namespace: d.Namespace, Name: d.Name,
					Desired: d.Status.DesiredNumberScheduled, Ready: d.Status.NumberAvailable})
			}
			cont = list.Continue
		case topology.KindStatefulSet:
			list, err := c.apps.StatefulSets(ns).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for i := range list.Items {
				s := &list.Items[i]
				out = append(out, topology.WorkloadState{Kind: kind, Namespace: s.Namespace, Name: s.Name,
					Desired: replicas(s.Spec.Replicas), Ready: s.Status.AvailableReplicas})
			}
			cont = list.Continue
		default:
			return nil, fmt.Errorf("unknown workload kind %q", kind)
		}
		if cont == "" {
			return out, nil
		}
		opts.Continue = cont
	}
}

func deploymentState(d *appsv1.Deployment) topology.WorkloadState {
	return topology.WorkloadState{Kind: topology.KindDeployment, Namespace: d.Namespace, Name: d.Name,
		Desired: replicas(d.Spec.Replicas), Ready: d.Status.AvailableReplicas}
}

// replicas is spec.replicas with the API's default of 1 when unset.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// compile-time check: ReadOnly has client-go's WrapperFunc shape.
var _ func(http.RoundTripper) http.RoundTripper = ReadOnly
