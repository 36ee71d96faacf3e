// Package scwstub is a stand-in of the provider's Kubernetes read API
// (Scaleway k8s/v1, as scaleway-sdk-go v1.39.0 calls it) for nestor's tests:
// an HTTP server on loopback that answers the GET routes nestor reads with
// JSON bodies shaped like the real ones, pages lists with page/page_size/
// total_count, answers the SDK's extra GET /metadata, plays scripted
// timelines (an answer per read), answers the provider's error envelopes,
// and logs every request it receives.
//
// Routes (REGION and ID as configured):
//
//	GET /metadata                                              route "metadata" (answered unscripted; script it to delay or hang)
//	GET /k8s/v1/regions/REGION/clusters                        (list, paged)
//	GET /k8s/v1/regions/REGION/clusters/ID                     route "cluster"
//	GET /k8s/v1/regions/REGION/clusters/ID/available-versions  route "available-versions"
//	GET /k8s/v1/regions/REGION/clusters/ID/pools               route "pools" (paged)
//	GET /k8s/v1/regions/REGION/clusters/ID/nodes               route "nodes" (paged)
//	GET /k8s/v1/regions/REGION/clusters/ID/acls                route "acls" (paged)
//	GET /k8s/v1/regions/REGION/clusters/ID/kubeconfig          route "kubeconfig" (logged; answers a fake credential)
//	GET /k8s/v1/regions/REGION/versions                        route "versions"
//	GET /k8s/v1/regions/REGION/cluster-types                   route "cluster-types" (paged)
//	GET /k8s/v1/regions/REGION/clusters/ID/available-types     route "available-types"
//
// Any other method is answered 405 and logged: a test asserts it never
// happens. A request without the expected X-Auth-Token is answered 401.
package scwstub

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Answer is one scripted answer of a route: Status (0: 200) and Body
// (marshalled as JSON; for a paged route, the whole list's items, which the
// stub pages). Hang holds the request until the client gives up.
type Answer struct {
	Status int
	Body   any
	Hang   bool
	// Delay holds the answer that long first (less when the client gives
	// up or the stub closes).
	Delay time.Duration
	// Header are extra response headers (Retry-After…).
	Header map[string]string
	// Cut, when above 0, announces the whole body's Content-Length but
	// sends only its first Cut bytes, then drops the connection.
	Cut int
	// Total, when above 0, is the total_count a paged answer claims
	// instead of the number of items: a lying total.
	Total int
	// IgnorePage answers every page of a paged route with its first page.
	IgnorePage bool
}

// Request is one logged request.
type Request struct {
	Method, Path, Query, UserAgent string
	// Authenticated: the request carried the expected X-Auth-Token.
	Authenticated bool
}

// Stub is a running stand-in. Its fields are its data; change them with
// Script and the setters, not directly, while requests may arrive.
type Stub struct {
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	open     int // connections accepted and not closed
	region   string
	id       string
	secret   string
	pageSize int
	scripts  map[string][]Answer
	reads    map[string]int
	log      []Request
	hang     chan struct{}
}

// Options configure a Stub.
type Options struct {
	// Region and ClusterID are what the routes answer for.
	Region, ClusterID string
	// SecretKey is the X-Auth-Token the stub accepts ("" accepts any).
	SecretKey string
	// PageSize is the default page size of paged routes (0: 2, so lists
	// of more than two items take several pages).
	PageSize int
}

