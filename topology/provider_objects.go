package topology

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"nestor.dev/nestor/kube"
)

// ProviderMarks is what a managed kind says of the objects its provider
// installs inside the cluster: where they are, which kinds of object are
// read there, the labels that mark them as the provider's, the key of the
// addon manager's mode, and the field managers the provider writes them
// with. It is the kind's data (probes.ProviderMarker); the rule that
// applies it (ProviderObjects.Derive, JudgeProviderObjects) is the same
// for every provider.
type ProviderMarks struct {
	// Provider names the provider in the report's words ("Scaleway").
	Provider string `json:"provider"`
	// Namespace is where the provider installs its objects (kube-system).
	Namespace string `json:"namespace"`
	// Resources are the kinds of object read in Namespace.
	Resources []ProviderResource `json:"resources"`
	// Labels are the label keys of which any one, present, marks an object
	// as the provider's (Kapsule: k8s.scw.cloud/system,
	// k8s.scw.cloud/object).
	Labels []string `json:"labels"`
	// ModeKey is the key, a label (or else an annotation), whose value
	// says what the provider does with an edited object: AddonReconcile or
	// AddonEnsureExists (AddonModeKey); "" when the provider has none.
	ModeKey string `json:"mode_key,omitempty"`
	// Managers are the field managers (metadata.managedFields[].manager)
	// the provider's own writes use. When none of an object's writes is by
	// one of them, the provider's write is the one that owns a mark.
	Managers []string `json:"managers"`
	// ManagersMark: a write by one of Managers marks the object as the
	// provider's by itself, labels or not — true only for a manager no
	// user writes with (EKS's "eks"), never for a kubectl one.
	ManagersMark bool `json:"managers_mark,omitempty"`
	// Source says where the marks and managers come from (the provider's
	// pages, what its objects were seen to carry).
	Source string `json:"source"`
}

// ProviderResource is one kind of object read in the provider's
// namespace: its API group ("" for the core group), version, resource
// (plural) and kind.
type ProviderResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
}

// The upstream addon manager's modes (kubernetes cluster/addons/addon-manager
// README): a Reconcile object is "periodically reconciled … addon-manager
// will bring them back to the original state"; an EnsureExists one is
// "checked for existence only. Users can edit these addons as they want".
const (
	AddonModeKey      = "addonmanager.kubernetes.io/mode"
	AddonReconcile    = "Reconcile"
	AddonEnsureExists = "EnsureExists"
)

// kubernetesManagers are the field managers of Kubernetes' own control
// plane, which writes objects of its own in kube-system (the
// extension-apiserver-authentication ConfigMap, the controllers' service
// accounts, kube-root-ca.crt): an object only they wrote is Kubernetes',
// neither the provider's nor the operator's. The API server names a
// client's manager after its user agent (kubernetes.io "Server-Side
// Apply": managers).
var kubernetesManagers = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// Finding kinds of the provider's objects.
const (
	// FindingProviderObjectEdited: an object carrying the provider's marks
	// was written by another manager after the provider's own write
	// (warning).
	FindingProviderObjectEdited FindingKind = "provider-object-edited"
)

// ProviderObjects is what was read of a managed provider's namespace
// (kube-system): each kind of object Marks names, listed with its marks
// and writes, and what is derived from them (Derive).
type ProviderObjects struct {
	Marks ProviderMarks `json:"marks"`
	// Lists are the lists read, one per resource of Marks.Resources, in
	// that order; a list that could not be read is unknown with its reason.
	Lists []ProviderObjectList `json:"lists"`
	// Counts are derived from the lists read (Derive).
	Counts ProviderObjectCounts `json:"counts"`
}

// ProviderObjectList is one list of objects of the provider's namespace.
type ProviderObjectList struct {
	ProviderResource
	Objects Fact[[]NamespaceObject] `json:"objects"`
}

// ProviderObjectCounts counts the objects of the lists read, by owner.
type ProviderObjectCounts struct {
	// Complete is false when a list could not be read: the counts are then
	// of the lists read only.
	Complete bool `json:"complete"`
	// Provider counts the objects that are the provider's, of which Edited
	// were edited after the provider's write and Unjudged could not be
	// judged (no write of the provider's found).
	Provider int `json:"provider"`
	Edited   int `json:"edited"`
	Unjudged int `json:"unjudged"`
	// Kubernetes counts the objects only the control plane wrote.
	Kubernetes int `json:"kubernetes"`
	// Yours counts the objects without the provider's marks that someone
	// else than the control plane wrote.
	Yours int `json:"yours"`
}

// ObjectOwner says whose an object of the provider's namespace is.
type ObjectOwner string

