package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"nestor.dev/nestor/topology"
)

// ProviderMarker is what a managed kind adds when its provider installs
// objects of its own inside the cluster (Kapsule: kube-system): how they
// are marked and written (topology.ProviderMarks). Its Read then reads them
// (ReadProviderObjects), its rules judge them (topology.JudgeProviderObjects),
// and `nestor rbac` grants the reads (ProviderObjectReads).
type ProviderMarker interface {
	ProviderMarks() topology.ProviderMarks
}

// acceptMetadata asks for a list of the objects' metadata only, the API
// server's PartialObjectMetadataList (meta.k8s.io/v1; Kubernetes API
// concepts, "Retrieving metadata only"): names, labels, annotations and
// managedFields, never a ConfigMap's data nor a workload's spec.
const acceptMetadata = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"

// ProviderObjectReads are the reads ReadProviderObjects sends for m, as
// RBAC sees them: a list of each of m.Resources in m.Namespace.
func ProviderObjectReads(m topology.ProviderMarks) []Read {
	var out []Read
	for _, r := range m.Resources {
		out = append(out, Read{Group: r.Group, Resource: r.Resource, Namespaces: []string{m.Namespace}, Verbs: []string{"list"},
			Why: fmt.Sprintf("%s's objects in %s, their metadata only (labels and managedFields): which are %s's, which were edited after it wrote them", m.Provider, m.Namespace, m.Provider)})
	}
	return out
}

// metadataList is a PartialObjectMetadataList, decoded as far as nestor
// reads it.
type metadataList struct {
	listHead
	Items []struct {
		Metadata struct {
			Name          string             `json:"name"`
			Namespace     string             `json:"namespace"`
			Labels        map[string]string  `json:"labels"`
			Annotations   map[string]string  `json:"annotations"`
			ManagedFields []managedFieldsRaw `json:"managedFields"`
		} `json:"metadata"`
	} `json:"items"`
}

// managedFieldsRaw is one metadata.managedFields entry (meta/v1
// ManagedFieldsEntry) as sent: its time kept as text and its fieldsV1 raw,
// so that one the reader cannot read spoils only that entry.
type managedFieldsRaw struct {
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation"`
	Subresource string          `json:"subresource"`
	Time        string          `json:"time"`
	FieldsType  string          `json:"fieldsType"`
	FieldsV1    json.RawMessage `json:"fieldsV1"`
}

// ReadProviderObjects lists, in m.Namespace, the objects of each of
// m.Resources as their metadata only (acceptMetadata), every page
// (limit pageSize, continue, listJSONAs's bounds: an item twice, a page
// too large or not the list asked for is refused), all lists at once,
// bounded by the target's timeout (or ctx's deadline when sooner). Each
// object keeps its name, the labels of m.Labels it carries, its mode
// (m.ModeKey: a label, else an annotation) and its managedFields entries
// (writeOf). A list that fails is unknown with Classify's reason, the
// others known. The result is not derived yet
// (topology.ProviderObjects.Derive).
func ReadProviderObjects(ctx context.Context, t *Target, m topology.ProviderMarks) *topology.ProviderObjects {
	out := &topology.ProviderObjects{Marks: m, Lists: make([]topology.ProviderObjectList, len(m.Resources))}
	c, err := t.clients()
	if err != nil {
		for i, r := range m.Resources {
			out.Lists[i] = topology.ProviderObjectList{ProviderResource: r, Objects: topology.UnknownFact[[]topology.NamespaceObject](Explain(err))}
		}
		return out
	}
	ctx, cancel, budget := t.bound(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i, r := range m.Resources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			objs, err := listMetadata(ctx, c, m, r)
			out.Lists[i] = topology.ProviderObjectList{ProviderResource: r}
			if err != nil {
				out.Lists[i].Objects = topology.UnknownFact[[]topology.NamespaceObject](failReason(ctx, budget, err))
				return
			}
			out.Lists[i].Objects = topology.KnownFact(objs)
		}()
	}
	wg.Wait()
	return out
}

// resourcePath is the path of the list of r in namespace ns.
func resourcePath(r topology.ProviderResource, ns string) string {
	if r.Group == "" {
		return "/api/" + r.Version + "/namespaces/" + ns + "/" + r.Resource
	}
	return "/apis/" + r.Group + "/" + r.Version + "/namespaces/" + ns + "/" + r.Resource
}

