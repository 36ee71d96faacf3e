package health

import "nestor.dev/nestor/topology"

// Judge sets what obs says of the layers and the storage, judged from the
// facts a read made of the cluster of t: obs.Layers (judgeLayers: the
// declared layers in declaration order, then the undeclared catalog layers
// found), obs.UndeclaredUnread and its code (why the search for undeclared
// layers is unknown), and obs.Storage (DefaultStorage, which needs
// obs.ServerVersion when several StorageClasses are default). An
// observation whose Layers are already set (nothing of the cluster could
// be read: every declared layer unknown with that reason, or no target) is
// left as it is. t may be nil (no declared layer).
func Judge(obs *topology.Observed, t *topology.Topology, facts topology.ClusterFacts) {
	if obs.Layers != nil {
		return
	}
	obs.Layers = []topology.LayerState{}
	if t != nil {
		layers, unread := judgeLayers(t, facts)
		obs.Layers, obs.UndeclaredUnread, obs.UndeclaredUnreadCode = append(obs.Layers, layers...), unread.Text, unread.Code
	}
	obs.Storage = DefaultStorage(facts, obs.ServerVersion)
}
