package health

import (
	"testing"

	"nestor.dev/nestor/topology"
)

func TestDetectResourceAbsentReason(t *testing.T) {
	def := customDef("apps")
	st := JudgeWorkloads(def, topology.ClusterFacts{Namespaces: topology.KnownFact([]string{}), CRDGroups: topology.KnownFact([]string{}), StorageClasses: topology.KnownFact([]topology.StorageClass{}), Workloads: topology.KnownFact([]topology.WorkloadState{})}, true)
	if st.Health != topology.Absent || st.Reason != "not found: Widget apps/main" {
		t.Errorf("JudgeWorkloads of a resource-only custom layer: %s %q", st.Health, st.Reason)
	}
}
