package probes

import (
	"sort"
)

// ContextNames returns the names of the contexts kc's files define,
// sorted (the merge of mergeKubeconfigs: a name defined twice is listed
// once). It reads the files and nothing else: no client is built, nothing
// is sent, nothing written — what --context's shell completion needs, as
// kubectl's completion of its own --context reads the kubeconfig alone.
// Errors: a file that cannot be read or parsed.
func ContextNames(kc Kubeconfig) ([]string, error) {
	if kc.None() {
		return nil, nil
	}
	merged, err := mergeKubeconfigs(kc)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(merged.Contexts))
	for n := range merged.Contexts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}