// Start starts a stub on a loopback port; Close stops it.
func Start(o Options) *Stub {
	s := &Stub{region: o.Region, id: o.ClusterID, secret: o.SecretKey, pageSize: o.PageSize,
		scripts: map[string][]Answer{}, reads: map[string]int{}, hang: make(chan struct{})}
	if s.pageSize == 0 {
		s.pageSize = 2
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch st {
		case http.StateNew:
			s.open++
		case http.StateClosed, http.StateHijacked:
			s.open--
		}
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// OpenConns returns how many client connections the stand-in holds open
// now (accepted and not yet closed).
func (s *Stub) OpenConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// Close stops the stub, releasing hung requests.
func (s *Stub) Close() {
	s.mu.Lock()
	select {
	case <-s.hang:
	default:
		close(s.hang)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script sets the answers of route: the n-th read (from 0) gets
// answers[n], the last one repeating once they are used up; it resets the
// route's read count.
func (s *Stub) Script(route string, answers ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[route] = answers
	s.reads[route] = 0
}

// Log returns the requests received so far.
func (s *Stub) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// ResetLog forgets the requests received so far.
func (s *Stub) ResetLog() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

// Reads returns how many times route was read.
func (s *Stub) Reads(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[route]
}

// paged are the routes whose Body is a list the stub pages, with the JSON
// key of their items.
var paged = map[string]string{"pools": "pools", "nodes": "nodes", "acls": "rules", "clusters": "clusters", "cluster-types": "cluster_types"}

func (s *Stub) route(path string) string {
	prefix := "/k8s/v1/regions/" + s.region
	switch {
	case path == "/metadata":
		return "metadata"
	case path == prefix+"/versions":
		return "versions"
	case path == prefix+"/clusters":
		return "clusters"
	case path == prefix+"/cluster-types":
		return "cluster-types"
	case path == prefix+"/clusters/"+s.id:
		return "cluster"
	case strings.HasPrefix(path, prefix+"/clusters/"+s.id+"/"):
		return strings.TrimPrefix(path, prefix+"/clusters/"+s.id+"/")
	}
	return ""
}

func (s *Stub) serve(w http.ResponseWriter, r *http.Request) {
	token := r.Header.Get("X-Auth-Token")
	s.mu.Lock()
	authed := s.secret == "" || token == s.secret
	s.log = append(s.log, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, UserAgent: r.UserAgent(), Authenticated: authed})
	route := s.route(r.URL.Path)
	var a Answer
	scripted := false
	if as := s.scripts[route]; len(as) > 0 && r.Method == http.MethodGet {
		n := s.reads[route]
		if n >= len(as) {
			n = len(as) - 1
		}
		a, scripted = as[n], true
	}
	if r.Method == http.MethodGet && route != "" {
		s.reads[route]++
	}
	hang := s.hang
	s.mu.Unlock()

	switch {
	case r.Method != http.MethodGet:
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "the stand-in answers GET only")
		return
	case route == "metadata" && !scripted:
		writeJSON(w, 200, Metadata())
		return
	case !authed && route != "metadata":
		writeJSON(w, 401, map[string]string{"type": "denied_authentication", "method": "api_key", "reason": "invalid_secret_key", "message": "authentication is denied"})
		return
	case route == "":
		writeError(w, 404, "not_found", "no such route")
		return
	case !scripted:
		writeError(w, 404, "not_found", "resource is not found")
		return
	case a.Hang:
		select {
		case <-r.Context().Done():
		case <-hang:
		}
		return
	}
	if a.Delay > 0 {
		select {
		case <-time.After(a.Delay):
		case <-r.Context().Done():
			return
		case <-hang:
			return
		}
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	status := a.Status
	if status == 0 {
		status = 200
	}
	key, isPaged := paged[route]
	if !isPaged || status != 200 {
		writeAnswer(w, status, a.Body, a.Cut)
		return
	}
	items, _ := a.Body.([]any)
	page, size := atoi(r.URL.Query().Get("page"), 1), atoi(r.URL.Query().Get("page_size"), s.pageSize)
	if a.IgnorePage {
		page = 1
	}
	start := (page - 1) * size
	if start > len(items) {
		start = len(items)
	}
	end := start + size
	if end > len(items) {
		end = len(items)
	}
	total := len(items)
	if a.Total > 0 {
		total = a.Total
	}
	writeAnswer(w, 200, map[string]any{"total_count": total, key: items[start:end]}, a.Cut)
}

// writeAnswer is writeJSON, the body cut after cut bytes when cut > 0: the
// whole Content-Length is announced, the connection dropped after cut
// bytes (http.ErrAbortHandler).
func writeAnswer(w http.ResponseWriter, status int, body any, cut int) {
	if cut <= 0 {
		writeJSON(w, status, body)
		return
	}
	data, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data[:min(cut, len(data))])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// Metadata is the body of GET /metadata as the stub answers it unscripted
// (script route "metadata" to make it slow, hang or fail).
func Metadata() map[string]string {
	return map[string]string{"platform": "scaleway", "partition": "scaleway", "domain": "scaleway.com"}
}

func atoi(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return def
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	data, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]string{"type": typ, "message": msg})
}

// The provider's error envelopes (Scaleway API errors: a JSON body typed by
// its "type" field).

// NotFound is 404 not_found for resource.
func NotFound(resource, id string) Answer {
	return Answer{Status: 404, Body: map[string]any{"type": "not_found", "resource": resource, "resource_id": id, "message": "resource is not found"}}
}

// PermissionsDenied is 403 permissions_denied.
func PermissionsDenied() Answer {
	return Answer{Status: 403, Body: map[string]any{"type": "permissions_denied", "message": "insufficient permissions",
		"details": []map[string]string{{"resource": "k8s", "action": "read"}}}}
}

// Transient is 409 transient_state for resource in state.
func Transient(resource, id, state string) Answer {
	return Answer{Status: 409, Body: map[string]any{"type": "transient_state", "resource": resource, "resource_id": id, "current_state": state,
		"message": "resource is in a transient state"}}
}

// TooManyRequests is 429 with Retry-After (whole seconds, at least 1) and
// a body whose type the SDK v1.39.0 does not know (it gives a
// *scw.ResponseError with the status code).
func TooManyRequests(retryAfter time.Duration) Answer {
	secs := max(1, int(retryAfter.Round(time.Second)/time.Second))
	return Answer{Status: 429, Header: map[string]string{"Retry-After": strconv.Itoa(secs)},
		Body: map[string]any{"type": "too_many_requests", "message": "rate limit exceeded"}}
}

// Unknown501 is 501 with a type the SDK does not know.
func Unknown501() Answer {
	return Answer{Status: 501, Body: map[string]any{"type": "not_implemented_yet", "message": "this route is not available in this region"}}
}

// ServerError is a 5xx with the API's internal error.
func ServerError(status int) Answer {
	return Answer{Status: status, Body: map[string]any{"type": "internal_error", "message": "internal error"}}
}

// OK is a 200 with body.
func OK(body any) Answer { return Answer{Body: body} }

// Cluster is a cluster body shaped like the API's Cluster (k8s/v1).
type Cluster struct {
	ID, Name, Region, ProjectID, Status, Version, CNI, URL string
	AutoUpgrade, UpgradeAvailable                          bool
	// PrivateNetworkID is written null when "" (a cluster without one);
	// PodCIDR and ServiceCIDR as given ("" is what an API that gives none
	// writes).
	PrivateNetworkID, PodCIDR, ServiceCIDR string
	// Type is the cluster's type ("" is kapsule); CommitmentEndsAt its
	// commitment_ends_at (zero: its created_at, as the API writes it for
	// a cluster that never had a dedicated offer).
	Type             string
	CommitmentEndsAt time.Time
}

// JSON returns the cluster as the API writes it.
func (c Cluster) JSON() map[string]any {
	created := time.Date(2026, 3, 2, 9, 14, 0, 0, time.UTC).Format(time.RFC3339Nano)
	typ, commitment := c.Type, created
	if typ == "" {
		typ = "kapsule"
	}
	if !c.CommitmentEndsAt.IsZero() {
		commitment = c.CommitmentEndsAt.UTC().Format(time.RFC3339Nano)
	}
	return map[string]any{
		"id": c.ID, "name": c.Name, "status": c.Status, "version": c.Version, "region": c.Region,
		"organization_id": c.ProjectID, "project_id": c.ProjectID, "tags": []string{}, "cni": c.CNI, "description": "",
		"cluster_url": c.URL, "dns_wildcard": "*." + c.ID + ".nodes.k8s." + c.Region + ".scw.cloud",
		"created_at": created, "updated_at": created, "type": typ,
		"autoscaler_config": map[string]any{"scale_down_disabled": false, "scale_down_delay_after_add": "10m", "estimator": "binpacking",
			"expander": "random", "ignore_daemonsets_utilization": false, "balance_similar_node_groups": false, "expendable_pods_priority_cutoff": -10,
			"scale_down_unneeded_time": "10m", "scale_down_utilization_threshold": 0.5, "max_graceful_termination_sec": 600},
		"auto_upgrade":      map[string]any{"enabled": c.AutoUpgrade, "maintenance_window": map[string]any{"start_hour": 3, "day": "any"}},
		"upgrade_available": c.UpgradeAvailable, "feature_gates": []string{}, "admission_plugins": []string{},
		"open_id_connect_config": map[string]any{"issuer_url": "", "client_id": "", "username_claim": "", "username_prefix": "",
			"groups_claim": []string{}, "groups_prefix": "", "required_claim": []string{}},
		"apiserver_cert_sans": []string{}, "private_network_id": nullIfEmpty(c.PrivateNetworkID), "commitment_ends_at": commitment,
		"acl_available": true, "iam_nodes_group_id": "8d4f2a10-1b3c-4e5d-9f60-7a8b9c0d1e2f",
		"pod_cidr": c.PodCIDR, "service_cidr": c.ServiceCIDR, "service_dns_ip": "10.32.0.10",
	}
}

// nullIfEmpty is s, or JSON null when s is "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Pool is a pool body shaped like the API's Pool.
type Pool struct {
	ID, ClusterID, Name, Status, Version, NodeType, Zone, Region string
	Size, Min, Max                                               int
	Autoscaling, Autohealing                                     bool
	ErrorMessage                                                 string
	// PlacementGroupID is written null when "" (none); RootVolumeType
	// "default_volume_type" when ""; RootVolumeSize in bytes, null when 0.
	PlacementGroupID, RootVolumeType string
	RootVolumeSize                   int64
	PublicIPDisabled                 bool
}

// JSON returns the pool as the API writes it.
func (p Pool) JSON() map[string]any {
	created := time.Date(2026, 3, 2, 9, 20, 0, 0, time.UTC).Format(time.RFC3339Nano)
	var errMsg, size any
	if p.ErrorMessage != "" {
		errMsg = p.ErrorMessage
	}
	if p.RootVolumeSize != 0 {
		size = p.RootVolumeSize
	}
	volume := p.RootVolumeType
	if volume == "" {
		volume = "default_volume_type"
	}
	return map[string]any{
		"id": p.ID, "cluster_id": p.ClusterID, "created_at": created, "updated_at": created, "name": p.Name, "status": p.Status,
		"version": p.Version, "node_type": p.NodeType, "autoscaling": p.Autoscaling, "size": p.Size, "min_size": p.Min, "max_size": p.Max,
		"container_runtime": "containerd", "autohealing": p.Autohealing, "tags": []string{}, "placement_group_id": nullIfEmpty(p.PlacementGroupID),
		"kubelet_args": map[string]string{}, "upgrade_policy": map[string]int{"max_unavailable": 1, "max_surge": 0},
		"zone": p.Zone, "root_volume_type": volume, "root_volume_size": size, "public_ip_disabled": p.PublicIPDisabled,
		"security_group_id": "", "labels": map[string]string{}, "taints": []any{}, "startup_taints": []any{},
		"error_message": errMsg, "region": p.Region,
	}
}

// Node is a node body shaped like the API's Node.
type Node struct {
	ID, PoolID, ClusterID, Name, Status, Region, ErrorMessage string
}

// JSON returns the node as the API writes it.
func (n Node) JSON() map[string]any {
	created := time.Date(2026, 3, 2, 9, 25, 0, 0, time.UTC).Format(time.RFC3339Nano)
	var errMsg any
	if n.ErrorMessage != "" {
		errMsg = n.ErrorMessage
	}
	return map[string]any{
		"id": n.ID, "pool_id": n.PoolID, "cluster_id": n.ClusterID, "provider_id": "scaleway://instance/fr-par-1/" + n.ID,
		"region": n.Region, "name": n.Name, "status": n.Status, "error_message": errMsg, "created_at": created, "updated_at": created,
	}
}

// Version is an entry of the version list ("" dates are left out).
type Version struct {
	Name, Released, Deprecated, EndOfLife string
}

// JSON returns the version as the API writes it.
func (v Version) JSON(region string) map[string]any {
	out := map[string]any{"name": v.Name, "label": "Kubernetes " + v.Name, "region": region,
		"available_cnis": []string{"cilium", "calico", "kilo", "none"}, "available_feature_gates": []string{},
		"available_admission_plugins": []string{}, "available_kubelet_args": map[string]string{}}
	for k, d := range map[string]string{"released_at": v.Released, "deprecated_at": v.Deprecated, "end_of_life_at": v.EndOfLife} {
		if d != "" {
			out[k] = d + "T00:00:00Z"
		}
	}
	return out
}

// Items converts bodies for a paged route's Body.
func Items[T interface{ JSON() map[string]any }](xs ...T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x.JSON()
	}
	return out
}

// Versions is the body of the versions route (all of vs) or, with names
// only, of available-versions.
func Versions(region string, vs ...Version) map[string]any {
	items := make([]any, len(vs))
	for i, v := range vs {
		items[i] = v.JSON(region)
	}
	return map[string]any{"versions": items}
}

// ACLs is a paged body of ACL rules, in the order given: each an IP range
// ("203.0.113.0/24"), with its description after a space when it has one
// ("203.0.113.0/24 office"), or "scaleway_ranges" (the provider's ranges:
// ip absent, scaleway_ranges true), shaped like the API's ACLRule.
func ACLs(rules ...string) []any {
	out := make([]any, len(rules))
	for i, r := range rules {
		rule := map[string]any{"id": fmt.Sprintf("acl-%d", i), "description": "", "region": "fr-par"}
		ip, desc, _ := strings.Cut(r, " ")
		rule["description"] = desc
		if ip == "scaleway_ranges" {
			rule["scaleway_ranges"] = true
		} else {
			rule["ip"] = ip
		}
		out[i] = rule
	}
	return out
}
