package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptrace"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"nestor.dev/nestor/health"
	"nestor.dev/nestor/topology"
)

// pageSize is the limit of every list request (lists are paginated,
// limit=500, followed with continue). A variable only so the integration
// test can force several pages.
var pageSize int64 = 500

// nodePageSize is the limit of the node Table's pages: a row without its
// object is about 250 bytes, so 5,000 nodes (the largest cluster
// Kubernetes tests, its "Considerations for large clusters") come in one
// page and one round trip. A variable only so tests can force several
// pages.
var nodePageSize int64 = 5000

// maxParallel bounds the workload lists of one read in flight at once
// (the node pages, namespaces, CRDs, StorageClasses and status lists do not
// wait for a slot). All requests share one HTTP/2 connection, so the bound
// is not about sockets but about the API server's CPU and the read's round
// trips: at 16, the 42 workload lists of fifteen layers went in three
// sequential rounds (three round trips more over a 40 ms network, measured
// by tests/bench/net.sh); at 64 they go in one, and the 2,000- and
// 5,000-node previews of tests/bench/run.sh, server on the same 2 cores,
// were no slower (BENCHMARKS.md). With the first wave's two dozen lists,
// a read stays under kube-apiserver's default of 100 concurrent streams
// per HTTP/2 connection (k8s.io/apiserver pkg/server/secure_serving.go),
// past which Go's client would dial a second connection.
const maxParallel = 64

// namespaceGrace bounds how long the workload lists wait for the namespace
// list (see readTarget). It is a variable for the tests.
var namespaceGrace = time.Second

// Default-class annotations of a StorageClass (k8s.io/api storage/v1 docs;
// the beta one is still honoured by the admission plugin).
const (
	annDefaultClass     = "storageclass.kubernetes.io/is-default-class"
	annBetaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
)

// The media types nestor asks for. Nodes, namespaces and CRDs are read as
// the API server's own Table (meta.k8s.io/v1, "Receiving resources as
// Tables" in the Kubernetes API concepts) without the objects
// (includeObject=None): a few columns per row instead of whole objects —
// about 200 bytes per node instead of 8 KB. Workloads and StorageClasses
// are few; they are read as JSON and decoded into the handful of fields
// nestor keeps.
const (
	acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io"
	acceptJSON  = "application/json"
)

// API paths of the lists.
const (
	pathNodes          = "/api/v1/nodes"
	pathNamespaces     = "/api/v1/namespaces"
	pathCRDs           = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	pathStorageClasses = "/apis/storage.k8s.io/v1/storageclasses"
)

// workloadResources maps a workload kind to its apps/v1 resource.
var workloadResources = map[string]string{
	topology.KindDeployment:  "deployments",
	topology.KindDaemonSet:   "daemonsets",
	topology.KindStatefulSet: "statefulsets",
}

// workloadKinds is the order workloads are listed and failures reported in.
var workloadKinds = []string{topology.KindDeployment, topology.KindDaemonSet, topology.KindStatefulSet}

// clients is the REST client of one target's reads: one HTTP client (one
// connection pool), the target's read-only pinned transport, redirects
// refused. It decodes nothing but the API server's Status errors; every
// answer's body is decoded by the probes into the fields they keep.
type clients struct {
	rest *rest.RESTClient
	// progress is KubeOptions.Progress (nil: nothing is told).
	progress func(resource string, items int)
}

// told reports to the progress callback that items of the list at path
// have been read so far (the resource is the path's last element: "nodes").
func (c *clients) told(path string, items int) {
	if c.progress != nil {
		c.progress(path[strings.LastIndex(path, "/")+1:], items)
	}
}

// statusCodecs decode the API server's metav1.Status errors (JSON or
// protobuf) so Classify sees "forbidden: User … cannot list …". Built on
// the first read, not at start-up.
var (
	statusCodecsOnce sync.Once
	statusCodecs     runtime.NegotiatedSerializer
)

func negotiatedSerializer() runtime.NegotiatedSerializer {
	statusCodecsOnce.Do(func() {
		s := runtime.NewScheme()
		metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
		statusCodecs = serializer.NewCodecFactory(s).WithoutConversion()
	})
	return statusCodecs
}

// clients returns the client of t's reads, built from t.Config on the
// first call and kept (safe for concurrent use; a Target not made by
// LoadTargetWith builds it per call): every read of one Target shares one
// HTTP client and its connection pool. Its HTTP client refuses every
// redirect (RedirectRefusedError). The error is "no target loaded" for a
// nil Target or Config, or client-go's refusal of the configuration.
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
	cfg.GroupVersion = nil
	cfg.APIPath = ""
	cfg.NegotiatedSerializer = negotiatedSerializer()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot build a client for %s: %v", t.Endpoint, err)
	}
	// net/http follows redirects by default, and client-go's wrappers put
	// the credentials back on the redirected request: never follow one.
	hc.CheckRedirect = RefuseRedirect
	rc, err := rest.UnversionedRESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("cannot build a client for %s: %v", t.Endpoint, err)
	}
	return &clients{rest: rc, progress: t.Options.Progress}, nil
}

// bound returns ctx limited by the target's timeout (KubeOptions.Timeout,
// default DefaultTimeout) or by ctx's own deadline when sooner (the stack's
// one deadline, shared by its stages), and that bound, rounded to 100 ms,
// for messages.
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
	if d > 100*time.Millisecond {
		d = d.Round(100 * time.Millisecond)
	}
	return c, cancel, d
}