// The owners.
const (
	// OwnerProvider: the object carries the provider's marks.
	OwnerProvider ObjectOwner = "provider"
	// OwnerKubernetes: no mark, and only the control plane wrote it.
	OwnerKubernetes ObjectOwner = "kubernetes"
	// OwnerYours: no mark, and someone else wrote it (or nothing says who).
	OwnerYours ObjectOwner = "yours"
)

// NamespaceObject is one object of the provider's namespace: its kind and
// name, the provider's marks it carries, its mode, its writes as its
// metadata.managedFields record them and, derived from those (Derive),
// whose it is and what edited it.
type NamespaceObject struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Marks are the labels of ProviderMarks.Labels it carries, with their
	// values.
	Marks map[string]string `json:"marks,omitempty"`
	// Mode is the value of ProviderMarks.ModeKey (label, else annotation).
	Mode string `json:"mode,omitempty"`
	// Writes are its managedFields entries, in the API server's order.
	Writes []ObjectWrite `json:"writes"`

	// Owner is derived (Derive): whose the object is.
	Owner ObjectOwner `json:"owner"`
	// ProviderWrite is the provider's latest write (Derive), nil when none
	// is found.
	ProviderWrite *ObjectWrite `json:"provider_write,omitempty"`
	// Edits are the writes by another manager, after ProviderWrite, of
	// more than the object's metadata and status (Derive).
	Edits []ObjectWrite `json:"edits,omitempty"`
	// Unjudged says why the edits of a provider's object are not known
	// (Derive): "" when they are.
	Unjudged string `json:"unjudged,omitempty"`
}

// ObjectWrite is one metadata.managedFields entry: who wrote (manager), how
// (operation Update or Apply), through which subresource ("" the object
// itself, "status", "scale"), when its manager last wrote (nil when the
// entry carries no time or one that does not parse), and what it owns.
type ObjectWrite struct {
	Manager     string     `json:"manager"`
	Operation   string     `json:"operation"`
	Subresource string     `json:"subresource,omitempty"`
	Time        *time.Time `json:"time,omitempty"`
	// Fields are the paths the entry owns (its fieldsV1), each down to its
	// second field (["spec", "replicas"], ["data", "Corefile"]), a label
	// or annotation down to its key (["metadata", "labels",
	// "k8s.scw.cloud/system"]) and a pod template's annotation likewise
	// (["spec", "template", "metadata", "annotations", KEY]); sorted.
	Fields []FieldPath `json:"fields"`
	// Unread says why the entry's fields could not be read (a fieldsType
	// nestor does not know, a fieldsV1 that does not parse); "" when
	// they were.
	Unread string `json:"fields_unread,omitempty"`
}

// FieldPath is a path of an object's fields, one element each: a field's
// name, or a list item's key as structured-merge-diff writes it
// ("[name=\"coredns\"]").
type FieldPath []string

