#!/usr/bin/env bash
# Builds the real kube-apiserver, etcd and kubectl used by nestor's end-to-end
# tests into a cache folder outside the repository, and prints that folder on
# stdout (progress goes to stderr). Binaries already present are kept, so a
# second run is a no-op that takes seconds.
#
#   tests/k8sbin/build.sh            # build what is missing, print the folder
#   NESTOR_TEST_BIN=/some/dir ...    # use another cache folder
#
# Cold build on a 2-core machine: ~8 min (kube-apiserver dominates).
set -euo pipefail

K8S_VERSION=v1.37.2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${NESTOR_TEST_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/nestor-test/$K8S_VERSION}
mkdir -p "$out"

major=${K8S_VERSION#v}; major=${major%%.*}
minor=${K8S_VERSION#v*.}; minor=${minor%%.*}
ldflags="-s -w \
 -X k8s.io/component-base/version.gitVersion=$K8S_VERSION \
 -X k8s.io/component-base/version.gitMajor=$major \
 -X k8s.io/component-base/version.gitMinor=$minor \
 -X k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION \
 -X k8s.io/client-go/pkg/version.gitMajor=$major \
 -X k8s.io/client-go/pkg/version.gitMinor=$minor"

build() { # name package
  local name=$1 pkg=$2 start
  if [ -x "$out/$name" ]; then
    echo "k8sbin: $name present in $out" >&2
    return
  fi
  start=$(date +%s)
  echo "k8sbin: building $name ($pkg) — the first build of kube-apiserver takes ~8 min on 2 cores" >&2
  # Print a heartbeat so a CI log shows progress during the long cold build.
  # It writes to stderr only and takes its sleep down with it when killed, so
  # nothing is left holding the caller's stdout ($(build.sh) would hang).
  ( exec >&2
    trap 'kill ${s:-} 2>/dev/null; exit 0' TERM
    while :; do
      sleep 60 & s=$!
      wait $s
      echo "k8sbin: still building $name ($(( $(date +%s) - start ))s)"
    done ) &
  local beat=$!
  trap 'kill $beat 2>/dev/null || true' RETURN
  (cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$out/$name.tmp" "$pkg")
  mv -f "$out/$name.tmp" "$out/$name"
  echo "k8sbin: built $name in $(( $(date +%s) - start ))s" >&2
}

build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kubectl k8s.io/kubernetes/cmd/kubectl
echo "$out"
