package floor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// TestScanProtobufList encodes node lists the way the apiserver does (the
// runtime.Unknown protobuf envelope) and checks the item count and continue
// token read without decoding.
func TestScanProtobufList(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ser := protobuf.NewSerializer(scheme, scheme)
	for _, tc := range []struct {
		n    int
		cont string
	}{{0, ""}, {1, ""}, {500, "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzfQ"}, {37, ""}} {
		list := &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"}, ListMeta: metav1.ListMeta{ResourceVersion: "123", Continue: tc.cont}}
		for i := 0; i < tc.n; i++ {
			list.Items = append(list.Items, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"a": "b"}},
				Status: corev1.NodeStatus{Images: []corev1.ContainerImage{{Names: []string{"x"}, SizeBytes: 10}}}})
		}
		var buf bytes.Buffer
		if err := ser.Encode(list, &buf); err != nil {
			t.Fatal(err)
		}
		items, cont, err := scanProtobufList(buf.Bytes())
		if err != nil {
			t.Fatalf("n=%d: %v", tc.n, err)
		}
		if items != tc.n || cont != tc.cont {
			t.Errorf("n=%d: got %d items, continue %q; want %d, %q", tc.n, items, cont, tc.n, tc.cont)
		}
	}
	if _, _, err := scanProtobufList([]byte(`{"kind":"NodeList"}`)); err == nil {
		t.Error("a JSON body was accepted as protobuf")
	}
}

func TestScanJSONList(t *testing.T) {
	b, _ := json.Marshal(metav1.PartialObjectMetadataList{
		ListMeta: metav1.ListMeta{Continue: "abc"},
		Items:    []metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
	})
	items, cont, err := scanJSONList(b)
	if err != nil || items != 2 || cont != "abc" {
		t.Errorf("got %d, %q, %v; want 2, abc, nil", items, cont, err)
	}
}
