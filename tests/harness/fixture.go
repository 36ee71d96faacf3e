package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

// loadWorkers is how many objects of a fixture are created at once.
const loadWorkers = 8

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// fixtureObject is one document of a fixture file.
type fixtureObject struct {
	obj     *unstructured.Unstructured
	where   string // "FILE:LINE" of the document's first line
	mapping *meta.RESTMapping
}

func (o *fixtureObject) describe() string {
	name := o.obj.GetName()
	if ns := o.obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s: %s %s", o.where, o.obj.GetKind(), name)
}

// LoadFixture reads the multi-document YAML file at path and creates every
// object in it as the admin identity (LoadOperatorFixture: the upstream
// CRDs it names loaded first, its "NOW-40s" times made real); see
// LoadManifests for the rules.
func (c *Cluster) LoadFixture(path string) error {
	_, err := c.LoadOperatorFixture(path)
	return err
}

// LoadManifests creates the objects of data, a multi-document YAML stream of
// ordinary Kubernetes manifests (name is used in error messages only), so
// that the cluster looks like a real one running them:
//
//   - Namespaces and CustomResourceDefinitions are created first; the load
//     waits until every CRD is Established and refreshes its discovery, so
//     custom resources of those CRDs may follow in the same file.
//   - Everything else is then created, several objects at once; an object
//     without a namespace that is namespaced goes to "default".
//   - When a document has a `status`, it is applied after the create through
//     the status subresource (a merge patch), because nothing else would set
//     it: no kubelet or controller runs here (a Node's conditions, nodeInfo
//     and addresses; a Deployment's or StatefulSet's ready/available
//     replicas; a DaemonSet's desired/ready/available counts). For a kind
//     without a status subresource the status is kept as created.
//   - A Namespace that already exists (default, kube-system, kube-public and
//     kube-node-lease are created by the apiserver itself) is left as is; any
//     other existing object is an error.
//
// It returns nil when every object was created, else one error per failed
// object, each naming FILE:LINE of its document, its kind and name. A
// stream with a document that does not decode creates nothing.
func (c *Cluster) LoadManifests(name string, data []byte) error {
	objs, err := parseManifests(name, data)
	if err != nil {
		return err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(c.AdminConfig())
	if err != nil {
		return err
	}
	cached := memory.NewMemCacheClient(disc)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(cached)

	var first, rest []*fixtureObject
	var crds []string
	crdGroups := map[string]bool{}
	for _, o := range objs {
		gk := o.obj.GroupVersionKind().GroupKind()
		switch {
		case gk == schema.GroupKind{Kind: "Namespace"}:
			first = append(first, o)
		case gk == schema.GroupKind{Group: crdResource.Group, Kind: "CustomResourceDefinition"}:
			first = append(first, o)
			crds = append(crds, o.obj.GetName())
			if g, ok, _ := unstructured.NestedString(o.obj.Object, "spec", "group"); ok {
				crdGroups[g] = true
			}
		default:
			rest = append(rest, o)
		}
	}
	if err := c.createAll(mapper, first, nil); err != nil {
		return err
	}
	if len(crds) > 0 {
		if err := c.waitEstablished(name, crds); err != nil {
			return err
		}
		cached.Invalidate()
		mapper.Reset()
	}
	return c.createAll(mapper, rest, crdGroups)
}

// parseManifests splits data on "---" lines and decodes each non-empty
// document, remembering the line it starts on.
func parseManifests(name string, data []byte) ([]*fixtureObject, error) {
	var objs []*fixtureObject
	var errs []error
	lines := strings.SplitAfter(string(data), "\n")
	start, doc := 1, []string{}
	flush := func() {
		text := strings.Join(doc, "")
		where := fmt.Sprintf("%s:%d", name, start)
		if strings.TrimSpace(stripComments(text)) == "" {
			return
		}
		js, err := yamlutil.ToJSON([]byte(text))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: invalid YAML (lines counted from here): %v", where, err))
			return
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			errs = append(errs, fmt.Errorf("%s: not a Kubernetes object (apiVersion and kind are required): %v", where, err))
			return
		}
		if u.GetAPIVersion() == "" {
			errs = append(errs, fmt.Errorf("%s: not a Kubernetes object: %s has no apiVersion", where, u.GetKind()))
			return
		}
		if u.GetName() == "" {
			errs = append(errs, fmt.Errorf("%s: %s has no metadata.name", where, u.GetKind()))
			return
		}
		objs = append(objs, &fixtureObject{obj: u, where: where})
	}
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r\n")
		if t == "---" || strings.HasPrefix(t, "--- ") {
			flush()
			start, doc = i+2, nil
			continue
		}
		doc = append(doc, l)
	}
	flush()
	return objs, errors.Join(errs...)
}

