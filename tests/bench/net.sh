#!/usr/bin/env bash
# Benchmark of `nestor preview` and `nestor fleet` over the network: the test
# clusters behind latency proxies, and caching stand-ins of them (method and
# latest results in BENCHMARKS.md, "fleet over the network").
#
#   tests/bench/net.sh                                  # 4 servers × 500 nodes; 8, 32 stacks + 32 on stand-ins; 40 ms RTT; 7 rounds
#   tests/bench/net.sh -stacks 8 -standin-stacks 0 -runs 3   # any nestor-net-bench flag passes through
#
# It builds nestor and the rusage launcher as a release would, then runs
# nestor-net-bench, which starts the test clusters on loopback
# (tests/harness), loads the fixtures, measures, and stops them. The test
# cluster binaries must already be in the cache folder (tests/k8sbin/build.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bindir=${NESTOR_TEST_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/nestor-test/v1.37.2}
for b in etcd kube-apiserver; do
  if [ ! -x "$bindir/$b" ]; then
    echo "net.sh: $bindir/$b is missing: build the test cluster binaries with tests/k8sbin/build.sh (about 8 min the first time)" >&2
    exit 1
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nestor-net-bench-bin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "net.sh: building nestor, nestor-rusage and nestor-net-bench into $tmp (nestor at $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?'))" >&2
(
  cd "$root"
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor" ./cmd/nestor
  go build -trimpath -ldflags "-s -w" -o "$tmp/nestor-rusage" ./tests/bench/cmd/nestor-rusage
  go build -o "$tmp/nestor-net-bench" ./tests/bench/cmd/nestor-net-bench
)
md=${NESTOR_BENCH_MARKDOWN:-$tmp/net.md}
cd "$root"
NESTOR_TEST_BIN=$bindir "$tmp/nestor-net-bench" -nestor "$tmp/nestor" -launcher "$tmp/nestor-rusage" -markdown "$md" "$@"
echo
cat "$md"
