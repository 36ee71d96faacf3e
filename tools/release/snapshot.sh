#!/usr/bin/env bash
# Builds a snapshot release of HEAD with the pinned goreleaser and
# .goreleaser.yaml: every archive and the checksums file, as a tag's
# release would make them, versioned <next patch>-dev+<commit>, into the
# repository's dist/.
#
#   tools/release/snapshot.sh
#
# goreleaser reads the commit (its hash and date, which stamp the binaries
# and date every file) only in a clone with a remote, so the snapshot is
# built in a temporary clone of HEAD: uncommitted changes are not in it
# (the script says so). The first run builds goreleaser
# (tools/release/build.sh, ~17 min on 2 cores) and every target's packages
# once (~8 min on 2 cores); later runs take a minute or two.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
goreleaser=$("$root/tools/release/build.sh")
cd "$root"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "snapshot: the tree has uncommitted changes; the snapshot is of HEAD ($(git rev-parse --short HEAD)) without them" >&2
fi
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git clone --quiet --shared --no-checkout "$root" "$src/nestor"
git -C "$src/nestor" checkout --quiet --detach "$(git rev-parse HEAD)"
(cd "$src/nestor" && "$goreleaser" check && "$goreleaser" release --snapshot --clean)
rm -rf dist
mv "$src/nestor/dist" dist
echo "snapshot: $(ls dist/*.tar.gz dist/*.zip dist/*checksums.txt 2>/dev/null | tr '\n' ' ')" >&2
