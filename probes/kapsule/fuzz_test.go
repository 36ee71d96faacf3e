package kapsule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/scaleway/scaleway-sdk-go/api/k8s/v1"

	"nestor.dev/nestor/topology"
)

// FuzzKapsuleDecode: the provider's JSON for a cluster and a pool, decoded
// by the SDK into its types and turned into nestor's model (clusterOf,
// poolOf), then judged (topology.JudgeKapsule), never panics, and never
// takes a missing or unknown field for a fact: a cluster whose status is
// not one the rules know is never in sync — the judgement then holds an
// unknown, a waiting object or a finding, and never an empty verdict.
func FuzzKapsuleDecode(f *testing.F) {
	for _, s := range [][2]string{
		{`{"id":"6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90","name":"lyneko-apps","status":"ready","version":"1.35.3","region":"fr-par","cni":"cilium","cluster_url":"https://x:6443","auto_upgrade":{"enabled":true}}`,
			`{"id":"p1","cluster_id":"6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90","name":"default","status":"ready","version":"1.35.3","node_type":"pro2_xxs","size":3,"zone":"fr-par-1"}`},
		{`{"name":"c","status":"updating","version":"1.35.4"}`, `{"name":"default","status":"upgrading","version":"1.35.3","size":3}`},
		{`{"name":"c","status":"frobnicating"}`, `{"name":"default","status":"warning","error_message":"disk full"}`},
		{`{}`, `{}`},
		{`{"name":"c","status":"","version":""}`, `{"name":"","status":"","size":-1,"min_size":5,"max_size":1,"autoscaling":true}`},
		{`{"name":"c","status":"locked","version":"v1.35.3"}`, `{"name":"default","status":"locked","version":"9.9.9"}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	t0 := &topology.Topology{Name: "fuzz", TargetKind: topology.TargetKapsule,
		Scaleway:   &topology.Scaleway{Region: "fr-par", ClusterID: "6a1c2f5e-8d0b-4c3e-9f1a-2b7d4e6f8a90"},
		Kubernetes: topology.Kubernetes{Version: "1.35"},
		Pools:      []topology.Pool{{Name: "default", NodeType: "PRO2-XXS", Size: 3, Zone: "fr-par-1"}}}
	f.Fuzz(func(t *testing.T, clusterJSON, poolJSON []byte) {
		var c k8s.Cluster
		var p k8s.Pool
		if json.Unmarshal(clusterJSON, &c) != nil || json.Unmarshal(poolJSON, &p) != nil {
			return
		}
		cluster, pool := clusterOf(&c), poolOf(&p)
		if strings.ContainsAny(cluster.Status+cluster.Name+pool.Status+pool.Name+pool.ErrorMessage, "\x1b\r\n") {
			t.Fatalf("a control character reached the model: %+v %+v", cluster, pool)
		}
		obs := &topology.KapsuleObserved{
			Cluster:   topology.KnownFact(cluster),
			Pools:     topology.KnownFact([]topology.KapsulePool{pool}),
			Nodes:     topology.KnownFact([]topology.KapsuleNode{}),
			Available: topology.KnownFact([]string{}),
			Versions:  topology.KnownFact([]topology.KapsuleVersion{}),
			ACL:       topology.KnownFact([]string{}),
		}
		j := JudgeKapsule(t0, obs)
		if cluster.Status != "ready" && cluster.Status != "pool_required" &&
			len(j.Unknowns)+len(j.Waiting)+len(j.Findings)+len(j.Steps) == 0 {
			t.Fatalf("cluster status %q judged as nothing to say (in sync): %+v", cluster.Status, j)
		}
		if cluster.Status == "" && len(j.Unknowns) == 0 {
			t.Fatalf("a cluster with no status is not unknown: %+v", j)
		}
	})
}
