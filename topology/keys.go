package topology

import "slices"

// Keys returns the keys a format-version-1 topology allows at each level —
// the very lists Parse checks every key against — by where they are
// written: "" the top level, "kubernetes", "nodes[]", "layers[]",
// "layers[].detect", "layers[].detect.resource", "lima", "scaleway",
// "scaleway.acl[]" (an entry written as a mapping), "pools[]" and
// "pools[].autoscaling"; each list in the loader's order, a
// copy the caller may keep.
func Keys() map[string][]string {
	return map[string][]string{
		"":                         slices.Clone(topKeys),
		"kubernetes":               slices.Clone(kubernetesKeys),
		"nodes[]":                  slices.Clone(nodeKeys),
		"layers[]":                 slices.Clone(layerKeys),
		"layers[].detect":          slices.Clone(detectKeys),
		"layers[].detect.resource": slices.Clone(resourceKeys),
		"lima":                     slices.Clone(limaKeys),
		"scaleway":                 slices.Clone(scalewayKeys),
		"scaleway.acl[]":           slices.Clone(aclKeys),
		"pools[]":                  slices.Clone(poolKeys),
		"pools[].autoscaling":      slices.Clone(autoscalingKeys),
	}
}
