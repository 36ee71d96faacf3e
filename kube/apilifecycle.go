package kube

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The table of apilifecycle_gen.go is generated from k8s.io/api (go.mod's
// version) by ./internal/genapilifecycle; TestAPILifecycleFresh fails when
// go.mod moves and the table does not.
//go:generate go run ./internal/genapilifecycle

// GroupVersionKind names a kind of a Kubernetes API group version. Group ""
// is the core group.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// GroupVersion returns "GROUP/VERSION", or "VERSION" for the core group
// ("v1"), as discovery writes a groupVersion; "" for the zero value.
func (g GroupVersionKind) GroupVersion() string { return JoinGroupVersion(g.Group, g.Version) }

// IsZero reports whether g names nothing.
func (g GroupVersionKind) IsZero() bool { return g == GroupVersionKind{} }

// APILifecycle is one kind's lifecycle as k8s.io/api's generated methods
// state it (zz_generated.prerelease-lifecycle.go of each group version,
// written by prerelease-lifecycle-gen from the types' "+k8s:prerelease-
// lifecycle-gen:introduced/deprecated/removed/replacement" tags; a missing
// deprecated tag defaults to introduced + 3 minors and a missing removed tag
// to deprecated + 3). Each release is "MAJOR.MINOR", "" when none is
// recorded: a GA kind has Introduced only.
type APILifecycle struct {
	Group      string `json:"group"`
	Version    string `json:"version"`
	Kind       string `json:"kind"`
	Introduced string `json:"introduced,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	// Removed is the first minor whose API server no longer serves the
	// kind (k8s.io/apiserver pkg/server/deleted_kinds.go: a kind is served
	// while its removed release is newer than the server's minor).
	Removed string `json:"removed,omitempty"`
	// Replacement is the kind to use instead, zero when none is recorded.
	// It is upstream's tag as written (networking.k8s.io/v1beta1
	// IngressClass names IngressClassList).
	Replacement GroupVersionKind `json:"replacement,omitzero"`
	// Resource is the resource the kind is served as ("deviceclasses"), as
	// k8s.io/client-go's typed clientset names it; "" for a kind served only
	// as a subresource (Scale, Eviction), a list, or an option kind.
	Resource string `json:"resource,omitempty"`
}

// APILifecycleSource returns the module version the lifecycle table was
// generated from ("k8s.io/api v0.37.2") and its horizon: the Kubernetes
// minor that module ships with (1.37), the newest whose removals the table
// knows.
func APILifecycleSource() (module string, horizon Version) {
	return apiLifecycleModule, ParseVersion(apiLifecycleHorizon)
}

// LookupAPILifecycle returns the lifecycle of kind gvk and whether the table
// holds it. List kinds whose lifecycle only repeats their item's are not in
// the table.
func LookupAPILifecycle(gvk GroupVersionKind) (APILifecycle, bool) {
	i, ok := sort.Find(len(apiLifecycleTable), func(i int) int {
		r := apiLifecycleTable[i]
		return compareGVK(gvk, GroupVersionKind{r.Group, r.Version, r.Kind})
	})
	if !ok {
		return APILifecycle{}, false
	}
	return apiLifecycleTable[i], true
}

func compareGVK(a, b GroupVersionKind) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	if c := strings.Compare(a.Version, b.Version); c != 0 {
		return c
	}
	return strings.Compare(a.Kind, b.Kind)
}

// ServedGroupVersion is a group version an API server serves, as discovery
// lists it (/api and /apis, or the aggregated discovery document).
type ServedGroupVersion struct {
	// GroupVersion is discovery's groupVersion: "GROUP/VERSION", or
	// "VERSION" for the core group ("v1").
	GroupVersion string
	// Kinds are the kinds of the group version's resources as discovery
	// lists them (each APIResource's Kind, subresources left out). Empty
	// when its resources were not read.
	Kinds []string
}

// APIRemovalReport is what moving to a target minor stops serving among the
// group versions a cluster serves, as far as the lifecycle table reaches.
type APIRemovalReport struct {
	// Target is the target minor ("1.32").
	Target string `json:"target"`
	// Source is the table's module ("k8s.io/api v0.37.2").
	Source string `json:"source"`
	// Horizon is the newest minor the table knows ("1.37").
	Horizon string `json:"horizon"`
	// Beyond is true when Target is newer than Horizon: what Kubernetes
	// decides after Horizon is not known, so Removals holds only what the
	// table knows (possibly nothing) and never means "nothing else".
	Beyond bool `json:"beyond"`
	// Removals are the served group versions that Target no longer serves
	// wholly or in part, sorted by group version.
	Removals []APIRemoval `json:"removals"`
	// Unknown are served built-in group versions, or kinds of them, the
	// table does not hold, with the reason: whether Target serves them is
	// not known.
	Unknown []APIRemovalUnknown `json:"unknown"`
	// NotCovered are the served group versions of groups k8s.io/api does not
	// hold (CustomResourceDefinitions, aggregated APIs such as
	// metrics.k8s.io, or a built-in group since deleted from k8s.io/api):
	// the table says nothing of them. Sorted.
	NotCovered []string `json:"not_covered"`
}

// APIRemoval is one served group version that the target minor stops
// serving, wholly or in part.
type APIRemoval struct {
	// GroupVersion is "GROUP/VERSION" ("v1" for the core group).
	GroupVersion string `json:"group_version"`
	// Target is the minor judged ("1.39").
	Target string `json:"target"`
	// Kinds are its kinds that the target no longer serves, sorted.
	Kinds []RemovedKind `json:"kinds"`
	// Whole is true when the target stops serving the group version: every
	// kind the cluster serves in it is in Kinds and the table holds no
	// other resource of it that the target still serves (Remaining empty).
	Whole bool `json:"whole"`
	// Remaining are the resources of the group version the table says the
	// target still serves (removed later, or never), sorted by kind: the
	// group version itself stays, for them.
	Remaining []RemainingKind `json:"remaining,omitempty"`
	// KindsUnread is true when the cluster's kinds of the group version were
	// not read: Kinds are then every kind of it the table says the target no
	// longer serves, whether the cluster serves each now or not.
	KindsUnread bool `json:"kinds_unread"`
}

// RemovedKind is one kind a target minor no longer serves.
type RemovedKind struct {
	Kind string `json:"kind"`
	// Resource is the resource it is served as ("deviceclasses",
	// APILifecycle.Resource), "" when the table names none.
	Resource   string `json:"resource,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	// Removed is the first minor that does not serve it ("1.32").
	Removed string `json:"removed"`
	// Replacement is the kind to use instead, zero when none is recorded.
	Replacement GroupVersionKind `json:"replacement,omitzero"`
	// Planned is true when Removed is newer than the table's horizon: the
	// release the table's k8s.io/api plans, not one that has shipped.
	Planned bool `json:"planned"`
}

// RemainingKind is a resource of a group version that a target minor
// still serves while it stops serving others of it.
type RemainingKind struct {
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
	// Removed is the first minor that does not serve it, "" when none is
	// recorded; Planned when that minor is beyond the table's horizon.
	Removed string `json:"removed,omitempty"`
	Planned bool   `json:"planned,omitempty"`
	// Served is true when the cluster serves it now (false when it does
	// not, or when the group version's kinds were not read).
	Served bool `json:"served"`
}

// APIRemovalUnknown is a served group version (Kind "") or kind whose fate
// in the target minor the table does not know, and why.
type APIRemovalUnknown struct {
	GroupVersion string `json:"group_version"`
	Kind         string `json:"kind,omitempty"`
	Reason       string `json:"reason"`
}

// APIRemovals returns what target (a known version; only its minor counts)
// stops serving among served, the group versions a cluster serves now (from
// discovery): each served kind whose removed release (APILifecycle.Removed)
// is target's minor or older, grouped by group version, with its
// replacement. A kind whose removed release is newer than target is still
// served there. The rule is the API server's (k8s.io/apiserver
// pkg/server/deleted_kinds.go, ShouldServeForVersion: a kind is served while
// its removed release is newer than the server's minor; an administrator's
// KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE can keep it one minor
// more, which nestor cannot see). Alpha group versions may also be dropped
// in any release without deprecation (Kubernetes Deprecation Policy, rule
// 4a): for them the table is what k8s.io/api records, no promise.
//
// A served group version whose group k8s.io/api does not hold goes to
// NotCovered; a built-in group version or kind the table does not hold goes
// to Unknown with the reason, as does a groupVersion that does not parse.
// Beyond the table's horizon the report's Beyond is set: its Removals are
// then a floor, never "none". The error is for a target that is not a
// known version.
func APIRemovals(served []ServedGroupVersion, target Version) (APIRemovalReport, error) {
	if !target.Known {
		return APIRemovalReport{}, fmt.Errorf("target version %q: %s", target.Raw, target.Reason)
	}
	horizon := ParseVersion(apiLifecycleHorizon)
	rep := APIRemovalReport{
		Target:     target.MinorString(),
		Source:     apiLifecycleModule,
		Horizon:    horizon.MinorString(),
		Beyond:     CompareMinor(target, horizon) > 0,
		Removals:   []APIRemoval{},
		Unknown:    []APIRemovalUnknown{},
		NotCovered: []string{},
	}
	kinds, order := mergeServed(served)
	for _, gvs := range order {
		group, version, ok := splitGroupVersion(gvs)
		if !ok {
			rep.Unknown = append(rep.Unknown, APIRemovalUnknown{GroupVersion: gvs,
				Reason: fmt.Sprintf("discovery listed %q, which is not a group version (GROUP/VERSION or VERSION)", gvs)})
			continue
		}
		gv := JoinGroupVersion(group, version)
		switch {
		case !builtinGroup(group):
			rep.NotCovered = append(rep.NotCovered, gv)
			continue
		case !slices.Contains(builtinGroupVersions, gv):
			rep.Unknown = append(rep.Unknown, APIRemovalUnknown{GroupVersion: gv,
				Reason: fmt.Sprintf("%s holds group %s but not its version %s: whether %s serves it is not known here", apiLifecycleModule, groupName(group), version, rep.Target)})
			continue
		}
		r := APIRemoval{GroupVersion: gv, Target: rep.Target, Kinds: []RemovedKind{}}
		servedKinds := kinds[gvs]
		if len(servedKinds) == 0 {
			r.KindsUnread = true
			for _, row := range apiLifecycleTable {
				if row.Group == group && row.Version == version && row.Resource != "" {
					servedKinds = append(servedKinds, row.Kind)
				}
			}
		}
		for _, k := range servedKinds {
			row, found := LookupAPILifecycle(GroupVersionKind{group, version, k})
			if !found {
				rep.Unknown = append(rep.Unknown, APIRemovalUnknown{GroupVersion: gv, Kind: k,
					Reason: fmt.Sprintf("%s does not hold kind %s of %s: whether %s serves it is not known here", apiLifecycleModule, k, gv, rep.Target)})
				continue
			}
			if row.Removed == "" {
				continue
			}
			removed := ParseVersion(row.Removed)
			if CompareMinor(removed, target) > 0 {
				continue
			}
			r.Kinds = append(r.Kinds, RemovedKind{Kind: k, Resource: row.Resource, Deprecated: row.Deprecated, Removed: row.Removed,
				Replacement: row.Replacement, Planned: CompareMinor(removed, horizon) > 0})
		}
		if len(r.Kinds) == 0 {
			continue
		}
		sort.Slice(r.Kinds, func(i, j int) bool { return r.Kinds[i].Kind < r.Kinds[j].Kind })
		r.Remaining = remainingKinds(group, version, target, horizon, r.Kinds, servedKinds, r.KindsUnread)
		r.Whole = !r.KindsUnread && len(r.Kinds) == len(servedKinds) && len(r.Remaining) == 0
		rep.Removals = append(rep.Removals, r)
	}
	sort.Slice(rep.Removals, func(i, j int) bool { return rep.Removals[i].GroupVersion < rep.Removals[j].GroupVersion })
	sort.Slice(rep.Unknown, func(i, j int) bool {
		a, b := rep.Unknown[i], rep.Unknown[j]
		return a.GroupVersion < b.GroupVersion || a.GroupVersion == b.GroupVersion && a.Kind < b.Kind
	})
	sort.Strings(rep.NotCovered)
	return rep, nil
}

// remainingKinds are the resources of group version group/version that the
// table says target still serves (APILifecycle.Resource set, introduced by
// target, removed after it or never), other than removed, sorted by kind;
// each Served when
// served (the cluster's kinds of it) lists it and the kinds were read.
func remainingKinds(group, version string, target, horizon Version, removed []RemovedKind, served []string, unread bool) []RemainingKind {
	var out []RemainingKind
	for _, row := range apiLifecycleTable {
		if row.Group != group || row.Version != version || row.Resource == "" ||
			slices.ContainsFunc(removed, func(k RemovedKind) bool { return k.Kind == row.Kind }) {
			continue
		}
		rm := ParseVersion(row.Removed)
		if row.Removed != "" && CompareMinor(rm, target) <= 0 ||
			row.Introduced != "" && CompareMinor(ParseVersion(row.Introduced), target) > 0 {
			continue
		}
		out = append(out, RemainingKind{Kind: row.Kind, Resource: row.Resource, Removed: row.Removed,
			Planned: row.Removed != "" && CompareMinor(rm, horizon) > 0, Served: !unread && slices.Contains(served, row.Kind)})
	}
	return out
}

// mergeServed returns each distinct groupVersion of served (spaces
// trimmed) with the union of its kinds, deduplicated and sorted, and the
// distinct groupVersions in order of first appearance.
func mergeServed(served []ServedGroupVersion) (map[string][]string, []string) {
	kinds := map[string][]string{}
	var order []string
	for _, s := range served {
		gv := strings.TrimSpace(s.GroupVersion)
		if _, seen := kinds[gv]; !seen {
			order = append(order, gv)
			kinds[gv] = nil
		}
		for _, k := range s.Kinds {
			if k = strings.TrimSpace(k); k != "" && !slices.Contains(kinds[gv], k) {
				kinds[gv] = append(kinds[gv], k)
			}
		}
	}
	for _, k := range kinds {
		sort.Strings(k)
	}
	return kinds, order
}

// splitGroupVersion splits discovery's groupVersion: "GROUP/VERSION", or
// "VERSION" alone for the core group. Neither part may be empty nor hold a
// "/" or a space.
func splitGroupVersion(s string) (group, version string, ok bool) {
	group, version, hasSlash := strings.Cut(s, "/")
	if !hasSlash {
		group, version = "", s
	}
	valid := func(p string) bool { return p != "" && !strings.ContainsAny(p, "/ \t\r\n") }
	if !valid(version) || hasSlash && !valid(group) {
		return "", "", false
	}
	return group, version, true
}

func JoinGroupVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// builtinGroup reports whether k8s.io/api holds a version of group.
func builtinGroup(group string) bool {
	for _, gv := range builtinGroupVersions {
		g, _, ok := splitGroupVersion(gv)
		if ok && g == group {
			return true
		}
	}
	return false
}

func groupName(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

// Message says what r means for the cluster, in the words of a plan
// finding: "the cluster serves flowcontrol.apiserver.k8s.io/v1beta3; 1.32
// stops serving it (use v1)". When the target stops serving only some of
// the group version's resources, they are named ("the cluster serves
// resource.k8s.io/v1beta2 deviceclasses (DeviceClass), …; 1.39 is to stop
// serving them …") and so are those it still serves, for which the group
// version itself stays ("; resource.k8s.io/v1beta2 itself is still served
// by 1.39 for devicetaintrules (DeviceTaintRule, to be removed in 1.42)").
// Kinds that differ in removed release or replacement are named one by
// one: "1.16 stops serving NetworkPolicy (use networking.k8s.io/v1), 1.22
// stops serving Ingress (use networking.k8s.io/v1)". A planned removal says
// "is to stop serving", as k8s.io/api plans it; unread kinds say so.
func (r APIRemoval) Message() string {
	if len(r.Kinds) == 0 {
		return ""
	}
	group, _, _ := splitGroupVersion(r.GroupVersion)
	names := make([]string, len(r.Kinds))
	for i, k := range r.Kinds {
		names[i] = k.Kind
	}
	var head string
	switch {
	case r.KindsUnread:
		head = fmt.Sprintf("the cluster serves %s (its kinds were not read)", r.GroupVersion)
	case r.Whole:
		head = "the cluster serves " + r.GroupVersion
	default:
		served := make([]string, len(r.Kinds))
		for i, k := range r.Kinds {
			served[i] = kindWords(k.Resource, k.Kind, "")
		}
		head = fmt.Sprintf("the cluster serves %s %s", r.GroupVersion, strings.Join(served, ", "))
	}
	tail := r.remainingWords()
	// One clause per (removed release, replacement) when all kinds share it.
	first := r.Kinds[0]
	same := true
	for _, k := range r.Kinds[1:] {
		if k.Removed != first.Removed || k.Planned != first.Planned || replacementWords(group, k) != replacementWords(group, first) {
			same = false
		}
	}
	if same {
		what := "it"
		if r.KindsUnread {
			what = "its kinds " + strings.Join(names, ", ")
		} else if !r.Whole {
			what = "them"
			if len(names) == 1 {
				what = "it"
			}
		}
		return fmt.Sprintf("%s; %s %s (%s)%s", head, first.Removed, stopWords(first, what), replacementWords(group, first), tail)
	}
	byRelease := slices.Clone(r.Kinds)
	sort.SliceStable(byRelease, func(i, j int) bool {
		return CompareMinor(ParseVersion(byRelease[i].Removed), ParseVersion(byRelease[j].Removed)) < 0
	})
	clauses := make([]string, len(byRelease))
	for i, k := range byRelease {
		clauses[i] = fmt.Sprintf("%s %s (%s)", k.Removed, stopWords(k, k.Kind), replacementWords(group, k))
	}
	return head + "; " + strings.Join(clauses, ", ") + tail
}

// kindWords names a kind by its resource: "deviceclasses (DeviceClass)",
// with more words after the kind ("deviceclasses (DeviceClass, removed in
// 1.42)"); the kind alone when the table names no resource.
func kindWords(resource, kind, more string) string {
	if resource == "" {
		if more == "" {
			return kind
		}
		return kind + " (" + more + ")"
	}
	if more != "" {
		kind += ", " + more
	}
	return resource + " (" + kind + ")"
}

// remainingWords is the clause that says the group version itself stays,
// and for which resources: "; resource.k8s.io/v1beta2 itself is still
// served by 1.39 for devicetaintrules (DeviceTaintRule, to be removed in
// 1.42, not served by this cluster now)"; "" when nothing remains.
func (r APIRemoval) remainingWords() string {
	if len(r.Remaining) == 0 {
		return ""
	}
	items := make([]string, len(r.Remaining))
	for i, k := range r.Remaining {
		var more []string
		switch {
		case k.Removed != "" && k.Planned:
			more = append(more, "to be removed in "+k.Removed)
		case k.Removed != "":
			more = append(more, "removed in "+k.Removed)
		}
		if !k.Served && !r.KindsUnread {
			more = append(more, "not served by this cluster now")
		}
		items[i] = kindWords(k.Resource, k.Kind, strings.Join(more, ", "))
	}
	target := r.Target
	if target == "" {
		target = "the target"
	}
	return fmt.Sprintf("; %s itself is still served by %s for %s", r.GroupVersion, target, JoinAnd(items))
}

func stopWords(k RemovedKind, what string) string {
	if k.Planned {
		return fmt.Sprintf("is to stop serving %s, as %s plans", what, apiLifecycleModule)
	}
	return "stops serving " + what
}

// replacementWords is "use V" for a replacement in the same group and of
// the same kind, "use GROUP/V" in another group, with " KIND" added when
// the kind differs; "no replacement recorded" when there is none.
func replacementWords(group string, k RemovedKind) string {
	rp := k.Replacement
	if rp.IsZero() {
		return "no replacement recorded"
	}
	s := "use " + rp.GroupVersion()
	if rp.Group == group {
		s = "use " + rp.Version
	}
	if rp.Kind != k.Kind {
		s += " " + rp.Kind
	}
	return s
}
