// Command genapilifecycle writes package kube's API lifecycle table
// (apilifecycle_gen.go): for every kind of every group version that
// k8s.io/client-go/kubernetes/scheme registers (all of k8s.io/api's groups),
// the release it was introduced in, deprecated in and stops being served in,
// and its replacement, as k8s.io/api's generated methods say
// (zz_generated.prerelease-lifecycle.go: APILifecycleIntroduced,
// APILifecycleDeprecated, APILifecycleRemoved, APILifecycleReplacement,
// written by k8s.io/code-generator's prerelease-lifecycle-gen from the
// "+k8s:prerelease-lifecycle-gen" tags of each types.go); and the resource
// each kind is served as, as k8s.io/client-go's typed clientset (written by
// client-gen) names it in its requests — none for a kind served only as a
// subresource (Scale, Eviction) or not on its own.
//
// It runs from kube's folder (go generate ./kube):
//
//	go run ./internal/genapilifecycle [-o FILE]
//
// and writes FILE (apilifecycle_gen.go by default) atomically: a temp file
// beside it, renamed over it once complete and gofmt'ed. The k8s.io/api
// version recorded in the table is the one this program was built with
// (runtime/debug.ReadBuildInfo), so the table and the module it was read
// from cannot disagree.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// The interfaces of k8s.io/api's generated lifecycle methods, as
// k8s.io/apiserver/pkg/endpoints/deprecation and
// k8s.io/apiserver/pkg/server/deleted_kinds.go read them.
type (
	introduced  interface{ APILifecycleIntroduced() (major, minor int) }
	deprecated  interface{ APILifecycleDeprecated() (major, minor int) }
	removed     interface{ APILifecycleRemoved() (major, minor int) }
	replacement interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
)

const apiModule = "k8s.io/api"

func main() {
	out := flag.String("o", "apilifecycle_gen.go", "the file to write")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "genapilifecycle: unexpected arguments %q (usage: genapilifecycle [-o FILE])\n", flag.Args())
		os.Exit(2)
	}
	if err := run(*out); err != nil {
		fmt.Fprintf(os.Stderr, "genapilifecycle: %v\n", err)
		os.Exit(1)
	}
}

func run(out string) error {
	version, err := moduleVersion(apiModule)
	if err != nil {
		return err
	}
	horizon, err := horizonOf(version)
	if err != nil {
		return err
	}
	res, err := resources()
	if err != nil {
		return err
	}
	rows, gvs := collect(res)
	if len(rows) == 0 {
		return errors.New("the scheme holds no kind with lifecycle methods: nothing to write")
	}
	src, err := render(version, horizon, rows, gvs)
	if err != nil {
		return err
	}
	return writeAtomic(out, src)
}

// moduleVersion returns the version of module path this binary was built
// with (its replacement's, when go.mod replaces it by a version).
func moduleVersion(path string) (string, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", errors.New("no build information in this binary: build it in module mode (go run ./internal/genapilifecycle)")
	}
	for _, m := range bi.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil {
			if m.Replace.Version == "" {
				return "", fmt.Errorf("%s is replaced by the folder %s: its version is not known, so the table cannot say which k8s.io/api it comes from", path, m.Replace.Path)
			}
			return m.Replace.Version, nil
		}
		return m.Version, nil
	}
	return "", fmt.Errorf("%s is not among this binary's modules", path)
}

// horizonOf returns the Kubernetes minor a k8s.io/api version ships with:
// k8s.io/api v0.N.P is tagged with Kubernetes v1.N.P (the staging
// repositories' tagging, kubernetes/kubernetes staging/README.md).
func horizonOf(v string) (string, error) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 || parts[0] != "0" {
		return "", fmt.Errorf("%s %s is not a v0.N.P version: its Kubernetes minor is not known", apiModule, v)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 {
		return "", fmt.Errorf("%s %s is not a v0.N.P version: its Kubernetes minor is not known", apiModule, v)
	}
	return "1." + strconv.Itoa(n), nil
}

type row struct {
	group, version, kind             string
	introduced, deprecated, removedR string
	replacement                      schema.GroupVersionKind
	// resource is the resource the typed clientset serves the kind as
	// ("deviceclasses"), "" when it serves none of its own.
	resource string
}

// repeats reports whether list, the row of kind "XList", says no more
// than item, the row of "X": the same releases, and as replacement the list
// of item's replacement (or none when item has none).
func repeats(list, item row) bool {
	want := item.replacement
	if !want.Empty() {
		want.Kind += "List"
	}
	return list.introduced == item.introduced && list.deprecated == item.deprecated &&
		list.removedR == item.removedR && list.replacement == want
}

