package topology

import "time"

// StatusResource is one kind of object whose status says whether a layer
// does its job: a CephCluster's Ceph health, a Prometheus' Available
// condition, an issuer's Ready condition. The catalog declares them per layer
// (LayerDef.Status); a custom layer's detect.resource becomes one that names
// a single object.
type StatusResource struct {
	// Group is the API group ("ceph.rook.io"); "" for the core group.
	Group string `json:"group"`
	// Versions are the served versions whose fields nestor decodes,
	// preferred first: the reader lists the first one the server serves
	// (its discovery). When the server serves none of them, and the group
	// serves none either, no such object can exist: a known empty list.
	Versions []string `json:"versions"`
	// Resource is the plural the API serves ("cephclusters"). A custom
	// layer's resource leaves it "": the reader finds it from Kind with
	// discovery.
	Resource string `json:"resource,omitempty"`
	Kind     string `json:"kind"`
	// Namespaced is whether objects of the kind live in namespaces; a
	// namespaced resource is listed across all namespaces.
	Namespaced bool `json:"namespaced"`
	// Namespace and Name are set for a custom layer's resource only: that
	// one object is read (a get, not a list). Namespace "" is a
	// cluster-scoped object.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Fields are the paths, dotted from the object's root, that nestor
	// decodes into StatusObject.Fields, beyond what every StatusObject
	// holds (metadata, status.observedGeneration, status.conditions).
	Fields []string `json:"fields,omitempty"`
	// Checks is the dotted path of a map of named health checks, each
	// {severity, message}, that nestor decodes into StatusObject.Checks
	// (Rook's status.ceph.details, its copy of Ceph's health checks); ""
	// for none.
	Checks string `json:"checks,omitempty"`
	// Annotations are the metadata.annotations nestor decodes into
	// StatusObject.Annotations (CloudNativePG's
	// cnpg.io/reconciliationLoop).
	Annotations []string `json:"annotations,omitempty"`
	// Decides is true when the layer's health depends on this resource:
	// a list that could not be read then makes the layer unknown. A
	// resource that only tells about what runs on the layer (Argo CD
	// Applications, Certificates) has Decides false: its objects give
	// findings, and an unread list is a finding of its own.
	Decides bool `json:"decides"`
	// Source names the upstream API reference and health rule the fields
	// and their meaning were read from.
	Source string `json:"source"`
}

// Key names r in StatusFacts.Lists: "cephclusters.ceph.rook.io" (the
// CRD's name), or for one named object "Widget.example.io/NS/NAME"
// ("Widget.example.io//NAME" when cluster-scoped).
func (r StatusResource) Key() string {
	if r.Name != "" {
		return r.Kind + "." + r.Group + "/" + r.Namespace + "/" + r.Name
	}
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// StatusFacts is what the reader read of the status resources: each
// StatusResource's objects by Key, and when it read them. A resource that
// is not in Lists was not read (unknown); a list that failed is an
// unknown Fact with the reason (probes.Classify's words).
type StatusFacts struct {
	// ReadAt is when the lists were read, the clock the status's own
	// times (Ceph's lastChecked, a certificate's renewalTime) are judged
	// against.
	ReadAt time.Time                       `json:"read_at"`
	Lists  map[string]Fact[[]StatusObject] `json:"lists"`
}

// StatusObject is one object of a status resource, as DecodeStatusObject
// decodes it: its identity, the status fields every kind shares, and the
// resource's declared Fields.
type StatusObject struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Generation is metadata.generation (0 when not given).
	Generation int64 `json:"generation,omitempty"`
	// Created is metadata.creationTimestamp (zero when not given).
	Created time.Time `json:"created,omitzero"`
	// Deleting is true when metadata.deletionTimestamp is set.
	Deleting bool `json:"deleting,omitempty"`
	// HasStatus is false when the object has no status, an empty one, or
	// one that holds only an observedGeneration below 1 (the default
	// Flux's CRDs give status): its operator has not reported on it yet.
	HasStatus bool `json:"has_status"`
	// ObservedGeneration is status.observedGeneration; HasObserved says
	// whether the field is there at all.
	ObservedGeneration int64 `json:"observed_generation,omitempty"`
	HasObserved        bool  `json:"has_observed,omitempty"`
	// Conditions are status.conditions, in the object's order.
	Conditions []Condition `json:"conditions,omitempty"`
	// Fields holds each declared field the object has, as text: a string
	// as is, a number or a boolean as JSON writes it.
	Fields map[string]string `json:"fields,omitempty"`
	// Annotations holds each of the resource's declared Annotations the
	// object carries.
	Annotations map[string]string `json:"annotations,omitempty"`
	// Checks are a CephCluster's status.ceph.details (Ceph's health
	// checks), sorted by name; empty for every other kind.
	Checks []HealthCheck `json:"checks,omitempty"`

	// Raw is the whole object, kept for a custom layer's one object only,
	// so that kstatus judges it with every field it knows (see kstatusOf).
	Raw map[string]any `json:"-"`
}