// listMetadata reads the metadata list of r in m.Namespace (see
// ReadProviderObjects), sorted by name.
func listMetadata(ctx context.Context, c *clients, m topology.ProviderMarks, r topology.ProviderResource) ([]topology.NamespaceObject, error) {
	path := resourcePath(r, m.Namespace)
	out := []topology.NamespaceObject{}
	err := listJSONAs(ctx, c, path, "PartialObjectMetadataList", acceptMetadata, nil, func(l *metadataList) []string {
		var ks []string
		for _, it := range l.Items {
			ks = append(ks, it.Metadata.Namespace+"/"+it.Metadata.Name)
		}
		return ks
	}, func(l *metadataList) {
		for _, it := range l.Items {
			md := it.Metadata
			o := topology.NamespaceObject{Kind: r.Kind, Name: SanitizeName(md.Name), Writes: []topology.ObjectWrite{}}
			for _, k := range m.Labels {
				if v, ok := md.Labels[k]; ok {
					if o.Marks == nil {
						o.Marks = map[string]string{}
					}
					o.Marks[k] = SanitizeName(v)
				}
			}
			if m.ModeKey != "" {
				mode, ok := md.Labels[m.ModeKey]
				if !ok {
					mode = md.Annotations[m.ModeKey]
				}
				o.Mode = SanitizeName(mode)
			}
			for _, e := range md.ManagedFields {
				o.Writes = append(o.Writes, writeOf(e))
			}
			out = append(out, o)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// writeOf is one managedFields entry in nestor's model: its manager,
// operation and subresource (sanitized), its time (nil when absent or not
// RFC 3339), and the paths its fieldsV1 owns, read with
// structured-merge-diff's own fieldpath.Set (the format the API server
// writes: "f:" fields, "k:" keys, "v:" values, "i:" indexes, "." the node
// itself), each leaf cut down as topology.ObjectWrite.Fields says (fieldPaths).
// A fieldsType other than FieldsV1, or a fieldsV1 that does not parse,
// leaves the entry's Unread saying so.
func writeOf(e managedFieldsRaw) topology.ObjectWrite {
	w := topology.ObjectWrite{Manager: SanitizeName(e.Manager), Operation: SanitizeName(e.Operation), Subresource: SanitizeName(e.Subresource), Fields: []topology.FieldPath{}}
	if at, err := time.Parse(time.RFC3339, e.Time); err == nil {
		w.Time = &at
	}
	switch {
	case len(e.FieldsV1) == 0 || string(e.FieldsV1) == "null":
	case e.FieldsType != "" && e.FieldsType != "FieldsV1":
		w.Unread = fmt.Sprintf("fieldsType %q, which nestor does not read", SanitizeName(e.FieldsType))
	default:
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1)); err != nil {
			w.Unread = "its fieldsV1 does not parse: " + Sanitize(err.Error())
			break
		}
		w.Fields = fieldPaths(set)
	}
	return w
}

// fieldPaths are the leaves of set, each cut down to its second element,
// a label's or annotation's to its key (metadata.labels.KEY) and a pod
// template's annotation likewise (spec.template.metadata.annotations.KEY);
// without repeats, sorted.
func fieldPaths(set *fieldpath.Set) []topology.FieldPath {
	seen := map[string]bool{}
	out := []topology.FieldPath{}
	set.Leaves().Iterate(func(p fieldpath.Path) {
		fp := make(topology.FieldPath, 0, len(p))
		for _, pe := range p {
			if pe.FieldName != nil {
				fp = append(fp, Sanitize(*pe.FieldName))
			} else {
				fp = append(fp, Sanitize(pe.String()))
			}
		}
		keep := min(2, len(fp))
		switch {
		case len(fp) >= 3 && fp[0] == "metadata" && (fp[1] == "labels" || fp[1] == "annotations"):
			keep = 3
		case len(fp) >= 5 && fp[0] == "spec" && fp[1] == "template" && fp[2] == "metadata" && fp[3] == "annotations":
			keep = 5
		}
		fp = fp[:keep]
		if k := strings.Join(fp, "\x00"); !seen[k] {
			seen[k] = true
			out = append(out, fp)
		}
	})
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}
