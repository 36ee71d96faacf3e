package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParseManifestsLines(t *testing.T) {
	data := "# header comment\n" +
		"---\n" +
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n" +
		"---\n" +
		"# only a comment\n" +
		"--- \n" +
		"apiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: b, namespace: a}\r\n" +
		"---\n" +
		"kind: ConfigMap\nmetadata: {name: c}\n" +
		"---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: a}\n"
	objs, err := parseManifests("f.yaml", []byte(data))
	if len(objs) != 2 {
		t.Fatalf("got %d objects, want 2 (comment-only documents skipped)", len(objs))
	}
	if objs[0].where != "f.yaml:3" || objs[0].obj.GetName() != "a" {
		t.Errorf("first object at %s named %q, want f.yaml:3 named a", objs[0].where, objs[0].obj.GetName())
	}
	if objs[1].where != "f.yaml:9" || objs[1].obj.GetNamespace() != "a" {
		t.Errorf("second object at %s in %q, want f.yaml:9 in a", objs[1].where, objs[1].obj.GetNamespace())
	}
	if err == nil {
		t.Fatal("no error for a document without apiVersion and one without a name")
	}
	for _, want := range []string{"f.yaml:13: not a Kubernetes object", "f.yaml:16: ConfigMap has no metadata.name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestFixturesParse checks the shipped fixtures decode, and that every
// workload has what the apiserver requires and a status to apply.
func TestFixturesParse(t *testing.T) {
	for file, wantKinds := range map[string]map[string]int{
		"dirqual-healthy.yaml": {"Node": 4, "StorageClass": 1},
		"bench-two-nodes.yaml": {"Node": 2, "StorageClass": 1, "DaemonSet": 1},
		"versions-skew.yaml":   {"Node": 3, "StorageClass": 1, "Deployment": 1},
	} {
		path := filepath.Join("..", "testdata", "clusters", file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := parseManifests(path, data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		kinds := map[string]int{}
		for _, o := range objs {
			kinds[o.obj.GetKind()]++
			switch o.obj.GetKind() {
			case "Deployment", "DaemonSet", "StatefulSet", "Node":
				if _, ok := o.obj.Object["status"]; !ok {
					t.Errorf("%s has no status: it would look unavailable", o.describe())
				}
			}
			if k := o.obj.GetKind(); k == "Deployment" || k == "DaemonSet" || k == "StatefulSet" {
				containers, _, _ := unstructured.NestedSlice(o.obj.Object, "spec", "template", "spec", "containers")
				if len(containers) == 0 {
					t.Errorf("%s has no container", o.describe())
				}
			}
		}
		for k, n := range wantKinds {
			if kinds[k] != n {
				t.Errorf("%s: %d objects of kind %s, want %d", file, kinds[k], k, n)
			}
		}
	}
}
