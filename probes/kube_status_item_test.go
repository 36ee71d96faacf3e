package probes

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nestor.dev/nestor/topology"
)

// TestStatusItemDecodesAsTheWholeObject holds the status lists' partial
// decoding (statusItem) to what topology.DecodeStatusObject makes of the
// whole object, for every status resource of the catalog and for objects
// that are well formed, partial or wrong in each part it reads: the same
// StatusObject, or the same error.
func TestStatusItemDecodesAsTheWholeObject(t *testing.T) {
	objects := []string{
		`{"apiVersion":"x/v1","kind":"KIND","metadata":{"name":"a","namespace":"ns","generation":3,"creationTimestamp":"2026-11-01T10:00:00Z","managedFields":[{"manager":"m","fieldsV1":{"f:status":{}}}],"annotations":{"k":"v"}},
		  "spec":{"replicas":2,"instances":3,"suspend":true,"cluster":{"name":"main"},"healthCheck":{"daemonHealth":{"status":{"interval":"60s","disabled":false}}},"big":{"values":"x"}},
		  "status":{"observedGeneration":3,"phase":"Ready","state":"ok","readyInstances":3,"ceph":{"health":"HEALTH_WARN","lastChecked":"2026-11-01T10:00:00Z","details":{"MON_DOWN":{"message":"1/3 mons down","severity":"HEALTH_WARN"}}},
		    "health":{"status":"Healthy"},"sync":{"status":"Synced"},"notAfter":"2027-01-01T00:00:00Z",
		    "conditions":[{"type":"Ready","status":"True","reason":"OK","message":"fine","lastTransitionTime":"2026-11-01T10:00:00Z","observedGeneration":3}]}}`,
		`{"kind":"KIND","metadata":{"name":"b","deletionTimestamp":"2026-11-02T00:00:00Z"}}`,
		`{"metadata":{"name":"c","namespace":"ns"},"status":{"observedGeneration":-1}}`,
		`{"kind":"Other","metadata":{"name":"d"}}`,
		`{"kind":"KIND","metadata":"not an object"}`,
		`{"kind":"KIND"}`,
		`{"kind":"KIND","metadata":{"namespace":"ns"}}`,
		`{"kind":"KIND","metadata":{"name":"e","namespace":"ns","generation":"two"},"status":["not","an","object"]}`,
		`{"kind":"KIND","metadata":{"name":"f","namespace":"ns"},"status":{"conditions":{"type":"Ready"}}}`,
		`{"kind":"KIND","metadata":{"name":"g","namespace":"ns"},"status":{"observedGeneration":1.5}}`,
		`{"kind":"KIND","metadata":{"name":"h","namespace":"ns"},"spec":null,"status":null}`,
		`{"kind":null,"metadata":{"name":"i","namespace":"ns"}}`,
		`{"kind":"KIND","metadata":null}`,
		`{"kind":"KIND","metadata":{"name":null,"namespace":null,"generation":null,"deletionTimestamp":null}}`,
	}
	// The same objects cluster-scoped, so that those of a cluster-scoped
	// resource are compared past the namespace check too.
	for _, o := range slices.Clone(objects) {
		objects = append(objects, strings.ReplaceAll(strings.ReplaceAll(o, `"namespace":"ns",`, ""), `,"namespace":"ns"`, ""))
	}
	seen := map[string]bool{}
	for _, def := range topology.Catalog() {
		for _, res := range def.Status {
			if res.Name != "" || seen[res.Key()] {
				continue
			}
			seen[res.Key()] = true
			for i, text := range objects {
				raw := strings.ReplaceAll(text, "KIND", res.Kind)
				var whole map[string]any
				if err := json.Unmarshal([]byte(raw), &whole); err != nil {
					t.Fatal(err)
				}
				want, wantErr := topology.DecodeStatusObject(res, whole, statusCleaner)
				var item statusItem
				if err := json.Unmarshal([]byte(raw), &item); err != nil {
					// Only metadata that is not an object fails the page
					// itself; DecodeStatusObject refuses it too.
					if wantErr == nil || !strings.Contains(wantErr.Error(), "without metadata") {
						t.Errorf("%s object %d: the page does not decode (%v), the whole object gives %v", res.Kind, i, err, wantErr)
					}
					continue
				}
				slim, err := item.object(readsSpec(res))
				if err != nil {
					t.Fatalf("%s object %d: %v", res.Kind, i, err)
				}
				got, gotErr := topology.DecodeStatusObject(res, slim, statusCleaner)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Errorf("%s object %d: partial decoding gives\n  %+v (%v)\nwhole object gives\n  %+v (%v)", res.Kind, i, got, gotErr, want, wantErr)
				}
			}
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d status resources in the catalog: the test reads the wrong catalog", len(seen))
	}
}

// TestStatusFieldsAreUnderSpecOrStatus holds every field the catalog's
// status resources read to the parts of an object a status list decodes
// (statusItem: spec, status): a field elsewhere would read as absent.
func TestStatusFieldsAreUnderSpecOrStatus(t *testing.T) {
	n := 0
	for _, def := range topology.Catalog() {
		for _, res := range def.Status {
			for _, f := range append(res.Fields, res.Checks) {
				if f == "" {
					continue
				}
				n++
				if !strings.HasPrefix(f, "spec.") && !strings.HasPrefix(f, "status.") {
					t.Errorf("%s %s reads %s, which a status list does not decode (statusItem keeps spec and status)", def.Name, res.Kind, f)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the catalog's status resources read no field: the test reads the wrong catalog")
	}
}
