package topology

import (
	"strings"
	"testing"
)

const resourceHead = "name: s\ntarget_kind: prod\nnodes:\n  - {name: n1, role: control-plane}\nlayers:\n"

func TestDetectResourceParses(t *testing.T) {
	src := resourceHead + `  - name: widgets
    detect:
      resource: {apiVersion: example.io/v1, kind: Widget, namespace: apps, name: main}
  - name: cluster-thing
    detect:
      deployment: thing/thing-operator
      resource:
        apiVersion: things.example.com/v1beta2
        kind: ThingCluster
        name: prod.one
`
	tp, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	r := tp.Layers[0].Detect.Resource
	if r == nil || *r != (ResourceRef{APIVersion: "example.io/v1", Kind: "Widget", Namespace: "apps", Name: "main"}) {
		t.Fatalf("resource = %+v", r)
	}
	def, _ := LayerDefFor(tp.Layers[0])
	want := StatusResource{Group: "example.io", Versions: []string{"v1"}, Kind: "Widget", Namespaced: true, Namespace: "apps", Name: "main", Decides: true}
	got := def.Status[0]
	got.Source = ""
	if len(def.Status) != 1 || got.Key() != want.Key() || got.Group != want.Group || got.Versions[0] != "v1" || !got.Namespaced || !got.Decides {
		t.Errorf("status resource = %+v, want %+v", def.Status, want)
	}
	if got.Key() != "Widget.example.io/apps/main" {
		t.Errorf("key %q", got.Key())
	}
	def2, _ := LayerDefFor(tp.Layers[1])
	if len(def2.Workloads) != 1 || len(def2.Status) != 1 || def2.Status[0].Namespaced || def2.Status[0].Name != "prod.one" {
		t.Errorf("cluster-scoped resource beside a deployment: %+v", def2)
	}
	if g, v := (ResourceRef{APIVersion: "v1"}).GroupVersion(); g != "" || v != "v1" {
		t.Errorf("core group: %q %q", g, v)
	}
}

func TestDetectResourceErrors(t *testing.T) {
	for _, tc := range []struct {
		name, detect string
		want         []string
	}{
		{"not a mapping", `resource: widget`, []string{
			`s.yaml:8:17: layers[0].detect.resource: must be a mapping, found the string "widget" (write it as resource: {apiVersion: example.io/v1, kind: Widget, namespace: NAMESPACE, name: NAME})`}},
		{"empty", `resource:`, []string{
			`s.yaml:8:16: layers[0].detect.resource: is empty (write it as resource: {apiVersion: example.io/v1, kind: Widget, namespace: NAMESPACE, name: NAME})`}},
		{"required keys", `resource: {kind: Widget}`, []string{
			`s.yaml:8:17: layers[0].detect.resource.apiVersion: apiVersion is required (write it as resource: {apiVersion: example.io/v1, kind: Widget, namespace: NAMESPACE, name: NAME})`,
			`s.yaml:8:17: layers[0].detect.resource.name: name is required (write it as resource: {apiVersion: example.io/v1, kind: Widget, namespace: NAMESPACE, name: NAME})`}},
		{"bad values, each at its column", `resource: {apiVersion: example.io/1, kind: widget, namespace: Apps, name: "a b"}`, []string{
			`s.yaml:8:30: layers[0].detect.resource.apiVersion: "example.io/1" is not an apiVersion (write v1 for the core group, else GROUP/VERSION such as example.io/v1 or apps/v1)`,
			`s.yaml:8:50: layers[0].detect.resource.kind: "widget" is not a kind (write the kind as manifests do, e.g. Widget)`,
			`s.yaml:8:69: layers[0].detect.resource.namespace: "Apps" is not a valid namespace (use a namespace name (DNS-1123 label), or remove namespace: for a cluster-scoped object)`,
			`s.yaml:8:81: layers[0].detect.resource.name: "a b" is not a valid object name (use an object name (lowercase letters, digits, '-' and '.'))`}},
		{"an unknown key with a did-you-mean", `resource: {apiversion: v1, kind: ConfigMap, name: x}`, []string{
			`s.yaml:8:17: layers[0].detect.resource.apiVersion: apiVersion is required (write it as resource: {apiVersion: example.io/v1, kind: Widget, namespace: NAMESPACE, name: NAME})`,
			`s.yaml:8:18: layers[0].detect.resource.apiversion: unknown key "apiversion" in layers[0].detect.resource (did you mean apiVersion? allowed keys: apiVersion, kind, namespace, name)`}},
		{"a key with no value", `resource: {apiVersion: v1, kind: ConfigMap, name: }`, []string{
			`s.yaml:8:57: layers[0].detect.resource.name: is empty (give a value or remove the key)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := resourceHead + "  - name: widgets\n    detect:\n      " + tc.detect + "\n"
			_, err := Parse("s.yaml", []byte(src))
			if err == nil {
				t.Fatalf("Parse accepted %q", tc.detect)
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
