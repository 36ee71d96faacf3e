#!/usr/bin/env bash
# Benchmark of `nestor preview -o json` against kubectl and the raw-API floor
# on generated clusters (method and latest results in BENCHMARKS.md).
#
#   tests/bench/run.sh                          # scales 500, 2000, 5000; 5 runs each
#   tests/bench/run.sh -scales 2000 -runs 7     # any nestor-bench flag passes through
#
# It builds nestor and the floor client as a release would (-trimpath, -s -w),
# then runs nestor-bench, which starts a fresh kube-apiserver + etcd per scale
# on loopback (tests/harness), loads the fixture, measures, and stops them.
# The test cluster binaries (kube-apiserver, etcd, kubectl) must already be
# in the cache folder: build them once with tests/k8sbin/build.sh.
# The table is printed on stdout; the Markdown version goes to
# ${NESTOR_BENCH_MARKDOWN:-<temp>/table.md} and is printed at the end.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bindir=${NESTOR_TEST_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/nestor-test/v1.37.2}
for b in etcd kube-apiserver kubectl; do
  if [ ! -x "$bindir/$b" ]; then
    echo "run.sh: $bindir/$b is missing: build the test cluster binaries with tests/k8sbin/build.sh (about 8 min the first time)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nestor-bench-bin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "run.sh: building nestor, nestor-floor, nestor-rusage and nestor-bench into $tmp" >&2
(
  cd "$root"
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor" ./cmd/nestor
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor-floor" ./tests/bench/cmd/nestor-floor
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor-rusage" ./tests/bench/cmd/nestor-rusage
  go build -o "$tmp/nestor-bench" ./tests/bench/cmd/nestor-bench
)
md=${NESTOR_BENCH_MARKDOWN:-$tmp/table.md}
NESTOR_TEST_BIN=$bindir "$tmp/nestor-bench" \
  -nestor "$tmp/nestor" -floor "$tmp/nestor-floor" -launcher "$tmp/nestor-rusage" -kubectl "$bindir/kubectl" \
  -markdown "$md" "$@"
echo
cat "$md"
