#!/usr/bin/env bash
# Builds nestor's container image from tools/image/Containerfile without
# pulling anything: FROM scratch, the binary built here (CGO_ENABLED=0,
# -trimpath, stamped with the version, commit and date as
# .goreleaser.yaml stamps a release) and this machine's CA bundle.
#
#   tools/image/build.sh [TAG]        # default TAG: nestor:<version>
#
# VERSION (default: the tag at HEAD, else <describe>-dev) names the
# version. The builder is the first of buildah, podman and docker found
# ($IMAGE_BUILDER to choose one); the image's creation time is the
# commit's (buildah and podman: --timestamp), so two builds of a commit
# make the same image. Prints the tag on stdout.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
ca=/etc/ssl/certs/ca-certificates.crt
if [ ! -s "$ca" ]; then
  echo "image: $ca is missing: apt-get install ca-certificates" >&2
  exit 1
fi
builder=${IMAGE_BUILDER:-}
if [ -z "$builder" ]; then
  for b in buildah podman docker; do
    if command -v "$b" >/dev/null 2>&1; then builder=$b; break; fi
  done
fi
if [ -z "$builder" ]; then
  echo "image: no image builder: apt-get install buildah (or podman, or docker)" >&2
  exit 1
fi

commit=$(git rev-parse HEAD)
epoch=$(git show -s --format=%ct HEAD)
date=$(git show -s --format=%cI HEAD)
state=clean
if [ -n "$(git status --porcelain)" ]; then state=dirty; fi
version=${VERSION:-$(git describe --tags --exact-match 2>/dev/null || echo "v0.0.0-dev+$(git rev-parse --short=12 HEAD)")}
tag=${1:-nestor:${version//+/-}}

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
app=nestor.dev/nestor/cmd/nestor/app
CGO_ENABLED=0 go build -trimpath -o "$ctx/nestor" \
  -ldflags "-s -w -X $app.Version=$version -X $app.Commit=$commit -X $app.CommitDate=$date -X $app.TreeState=$state" \
  ./cmd/nestor
cp "$ca" "$ctx/ca-certificates.crt"
cp tools/image/Containerfile "$ctx/Containerfile"

args=(--build-arg "VERSION=$version" --build-arg "REVISION=$commit" --build-arg "CREATED=$date" -t "$tag" -f "$ctx/Containerfile")
case "$builder" in
  buildah) buildah ${BUILDAH_FLAGS:-} bud --timestamp "$epoch" "${args[@]}" "$ctx" >&2 ;;
  podman) podman build --timestamp "$epoch" "${args[@]}" "$ctx" >&2 ;;
  *) SOURCE_DATE_EPOCH=$epoch "$builder" build "${args[@]}" "$ctx" >&2 ;;
esac
echo "$tag"
