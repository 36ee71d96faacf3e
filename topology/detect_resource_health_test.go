package topology

import (
	"testing"
)

func TestDetectResourceAbsentReason(t *testing.T) {
	def := customDef("apps")
	st := Evaluate(def, ClusterFacts{Namespaces: KnownFact([]string{}), CRDGroups: KnownFact([]string{}), StorageClasses: KnownFact([]StorageClass{}), Workloads: KnownFact([]WorkloadState{})}, true)
	if st.Health != Absent || st.Reason != "not found: Widget apps/main" {
		t.Errorf("Evaluate of a resource-only custom layer: %s %q", st.Health, st.Reason)
	}
}