// collect returns one row per registered kind that has lifecycle methods,
// sorted by group, version and kind, with its resource from res
// (resources), and every group version the scheme registers. A kind
// "XList" whose item "X" has the same lifecycle in the same group version
// is left out: discovery never lists a list kind, and it would only repeat
// its item (repeats).
func collect(res map[schema.GroupVersionKind]string) ([]row, []schema.GroupVersion) {
	byGVK := map[schema.GroupVersionKind]row{}
	gvSet := map[schema.GroupVersion]bool{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" {
			continue
		}
		obj := reflect.New(t).Interface()
		r := row{group: gvk.Group, version: gvk.Version, kind: gvk.Kind, resource: res[gvk]}
		has := false
		if o, ok := obj.(introduced); ok {
			r.introduced, has = minor(o.APILifecycleIntroduced()), true
		}
		if o, ok := obj.(deprecated); ok {
			r.deprecated, has = minor(o.APILifecycleDeprecated()), true
		}
		if o, ok := obj.(removed); ok {
			r.removedR, has = minor(o.APILifecycleRemoved()), true
		}
		if o, ok := obj.(replacement); ok {
			r.replacement, has = o.APILifecycleReplacement(), true
		}
		if !has {
			continue // metav1's option types, registered in every group version
		}
		gvSet[gvk.GroupVersion()] = true
		byGVK[gvk] = r
	}
	var rows []row
	for gvk, r := range byGVK {
		if item, ok := strings.CutSuffix(gvk.Kind, "List"); ok && item != "" {
			if it, found := byGVK[gvk.GroupVersion().WithKind(item)]; found && repeats(r, it) {
				continue
			}
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.version != b.version {
			return a.version < b.version
		}
		return a.kind < b.kind
	})
	gvs := make([]schema.GroupVersion, 0, len(gvSet))
	for gv := range gvSet {
		gvs = append(gvs, gv)
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].String() < gvs[j].String() })
	return rows, gvs
}

// errNotSent ends every request of resources' clientset before it leaves.
var errNotSent = errors.New("not sent: genapilifecycle only records the path")

// recorder is a RoundTripper that records the path of the request it is
// given and sends nothing.
type recorder struct{ path string }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.path = req.URL.Path
	return nil, errNotSent
}

// resources returns, for each kind k8s.io/client-go's typed clientset
// serves as a resource of its own, the resource its requests name: for
// every group version accessor of kubernetes.Interface (CoreV1,
// ResourceV1beta2…), every typed client its interface gives
// (DeviceClasses(), ResourceClaims(namespace)…), the kind its Get returns
// (its Create's, for a create-only resource such as TokenReview) and the
// last segment of that request's path before the object's name; a typed
// client with neither (Evictions: a subresource's) serves no resource of
// its own. The requests go to a RoundTripper that records their path and
// sends nothing. An error when a kind is not in the scheme or two
// resources claim one kind.
func resources() (map[schema.GroupVersionKind]string, error) {
	rec := &recorder{}
	cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://genapilifecycle.invalid", QPS: -1}, &http.Client{Transport: rec})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	const name = "genapilifecycle-object"
	out := map[schema.GroupVersionKind]string{}
	iface := reflect.TypeOf((*kubernetes.Interface)(nil)).Elem()
	csv := reflect.ValueOf(cs)
	for i := 0; i < iface.NumMethod(); i++ {
		acc := iface.Method(i)
		if acc.Type.NumIn() != 0 || acc.Type.NumOut() != 1 || acc.Type.Out(0).Kind() != reflect.Interface || acc.Name == "Discovery" {
			continue
		}
		gv := csv.MethodByName(acc.Name).Call(nil)[0]
		gvt := acc.Type.Out(0)
		for j := 0; j < gvt.NumMethod(); j++ {
			getter := gvt.Method(j)
			if getter.Name == "RESTClient" {
				continue
			}
			var args []reflect.Value
			switch {
			case getter.Type.NumIn() == 0:
			case getter.Type.NumIn() == 1 && getter.Type.In(0).Kind() == reflect.String:
				args = []reflect.Value{reflect.ValueOf("ns")}
			default:
				return nil, fmt.Errorf("%s().%s: a typed client getter takes no argument or a namespace", acc.Name, getter.Name)
			}
			client := gv.MethodByName(getter.Name).Call(args)[0]
			rec.path = ""
			var obj reflect.Type
			byName := true
			if get := client.MethodByName("Get"); get.IsValid() {
				out := get.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(name), reflect.ValueOf(metav1.GetOptions{})})
				obj = out[0].Type()
			} else if create := client.MethodByName("Create"); create.IsValid() {
				in := create.Type().In(1)
				out := create.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.New(in.Elem()), reflect.ValueOf(metav1.CreateOptions{})})
				obj, byName = out[0].Type(), false
			} else {
				continue // Evictions(): Evict only, the pods/eviction subresource
			}
			parts := strings.Split(strings.TrimSuffix(rec.path, "/"), "/")
			if byName {
				if len(parts) < 2 || parts[len(parts)-1] != name {
					return nil, fmt.Errorf("%s().%s().Get asked %q, not a path ending with the object's name", acc.Name, getter.Name, rec.path)
				}
				parts = parts[:len(parts)-1]
			}
			resource := parts[len(parts)-1]
			if obj.Kind() != reflect.Pointer {
				return nil, fmt.Errorf("%s().%s() serves %s, not an API object", acc.Name, getter.Name, obj)
			}
			ro, ok := reflect.New(obj.Elem()).Interface().(runtime.Object)
			if !ok {
				return nil, fmt.Errorf("%s().%s() serves %s, not an API object", acc.Name, getter.Name, obj)
			}
			gvks, _, err := scheme.Scheme.ObjectKinds(ro)
			if err != nil {
				return nil, fmt.Errorf("%s().%s(): %v", acc.Name, getter.Name, err)
			}
			for _, gvk := range gvks {
				if prev, dup := out[gvk]; dup && prev != resource {
					return nil, fmt.Errorf("%s is served as both %s and %s", gvk, prev, resource)
				}
				out[gvk] = resource
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the typed clientset serves no resource: nothing to record")
	}
	return out, nil
}

