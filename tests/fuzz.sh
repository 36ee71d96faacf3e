#!/usr/bin/env bash
# Runs every fuzz target of nestor, one after the other (Go fuzzes one target
# per invocation), and prints for each: executions, new interesting inputs,
# the corpus size and the crashers found.
#
#   tests/fuzz.sh                 # every target, FUZZTIME each (default 10m)
#   FUZZTIME=3m tests/fuzz.sh     # shorter (any -fuzztime value: 30s, 1h, 5000x)
#   tests/fuzz.sh Inventory Lima  # only the targets whose name contains one of them
#   tests/fuzz.sh FuzzParse=      # NAME= : only the target of that exact name
#   FUZZPARALLEL=1 tests/fuzz.sh  # fuzzing workers (go test -parallel; default: GOMAXPROCS)
#
# A crasher is written by Go to PKG/testdata/fuzz/FuzzX/HASH: commit it (it
# becomes a regression input that plain `go test` runs) and fix the kind of
# fault it shows, with a unit test naming the kind. The inputs found
# interesting stay in the Go build cache (go env GOCACHE)/fuzz and make the
# next run start from there.
#
# Exits 1 when a target failed (a crasher, or the target could not run).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export PATH="$PATH:/usr/local/go/bin"

FUZZTIME="${FUZZTIME:-10m}"

# Every target: "PACKAGE TARGET". One home for the list: .ci/run runs this
# script with a short FUZZTIME.
targets=(
  "./topology FuzzParse"
  "./topology FuzzSetKubeconfig"
  "./probes/lima FuzzDecodeLimaList"
  "./probes/ssh FuzzInventory"
  "./topology FuzzNormalizeEndpoint"
  "./kube FuzzParseVersion"
  "./probes/kapsule FuzzKapsuleDecode"
)

# seconds converts a duration such as 15s, 10m, 1h30m to seconds; it prints
# nothing for a count (5000x) or a form it does not know.
seconds() {
  local d=$1 total=0 n u
  [[ $d =~ ^([0-9]+[smh])+$ ]] || return 0
  while [[ $d =~ ^([0-9]+)([smh])(.*)$ ]]; do
    n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]} d=${BASH_REMATCH[3]}
    case $u in
      s) total=$((total + n)) ;;
      m) total=$((total + n * 60)) ;;
      h) total=$((total + n * 3600)) ;;
    esac
  done
  echo "$total"
}

# The test binary's own deadline: FUZZTIME plus 10 minutes for building the
# instrumented binary and the baseline run; none for a count.
timeout_flag="-timeout=0"
if s=$(seconds "$FUZZTIME") && [ -n "$s" ]; then
  timeout_flag="-timeout=$((s + 600))s"
fi
parallel_flag=()
if [ -n "${FUZZPARALLEL:-}" ]; then
  parallel_flag=(-parallel "$FUZZPARALLEL")
fi

selected=()
for t in "${targets[@]}"; do
  name=${t#* }
  if [ $# -eq 0 ]; then
    selected+=("$t")
    continue
  fi
  for pat in "$@"; do
    if [[ $pat == *= && $name == "${pat%=}" ]] || [[ $pat != *= && $name == *"$pat"* ]]; then
      selected+=("$t")
      break
    fi
  done
done
if [ "${#selected[@]}" -eq 0 ]; then
  echo "tests/fuzz.sh: no target matches: $*" >&2
  exit 1
fi

gocache=$(go env GOCACHE)
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
summary=()
failed=0
for t in "${selected[@]}"; do
  pkg=${t% *} name=${t#* }
  log="$log_dir/$name.log"
  echo "==> $name ($pkg, -fuzztime $FUZZTIME)" >&2
  start=$(date +%s)
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$timeout_flag" "${parallel_flag[@]}" "$pkg" </dev/null >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  # The last progress line: "fuzz: elapsed: 15s, execs: 1234 (82/sec),
  # new interesting: 3 (total: 91)".
  last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -n 1)
  execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
  new=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
  total=$(sed -nE 's/.*\(total: ([0-9]+)\).*/\1/p' <<<"$last")
  # The corpus Go keeps between runs (the build cache) for this target.
  cache_dir="$gocache/fuzz/nestor.dev/nestor/${pkg#./}/$name"
  cached=$(find "$cache_dir" -type f 2>/dev/null | wc -l)
  crashers=$(grep -oE 'testdata/fuzz/[A-Za-z0-9_]+/[0-9a-f]+' "$log" | sort -u)
  ncrash=$(grep -c . <<<"$crashers")
  status=ok
  if [ "$rc" -ne 0 ]; then
    if [ "$ncrash" -eq 0 ] && grep -qx '    context deadline exceeded' "$log" && ! grep -qE '^(panic:|fatal error:)|Failing input written' "$log"; then
      # Go 1.26's fuzzing coordinator can report its own -fuzztime deadline
      # as a failure when a worker is slow to stop (a race, fixed in Go
      # 1.27: https://go.dev/issue/75804). No input failed: not a crasher.
      status=ok*
      echo "    (Go reported its own fuzztime deadline as a failure, with no failing input: see go.dev/issue/75804)" >&2
    else
      status=FAIL
      failed=1
      tail -n 40 "$log" >&2
    fi
  fi
  if [ -z "$execs" ]; then
    # The time went to replaying the corpus (baseline coverage): nothing new
    # was tried.
    execs=baseline
  fi
  for c in $crashers; do
    echo "    crasher: ${pkg#./}/$c" >&2
  done
  summary+=("$(printf '%-24s %-5s %6ss %12s %8s %8s %8s %8s' "$name" "$status" "$took" "${execs:-?}" "${new:-?}" "${total:-?}" "$cached" "$ncrash")")
  echo "<== $name: $status in ${took}s: ${execs:-?} execs, ${new:-?} new interesting, corpus ${total:-?} (${cached} cached), $ncrash crashers" >&2
done

printf '\n%-24s %-5s %7s %12s %8s %8s %8s %8s\n' target result time execs new corpus cached crashers
printf '%s\n' "${summary[@]}"
echo "(new: inputs that reached new code this run; corpus: seeds + testdata/fuzz + the cached inputs replayed; cached: the inputs kept in $gocache/fuzz)"
exit "$failed"
