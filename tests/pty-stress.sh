#!/usr/bin/env bash
# Runs the terminal-driven end-to-end tests (survey prompts on a
# pseudo-terminal) many times while the machine is loaded, and prints how
# they fared: a driver that guesses when a prompt is ready fails here.
#
#   tests/pty-stress.sh            # 10 runs beside 2 CPU-bound loads
#   tests/pty-stress.sh 25         # 25 runs
#
# Environment (all optional):
#   PTY_STRESS_LOADS       CPU-bound busy loops started beside the tests (2; 0: none)
#   PTY_STRESS_LOAD_LIMIT  seconds after which each loop ends by itself (3600)
#   PTY_STRESS_RUN         the go test -run pattern ('Discover|Guard|Select')
#   PTY_STRESS_TIMEOUT     the go test -timeout (60m)
#   PTY_STRESS_LOG         where the full go test -v output goes (a temporary file)
#   NESTOR_TEST_BIN        the test cluster binaries (tests/k8sbin/build.sh)
#
# The test package is compiled before the load starts, so the figures are
# about the runs. The loops (and the go test run, when the script is
# stopped early) are stopped when the script ends, by a trap; each loop
# ends by itself after PTY_STRESS_LOAD_LIMIT in any case, even if the script
# is killed. The exit status is go test's.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
count=${1:-10}
loads=${PTY_STRESS_LOADS:-2}
limit=${PTY_STRESS_LOAD_LIMIT:-3600}
pattern=${PTY_STRESS_RUN:-Discover|Guard|Select}
timeout=${PTY_STRESS_TIMEOUT:-60m}
case "$count$loads$limit" in
*[!0-9]*) echo "pty-stress.sh: the run count, PTY_STRESS_LOADS and PTY_STRESS_LOAD_LIMIT are whole numbers" >&2; exit 2 ;;
esac
if [ "$count" -lt 1 ] || [ "$limit" -lt 1 ]; then
  echo "pty-stress.sh: the run count and PTY_STRESS_LOAD_LIMIT must be at least 1" >&2
  exit 2
fi

bindir=${NESTOR_TEST_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/nestor-test/v1.37.2}
for b in etcd kube-apiserver; do
  if [ ! -x "$bindir/$b" ]; then
    echo "pty-stress.sh: $bindir/$b is missing: build the test cluster binaries with tests/k8sbin/build.sh (about 8 min the first time) or set NESTOR_TEST_BIN" >&2
    exit 1
  fi
done
export NESTOR_TEST_BIN=$bindir

log=${PTY_STRESS_LOG:-$(mktemp "${TMPDIR:-/tmp}/nestor-pty-stress.XXXXXX")}
# Job control: each background job (a load, the go test run) is a process
# group of its own, which the traps stop as a whole, by its id.
set -m
load_pids=()
test_pid=
stop_loads() {
  local pid
  for pid in "${load_pids[@]}"; do
    kill -- "-$pid" 2>/dev/null || true
  done
  for pid in "${load_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  load_pids=()
}
stop_all() {
  if [ -n "$test_pid" ]; then
    # SIGTERM, not SIGINT: a shell may start this script with SIGINT
    # ignored, and its children inherit that.
    kill -TERM -- "-$test_pid" 2>/dev/null || true
    wait "$test_pid" 2>/dev/null || true
    test_pid=
  fi
  stop_loads
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cd "$root"
echo "pty-stress.sh: compiling the test package (before the load)" >&2
go test -count=1 -run '^$' ./tests/e2e >/dev/null

for _ in $(seq 1 "$loads"); do
  # A busy loop that ends by itself after $limit seconds.
  timeout "$limit" sh -c 'while :; do :; done' &
  load_pids+=($!)
done
echo "pty-stress.sh: $loads CPU-bound loop(s) on $(nproc) core(s) (pids ${load_pids[*]:-none}, ${limit}s at most); load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "pty-stress.sh: go test ./tests/e2e -run '$pattern' -count=$count -timeout $timeout -v  (full output: $log)" >&2

start=$(date +%s)
go test ./tests/e2e -run "$pattern" -count="$count" -timeout "$timeout" -v >"$log" 2>&1 &
test_pid=$!
set +e
wait "$test_pid"
code=$?
set -e
test_pid=
elapsed=$(($(date +%s) - start))
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
stop_loads

# Figures from go test -v: a top-level result is "--- PASS: TestX (1.23s)"
# at the start of a line; a subtest's is indented.
awk -v code="$code" -v elapsed="$elapsed" -v loads="$loads" -v loadavg="$loadavg" '
function secs(s) { gsub(/[()s]/, "", s); return s + 0 }
/^--- (PASS|FAIL): / {
  name = $3; t = secs($4)
  runs[name]++; total++
  if ($2 == "FAIL:") { fails[name]++; failed++ }
  if (t > slow[name]) slow[name] = t
  if (t > slowest) { slowest = t; slowestName = name }
}
/^ +--- FAIL: / { sub(/^ +/, ""); subFails[$3]++ }
/^panic: test timed out/ { timedOut = 1 }
END {
  printf "%-44s %5s %9s %12s\n", "test", "runs", "failures", "slowest run"
  for (n in runs) printf "%-44s %5d %9d %11.2fs\n", n, runs[n], fails[n], slow[n] | "sort"
  close("sort")
  printf "\nall: %d runs, %d failures, slowest run %.2fs (%s); go test exit %d after %ds beside %d CPU-bound loop(s), load average at the end %s\n", \
    total, failed, slowest, slowestName, code, elapsed, loads, loadavg
  for (n in subFails) printf "failed subtest: %s (%d time(s))\n", n, subFails[n]
  if (timedOut) print "go test timed out: see the log"
}' "$log"
echo "full output: $log"
exit "$code"