// minor is "MAJOR.MINOR", or "" for 0.0 (the generated methods' "none").
func minor(major, minor int) string {
	if major == 0 && minor == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", major, minor)
}

func render(version, horizon string, rows []row, gvs []schema.GroupVersion) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by genapilifecycle from %s %s; DO NOT EDIT.\n\n", apiModule, version)
	b.WriteString("package kube\n\n")
	fmt.Fprintf(&b, "// apiLifecycleModule is the module and version the table was read from.\nconst apiLifecycleModule = %q\n\n", apiModule+" "+version)
	fmt.Fprintf(&b, "// apiLifecycleModuleVersion is %s's version in go.mod when the table was generated.\nconst apiLifecycleModuleVersion = %q\n\n", apiModule, version)
	fmt.Fprintf(&b, "// apiLifecycleHorizon is the Kubernetes minor %s %s ships with: the newest\n// minor whose removals the table knows.\nconst apiLifecycleHorizon = %q\n\n", apiModule, version, horizon)
	b.WriteString("// builtinGroupVersions are the group versions of k8s.io/api (\"\" is the core\n// group), sorted.\n")
	b.WriteString("var builtinGroupVersions = []string{\n")
	for _, gv := range gvs {
		fmt.Fprintf(&b, "\t%q,\n", gv.String())
	}
	b.WriteString("}\n\n")
	b.WriteString("// apiLifecycleTable holds one row per kind, sorted by group, version, kind.\n")
	b.WriteString("var apiLifecycleTable = []APILifecycle{\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "\t{Group: %q, Version: %q, Kind: %q", r.group, r.version, r.kind)
		if r.introduced != "" {
			fmt.Fprintf(&b, ", Introduced: %q", r.introduced)
		}
		if r.deprecated != "" {
			fmt.Fprintf(&b, ", Deprecated: %q", r.deprecated)
		}
		if r.removedR != "" {
			fmt.Fprintf(&b, ", Removed: %q", r.removedR)
		}
		if !r.replacement.Empty() {
			fmt.Fprintf(&b, ", Replacement: GroupVersionKind{Group: %q, Version: %q, Kind: %q}", r.replacement.Group, r.replacement.Version, r.replacement.Kind)
		}
		if r.resource != "" {
			fmt.Fprintf(&b, ", Resource: %q", r.resource)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the generated table: %v", err)
	}
	return src, nil
}

// writeAtomic writes data to path through a temp file in path's folder,
// renamed over path once written and closed: path is either the old file
// or the new one, never half of one.
func writeAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename, tmp no longer exists
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %v", tmp, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %v", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replacing %s: %v", path, err)
	}
	return nil
}