// ReadNodes reads what the target guard needs, and nothing more: the server
// version (GET /version) and the nodes (GET /api/v1/nodes as a server-side
// Table, limit=500 pages; then the Ready condition of the nodes that are not
// Ready, see listNodes). Both run concurrently under one bound
// (Target.Options.Timeout, default 10s, or ctx's deadline when sooner).
//
// It returns the version ("v1.37.2") and the nodes sorted by name (see
// listNodes for where each field comes from). A probe that fails gives an
// unknown fact whose Reason is Classify's ("unreachable: dial tcp …:
// connection refused", "timed out after 10s", "forbidden (user X cannot
// list nodes)"); it is never an empty known list. Callers decide what an
// unreachable endpoint means.
func ReadNodes(ctx context.Context, t *Target) (topology.Fact[string], topology.Fact[[]topology.NodeState]) {
	c, err := t.clients()
	if err != nil {
		r := Explain(err)
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
		ver = versionFact(ctx, budget, c)
	}()
	go func() {
		defer wg.Done()
		nodes = nodesFact(ctx, budget, c)
	}()
	wg.Wait()
	return ver, nodes
}

func versionFact(ctx context.Context, budget time.Duration, c *clients) topology.Fact[string] {
	v, err := serverVersion(ctx, c)
	if err != nil {
		return topology.UnknownFact[string](failReason(ctx, budget, err))
	}
	return topology.KnownFact(v)
}

func nodesFact(ctx context.Context, budget time.Duration, c *clients) topology.Fact[[]topology.NodeState] {
	list, err := listNodes(ctx, c)
	if err != nil {
		return topology.UnknownFact[[]topology.NodeState](failReason(ctx, budget, err))
	}
	return topology.KnownFact(list)
}

func serverVersion(ctx context.Context, c *clients) (string, error) {
	raw, err := c.get(ctx, "/version", acceptJSON, nil, smallBound, "a version document")
	if err != nil {
		return "", err
	}
	var info struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return "", fmt.Errorf("the /version answer is not a version document: %v", err)
	}
	if info.GitVersion == "" {
		return "", fmt.Errorf("the /version answer has no gitVersion")
	}
	return SanitizeName(info.GitVersion), nil
}

// tablePage is one page of a server-side Table (meta.k8s.io/v1 Table),
// decoded only as far as nestor reads it: the continue token, the column
// names and each row's cells.
type tablePage struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	ColumnDefinitions []struct {
		Name string `json:"name"`
	} `json:"columnDefinitions"`
	Rows []struct {
		Cells []any `json:"cells"`
	} `json:"rows"`
}

// listTable reads every page of the Table of the list at path (limit
// rows a page, continue) without the objects (includeObject=None), and calls
// each with the text of the columns named in cols (matched without regard
// to case), in that order, for every row. The pages are pipelined: as soon
// as a page has arrived its continue token is read (the Table's metadata
// comes first) and the next page is asked for while this one is decoded;
// at most three pages are held (one decoded, one queued, one fetched).
//
// Every answer is bounded: a page is read through limit × tableRowBound
// bytes (a larger one is refused, a *TooLargeError), may hold no more rows
// than limit, and no row may repeat a name an earlier one gave (the first
// column: a repeated page, *InconsistentError); nor may a continue token
// repeat. A page that is not a Table, a missing column, a row shorter than
// the columns or a cell that is not text (or null, given as "") is an error
// naming it.
func listTable(ctx context.Context, c *clients, path string, limit int64, cols []string, each func(cells []string)) error {
	return listTableWith(ctx, c, path, limit, nil, cols, each)
}

