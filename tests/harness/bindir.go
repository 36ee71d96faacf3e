// Package harness runs a real Kubernetes API server for nestor's end-to-end
// tests: one etcd and one kube-apiserver, started on free loopback ports in a
// temporary folder, with certificates generated in Go, three identities
// (admin, read-only, no access), an audit log and cluster fixtures loaded
// from ordinary manifests. The facts it relies on (flags, versions, what an
// apiserver without controllers has) are in ../shared/TEST-CLUSTER.md.
//
// The binaries are built once by tests/k8sbin/build.sh into a cache folder
// outside the repository (see BinDir).
package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// K8sVersion is the Kubernetes release the cached binaries are built from
// (tests/k8sbin/build.sh and TEST-CLUSTER.md name the same one).
const K8sVersion = "v1.37.2"

// BinDir returns the folder that holds the etcd and kube-apiserver binaries
// (and kubectl, when built): $NESTOR_TEST_BIN when set and not empty, else
// ${XDG_CACHE_HOME:-$HOME/.cache}/nestor-test/v1.37.2 — the folder
// tests/k8sbin/build.sh builds into. It starts nothing and creates nothing.
// The error, when etcd or kube-apiserver is missing or not executable there,
// names the folder, the missing binaries and the command that builds them.
func BinDir() (string, error) {
	dir := os.Getenv("NESTOR_TEST_BIN")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("test cluster binaries: no NESTOR_TEST_BIN, no XDG_CACHE_HOME and no home folder (%v); run tests/k8sbin/build.sh and export NESTOR_TEST_BIN to the folder it prints", err)
			}
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "nestor-test", K8sVersion)
	}
	var missing []string
	for _, name := range []string{"etcd", "kube-apiserver"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("test cluster binaries missing in %s: %s; build them with tests/k8sbin/build.sh (about 8 min the first time, seconds afterwards) or set NESTOR_TEST_BIN to a folder that has them",
			dir, strings.Join(missing, ", "))
	}
	return dir, nil
}
