#!/usr/bin/env bash
# Benchmark of `nestor fleet` against the single previews of the same stacks
# (method and latest results in BENCHMARKS.md, "fleet").
#
#   tests/bench/fleet.sh                                  # 4 servers × 500 nodes; 1, 8, 32 prod stacks + 1 lima
#   tests/bench/fleet.sh -stacks 8 -runs 5                # any nestor-fleet-bench flag passes through
#
# It builds nestor and the rusage launcher as a release would, then runs
# nestor-fleet-bench, which starts the test clusters on loopback
# (tests/harness), loads the fixtures, measures, and stops them. The test
# cluster binaries must already be in the cache folder (tests/k8sbin/build.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bindir=${NESTOR_TEST_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/nestor-test/v1.37.2}
for b in etcd kube-apiserver; do
  if [ ! -x "$bindir/$b" ]; then
    echo "fleet.sh: $bindir/$b is missing: build the test cluster binaries with tests/k8sbin/build.sh (about 8 min the first time)" >&2
    exit 1
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nestor-fleet-bench-bin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "fleet.sh: building nestor, nestor-rusage and nestor-fleet-bench into $tmp" >&2
(
  cd "$root"
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor" ./cmd/nestor
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor-rusage" ./tests/bench/cmd/nestor-rusage
  go build -o "$tmp/nestor-fleet-bench" ./tests/bench/cmd/nestor-fleet-bench
)
md=${NESTOR_BENCH_MARKDOWN:-$tmp/fleet.md}
cd "$root"
NESTOR_TEST_BIN=$bindir "$tmp/nestor-fleet-bench" -nestor "$tmp/nestor" -launcher "$tmp/nestor-rusage" -markdown "$md" "$@"
echo
cat "$md"
