package topology

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// ResourceRef is a custom layer's detect.resource: one object, named as a
// manifest names it — the form of Flux's Kustomization spec.healthChecks
// entries and of kubectl's object references:
//
//	detect: {resource: {apiVersion: example.io/v1, kind: Widget, namespace: apps, name: main}}
//
// Namespace is "" for a cluster-scoped object. The object's status decides
// the layer's health by the kstatus conventions (conditions Ready,
// Reconciling, Stalled; status.observedGeneration): see kstatusOf.
type ResourceRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// resourceKeys are the keys of detect.resource.
var resourceKeys = []string{"apiVersion", "kind", "namespace", "name"}

var (
	// apiVersionRE is a version as Kubernetes names them (v1, v2beta1,
	// v1alpha3: the API versioning conventions of the Kubernetes API
	// reference, "API versioning").
	apiVersionRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	// kindRE is a kind: UpperCamelCase (apimachinery's naming of kinds).
	kindRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]{0,62}$`)
)

// GroupVersion splits APIVersion into its group ("" for the core group)
// and version.
func (r ResourceRef) GroupVersion() (group, version string) {
	if g, v, ok := strings.Cut(r.APIVersion, "/"); ok {
		return g, v
	}
	return "", r.APIVersion
}

// StatusResource is the status resource that reads r: its one object,
// judged by kstatus; the plural is left for the reader to find from Kind.
func (r ResourceRef) StatusResource() StatusResource {
	g, v := r.GroupVersion()
	return StatusResource{
		Group: g, Versions: []string{v}, Kind: r.Kind,
		Namespaced: r.Namespace != "", Namespace: r.Namespace, Name: r.Name,
		Decides: true,
		Source:  "topology detect.resource, judged by kstatus (sigs.k8s.io/cli-utils pkg/kstatus)",
	}
}

// detectResource parses detect.resource at v (field names it in errors):
// a mapping with apiVersion ("v1" or "GROUP/VERSION", the group a DNS
// subdomain, the version as Kubernetes names them), kind (UpperCamelCase),
// name (a DNS-1123 subdomain) and an optional namespace (a DNS-1123 label).
// Every problem is reported at its line and column; nil when any.
func (p *parser) detectResource(v *yaml.Node, field string) *ResourceRef {
	fix := "write it as resource: {apiVersion: example.io/v1, kind: Widget, namespace: NAMESPACE, name: NAME}"
	if isNull(v) {
		p.add(resolve(v), field, fix, "is empty")
		return nil
	}
	m, ok := p.mapping(v, field, fix)
	if !ok {
		return nil
	}
	r := &ResourceRef{}
	before := len(p.errs)
	given := map[string]bool{}
	for _, kv := range p.pairs(m, field) {
		f := field + "." + kv.key.Value
		switch kv.key.Value {
		case "apiVersion", "kind", "namespace", "name":
			given[kv.key.Value] = true
		default:
			p.unknownKey(kv.key, field, resourceKeys)
			continue
		}
		s, isStr := p.str(kv.value, f)
		at := resolve(kv.value)
		if !isStr && isNull(at) {
			p.add(at, f, "give a value or remove the key", "is empty")
			continue
		}
		if !isStr {
			continue
		}
		if s == "" {
			p.add(at, f, "give a value or remove the key", "is empty")
			continue
		}
		switch kv.key.Value {
		case "apiVersion":
			g, ver, grouped := strings.Cut(s, "/")
			if !grouped {
				g, ver = "", s
			}
			if (grouped && !validObjectName(g)) || !apiVersionRE.MatchString(ver) {
				p.add(at, f, "write v1 for the core group, else GROUP/VERSION such as example.io/v1 or apps/v1", "%q is not an apiVersion", s)
				continue
			}
			r.APIVersion = s
		case "kind":
			if !kindRE.MatchString(s) {
				p.add(at, f, "write the kind as manifests do, e.g. Widget", "%q is not a kind", s)
				continue
			}
			r.Kind = s
		case "namespace":
			if len(s) > 63 || !dns1123RE.MatchString(s) {
				p.add(at, f, "use a namespace name (DNS-1123 label), or remove namespace: for a cluster-scoped object", "%q is not a valid namespace", s)
				continue
			}
			r.Namespace = s
		case "name":
			if !validObjectName(s) {
				p.add(at, f, "use an object name (lowercase letters, digits, '-' and '.')", "%q is not a valid object name", s)
				continue
			}
			r.Name = s
		}
	}
	for _, req := range []string{"apiVersion", "kind", "name"} {
		if !given[req] {
			p.add(m, field+"."+req, fix, "%s is required", req)
		}
	}
	if len(p.errs) > before {
		return nil
	}
	return r
}
