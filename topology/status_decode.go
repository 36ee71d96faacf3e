package topology

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds on what one status object may bring: a hostile or broken operator
// must not fill the report. Text past the bound is cut and ends with "…".
const (
	statusMaxText       = 512 // characters of one message, reason or field
	statusMaxConditions = 32  // entries of status.conditions kept
	statusMaxChecks     = 64  // Ceph health checks kept
)

// StatusCleaner makes text read from a cluster safe to keep: Name is
// applied to names (the reader's probes.sanitizeName), Text to messages
// and field values (probes.sanitize). A nil function keeps the text as is.
type StatusCleaner struct {
	Name func(string) string
	Text func(string) string
}

func (c StatusCleaner) name(s string) string {
	if c.Name != nil {
		s = c.Name(s)
	}
	return cut(s)
}

func (c StatusCleaner) text(s string) string {
	if c.Text != nil {
		s = c.Text(s)
	}
	return cut(s)
}

// cut bounds s to statusMaxText characters.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= statusMaxText {
		return s
	}
	r := []rune(s)
	return string(r[:statusMaxText-1]) + "…"
}

// DecodeStatusObject decodes obj, one object of res as the API server's JSON
// gives it (an item of a list, or a get, decoded into map[string]any), into
// a StatusObject: metadata (name, namespace, generation, creationTimestamp,
// deletionTimestamp, each of res.Annotations), status.observedGeneration, status.conditions (type,
// status, reason, message, observedGeneration, lastTransitionTime), each of
// res.Fields that is a string, number or boolean, and the health checks
// at res.Checks (a CephCluster's status.ceph.details). Strings go
// through clean and are bounded (statusMaxText); conditions and checks are
// bounded in number too. A time that is not RFC 3339 is left zero. For a
// custom layer's one object (res.Name set) the whole object is kept for
// kstatus, its whole numbers made int64 (see wholeNumbers).
//
// It returns an error, naming the object, for an answer that contradicts
// the request: an object of another kind than res.Kind (a list item may
// omit kind), no metadata.name, a namespaced object without namespace, a
// cluster-scoped one with one, or a status, condition list or metadata of
// the wrong JSON type.
func DecodeStatusObject(res StatusResource, obj map[string]any, clean StatusCleaner) (StatusObject, error) {
	o := StatusObject{Kind: res.Kind}
	if k, ok := obj["kind"]; ok {
		ks, _ := k.(string)
		if ks != res.Kind {
			return o, fmt.Errorf("asked for %s, got an object of kind %q", res.Kind, clean.name(fmt.Sprint(k)))
		}
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return o, fmt.Errorf("a %s without metadata", res.Kind)
	}
	name, _ := meta["name"].(string)
	if name == "" {
		return o, fmt.Errorf("a %s without metadata.name", res.Kind)
	}
	o.Name = clean.name(name)
	ns, _ := meta["namespace"].(string)
	switch {
	case res.Namespaced && ns == "":
		return o, fmt.Errorf("%s %s has no namespace, but %s is namespaced", res.Kind, o.Name, res.Kind)
	case !res.Namespaced && ns != "":
		return o, fmt.Errorf("%s %s has namespace %s, but %s is cluster-scoped", res.Kind, o.Name, clean.name(ns), res.Kind)
	}
	o.Namespace = clean.name(ns)
	o.Generation, _ = intOf(meta["generation"])
	o.Created = timeOf(meta["creationTimestamp"])
	if d, ok := meta["deletionTimestamp"].(string); ok && d != "" {
		o.Deleting = true
	}

	if len(res.Annotations) > 0 {
		anns, _ := meta["annotations"].(map[string]any)
		for _, k := range res.Annotations {
			if v, ok := anns[k].(string); ok {
				if o.Annotations == nil {
					o.Annotations = map[string]string{}
				}
				o.Annotations[k] = clean.text(v)
			}
		}
	}

	if st, present := obj["status"]; present && st != nil {
		status, ok := st.(map[string]any)
		if !ok {
			return o, fmt.Errorf("%s: status is not an object", o.describe())
		}
		o.HasStatus = len(status) > 0
		if g, present := status["observedGeneration"]; present {
			if o.ObservedGeneration, ok = intOf(g); !ok {
				return o, fmt.Errorf("%s: status.observedGeneration is not a whole number", o.describe())
			}
			o.HasObserved = true
			if len(status) == 1 && o.ObservedGeneration < 1 {
				// Flux's CRDs default status to {observedGeneration: -1}
				// (source-controller config/crd/bases: status.default):
				// nothing has observed the object yet.
				o.HasStatus = false
			}
		}
		if cs, present := status["conditions"]; present && cs != nil {
			list, ok := cs.([]any)
			if !ok {
				return o, fmt.Errorf("%s: status.conditions is not a list", o.describe())
			}
			for _, item := range list {
				if len(o.Conditions) == statusMaxConditions {
					break
				}
				m, ok := item.(map[string]any)
				if !ok {
					return o, fmt.Errorf("%s: a condition is not an object", o.describe())
				}
				c := Condition{
					Type:           clean.name(str(m["type"])),
					Status:         clean.name(str(m["status"])),
					Reason:         clean.text(str(m["reason"])),
					Message:        clean.text(str(m["message"])),
					LastTransition: timeOf(m["lastTransitionTime"]),
				}
				c.ObservedGeneration, _ = intOf(m["observedGeneration"])
				o.Conditions = append(o.Conditions, c)
			}
		}
		if res.Checks != "" {
			o.Checks = healthChecks(lookup(obj, res.Checks), clean)
		}
	}
	for _, f := range res.Fields {
		if v, ok := scalarText(lookup(obj, f)); ok {
			if o.Fields == nil {
				o.Fields = map[string]string{}
			}
			o.Fields[f] = clean.text(v)
		}
	}
	if res.Name != "" {
		o.Raw, _ = wholeNumbers(obj).(map[string]any)
	}
	return o, nil
}