// Condition is one entry of status.conditions (the shape of
// k8s.io/apimachinery metav1.Condition, which every status resource here
// follows; Longhorn's adds lastProbeTime, not decoded).
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	ObservedGeneration int64     `json:"observed_generation,omitempty"`
	LastTransition     time.Time `json:"last_transition,omitzero"`
}

// HealthCheck is one of Ceph's health checks as Rook copies them into
// status.ceph.details: the check's name ("PG_AVAILABILITY"), its severity
// ("HEALTH_WARN", "HEALTH_ERR"; Rook writes "Urgent" for its own "ceph
// status" failure) and its summary message.
type HealthCheck struct {
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// StatusVerdict is what a layer's status resources say (JudgeStatus).
type StatusVerdict struct {
	// Health is Healthy, Degraded, Suspended or Unknown; "" when the layer
	// declares no status resource (its workloads alone decide).
	Health Health `json:"health,omitempty"`
	// Words say why in a few words: "Ceph HEALTH_OK", "Ceph HEALTH_ERR:
	// Reduced data availability: 64 pgs inactive; 2 osds down, checked 40 s
	// ago", "CephCluster rook-ceph/rook-ceph: not reported yet".
	Words string `json:"words,omitempty"`
	// Progressing is true when what is not healthy is moving (an operator
	// reconciling, a replica being created): Health is then Degraded, and
	// the words say it progresses.
	Progressing bool `json:"progressing,omitempty"`
	// Code is why an Unknown verdict is unknown: an unread list's code,
	// else ReasonNotReported (an object whose owner reported nothing nestor
	// can judge).
	Code ReasonCode `json:"reason_code,omitempty"`
	// OnlyAbsentObjects says a Degraded verdict rests only on objects the
	// layer must have not existing ("no Prometheus resource"): true of a
	// layer that runs, nothing of one whose presence is not known.
	OnlyAbsentObjects bool `json:"-"`
	// Resources say, per status resource, what was read and what each
	// object says.
	Resources []ResourceReport `json:"resources,omitempty"`
	// Findings are about what runs on the layer (an Application degraded,
	// a Certificate not renewed): they never change Health.
	Findings []Finding `json:"findings,omitempty"`
}

// ResourceReport is one status resource of a layer: read or not, and what
// each of its objects says.
type ResourceReport struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Known is false when the list could not be read; Reason says why.
	Known   bool           `json:"known"`
	Reason  string         `json:"reason,omitempty"`
	Decides bool           `json:"decides"`
	Objects []ObjectReport `json:"objects,omitempty"`
}

// ObjectReport is what one object's status says.
type ObjectReport struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Health is this object's: Healthy, Degraded, Progressing (not yet
	// what it should be, its operator at work), Suspended (its operator
	// told to stop acting on it) or Unknown.
	Health Health `json:"health"`
	// Progressing is true when Health is Progressing (kept for the
	// readers of format version 1, which saw such an object as degraded
	// and progressing).
	Progressing bool `json:"progressing,omitempty"`
	// Says is what its status says, in a few words ("HEALTH_OK",
	// "Ready False (SecretSyncedError): could not get secret data").
	Says string `json:"says"`
}

// Finding kinds of the status rules (each operator's file in package health says its rule and its
// source). Each is about one object that runs on a layer, or a status
// list that could not be read.
const (
	// FindingApplication: an Argo CD Application not Healthy, not Synced,
	// or with an error condition (warning; Missing and Unknown info).
	FindingApplication FindingKind = "application"
	// FindingCertificate: a cert-manager Certificate not Ready, past its
	// renewal time, or expired.
	FindingCertificate FindingKind = "certificate"
	// FindingIssuer: a namespaced cert-manager Issuer not Ready.
	FindingIssuer FindingKind = "issuer"
	// FindingSecretStore: a namespaced external-secrets SecretStore not
	// Ready.
	FindingSecretStore FindingKind = "secret-store"
	// FindingExternalSecret: an ExternalSecret that does not sync.
	FindingExternalSecret FindingKind = "external-secret"
	// FindingFluxObject: a Flux Kustomization, HelmRelease or source,
	// other than the flux-system sync, not Ready.
	FindingFluxObject FindingKind = "flux-object"
	// FindingBackup: a CloudNativePG cluster's latest Backup failed, or its
	// WAL archiving or last backup condition is False.
	FindingBackup FindingKind = "backup"
	// FindingStorageNode: a Longhorn node that takes no new replicas.
	FindingStorageNode FindingKind = "storage-node"
	// FindingSuspended: an object its owner suspended or hibernated
	// (information).
	FindingSuspended FindingKind = "suspended"
	// FindingStatusUnread: a status list that only feeds findings could
	// not be read, so its findings are unknown.
	FindingStatusUnread FindingKind = "status-unread"
)

// Ref is "NS/NAME", or "NAME" for a cluster-scoped object: how the views
// name o.
func (o StatusObject) Ref() string {
	if o.Namespace != "" {
		return o.Namespace + "/" + o.Name
	}
	return o.Name
}

// Condition returns o's condition of type t, and whether o has one.
func (o StatusObject) Condition(t string) (Condition, bool) {
	for _, c := range o.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return Condition{}, false
}