// listTableWith is listTable with more query parameters (labelSelector).
func listTableWith(ctx context.Context, c *clients, path string, limit int64, extra map[string]string, cols []string, each func(cells []string)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the fetcher when a page is refused
	type fetched struct {
		raw []byte
		err error
	}
	bound := limit*tableRowBound + 1<<20
	what := fmt.Sprintf("what a Table of %d rows can take", limit)
	pages := make(chan fetched, 1)
	go func() {
		defer close(pages)
		params := map[string]string{"limit": strconv.FormatInt(limit, 10), "includeObject": "None"}
		for k, v := range extra {
			params[k] = v
		}
		for {
			raw, err := c.get(ctx, path, acceptTable, params, bound, what)
			var next string
			if err == nil {
				next, err = tableContinue(raw)
				if err != nil {
					err = fmt.Errorf("the answer to %s is not a Table: %v", path, err)
				}
			}
			select {
			case pages <- fetched{raw, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || next == "" {
				return
			}
			if next == params["continue"] {
				select {
				case pages <- fetched{nil, &InconsistentError{Path: path, Why: "it repeated its continue token"}}:
				case <-ctx.Done():
				}
				return
			}
			params["continue"] = next
		}
	}()

	cells := make([]string, len(cols))
	rows := 0
	names := newItemSet(path)
	var rowErr error
	c.told(path, 0)
	for p := range pages {
		if p.err != nil {
			return p.err
		}
		pageRows := int64(0)
		err := tableRows(p.raw, path, cols, cells, func(cells []string) {
			pageRows++
			if rowErr == nil {
				rowErr = names.add(cells[0])
			}
			if rowErr == nil {
				rows++
				each(cells)
			}
		})
		if err != nil {
			return err
		}
		if rowErr != nil {
			return rowErr
		}
		if pageRows > limit {
			return &InconsistentError{Path: path, Why: fmt.Sprintf("a page holds %d rows, more than the %d asked for", pageRows, limit)}
		}
		c.told(path, rows)
	}
	return ctx.Err()
}

// tableContinue returns the continue token of a Table page, reading no
// further than its metadata when that comes before the rows (as the API
// server writes it).
func tableContinue(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		if key, _ := tok.(string); key == "metadata" {
			var m listMeta
			if err := dec.Decode(&m); err != nil {
				return "", err
			}
			return m.Continue, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", nil
}

// tableRows decodes one Table page and calls each for its rows (see
// listTable); cells is reused for every row.
func tableRows(raw []byte, path string, cols, cells []string, each func(cells []string)) error {
	var page tablePage
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("the answer to %s is not a Table: %v", path, err)
	}
	if page.Kind != "Table" {
		return fmt.Errorf("the answer to %s is a %q, not the Table nestor asked for", path, page.Kind)
	}
	idx := make([]int, len(cols))
	for i, name := range cols {
		idx[i] = -1
		for j, d := range page.ColumnDefinitions {
			if strings.EqualFold(d.Name, name) {
				idx[i] = j
				break
			}
		}
		if idx[i] < 0 {
			return fmt.Errorf("the Table of %s has no %s column", path, name)
		}
	}
	for r, row := range page.Rows {
		for i, j := range idx {
			if j >= len(row.Cells) {
				return fmt.Errorf("row %d of the Table of %s has %d cells, fewer than its columns", r, path, len(row.Cells))
			}
			switch v := row.Cells[j].(type) {
			case string:
				cells[i] = v
			case nil:
				cells[i] = ""
			default:
				return fmt.Errorf("the %s cell of row %d of the Table of %s is not text", cols[i], r, path)
			}
		}
		each(cells)
	}
	return nil
}

// nodeColumns are the columns of the API server's node Table nestor reads
// (kubernetes pkg/printers/internalversion, printNode).
var nodeColumns = []string{"Name", "Status", "Roles", "Version", "Internal-IP"}

// readyDetailLists is for how many of the nodes that are not Ready the
// Ready condition is read (one restricted list each, all at once): the
// first by name. Measured on the 2,000-node benchmark fixture (BENCHMARKS.md),
// 16 such lists add well under 0.1 s, while reading the condition of every
// node (one list of whole Nodes, ~8 KB each) costs ~2 s and one list per
// node ~10 ms each. A variable only so tests can lower it.
var readyDetailLists = 16

// listNodes reads the nodes as the API server's Table and keeps, per node,
// what the server's node printer derives from the Node:
//   - Ready: the Status column's first word is "Ready", which the printer
//     writes when the Ready condition is True ("NotReady" for False or
//     Unknown, "Unknown" without a Ready condition);
//   - Unschedulable: the Status column holds "SchedulingDisabled", which
//     the printer adds when spec.unschedulable is true (cordoned);
//   - Roles: the Roles column, the suffixes of the node-role.kubernetes.io/
//     labels and the value of kubernetes.io/role, sorted and unique, "<none>"
//     for none (then Roles is empty);
//   - KubeletVersion: the Version column, status.nodeInfo.kubeletVersion;
//   - InternalIP: the Internal-IP column, the first InternalIP address,
//     "<none>" for none (then "").
//
// The Table says NotReady both for a Ready condition False and Unknown, and
// carries no reason: for the nodes that are not Ready only (at most
// readyDetailLists of them), the condition's status, reason and message
// are then read from the Node objects (readyDetails), so a healthy cluster
// costs nothing more than the Table. A Ready node has ReadyStatus "True"
// and no reason or message; a node not Ready whose condition was not read
// has ReadyStatus "" and ReadyMessage saying why.
//
// The result is sorted by name.
func listNodes(ctx context.Context, c *clients) ([]topology.NodeState, error) {
	out := []topology.NodeState{}
	err := listTable(ctx, c, pathNodes, nodePageSize, nodeColumns, func(cells []string) {
		out = append(out, nodeRow(cells))
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	var notReady []string // NotReady in the Table (not "Unknown": no condition to read)
	for _, n := range out {
		if !n.Ready && n.ReadyMessage == "" {
			notReady = append(notReady, n.Name)
		}
	}
	if len(notReady) > 0 {
		conds, failed := readyDetails(ctx, c, notReady, readyDetailLists)
		for i := range out {
			n := &out[i]
			if cond, ok := conds[n.Name]; ok {
				n.ReadyStatus, n.ReadyReason, n.ReadyMessage = cond.Status, cond.Reason, cond.Message
				n.Ready = cond.Status == topology.ConditionTrue
			} else if why, ok := failed[n.Name]; ok {
				n.ReadyMessage = why
			}
		}
	}
	return out, nil
}

// nodeRow makes a NodeState of the cells of nodeColumns (see listNodes).
// A node the Table shows NotReady has ReadyStatus "" and no message: its
// condition is read next.
func nodeRow(cells []string) topology.NodeState {
	s := topology.NodeState{Name: SanitizeName(cells[0]), Roles: []string{}, KubeletVersion: SanitizeName(cells[3])}
	words := strings.Split(cells[1], ",")
	switch words[0] {
	case "Ready":
		s.Ready, s.ReadyStatus = true, topology.ConditionTrue
	case "Unknown":
		s.ReadyMessage = "the node has no Ready condition (its kubelet has not posted a status)"
	}
	s.Unschedulable = slices.Contains(words[1:], "SchedulingDisabled")
	if roles := cells[2]; roles != "" && roles != "<none>" {
		for _, r := range strings.Split(roles, ",") {
			if r = SanitizeName(r); r != "" && !containsString(s.Roles, r) {
				s.Roles = append(s.Roles, r)
			}
		}
		sort.Strings(s.Roles)
	}
	if ip := cells[4]; ip != "<none>" {
		s.InternalIP = SanitizeName(ip)
	}
	return s
}

// nodeCondition is a node's Ready condition, sanitized.
type nodeCondition struct {
	Status, Reason, Message string
}

// nodeList is a NodeList (core/v1) decoded only as far as readyDetails
// reads it: each node's name and conditions.
type nodeList struct {
	listHead
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Status struct {
			Conditions []struct {
				Type    string `json:"type"`
				Status  string `json:"status"`
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"conditions"`
		} `json:"status"`
	} `json:"items"`
}

// readyDetails reads the Ready condition of the first max nodes of names
// (sorted) as JSON NodeLists, one list per node restricted with
// fieldSelector=metadata.name=NODE (the same "list nodes" permission as the
// Table, ~8 KB each), all at once. It returns the condition of each node
// read that has one, and for every other node of names why it is not known
// ("the Ready condition could not be read: forbidden (…)", "… the node is
// gone or has no Ready condition", or that it was not read because more
// than max nodes are not Ready).
func readyDetails(ctx context.Context, c *clients, names []string, max int) (map[string]nodeCondition, map[string]string) {
	conds := map[string]nodeCondition{}
	failed := map[string]string{}
	read := names
	if len(read) > max {
		read = names[:max]
		for _, n := range names[max:] {
			failed[n] = fmt.Sprintf("the Ready condition was not read: %d nodes are not Ready, and nestor reads it for the first %d by name only (`kubectl describe node %s` shows it)", len(names), max, n)
		}
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, name := range read {
		wg.Add(1)
		go func() {
			defer wg.Done()
			params := map[string]string{"fieldSelector": "metadata.name=" + name}
			err := listJSONWith(ctx, c, pathNodes, "NodeList", params, func(l *nodeList) []string {
				var ks []string
				for _, it := range l.Items {
					ks = append(ks, it.Metadata.Name)
				}
				return ks
			}, func(l *nodeList) {
				for _, it := range l.Items {
					for _, cd := range it.Status.Conditions {
						if it.Metadata.Name == name && cd.Type == "Ready" {
							mu.Lock()
							conds[name] = nodeCondition{Status: Sanitize(cd.Status), Reason: Sanitize(cd.Reason), Message: Sanitize(cd.Message)}
							mu.Unlock()
						}
					}
				}
			})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[name] = "the Ready condition could not be read: " + Classify(err)
			} else if _, ok := conds[name]; !ok {
				failed[name] = "the Ready condition could not be read: the node is gone or has no Ready condition"
			}
		}()
	}
	wg.Wait()
	return conds, failed
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ProbeTarget reads everything preview shows of a kube target at once: the
// server version, the nodes and the cluster facts (see ProbeCluster), under
// one bound (Target.Options.Timeout, default 10s, or ctx's deadline when
// sooner). It is the read of a target already checked without the network
// (CheckEndpoint, --no-input): nothing waits for a confirmation, so the node
// pages, the namespace, CRD and StorageClass lists and the workload lists
// of the declared layers' namespaces all run together; only /version goes
// first, alone, to open the one connection the others share.
//
// It returns the observation (version, nodes) and the facts the layers and
// the storage are judged from (health.Judge, after the read); each part
// that could not be read is unknown with Classify's reason, as ReadNodes
// and ProbeCluster say. When neither the version nor the nodes
// are known the endpoint did not answer: the caller decides what that means.
func ProbeTarget(ctx context.Context, t *Target, topo *topology.Topology) (*topology.Observed, topology.ClusterFacts) {
	ver, nodes, facts := readTarget(ctx, t, topo, true, topology.Fact[string]{}, topology.Fact[[]topology.NodeState]{})
	return &topology.Observed{ServerVersion: ver, Nodes: nodes}, facts
}

// ProbeCluster reads what layer detection needs and returns the whole
// observation of a kube target plus the raw facts it was made from.
//
// Reads, under one bound (Target.Options.Timeout, default 10s, or ctx's
// deadline when sooner), every list paginated with limit=500: namespaces
// and CustomResourceDefinitions as server-side Tables without objects
// (names only; a CRD's group is its name after the first dot),
// StorageClasses (storage/v1), and, once the namespace list is in (the
// others running meanwhile; namespaceGrace at most), Deployments,
// DaemonSets and StatefulSets (apps/v1) with one list per (kind,
// namespace) in the namespaces of the declared layers that exist (at most
// maxParallel workload lists in flight). Then a second wave lists the namespaces of the undeclared catalog
// layers whose CRD group or provisioner was seen, among those that exist.
// Every candidate namespace is listed when the namespace list failed or
// was not in after namespaceGrace.
// Never a request per CRD, nor per node but for the few that are not Ready
// (listNodes). See workloadNamespaces.
//
// Each probe keeps its own error: a failed one makes its fact unknown with
// Classify's reason, never empty-known. Workloads are judged per namespace:
// a namespace where any of the three lists failed is left out of
// facts.WorkloadNamespaces and its reason kept in facts.WorkloadErrors
// ("deployments in argocd: forbidden (…)"); Workloads stays known with what
// the other namespaces hold, and is unknown (first failure's reason) only
// when every namespace failed. A namespace the namespace list shows does not
// exist is left out of both (nothing can be in it).
//
// version and nodes are ReadNodes' results, copied into the observation.
// The layers and the storage are not judged here: health.Judge makes them
// from the facts, after the read.
func ProbeCluster(ctx context.Context, t *Target, topo *topology.Topology, version topology.Fact[string], nodes topology.Fact[[]topology.NodeState]) (*topology.Observed, topology.ClusterFacts) {
	_, _, facts := readTarget(ctx, t, topo, false, version, nodes)
	return &topology.Observed{ServerVersion: version, Nodes: nodes}, facts
}

// readTarget runs the reads of ProbeTarget (withNodes) or ProbeCluster, in
// two waves after the connection is up, so a preview costs at most four
// sequential round trips whatever the cluster's size (TCP, TLS, then the
// two waves):
//
//   - /version is sent first, alone, and the first wave leaves as soon as
//     its connection is established (httptrace GotConn: TLS and HTTP/2
//     done), not when it answers: every request then shares that one
//     connection instead of each dialling its own;
//   - wave 1, everything that depends on no other answer: the node Table
//     (5,000 rows a page), the namespace and CRD Tables, the StorageClasses,
//     and the status resources of the declared layers (and the discovery of
//     a custom layer's resource);
//   - wave 2, what an answer of wave 1 decides: the workload lists of the
//     declared layers' namespaces that exist (startWorkloads, once the
//     namespace list is in, namespaceGrace at most), then those of the
//     undeclared catalog layers whose CRD group or provisioner wave 1
//     showed, with their status resources; a custom layer's one object; the
//     Ready condition of the nodes that are not Ready; further pages.
//
// Without withNodes, version and nodes are zero (the guard read them).
func readTarget(ctx context.Context, t *Target, topo *topology.Topology, withNodes bool, guardVer topology.Fact[string], guardNodes topology.Fact[[]topology.NodeState]) (topology.Fact[string], topology.Fact[[]topology.NodeState], topology.ClusterFacts) {
	var (
		ver   topology.Fact[string]
		nodes topology.Fact[[]topology.NodeState]
		facts = topology.ClusterFacts{WorkloadNamespaces: []string{}}
	)
	c, err := t.clients()
	if err != nil {
		r := Explain(err)
		if withNodes {
			ver = topology.UnknownFact[string](r)
			nodes = topology.UnknownFact[[]topology.NodeState](r)
		}
		facts.Namespaces = topology.UnknownFact[[]string](r)
		facts.CRDGroups = topology.UnknownFact[[]string](r)
		facts.StorageClasses = topology.UnknownFact[[]topology.StorageClass](r)
		facts.Workloads = topology.UnknownFact[[]topology.WorkloadState](r)
		return ver, nodes, facts
	}
	ctx, cancel, budget := t.bound(ctx)
	defer cancel()
	readAt := time.Now()

	// The version opens the connection; the nodes and the rest follow as
	// soon as it is up.
	ver, nodes = guardVer, guardNodes
	versionAndNodes := func() {}
	if withNodes {
		versionAndNodes = startVersionAndNodes(ctx, budget, c, &ver, &nodes)
	}

	// Wave 1.
	nsDone, lists := startClusterLists(ctx, budget, c, &facts)
	statusRead := map[string]bool{}
	declaredStatus := startStatus(ctx, c, budget, statusResources(declaredDefs(topo)), statusRead)

	// Wave 2: the workload lists wait for the namespace list, for at most
	// namespaceGrace (the other lists answer in the same round trip): no
	// workload list is sent for a namespace it shows does not exist. Of
	// the catalog's candidate namespaces for a layer (monitoring,
	// kube-prometheus-stack, prometheus…) few exist, and each costs the
	// API server three lists. A namespace list slower than that does not
	// hold the workload lists back: they go to every candidate, as they do
	// when it fails.
	known := topology.ClusterFacts{}
	grace := time.NewTimer(namespaceGrace)
	select {
	case <-nsDone:
		known.Namespaces = facts.Namespaces
	case <-grace.C:
	}
	grace.Stop()
	sem := make(chan struct{}, maxParallel)
	declared := workloadNamespaces(topo, known, false)
	wave1 := startWorkloads(ctx, c, sem, declared)
	lists()

	// The undeclared catalog layers whose CRD group or provisioner was
	// seen: their namespaces not read yet that exist, and their status.
	var more []string
	for _, ns := range workloadNamespaces(topo, facts, true) {
		if !containsString(declared, ns) {
			more = append(more, ns)
		}
	}
	wave2 := startWorkloads(ctx, c, sem, more)
	undeclaredStatus := startStatus(ctx, c, budget, statusResources(signalledDefs(topo, facts)), statusRead)

	results := append(wave1.wait(), wave2.wait()...)
	facts.Status = topology.StatusFacts{ReadAt: readAt, Lists: declaredStatus.wait()}
	for k, v := range undeclaredStatus.wait() {
		facts.Status.Lists[k] = v
	}
	versionAndNodes()
	w := assembleWorkloads(ctx, budget, results, facts.Namespaces)
	facts.Workloads, facts.WorkloadNamespaces, facts.WorkloadErrors = w.fact, w.read, w.errors
	return ver, nodes, facts
}

// startClusterLists sends the CRD, StorageClass and namespace lists of
// the first wave, each answer written into facts; nsDone is closed once the
// namespace list is in, and wait returns once all three are.
func startClusterLists(ctx context.Context, budget time.Duration, c *clients, facts *topology.ClusterFacts) (nsDone chan struct{}, wait func()) {
	var lists sync.WaitGroup
	lists.Add(2)
	go func() {
		defer lists.Done()
		groups, err := listCRDGroups(ctx, c)
		if err != nil {
			facts.CRDGroups = topology.UnknownFact[[]string](failReason(ctx, budget, err))
			return
		}
		facts.CRDGroups = topology.KnownFact(groups)
	}()
	go func() {
		defer lists.Done()
		scs, err := listStorageClasses(ctx, c)
		if err != nil {
			facts.StorageClasses = topology.UnknownFact[[]topology.StorageClass](failReason(ctx, budget, err))
			return
		}
		facts.StorageClasses = topology.KnownFact(scs)
	}()
	nsDone = make(chan struct{})
	go func() {
		defer close(nsDone)
		ns, err := listNamespaces(ctx, c)
		if err != nil {
			facts.Namespaces = topology.UnknownFact[[]string](failReason(ctx, budget, err))
			return
		}
		facts.Namespaces = topology.KnownFact(ns)
	}()
	return nsDone, func() { lists.Wait(); <-nsDone }
}

// startVersionAndNodes sends GET /version, and once its connection is up
// (httptrace GotConn: the TLS handshake done, the one HTTP/2 connection the
// other requests share) the node list; it returns when that is, and a wait
// for both answers, written to ver and nodes.
func startVersionAndNodes(ctx context.Context, budget time.Duration, c *clients, ver *topology.Fact[string], nodes *topology.Fact[[]topology.NodeState]) (wait func()) {
	var wg sync.WaitGroup
	connected := make(chan struct{})
	var once sync.Once
	up := func() { once.Do(func() { close(connected) }) }
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer up() // an answer (or a failure) before any connection: go on
		vctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { up() }})
		*ver = versionFact(vctx, budget, c)
	}()
	select {
	case <-connected:
	case <-ctx.Done():
	}
	go func() {
		defer wg.Done()
		*nodes = nodesFact(ctx, budget, c)
	}()
	return wg.Wait
}

// declaredDefs are the layer definitions topo declares (catalog layers and
// custom ones), in order; none for a nil topo.
func declaredDefs(topo *topology.Topology) []topology.LayerDef {
	if topo == nil {
		return nil
	}
	var out []topology.LayerDef
	for _, ref := range topo.Layers {
		if def, ok := topology.LayerDefFor(ref); ok {
			out = append(out, def)
		}
	}
	return out
}

// signalledDefs are the catalog layers topo does not declare whose cheap
// signals facts show (topology.SignalSeen): the undeclared layers found.
func signalledDefs(topo *topology.Topology, facts topology.ClusterFacts) []topology.LayerDef {
	var out []topology.LayerDef
	for _, def := range undeclaredDefs(topo) {
		if health.SignalSeen(def, facts) {
			out = append(out, def)
		}
	}
	return out
}

// acquire takes a slot of sem, or fails when ctx ends first.
func acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func listNamespaces(ctx context.Context, c *clients) ([]string, error) {
	out := []string{}
	err := listTable(ctx, c, pathNamespaces, pageSize, []string{"Name"}, func(cells []string) {
		out = append(out, SanitizeName(cells[0]))
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

func listCRDGroups(ctx context.Context, c *clients) ([]string, error) {
	seen := map[string]bool{}
	out := []string{}
	err := listTable(ctx, c, pathCRDs, pageSize, []string{"Name"}, func(cells []string) {
		// A CRD is named <plural>.<group> (apiextensions validation).
		_, group, ok := strings.Cut(SanitizeName(cells[0]), ".")
		if ok && group != "" && !seen[group] {
			seen[group] = true
			out = append(out, group)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// listMeta is the part of a list's metadata nestor reads.
type listMeta struct {
	Continue string `json:"continue"`
}

// listHead is what every list answer carries besides its items: its kind
// (metav1.TypeMeta) and metadata (metav1.ListMeta). A list type embeds it,
// so the kind is decoded in the page's one pass: the API server writes the
// lists of custom resources with their keys sorted, kind after items.
type listHead struct {
	Kind     string   `json:"kind"`
	Metadata listMeta `json:"metadata"`
}

func (h *listHead) head() *listHead { return h }

// listPage is a pointer to a list type that embeds listHead.
type listPage[L any] interface {
	*L
	head() *listHead
}

// objectMeta is the part of an object's metadata nestor reads.
type objectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Annotations map[string]string `json:"annotations"`
}

// listJSON reads every page of the JSON list of kind kind ("DeploymentList")
// at path (limit pageSize, continue), decoding each page into a fresh *L and
// calling each with it; keys returns the keys of its items (namespace/name),
// which may not repeat over the pages, and its listHead the kind and the
// continue token. A 2xx answer that is not that list (another kind, no
// kind, null) is an error, never an empty list: an empty answer must not
// read as "absent". So is a page larger than jsonPageBound, one with more
// items than the limit, an item listed twice, or a continue token the
// server repeats (it would loop until the deadline).
func listJSON[L any, P listPage[L]](ctx context.Context, c *clients, path, kind string, keys func(P) []string, each func(P)) error {
	return listJSONWith(ctx, c, path, kind, nil, keys, each)
}

// topLevelKind returns the "kind" of the JSON object raw, reading its
// top-level members in order and skipping the others whole. "" when the
// object has none or raw is null; an error when raw is another JSON value.
// It only explains a page that did not decode as the list asked for.
func topLevelKind(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	switch t, err := dec.Token(); {
	case err != nil:
		return "", err
	case t == nil:
		return "", nil // null: no kind
	case t != json.Delim('{'):
		return "", fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", err
		}
		if key == "kind" {
			var kind string
			if err := dec.Decode(&kind); err != nil {
				return "", err
			}
			return kind, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", nil
}

// listJSONWith is listJSON with extra query parameters (a fieldSelector).
func listJSONWith[L any, P listPage[L]](ctx context.Context, c *clients, path, kind string, extra map[string]string, keys func(P) []string, each func(P)) error {
	return listJSONAs(ctx, c, path, kind, acceptJSON, extra, keys, each)
}

// listJSONAs is listJSONWith asking for the media type accept (a list of
// the objects' metadata only: acceptMetadata).
func listJSONAs[L any, P listPage[L]](ctx context.Context, c *clients, path, kind, accept string, extra map[string]string, keys func(P) []string, each func(P)) error {
	params := map[string]string{"limit": strconv.FormatInt(pageSize, 10)}
	for k, v := range extra {
		params[k] = v
	}
	items := newItemSet(path)
	for {
		raw, err := c.get(ctx, path, accept, params, jsonPageBound, "what a page of a list can take")
		if err != nil {
			return err
		}
		page := P(new(L))
		err = json.Unmarshal(raw, page)
		got := page.head().Kind
		if err != nil {
			// Say what the answer is when it is not the list at all.
			k, kerr := topLevelKind(raw)
			if kerr != nil || k == kind {
				return fmt.Errorf("the answer to %s is not a %s: %v", path, kind, err)
			}
			got = k
		}
		if got != kind {
			return fmt.Errorf("the answer to %s is not a %s (kind %q)", path, kind, got)
		}
		ks := keys(page)
		if int64(len(ks)) > pageSize {
			return &InconsistentError{Path: path, Why: fmt.Sprintf("a page holds %d items, more than the %d asked for", len(ks), pageSize)}
		}
		for _, k := range ks {
			if err := items.add(k); err != nil {
				return err
			}
		}
		each(page)
		next := page.head().Metadata.Continue
		if next == "" {
			return nil
		}
		if next == params["continue"] {
			return &InconsistentError{Path: path, Why: "it repeated its continue token"}
		}
		params["continue"] = next
	}
}

type storageClassList struct {
	listHead
	Items []struct {
		Metadata struct {
			objectMeta
			// CreationTimestamp is RFC 3339 text (metav1.Time), kept as
			// text so a malformed one makes only that class's time unknown.
			CreationTimestamp string `json:"creationTimestamp"`
		} `json:"metadata"`
		Provisioner string `json:"provisioner"`
	} `json:"items"`
}

// listStorageClasses lists the StorageClasses (storage/v1, JSON, paginated)
// with their provisioner, whether they are default — either annotation
// exactly "true", as kubernetes pkg/volume/util IsDefaultAnnotation — and
// their creationTimestamp (zero when absent or not RFC 3339), sorted by name.
func listStorageClasses(ctx context.Context, c *clients) ([]topology.StorageClass, error) {
	out := []topology.StorageClass{}
	err := listJSON(ctx, c, pathStorageClasses, "StorageClassList",
		func(l *storageClassList) []string {
			var ks []string
			for _, sc := range l.Items {
				ks = append(ks, sc.Metadata.Name)
			}
			return ks
		},
		func(l *storageClassList) {
			for _, sc := range l.Items {
				a := sc.Metadata.Annotations
				created, _ := time.Parse(time.RFC3339, sc.Metadata.CreationTimestamp)
				out = append(out, topology.StorageClass{
					Name:        sc.Metadata.Name,
					Provisioner: sc.Provisioner,
					Default:     a[annDefaultClass] == "true" || a[annBetaDefaultClass] == "true",
					Created:     created,
				})
			}
		})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// workloadList is a DeploymentList, DaemonSetList or StatefulSetList
// (apps/v1), decoded only as far as nestor reads it.
type workloadList struct {
	listHead
	Items []struct {
		Metadata struct {
			objectMeta
			// Labels: app.kubernetes.io/part-of says which layer the
			// workload belongs to (topology.LayerDef.IsMember).
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			// Replicas of a Deployment or StatefulSet; nil means the API's
			// default of 1.
			Replicas *int32 `json:"replicas"`
			Template struct {
				Spec struct {
					Containers []struct {
						Name  string `json:"name"`
						Image string `json:"image"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
		Status struct {
			// AvailableReplicas of a Deployment or StatefulSet.
			AvailableReplicas int32 `json:"availableReplicas"`
			// DesiredNumberScheduled and NumberAvailable of a DaemonSet.
			DesiredNumberScheduled int32 `json:"desiredNumberScheduled"`
			NumberAvailable        int32 `json:"numberAvailable"`
		} `json:"status"`
	} `json:"items"`
}

// nsResult is the outcome of the three workload lists of one namespace.
type nsResult struct {
	ns    string
	items []topology.WorkloadState
	// kind and err are the first failed list, in workloadKinds order.
	kind string
	err  error
}

// workloadRun is a started set of workload lists (startWorkloads).
type workloadRun struct {
	wg      sync.WaitGroup
	results [][3]kindResult
	nss     []string
}

type kindResult struct {
	items []topology.WorkloadState
	err   error
}

// startWorkloads starts the lists of the three workload kinds in each of
// namespaces, each waiting for a slot of sem (or ctx's end).
func startWorkloads(ctx context.Context, c *clients, sem chan struct{}, namespaces []string) *workloadRun {
	run := &workloadRun{results: make([][3]kindResult, len(namespaces)), nss: namespaces}
	for ni, ns := range namespaces {
		for ki, kind := range workloadKinds {
			run.wg.Add(1)
			go func() {
				defer run.wg.Done()
				r := &run.results[ni][ki]
				if err := acquire(ctx, sem); err != nil {
					r.err = err
					return
				}
				defer func() { <-sem }()
				r.items, r.err = listWorkloadKind(ctx, c, kind, ns)
			}()
		}
	}
	return run
}

// wait returns the outcome per namespace, in the order they were given.
func (run *workloadRun) wait() []nsResult {
	run.wg.Wait()
	out := make([]nsResult, len(run.nss))
	for ni, ns := range run.nss {
		out[ni].ns = ns
		for ki, kind := range workloadKinds {
			r := run.results[ni][ki]
			if r.err != nil {
				out[ni].kind, out[ni].err = kind, r.err
				out[ni].items = nil
				break
			}
			out[ni].items = append(out[ni].items, r.items...)
		}
	}
	return out
}

// workloadLists is the result of assembleWorkloads.
type workloadLists struct {
	// fact is known with the workloads of the namespaces read (sorted by
	// namespace, kind, name) unless every namespace failed.
	fact topology.Fact[[]topology.WorkloadState]
	// read are the namespaces whose three lists all succeeded, sorted.
	read []string
	// errors maps each other namespace to its reason
	// ("deployments in argocd: forbidden (…)"); nil when none failed.
	errors map[string]topology.Why
}

// assembleWorkloads makes the workload facts of the lists' results. A
// namespace namespaces shows does not exist is dropped (nothing can be in
// it; its list was sent before the namespace list was known). A namespace
// where a list failed is left out of the result and its reason kept (the
// first failing kind, in Deployment, DaemonSet, StatefulSet order): a
// partial list would say "absent" of what could not be seen. The fact is
// unknown, with the first failed namespace's reason (in namespace order),
// only when every namespace failed; no namespace at all gives a known empty
// list.
func assembleWorkloads(ctx context.Context, budget time.Duration, results []nsResult, namespaces topology.Fact[[]string]) workloadLists {
	if namespaces.Known {
		kept := results[:0:0]
		for _, r := range results {
			if containsString(namespaces.Value, r.ns) {
				kept = append(kept, r)
			}
		}
		results = kept
	}
	sort.Slice(results, func(i, j int) bool { return results[i].ns < results[j].ns })

	out := workloadLists{read: []string{}}
	items := []topology.WorkloadState{}
	var firstReason topology.Why
	for _, r := range results {
		if r.err != nil {
			reason := failReason(ctx, budget, r.err)
			if firstReason.Text == "" {
				firstReason = reason
			}
			if out.errors == nil {
				out.errors = map[string]topology.Why{}
			}
			out.errors[r.ns] = reason.Prefixed(workloadResources[r.kind] + " in " + r.ns + ": ")
			continue
		}
		out.read = append(out.read, r.ns)
		items = append(items, r.items...)
	}
	if len(results) > 0 && len(out.read) == 0 {
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

// listWorkloadKind lists the workloads of one kind in namespace ns
// (apps/v1, JSON, paginated): Desired is spec.replicas (default 1) and
// Ready status.availableReplicas for a Deployment or StatefulSet,
// status.desiredNumberScheduled and status.numberAvailable for a DaemonSet.
func listWorkloadKind(ctx context.Context, c *clients, kind, ns string) ([]topology.WorkloadState, error) {
	res, ok := workloadResources[kind]
	if !ok {
		return nil, fmt.Errorf("unknown workload kind %q", kind)
	}
	var out []topology.WorkloadState
	path := "/apis/apps/v1/namespaces/" + ns + "/" + res
	err := listJSON(ctx, c, path, kind+"List", func(l *workloadList) []string {
		var ks []string
		for _, it := range l.Items {
			ks = append(ks, it.Metadata.Namespace+"/"+it.Metadata.Name)
		}
		return ks
	}, func(l *workloadList) {
		for _, it := range l.Items {
			w := topology.WorkloadState{Kind: kind, Namespace: it.Metadata.Namespace, Name: it.Metadata.Name,
				PartOf: SanitizeName(it.Metadata.Labels[labelPartOf])}
			if w.Namespace == "" {
				w.Namespace = ns
			}
			for _, ct := range it.Spec.Template.Spec.Containers {
				w.Containers = append(w.Containers, topology.ContainerImage{Name: SanitizeName(ct.Name), Image: SanitizeName(ct.Image)})
			}
			if kind == topology.KindDaemonSet {
				w.Desired, w.Ready = it.Status.DesiredNumberScheduled, it.Status.NumberAvailable
			} else {
				w.Desired, w.Ready = replicas(it.Spec.Replicas), it.Status.AvailableReplicas
			}
			out = append(out, w)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// labelPartOf is Kubernetes' recommended label naming the application a
// workload is part of (kubernetes.io "Recommended Labels").
const labelPartOf = "app.kubernetes.io/part-of"

// replicas is spec.replicas with the API's default of 1 when unset.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// ReadWorkloads lists the workloads of the given kinds (topology.KindDaemonSet,
// KindDeployment, KindStatefulSet) in namespace ns (apps/v1, paginated),
// bounded by the target's timeout, sorted by name (stable across kinds):
// known with the workloads, or unknown with the first failure's reason.
func ReadWorkloads(ctx context.Context, t *Target, ns string, kinds ...string) topology.Fact[[]topology.WorkloadState] {
	c, err := t.clients()
	if err != nil {
		return topology.UnknownFact[[]topology.WorkloadState](Explain(err))
	}
	ctx, cancel, budget := t.bound(ctx)
	defer cancel()
	var out []topology.WorkloadState
	for _, kind := range kinds {
		ws, err := listWorkloadKind(ctx, c, kind, ns)
		if err != nil {
			return topology.UnknownFact[[]topology.WorkloadState](failReason(ctx, budget, err))
		}
		out = append(out, ws...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return topology.KnownFact(out)
}
