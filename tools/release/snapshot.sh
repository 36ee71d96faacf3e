#!/usr/bin/env bash
# Builds a snapshot release of the commit checked out (HEAD; a tree with
# uncommitted changes is built as it is, and says so: TreeState dirty) with
# the pinned goreleaser and .goreleaser.yaml: every archive and the
# checksums file in dist/, as a tag's release would make them, versioned
# <next patch>-dev+<commit>.
#
#   tools/release/snapshot.sh                # all targets
#   tools/release/snapshot.sh --single-target  # only this machine's binary (goreleaser build: no archive)
#
# The first run builds goreleaser (tools/release/build.sh, ~15 min on 2
# cores), and every target's packages once.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
goreleaser=$("$root/tools/release/build.sh")
cd "$root"
"$goreleaser" check
if [ "${1:-}" = "--single-target" ]; then
  exec "$goreleaser" build --snapshot --clean --single-target
fi
"$goreleaser" release --snapshot --clean
echo "snapshot: $(ls dist/*.tar.gz dist/*.zip dist/*checksums.txt 2>/dev/null | tr '\n' ' ')" >&2
