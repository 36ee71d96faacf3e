package views

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"gopkg.in/yaml.v3"
	"nestor.dev/nestor/cmd/nestor/action"
)

// RBAC writes rbac's document d: its objects as a YAML stream (kubectl
// apply -f takes it), each rule preceded by comments saying what it lets
// nestor read, and a head comment saying how to bind the roles when no
// binding was asked. Errors: an object that does not encode, w's.
func RBAC(w io.Writer, d *action.RBACDoc) error {
	fmt.Fprintf(w, "# The read-only role a preview of stack %s needs: get and list on what nestor reads,\n", d.Stack)
	fmt.Fprintf(w, "# no write verb, no secrets. Derived from the reads nestor sends for this topology.\n")
	bound := false
	for _, o := range d.Objects {
		switch o.Object.(type) {
		case *rbacv1.ClusterRoleBinding, *rbacv1.RoleBinding:
			bound = true
		}
	}
	if !bound {
		fmt.Fprintf(w, "# Bind it to the preview identity: nestor rbac %s --bind user:NAME (or group:NAME,\n# serviceaccount:NAMESPACE:NAME) prints the bindings too.\n", d.Stack)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for _, o := range d.Objects {
		n, err := objectNode(o)
		if err != nil {
			return err
		}
		if err := enc.Encode(n); err != nil {
			return err
		}
	}
	return enc.Close()
}

// objectNode is o as a YAML node: its JSON form (the API's field names,
// metadata's null creationTimestamp left out) in block style, the lists of
// a rule in flow style, each rule with its comments.
func objectNode(o action.RBACObject) (*yaml.Node, error) {
	raw, err := json.Marshal(o.Object)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	doc := n.Content[0]
	unflow(doc)
	orderKeys(doc, "apiVersion", "kind", "metadata")
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, val := doc.Content[i], doc.Content[i+1]
		switch key.Value {
		case "metadata":
			for j := 0; j+1 < len(val.Content); j += 2 {
				if val.Content[j].Value == "creationTimestamp" && val.Content[j+1].Tag == "!!null" {
					val.Content = slices.Delete(val.Content, j, j+2)
					break
				}
			}
		case "rules":
			for j, rule := range val.Content {
				orderKeys(rule, "apiGroups", "resources", "resourceNames", "nonResourceURLs", "verbs")
				for k := 1; k < len(rule.Content); k += 2 {
					if rule.Content[k].Kind == yaml.SequenceNode {
						rule.Content[k].Style = yaml.FlowStyle
					}
				}
				if j < len(o.Why) {
					rule.HeadComment = strings.Join(o.Why[j], "\n")
				}
			}
		}
	}
	return doc, nil
}

// orderKeys puts the keys of mapping n named first, in that order, before
// the others (kept in their order): kubectl's order of an object's fields.
func orderKeys(n *yaml.Node, first ...string) {
	rank := func(k string) int {
		if i := slices.Index(first, k); i >= 0 {
			return i
		}
		return len(first)
	}
	pairs := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		pairs = append(pairs, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	slices.SortStableFunc(pairs, func(a, b [2]*yaml.Node) int { return rank(a[0].Value) - rank(b[0].Value) })
	n.Content = n.Content[:0]
	for _, p := range pairs {
		n.Content = append(n.Content, p[0], p[1])
	}
}

// unflow makes n and what it holds block style with plain scalars (JSON
// decodes as flow, its strings double-quoted); the encoder quotes what must
// be.
func unflow(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		unflow(c)
	}
}