// String writes p as structured-merge-diff's fieldpath does
// (".spec.template", ".metadata.labels.k8s.scw.cloud/system").
func (p FieldPath) String() string {
	var b strings.Builder
	for _, e := range p {
		if !strings.HasPrefix(e, "[") {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return b.String()
}

// restartedAt is the pod template annotation `kubectl rollout restart` (and
// the tools that restart a workload the same way) set to make new pods:
// a request for new pods, not an edit of the workload's configuration
// (kubectl pkg/polymorphichelpers/objectrestarter.go).
const restartedAt = "kubectl.kubernetes.io/restartedAt"

// content reports whether write w owns more than the object's metadata and
// status, a restart's annotation apart: its spec, data, rules… A write
// through the status subresource never does.
func (w ObjectWrite) content() bool {
	if w.Subresource == "status" {
		return false
	}
	for _, f := range w.Fields {
		if len(f) == 0 || f[0] == "metadata" || f[0] == "status" {
			continue
		}
		if len(f) == 5 && f[0] == "spec" && f[1] == "template" && f[2] == "metadata" && f[3] == "annotations" && f[4] == restartedAt {
			continue
		}
		return true
	}
	return false
}

// owns reports whether w owns the label (or, with annotation, the
// annotation) key.
func (w ObjectWrite) owns(key string, annotation bool) bool {
	where := "labels"
	if annotation {
		where = "annotations"
	}
	for _, f := range w.Fields {
		if len(f) == 3 && f[0] == "metadata" && f[1] == where && f[2] == key {
			return true
		}
	}
	return false
}

// later reports whether a was written after b (both times known).
func later(a, b *time.Time) bool { return a != nil && b != nil && a.After(*b) }

// Derive fills each object's Owner, ProviderWrite, Edits and Unjudged, and
// the Counts, from the lists read. The rule, for the marks m:
//
//   - an object carrying one of m.Labels (or, with m.ManagersMark, written
//     by one of m.Managers) is the provider's; one without, written only by
//     Kubernetes' control plane (kube-apiserver, kube-controller-manager,
//     kube-scheduler), is Kubernetes'; any other is yours;
//   - the provider's write is the latest of its writes by one of
//     m.Managers; when none is, the earliest write that owns one of its
//     marks (or the mode): the provider set them first, and its manager is
//     then the provider's. None found, or none with a time: the object is
//     unjudged, and says why;
//   - an edit is a write by another manager (Update or Apply), later than
//     the provider's write, that owns more than the object's metadata and
//     status (content: spec, data…), or that owns one of its marks or its
//     mode. A write through the status subresource is a controller
//     reporting, never an edit; metadata (labels, annotations) and a
//     rollout restart's annotation are not the object's configuration.
//
// What this cannot see: an edit made with one of the provider's own
// managers (a client-side `kubectl apply` writes as
// kubectl-client-side-apply, whoever runs it), an edit older than the
// provider's latest write, and an edit within the same second as it
// (managedFields times are in seconds).
func (p *ProviderObjects) Derive() {
	if p == nil {
		return
	}
	c := ProviderObjectCounts{Complete: true}
	for li := range p.Lists {
		l := &p.Lists[li]
		if !l.Objects.Known {
			c.Complete = false
			continue
		}
		for oi := range l.Objects.Value {
			o := &l.Objects.Value[oi]
			p.Marks.derive(o)
			switch {
			case o.Owner == OwnerKubernetes:
				c.Kubernetes++
			case o.Owner == OwnerYours:
				c.Yours++
			default:
				c.Provider++
				if o.Unjudged != "" {
					c.Unjudged++
				} else if len(o.Edits) > 0 {
					c.Edited++
				}
			}
		}
	}
	p.Counts = c
}

// derive applies Derive's rule to o.
func (m ProviderMarks) derive(o *NamespaceObject) {
	o.Owner, o.ProviderWrite, o.Edits, o.Unjudged = "", nil, nil, ""
	byProvider := func(w ObjectWrite) bool { return slices.Contains(m.Managers, w.Manager) }
	marked := len(o.Marks) > 0
	if m.ManagersMark && slices.ContainsFunc(o.Writes, byProvider) {
		marked = true
	}
	if !marked {
		o.Owner = OwnerYours
		wrote := false
		for _, w := range o.Writes {
			if w.Subresource == "status" {
				continue
			}
			wrote = true
			if !slices.Contains(kubernetesManagers, w.Manager) {
				return
			}
		}
		if wrote {
			o.Owner = OwnerKubernetes
		}
		return
	}
	o.Owner = OwnerProvider
	ownsMark := func(w ObjectWrite) bool {
		for k := range o.Marks {
			if w.owns(k, false) {
				return true
			}
		}
		return m.ModeKey != "" && (w.owns(m.ModeKey, false) || w.owns(m.ModeKey, true))
	}
	// The provider's write: the latest by one of its managers; else the
	// earliest that owns a mark (the provider set the marks first; a later
	// owner of them, a user applying the same labels, is not the provider).
	byManager := slices.ContainsFunc(o.Writes, func(w ObjectWrite) bool { return w.Subresource != "status" && byProvider(w) })
	var at *ObjectWrite
	for i, w := range o.Writes {
		switch {
		case w.Subresource == "status":
		case byManager && byProvider(w):
			if at == nil || later(w.Time, at.Time) || (at.Time == nil && w.Time != nil) {
				at = &o.Writes[i]
			}
		case !byManager && ownsMark(w):
			if at == nil || later(at.Time, w.Time) || (at.Time == nil && w.Time != nil) {
				at = &o.Writes[i]
			}
		}
	}
	switch {
	case len(o.Writes) == 0:
		o.Unjudged = "it records no writes (no metadata.managedFields): who edited it is not known"
		return
	case at == nil:
		o.Unjudged = fmt.Sprintf("none of its writes is by %s, nor owns its marks: the provider's write is not known", cmp.Or(kube.JoinOr(m.Managers), "the provider's managers"))
		return
	case at.Time == nil:
		o.Unjudged = "the provider's write (" + at.Manager + ") carries no time: what came after it is not known"
		return
	}
	pw := *at
	o.ProviderWrite = &pw
	provider := byProvider
	if !byManager {
		provider = func(w ObjectWrite) bool { return w.Manager == pw.Manager }
	}
	for _, w := range o.Writes {
		if w.Subresource == "status" || provider(w) || !later(w.Time, pw.Time) {
			continue
		}
		if w.Unread != "" {
			o.Edits = nil
			o.Unjudged = "the write by " + w.Manager + " at " + stamp(w.Time) + ", after the provider's, is not readable: " + w.Unread
			return
		}
		if w.content() || ownsMark(w) {
			o.Edits = append(o.Edits, w)
		}
	}
}

// ProviderObjectsSubject is the provider's objects of resources (as
// Kubernetes names them, "configmaps") in namespace ns, as lists that were
// read.
func ProviderObjectsSubject(ns string, resources []string) Subject {
	return Subject{Kind: SubjectProviderObjects, Name: ns, Key: KeyName, Text: kube.JoinAnd(resources) + " in " + ns}
}

// ProviderObjectSubject is the object kind ns/name of a provider's
// namespace.
func ProviderObjectSubject(kind, ns, name string) Subject {
	ref := kind + " " + ns + "/" + name
	return Subject{Kind: SubjectProviderObject, Name: ref, Key: KeyName, Text: ref}
}

// stamp writes a write's time for a message (UTC, to the second).
func stamp(t *time.Time) string {
	if t == nil {
		return "an unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// fieldList writes the fields of w that are not metadata or status
// (".data.Corefile, .spec.replicas"), else the marks it owns.
func fieldList(w ObjectWrite) string {
	var out []string
	for _, f := range w.Fields {
		if len(f) > 0 && f[0] != "metadata" && f[0] != "status" {
			out = append(out, f.String())
		}
	}
	if len(out) == 0 {
		for _, f := range w.Fields {
			if len(f) == 3 && f[0] == "metadata" {
				out = append(out, f.String())
			}
		}
	}
	return strings.Join(out, ", ")
}

// JudgeProviderObjects returns what p's objects add to a plan (p nil:
// nothing): a warning finding for each of the provider's objects edited
// after the provider's write (Derive), naming who and when, and what the
// provider does with it by its mode — AddonReconcile: the provider reverts
// it; AddonEnsureExists: it is yours from now on (the upstream addon
// manager only re-creates a missing one); no mode: the marks say nothing
// of it —; an unknown part for each reason a list was not read (no
// finding rests on an unread list) and for each provider's object whose
// edits cannot be judged. Derive must have run. It is pure.
func JudgeProviderObjects(p *ProviderObjects) ([]Finding, []UnknownPart) {
	if p == nil {
		return nil, nil
	}
	m := p.Marks
	var findings []Finding
	var unknowns []UnknownPart
	var order []Why
	unread := map[Why][]string{}
	for _, l := range p.Lists {
		if l.Objects.Known {
			continue
		}
		why := l.Objects.Why()
		if _, ok := unread[why]; !ok {
			order = append(order, why)
		}
		unread[why] = append(unread[why], l.Resource)
	}
	for _, why := range order {
		unknowns = append(unknowns, UnknownOf(ProviderObjectsSubject(m.Namespace, unread[why]), why.Code, why.Text))
	}
	reach := "the object's metadata.managedFields: an edit with the provider's own field manager (" + cmp.Or(kube.JoinOr(m.Managers), "its managers") + ") or older than the provider's last write is not seen"
	for _, l := range p.Lists {
		if !l.Objects.Known {
			continue
		}
		objs := slices.Clone(l.Objects.Value)
		sort.Slice(objs, func(i, j int) bool { return objs[i].Name < objs[j].Name })
		for _, o := range objs {
			if o.Owner != OwnerProvider {
				continue
			}
			subject := ProviderObjectSubject(o.Kind, m.Namespace, o.Name)
			if o.Unjudged != "" {
				unknowns = append(unknowns, UnknownOf(subject, ReasonNotReported, "edits not judged: "+o.Unjudged))
				continue
			}
			if len(o.Edits) == 0 {
				continue
			}
			var by []string
			for _, e := range o.Edits {
				by = append(by, fmt.Sprintf("%s (%s at %s: %s)", e.Manager, e.Operation, stamp(e.Time), fieldList(e)))
			}
			msg := fmt.Sprintf("edited by %s, after the provider's write (%s at %s); %s", kube.JoinAnd(by), o.ProviderWrite.Manager, stamp(o.ProviderWrite.Time), modeWords(m, o.Mode))
			findings = append(findings, Finding{Severity: SeverityWarning, Kind: FindingProviderObjectEdited, Subject: subject, Message: msg, Source: m.Source, Reach: reach})
		}
	}
	return findings, unknowns
}

// modeWords says what the provider does with an edited object of mode.
func modeWords(m ProviderMarks, mode string) string {
	switch {
	case m.ModeKey == "":
		return "what " + m.Provider + " does with an edited object is not said by its marks: keep kube-system as " + m.Provider + " delivered it, or make the object yours"
	case mode == AddonReconcile:
		return mode + ": the provider reverts this (your change does not last)"
	case mode == AddonEnsureExists:
		return mode + ": yours from now on (the provider only re-creates it if it is deleted; its upgrades no longer update it)"
	case mode == "":
		return "no " + m.ModeKey + ": whether the provider reverts it or leaves it to you is not said; a modified preinstalled component is yours to maintain"
	}
	return fmt.Sprintf("%s %q, which nestor does not know: what the provider does with it is not known", m.ModeKey, mode)
}