// wholeNumbers copies v with every whole number as an int64, the form
// apimachinery's unstructured (and so kstatus) reads: encoding/json decodes
// numbers as float64 or json.Number.
func wholeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = wholeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = wholeNumbers(e)
		}
		return out
	case float64, json.Number:
		if n, ok := intOf(x); ok {
			return n
		}
		if f, ok := x.(json.Number); ok {
			if g, err := f.Float64(); err == nil {
				return g
			}
		}
	}
	return v
}

func (o StatusObject) describe() string {
	if o.Namespace != "" {
		return o.Kind + " " + o.Namespace + "/" + o.Name
	}
	return o.Kind + " " + o.Name
}

// lookup follows the dotted path in obj; nil when a step is missing.
func lookup(obj map[string]any, path string) any {
	var cur any = obj
	for _, step := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[step]
	}
	return cur
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// scalarText writes a string, number or boolean as text (a whole number
// without a decimal point); anything else is not a scalar.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case json.Number:
		return x.String(), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

// intOf reads a whole number as encoding/json (float64, json.Number) or
// apimachinery's unstructured (int64) decodes it.
func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

func timeOf(v any) time.Time {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// healthChecks reads a map of check name to {severity, message}, as a
// CephCluster's status.ceph.details holds them (rook
// pkg/apis/ceph.rook.io/v1 CephStatus.Details), sorted by name and bounded.
func healthChecks(v any, clean StatusCleaner) []HealthCheck {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []HealthCheck
	for _, n := range names {
		if len(out) == statusMaxChecks {
			break
		}
		d, _ := m[n].(map[string]any)
		out = append(out, HealthCheck{Name: clean.name(n), Severity: clean.name(str(d["severity"])), Message: clean.text(str(d["message"]))})
	}
	return out
}
