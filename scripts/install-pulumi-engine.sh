#!/usr/bin/env bash
# Builds the Pulumi CLI and its Node.js language host from Go modules, pinned to the release
# that matches the @pulumi/pulumi development dependency, into a cache outside the repository.
#
# Why build: the machines this project runs on reach package registries only, so the usual
# prebuilt-binary download is impossible. `go install .../cmd/pulumi@vX` is refused because the
# pulumi module carries replace directives, so a tiny wrapper module requires pkg/v3, sdk/v3 and
# the language host (which has no tags: it is required at the pseudo-version of the release's
# commit) and copies the one non-local replace directive of pkg/go.mod.
#
# Prints the engine's root folder (the one holding bin/pulumi) on its last line of stdout.
set -euo pipefail

PULUMI_VERSION="${PULUMI_VERSION:-3.248.0}"
# pkg/v3.248.0 is commit dc7edd58bc13 of 2026-06-24T18:00:30Z.
LANGUAGE_HOST_PSEUDO_VERSION="v3.0.0-20260624180030-dc7edd58bc13"
CACHE_ROOT="${COMPUTE_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/compute-provider}"
ENGINE_ROOT="$CACHE_ROOT/pulumi-v$PULUMI_VERSION"

log() { printf '[engine] %s\n' "$*" >&2; }

if [ -x "$ENGINE_ROOT/bin/pulumi" ] && [ -x "$ENGINE_ROOT/bin/pulumi-language-nodejs" ] \
  && [ "$("$ENGINE_ROOT/bin/pulumi" version 2>/dev/null)" = "v$PULUMI_VERSION" ]; then
  log "reusing Pulumi v$PULUMI_VERSION from $ENGINE_ROOT"
  echo "$ENGINE_ROOT"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "error: Go is not on PATH. The Pulumi engine is built from Go modules; install Go >= 1.25 and retry."
  exit 1
fi

log "building Pulumi v$PULUMI_VERSION and pulumi-language-nodejs from Go modules into $ENGINE_ROOT"
log "the first build takes several minutes; later runs reuse the cache"

WORK="$CACHE_ROOT/build-v$PULUMI_VERSION"
mkdir -p "$WORK" "$ENGINE_ROOT/bin.tmp"
cat >"$WORK/go.mod" <<GOMOD
module compute-provider/pulumi-engine

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3 $LANGUAGE_HOST_PSEUDO_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
GOMOD

cd "$WORK"
export GOFLAGS="-mod=mod"
# The checksum database is not reachable from every machine this runs on (only the module
# proxy is), so module hashes are taken from the proxy and recorded in the wrapper's go.sum.
export GOSUMDB="${GOSUMDB:-off}"
LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION"
if ! go build -trimpath -tags osusergo,grpcnotrace -ldflags "$LDFLAGS" \
  -o "$ENGINE_ROOT/bin.tmp/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi; then
  log "error: building the Pulumi CLI failed. Is the Go module proxy reachable (GOPROXY=$(go env GOPROXY))?"
  exit 1
fi
if ! go build -trimpath -tags osusergo,grpcnotrace -ldflags "$LDFLAGS" \
  -o "$ENGINE_ROOT/bin.tmp/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3; then
  log "error: building the Node.js language host failed."
  exit 1
fi
rm -rf "$ENGINE_ROOT/bin"
mv "$ENGINE_ROOT/bin.tmp" "$ENGINE_ROOT/bin"
log "built: $("$ENGINE_ROOT/bin/pulumi" version)"
echo "$ENGINE_ROOT"
