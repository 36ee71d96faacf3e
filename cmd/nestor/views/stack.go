package views

import (
	"io"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

// StackList writes stack list's table of rows: the active mark, the
// name, the target kind (INVALID for a topology that does not load) and
// the endpoint. Errors: w's.
func StackList(w io.Writer, rows []action.StackRow) error {
	tw := newTable("")
	tw.row("ACTIVE", "NAME", "TARGET KIND", "ENDPOINT")
	for _, r := range rows {
		mark := ""
		if r.Active {
			mark = "*"
		}
		kind, ep := r.TargetKind, r.Endpoint
		if r.Error != "" {
			kind = "INVALID"
			ep = "(nestor stack show " + r.Name + ")"
		}
		if ep == "" {
			ep = "<none>"
		}
		tw.row(mark, r.Name, kind, ep)
	}
	return tw.write(w)
}

// StackShow writes stack show's document d as a topology file: its header
// comments, then the topology's keys in the loader's order (topology.Keys),
// empty mappings and lists left out. Errors: the encoder's, w's.
func StackShow(w io.Writer, d *action.StackShowDoc) error {
	var b strings.Builder
	for _, h := range d.Header {
		b.WriteString("# " + strings.ReplaceAll(h, "\n", " ") + "\n")
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(orderedYAML(d.Topology, "", topology.Keys())); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orderedYAML is v (decoded JSON) as a YAML node whose mappings list their
// keys in keys[at]'s order (at is where v is written, "nodes[]" for an
// element of nodes:), empty mappings and lists left out.
func orderedYAML(v any, at string, keys map[string][]string) *yaml.Node {
	switch x := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		order := keys[at]
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if !slices.Contains(order, k) {
				order = append(order, k)
			}
		}
		for _, k := range order {
			val, ok := x[k]
			if !ok || isEmpty(val) {
				continue
			}
			child := k
			if at != "" {
				child = at + "." + k
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, orderedYAML(val, child, keys))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range x {
			n.Content = append(n.Content, orderedYAML(e, at+"[]", keys))
		}
		return n
	}
	var n yaml.Node
	_ = n.Encode(v)
	return &n
}

// isEmpty: an empty mapping or list (a topology key written with nothing).
func isEmpty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}
