package probes

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"nestor.dev/nestor/topology"
)

// statusCleaner makes what the status resources say printable, as every
// name and text nestor reads from outside.
var statusCleaner = topology.StatusCleaner{Name: SanitizeName, Text: Sanitize}

// statusRun is a started set of reads of layers' status resources
// (startStatus): each resource's objects by its Key.
type statusRun struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	lists map[string]topology.Fact[[]topology.StatusObject]
}

// statusResources are the status resources of defs, each once (by Key), in
// order.
func statusResources(defs []topology.LayerDef) []topology.StatusResource {
	seen := map[string]bool{}
	var out []topology.StatusResource
	for _, d := range defs {
		for _, r := range d.Status {
			if !seen[r.Key()] {
				seen[r.Key()] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// startStatus starts reading each of res, all at once: a resource of a
// kind is listed across the cluster (listStatus), a custom layer's one
// object is read after discovery names its resource (getStatusObject).
// skip holds the keys already read (or being read) by another run.
func startStatus(ctx context.Context, c *clients, budget time.Duration, res []topology.StatusResource, skip map[string]bool) *statusRun {
	run := &statusRun{lists: map[string]topology.Fact[[]topology.StatusObject]{}}
	for _, r := range res {
		if skip[r.Key()] {
			continue
		}
		skip[r.Key()] = true
		run.wg.Add(1)
		go func() {
			defer run.wg.Done()
			var objs []topology.StatusObject
			var err error
			if r.Name != "" {
				objs, err = getStatusObject(ctx, c, r)
			} else {
				objs, err = listStatus(ctx, c, r)
			}
			f := topology.KnownFact(objs)
			if err != nil {
				f = topology.UnknownFact[[]topology.StatusObject](failReason(ctx, budget, err))
			}
			run.mu.Lock()
			run.lists[r.Key()] = f
			run.mu.Unlock()
		}()
	}
	return run
}

// wait returns what the run read, by Key.
func (run *statusRun) wait() map[string]topology.Fact[[]topology.StatusObject] {
	run.wg.Wait()
	return run.lists
}

// apiBase is the path of group version gv's resources: /api/v1 for the
// core group, /apis/GROUP/VERSION otherwise.
func apiBase(group, version string) string {
	if group == "" {
		return "/api/" + version
	}
	return "/apis/" + group + "/" + version
}

// statusList is a list of status objects, each decoded only as far as
// topology.DecodeStatusObject reads it (statusItem).
type statusList struct {
	listHead
	Items []statusItem `json:"items"`
}

// statusItem is one object of a status list: its kind, the five fields of
// its metadata DecodeStatusObject reads, its status whole, and its spec
// undecoded until a field of the resource is read from it (object): the
// rest — managedFields, annotations, a large spec — is skipped in the
// page's one pass, never built. Kind and spec are kept as the JSON text
// they came as, so that a null one stays present, as in the whole object.
// Being a struct, it differs from the whole object's decoding only for
// answers no API server writes: metadata that is not an object fails the
// page (the API server validates every object's metadata), keys are
// matched without regard to case, and a repeated metadata key merges into
// the first rather than replacing it.
type statusItem struct {
	Kind     json.RawMessage `json:"kind"`
	Metadata *statusMeta     `json:"metadata"`
	Spec     json.RawMessage `json:"spec"`
	Status   any             `json:"status"`
}

// statusMeta is the part of an object's metadata DecodeStatusObject reads,
// each field as the JSON value it came as, for it to check.
type statusMeta struct {
	Name              any `json:"name"`
	Namespace         any `json:"namespace"`
	Generation        any `json:"generation"`
	CreationTimestamp any `json:"creationTimestamp"`
	DeletionTimestamp any `json:"deletionTimestamp"`
}

// object returns the item as the generic JSON object DecodeStatusObject
// takes, its spec decoded only when withSpec. Errors: a kind or spec that
// is not JSON.
func (it *statusItem) object(withSpec bool) (map[string]any, error) {
	obj := map[string]any{}
	if len(it.Kind) > 0 {
		var kind any
		if err := json.Unmarshal(it.Kind, &kind); err != nil {
			return nil, err
		}
		obj["kind"] = kind
	}
	if m := it.Metadata; m != nil {
		meta := map[string]any{}
		for k, v := range map[string]any{"name": m.Name, "namespace": m.Namespace, "generation": m.Generation,
			"creationTimestamp": m.CreationTimestamp, "deletionTimestamp": m.DeletionTimestamp} {
			if v != nil {
				meta[k] = v
			}
		}
		obj["metadata"] = meta
	}
	if it.Status != nil {
		obj["status"] = it.Status
	}
	if withSpec && len(it.Spec) > 0 {
		var spec any
		if err := json.Unmarshal(it.Spec, &spec); err != nil {
			return nil, err
		}
		obj["spec"] = spec
	}
	return obj, nil
}

// readsSpec says whether a field of r is read from its objects' spec. A
// status list decodes nothing else a field could name: every field of the
// catalog is under spec or status (TestStatusFieldsAreUnderSpecOrStatus).

func readsSpec(r topology.StatusResource) bool {
	if strings.HasPrefix(r.Checks, "spec.") {
		return true
	}
	for _, f := range r.Fields {
		if strings.HasPrefix(f, "spec.") {
			return true
		}
	}
	return false
}

// listStatus lists the objects of r across the cluster (JSON, paginated,
// bounded as every list), at the first of r.Versions the API server serves:
// a 404 means that version is not served (its CRD is not installed, or
// serves others), and the next is tried; none served means no such object
// can exist: a known empty list. Each object is decoded
// (topology.DecodeStatusObject); one that contradicts the request makes the
// whole list an error, never a shorter list.
func listStatus(ctx context.Context, c *clients, r topology.StatusResource) ([]topology.StatusObject, error) {
	withSpec := readsSpec(r)
	for _, v := range r.Versions {
		path := apiBase(r.Group, v) + "/" + r.Resource
		var out []topology.StatusObject
		var decodeErr error
		err := listJSON(ctx, c, path, r.Kind+"List",
			func(l *statusList) []string {
				ks := make([]string, 0, len(l.Items))
				for _, it := range l.Items {
					var ns, name string
					if m := it.Metadata; m != nil {
						ns, _ = m.Namespace.(string)
						name, _ = m.Name.(string)
					}
					ks = append(ks, ns+"/"+name)
				}
				return ks
			},
			func(l *statusList) {
				for i := range l.Items {
					if decodeErr != nil {
						return
					}
					obj, err := l.Items[i].object(withSpec)
					if err != nil {
						decodeErr = fmt.Errorf("the answer to %s: %v", path, err)
						return
					}
					o, err := topology.DecodeStatusObject(r, obj, statusCleaner)
					if err != nil {
						decodeErr = fmt.Errorf("the answer to %s: %v", path, err)
						return
					}
					out = append(out, o)
				}
			})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, err
		case decodeErr != nil:
			return nil, decodeErr
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Namespace != out[j].Namespace {
				return out[i].Namespace < out[j].Namespace
			}
			return out[i].Name < out[j].Name
		})
		return out, nil
	}
	return []topology.StatusObject{}, nil
}

// apiResourceList is the discovery document of one group version
// (metav1.APIResourceList), as far as nestor reads it.
type apiResourceList struct {
	Kind      string `json:"kind"`
	Resources []struct {
		Name       string `json:"name"`
		Kind       string `json:"kind"`
		Namespaced bool   `json:"namespaced"`
	} `json:"resources"`
}

// getStatusObject reads a custom layer's one object: the discovery
// document of its group version names its resource (the kind's plural; a
// 404 means the group version is not served: no such object), then the
// object is read (a 404: it does not exist). Both answers known empty are
// "absent", never an error.
func getStatusObject(ctx context.Context, c *clients, r topology.StatusResource) ([]topology.StatusObject, error) {
	if len(r.Versions) == 0 {
		return nil, fmt.Errorf("%s %s: no version to read it at", r.Kind, r.Name)
	}
	base := apiBase(r.Group, r.Versions[0])
	raw, err := c.get(ctx, base, acceptJSON, nil, smallBound, "a discovery document")
	if apierrors.IsNotFound(err) {
		return []topology.StatusObject{}, nil
	}
	if err != nil {
		return nil, err
	}
	var disc apiResourceList
	if err := json.Unmarshal(raw, &disc); err != nil || disc.Kind != "APIResourceList" {
		return nil, fmt.Errorf("the answer to %s is not a discovery document", base)
	}
	plural, namespaced := "", false
	for _, res := range disc.Resources {
		if res.Kind == r.Kind && !strings.Contains(res.Name, "/") {
			plural, namespaced = res.Name, res.Namespaced
			break
		}
	}
	if plural == "" {
		return []topology.StatusObject{}, nil // the group version serves no such kind
	}
	if namespaced != (r.Namespace != "") {
		return nil, fmt.Errorf("%s is %s, but detect.resource names it %s", r.Kind, scopeWord(namespaced), scopeWord(r.Namespace != ""))
	}
	path := base + "/" + plural + "/" + r.Name
	if namespaced {
		path = base + "/namespaces/" + r.Namespace + "/" + plural + "/" + r.Name
	}
	raw, err = c.get(ctx, path, acceptJSON, nil, smallBound, "one object")
	if apierrors.IsNotFound(err) {
		return []topology.StatusObject{}, nil
	}
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("the answer to %s is not an object: %v", path, err)
	}
	o, err := topology.DecodeStatusObject(r, obj, statusCleaner)
	if err != nil {
		return nil, fmt.Errorf("the answer to %s: %v", path, err)
	}
	return []topology.StatusObject{o}, nil
}

func scopeWord(namespaced bool) string {
	if namespaced {
		return "namespaced"
	}
	return "cluster-scoped"
}