// stripComments drops comment-only lines, to tell an empty document.
func stripComments(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// createAll maps every object to its resource, then creates them with
// loadWorkers at once. A kind of a group in newGroups (the groups of CRDs
// created by this load) that discovery does not know yet is retried for a
// while; any other unknown kind fails at once.
func (c *Cluster) createAll(mapper *restmapper.DeferredDiscoveryRESTMapper, objs []*fixtureObject, newGroups map[string]bool) error {
	var errs []error
	var todo []*fixtureObject
	for _, o := range objs {
		gvk := o.obj.GroupVersionKind()
		deadline := time.Now().Add(15 * time.Second)
		for {
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err == nil {
				o.mapping = m
				todo = append(todo, o)
				break
			}
			if !meta.IsNoMatchError(err) || !newGroups[gvk.Group] || time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("%s: the server does not serve %s (a CRD missing from the fixture?): %v", o.describe(), gvk, err))
				break
			}
			time.Sleep(200 * time.Millisecond)
			mapper.Reset()
		}
	}

	var mu sync.Mutex
	var wg sync.WaitGroup
	queue := make(chan *fixtureObject)
	for range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range queue {
				if err := c.createOne(o, newGroups[o.mapping.Resource.Group]); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, o := range todo {
		queue <- o
	}
	close(queue)
	wg.Wait()
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

// createOne creates o and applies its status through the status subresource.
// When newKind is set (o's group is of a CRD this load created), a create
// that meets NotFound is retried for a few seconds: the handler may lag the
// Established condition by a moment.
func (c *Cluster) createOne(o *fixtureObject, newKind bool) error {
	ctx, cancel := opContext()
	defer cancel()
	ns := ""
	if o.mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns = o.obj.GetNamespace()
		if ns == "" {
			ns = "default"
			o.obj.SetNamespace(ns)
		}
	}
	res := c.adminDynamic.Resource(o.mapping.Resource).Namespace(ns)
	status, hasStatus := o.obj.Object["status"]
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := res.Create(ctx, o.obj, metav1.CreateOptions{FieldManager: HarnessUserAgent})
		if err == nil {
			break
		}
		if apierrors.IsAlreadyExists(err) && o.obj.GetKind() == "Namespace" && o.mapping.Resource.Group == "" {
			return nil
		}
		if !newKind || !apierrors.IsNotFound(err) || time.Now().After(deadline) {
			return fmt.Errorf("%s: create: %w", o.describe(), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !hasStatus || status == nil {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return fmt.Errorf("%s: encode status: %w", o.describe(), err)
	}
	_, err = res.Patch(ctx, o.obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: HarnessUserAgent}, "status")
	if apierrors.IsNotFound(err) {
		// No status subresource (a CRD without subresources.status): the
		// status was stored with the object by the create.
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: set status: %w", o.describe(), err)
	}
	return nil
}

// waitEstablished waits until every CRD named in names has condition
// Established=True (30 s at most).
func (c *Cluster) waitEstablished(fixture string, names []string) error {
	ctx, cancel := opContext()
	defer cancel()
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range names {
		for {
			u, err := c.adminDynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("%s: CustomResourceDefinition %s: %w", fixture, name, err)
			}
			if crdEstablished(u) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: CustomResourceDefinition %s not Established after 30s (conditions: %v)", fixture, name, u.Object["status"])
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// crdEstablished reports whether u, a CustomResourceDefinition, has
// condition Established with status True.
func crdEstablished(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
