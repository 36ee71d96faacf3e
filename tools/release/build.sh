#!/usr/bin/env bash
# Builds the goreleaser pinned in tools/release/go.mod (its `tool`
# directive) from the Go module proxy into a cache folder outside the
# repository, and prints the binary's path on stdout (progress on stderr).
# A binary already built for the pinned version is kept: a second run takes
# seconds.
#
#   tools/release/build.sh                  # build if missing, print the path
#   NESTOR_RELEASE_CACHE=/some/dir ...      # use another cache folder
#
# Cold build on a 2-core machine: ~17 min measured, the cores shared (goreleaser has ~340 modules).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
version=$(go list -m -f '{{.Version}}' github.com/goreleaser/goreleaser/v2)
out=${NESTOR_RELEASE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nestor-release}
bin="$out/goreleaser-$version"
mkdir -p "$out"
if [ -x "$bin" ]; then
  echo "release: goreleaser $version present in $out" >&2
  echo "$bin"
  exit 0
fi
start=$(date +%s)
echo "release: building goreleaser $version (tools/release/go.mod) — the first build takes ~17 min on 2 cores" >&2
# A heartbeat on stderr, so that a CI log shows progress; it ends with the
# script and never holds stdout.
( exec >&2
  trap 'kill ${s:-} 2>/dev/null; exit 0' TERM
  while :; do
    sleep 60 & s=$!
    wait $s
    echo "release: still building goreleaser ($(( $(date +%s) - start ))s)"
  done ) &
beat=$!
trap 'kill $beat 2>/dev/null || true' EXIT
go build -trimpath -o "$bin.tmp" github.com/goreleaser/goreleaser/v2
mv -f "$bin.tmp" "$bin"
echo "release: built goreleaser $version in $(( $(date +%s) - start ))s" >&2
echo "$bin"
