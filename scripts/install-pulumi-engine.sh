#!/usr/bin/env bash
# Builds the Pulumi CLI and its Node.js language host from Go modules into a cache outside the
# repository. The CLI is pinned to the release that matches the @pulumi/pulumi development
# dependency.
#
# Why build: the machines this project runs on reach package registries only, so the usual
# prebuilt-binary download is impossible. `go install .../cmd/pulumi@vX` is refused because the
# pulumi module carries replace directives, so a tiny wrapper module requires pkg/v3 and sdk/v3
# and copies the one non-local replace directive of pkg/go.mod.
#
# The Node.js language host: upstream it lives in its own untagged module
# (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3), but the Go module mirror
# these machines use refuses every version of that module ("403 This module version is not
# available", also for @v/list and @latest). Before it became a module of its own, the same
# host was a package inside sdk/v3, and sdk/v3 v3.68.0 (which still holds it) is served. That
# host is built in a second wrapper module (it cannot share one with sdk/v3 v3.248.0, which no
# longer holds the package). The CLI speaks to it over the stable LanguageRuntime gRPC API and
# falls back to the older calls it implements (GetRequiredPlugins instead of
# GetRequiredPackages); the Node program itself is run by @pulumi/pulumi's own `cmd/run` script
# from the project's node_modules, so the program runs on the npm SDK's current code.
# Known limit of that older host: it does not read `runtime.options` from Pulumi.yaml
# (typescript, tsconfig, nodeargs, packagemanager); TypeScript support is on regardless.
#
# Prints the engine's root folder (the one holding bin/pulumi) on its last line of stdout.
set -euo pipefail

PULUMI_VERSION="${PULUMI_VERSION:-3.248.0}"
# The release of sdk/v3 whose nodejs/cmd/pulumi-language-nodejs package is built as the host.
LANGUAGE_HOST_SDK_VERSION="${LANGUAGE_HOST_SDK_VERSION:-3.68.0}"
CACHE_ROOT="${COMPUTE_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/compute-provider}"
ENGINE_ROOT="$CACHE_ROOT/pulumi-v$PULUMI_VERSION"
STAMP="cli v$PULUMI_VERSION; nodejs language host from sdk/v3 v$LANGUAGE_HOST_SDK_VERSION"

log() { printf '[engine] %s\n' "$*" >&2; }

if [ -x "$ENGINE_ROOT/bin/pulumi" ] && [ -x "$ENGINE_ROOT/bin/pulumi-language-nodejs" ] \
  && [ "$(cat "$ENGINE_ROOT/bin/.stamp" 2>/dev/null)" = "$STAMP" ] \
  && [ "$("$ENGINE_ROOT/bin/pulumi" version 2>/dev/null)" = "v$PULUMI_VERSION" ]; then
  log "reusing Pulumi v$PULUMI_VERSION from $ENGINE_ROOT"
  echo "$ENGINE_ROOT"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "error: Go is not on PATH. The Pulumi engine is built from Go modules; install Go >= 1.25 and retry."
  exit 1
fi

log "building Pulumi v$PULUMI_VERSION and pulumi-language-nodejs (sdk/v3 v$LANGUAGE_HOST_SDK_VERSION) from Go modules into $ENGINE_ROOT"
log "the first build takes several minutes; later runs reuse the cache"

WORK="$CACHE_ROOT/build-v$PULUMI_VERSION"
rm -rf "$ENGINE_ROOT/bin.tmp"
mkdir -p "$WORK/cli" "$WORK/nodejs-host" "$ENGINE_ROOT/bin.tmp"

cat >"$WORK/cli/go.mod" <<GOMOD
module compute-provider/pulumi-engine

go 1.25.11

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
GOMOD

cat >"$WORK/nodejs-host/go.mod" <<GOMOD
module compute-provider/pulumi-language-nodejs

go 1.21

require github.com/pulumi/pulumi/sdk/v3 v$LANGUAGE_HOST_SDK_VERSION
GOMOD

export GOFLAGS="-mod=mod"
# The checksum database is not reachable from every machine this runs on (only the module
# proxy is), so module hashes are taken from the proxy and recorded in the wrappers' go.sum.
export GOSUMDB="${GOSUMDB:-off}"
VERSION_VAR="github.com/pulumi/pulumi/sdk/v3/go/common/version.Version"

if ! (cd "$WORK/cli" && go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-s -w -X $VERSION_VAR=v$PULUMI_VERSION" \
  -o "$ENGINE_ROOT/bin.tmp/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi); then
  log "error: building the Pulumi CLI failed. Is the Go module proxy reachable (GOPROXY=$(go env GOPROXY))?"
  exit 1
fi
if ! (cd "$WORK/nodejs-host" && go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-s -w -X $VERSION_VAR=v$LANGUAGE_HOST_SDK_VERSION" \
  -o "$ENGINE_ROOT/bin.tmp/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs); then
  log "error: building the Node.js language host (sdk/v3 v$LANGUAGE_HOST_SDK_VERSION) failed."
  exit 1
fi
printf '%s\n' "$STAMP" >"$ENGINE_ROOT/bin.tmp/.stamp"
rm -rf "$ENGINE_ROOT/bin"
mv "$ENGINE_ROOT/bin.tmp" "$ENGINE_ROOT/bin"
log "built: pulumi $("$ENGINE_ROOT/bin/pulumi" version), pulumi-language-nodejs from sdk/v3 v$LANGUAGE_HOST_SDK_VERSION"
echo "$ENGINE_ROOT"
