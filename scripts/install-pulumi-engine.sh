#!/usr/bin/env bash
# Builds the Pulumi CLI and its Node.js and YAML language hosts from Go modules into a cache
# outside the repository. The CLI is pinned to the release that matches the @pulumi/pulumi
# development dependency (package.json; read by scripts/lib/engine-env.sh, compute_engine_version).
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
# The YAML language host (pulumi-language-yaml) comes from github.com/pulumi/pulumi-yaml, built
# in a third wrapper module (it requires pkg/sdk v3.143.0, which cannot share a build with the
# CLI's v3.248.0). Its main package is scripts/go/yaml-host/main.go: the upstream host as its own
# main starts it, plus the one adapter it needs under this engine (typed `config:` values; the
# file says why). It is a separate piece with its own stamp (the release and the adapter's
# hash), so a cache that already holds the CLI gains it without rebuilding the CLI. Both hosts
# go next to `pulumi`: the engine looks for language hosts there ("bundled"), so no PATH entry
# other than bin/ is needed.
#
# With --python (scripts/setup-python.sh) it also builds the Python language host: the host of
# sdk/v3 v3.68.0 (as for Node.js, the standalone module is refused) with its exec shim, in
# python-host/ of the engine root. With --go (scripts/setup-go.sh), the Go language host: its
# standalone module is refused too, and sdk/v3 v3.66.0 is the last release that holds it
# (go/pulumi-language-go); it drives 3.248 programs, which it builds with the `go` on PATH
# against the program's own go.mod (sdk/v3 v3.248.0). Next to `pulumi`, under each host's name,
# goes the launcher scripts/go/language-host/main.go, which starts that host with the project's
# `runtime.options` as flags, the way the host's own release of the engine passed them, and
# refuses the options that host cannot honour (the file says why and how). Hosts and launchers
# are separate pieces, each with its own stamp.
#
# Prints the engine's root folder (the one holding bin/pulumi) on its last line of stdout.
set -euo pipefail

source "$(dirname "$0")/lib/engine-env.sh"
# The release and its folder, from package.json (scripts/lib/engine-env.sh, compute_engine_version).
PULUMI_VERSION=$(compute_engine_version)
ENGINE_ROOT=$(compute_engine_root)
# The release of sdk/v3 whose nodejs/cmd/pulumi-language-nodejs package is built as the host.
LANGUAGE_HOST_SDK_VERSION="${LANGUAGE_HOST_SDK_VERSION:-3.68.0}"
CACHE_ROOT=$(compute_engine_cache)
# The pulumi-yaml release built as the YAML host (its cmd/pulumi-language-yaml).
YAML_HOST_VERSION="${YAML_HOST_VERSION:-1.13.0}"
STAMP="cli v$PULUMI_VERSION; nodejs language host from sdk/v3 v$LANGUAGE_HOST_SDK_VERSION"
# The Go programs of scripts/go/ (scripts/README.md). Their stamps hash their content, not their
# path, so a cache built before they moved is reused as it is.
YAML_HOST_MAIN="$(cd "$(dirname "$0")" && pwd)/go/yaml-host/main.go"
# The last sdk/v3 release that holds the Go language host (go/pulumi-language-go).
GO_HOST_SDK_VERSION="${GO_HOST_SDK_VERSION:-3.66.0}"
LAUNCHER_MAIN="$(cd "$(dirname "$0")" && pwd)/go/language-host/main.go"
LAUNCHER_HASH=$(sha256sum "$LAUNCHER_MAIN" | cut -c1-16)
YAML_STAMP="yaml language host from pulumi-yaml v$YAML_HOST_VERSION; main $(sha256sum "$YAML_HOST_MAIN" | cut -c1-16)"
WORK="$CACHE_ROOT/build-v$PULUMI_VERSION"
VERSION_VAR="github.com/pulumi/pulumi/sdk/v3/go/common/version.Version"

log() { printf '[engine] %s\n' "$*" >&2; }

# go_version_at_least <x.y.z>: whether the `go` on PATH is that release or later. A version it
# cannot read (a development build) counts as recent enough.
go_version_at_least() {
  local have want=$1
  have=$(go env GOVERSION 2>/dev/null)
  have=${have#go}
  have=${have%%[!0-9.]*}
  [[ $have =~ ^[0-9]+(\.[0-9]+)*$ ]] || return 0
  [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ]
}

require_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "error: Go is not on PATH. The Pulumi engine is built from Go modules; install Go >= 1.25.11 and retry."
    exit 1
  fi
  # An older Go fails inside `go build` with a message that points elsewhere (the module proxy):
  # say so first. `go env GOVERSION` is `go1.25.11` (or `go1.26rc1`, `devel …`: let those pass).
  if ! go_version_at_least 1.25.11; then
    log "error: Go >= 1.25.11 is required to build the Pulumi engine (found $(go env GOVERSION)). Install a newer Go and retry."
    exit 1
  fi
  # Added to, not replaced: a machine may need its own (-buildvcs=false where git cannot read the tree).
  export GOFLAGS="$(go env GOFLAGS) -mod=mod"
  # The checksum database is not reachable from every machine this runs on (only the module
  # proxy is; pulumi-yaml is not in it at all), so module hashes are taken from the proxy and
  # recorded in the wrappers' go.sum.
  export GOSUMDB="${GOSUMDB:-off}"
}

cli_is_built() {
  [ -x "$ENGINE_ROOT/bin/pulumi" ] && [ -x "$ENGINE_ROOT/bin/pulumi-language-nodejs" ] \
    && [ "$(cat "$ENGINE_ROOT/bin/.stamp" 2>/dev/null)" = "$STAMP" ] \
    && [ "$("$ENGINE_ROOT/bin/pulumi" version 2>/dev/null)" = "v$PULUMI_VERSION" ]
}

yaml_host_is_built() {
  [ -x "$ENGINE_ROOT/bin/pulumi-language-yaml" ] \
    && [ "$(cat "$ENGINE_ROOT/bin/.stamp-yaml" 2>/dev/null)" = "$YAML_STAMP" ]
}

build_cli() {
  require_go
  log "building Pulumi v$PULUMI_VERSION and pulumi-language-nodejs (sdk/v3 v$LANGUAGE_HOST_SDK_VERSION) from Go modules into $ENGINE_ROOT"
  log "the first build takes several minutes; later runs reuse the cache"
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
}

# build_piece <folder> <binary> <stamp file> <stamp> <module dir> <version variable=value or ""> <package>:
# builds one more binary into <folder> of the engine root (bin/ for what the engine runs) from
# the wrapper module in <module dir>, written aside and then renamed (a run using it at the same
# time never sees half a binary), and records its stamp in that folder.
build_piece() {
  local folder=$ENGINE_ROOT/$1 binary=$2 stamp_file=$3 stamp=$4 module=$5 version=$6 package=$7
  local partial="$folder/.$binary.partial"
  mkdir -p "$folder"
  rm -f "$partial"
  if ! (cd "$module" && go build -trimpath -tags osusergo,grpcnotrace -ldflags "-s -w${version:+ -X $version}" -o "$partial" "$package"); then
    rm -f "$partial"
    log "error: building $binary failed. Is the Go module proxy reachable (GOPROXY=$(go env GOPROXY))?"
    exit 1
  fi
  mv "$partial" "$folder/$binary"
  printf '%s\n' "$stamp" >"$folder/$stamp_file"
  log "built: $stamp"
}

# wrapper_module <folder of $WORK> <name> "<module> <version>": the go.mod of a wrapper module
# that requires one module, from which one binary of the engine root is built.
wrapper_module() {
  mkdir -p "$WORK/$1"
  printf 'module compute-provider/%s\n\ngo 1.21\n\nrequire %s\n' "$2" "$3" >"$WORK/$1/go.mod"
}

build_yaml_host() {
  require_go
  log "building pulumi-language-yaml (pulumi-yaml v$YAML_HOST_VERSION) from Go modules into $ENGINE_ROOT/bin"
  wrapper_module yaml-host pulumi-language-yaml "github.com/pulumi/pulumi-yaml v$YAML_HOST_VERSION"
  cp "$YAML_HOST_MAIN" "$WORK/yaml-host/main.go"
  build_piece bin pulumi-language-yaml .stamp-yaml "$YAML_STAMP" "$WORK/yaml-host" \
    "github.com/pulumi/pulumi-yaml/pkg/version.Version=v$YAML_HOST_VERSION" .
}

# The hosts of --python and --go, each in <runtime>-host/ of the engine root (not on PATH: the
# engine must find the launcher under the host's name). The host's release and package, by
# runtime: Python's as the Node.js host, the last with the Go host inside sdk/v3 for Go.
old_host_release() { case $1 in python) echo "$LANGUAGE_HOST_SDK_VERSION" ;; go) echo "$GO_HOST_SDK_VERSION" ;; esac; }
old_host_package() { case $1 in python) echo python/cmd/pulumi-language-python ;; go) echo go/pulumi-language-go ;; esac; }
old_host_stamp() { echo "$1 language host from sdk/v3 v$(old_host_release "$1")"; }
launcher_stamp() { echo "$1 language host launcher, main $LAUNCHER_HASH; host from sdk/v3 v$(old_host_release "$1")"; }

old_host_is_built() {
  local folder=$ENGINE_ROOT/$1-host
  [ -x "$folder/pulumi-language-$1" ] && [ "$(cat "$folder/.stamp" 2>/dev/null)" = "$(old_host_stamp "$1")" ] \
    && { [ "$1" != python ] || [ -x "$folder/pulumi-language-python-exec" ]; }
}

launcher_is_built() {
  [ -x "$ENGINE_ROOT/bin/pulumi-language-$1" ] \
    && [ "$(cat "$ENGINE_ROOT/bin/.stamp-$1" 2>/dev/null)" = "$(launcher_stamp "$1")" ]
}

# build_old_host <runtime>: the host of sdk/v3 at its release (the standalone modules are
# refused by the proxy); Python's exec shim, a Python script of the same module, goes beside it,
# where the host looks for it.
build_old_host() {
  local runtime=$1 release module_dir
  release=$(old_host_release "$runtime")
  require_go
  log "building pulumi-language-$runtime (sdk/v3 v$release) from Go modules into $ENGINE_ROOT/$runtime-host"
  wrapper_module "$runtime-host" "pulumi-language-$runtime" "github.com/pulumi/pulumi/sdk/v3 v$release"
  mkdir -p "$ENGINE_ROOT/$runtime-host"
  if [ "$runtime" = python ]; then
    module_dir=$(cd "$WORK/python-host" && go mod download -json "github.com/pulumi/pulumi/sdk/v3@v$release" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    install -m 0755 "$module_dir/python/cmd/pulumi-language-python-exec" "$ENGINE_ROOT/python-host/pulumi-language-python-exec"
  fi
  build_piece "$runtime-host" "pulumi-language-$runtime" .stamp "$(old_host_stamp "$runtime")" "$WORK/$runtime-host" \
    "$VERSION_VAR=v$release" "github.com/pulumi/pulumi/sdk/v3/$(old_host_package "$runtime")"
}

# build_launcher <runtime>: the launcher the engine starts as pulumi-language-<runtime>
# (scripts/go/language-host/main.go); it reads Pulumi.yaml with gopkg.in/yaml.v3, the YAML library
# of the hosts' own sdk/v3 releases.
build_launcher() {
  require_go
  log "building the pulumi-language-$1 launcher (scripts/go/language-host/main.go) into $ENGINE_ROOT/bin"
  wrapper_module "$1-launcher" "pulumi-language-$1-launcher" "gopkg.in/yaml.v3 v3.0.1"
  cp "$LAUNCHER_MAIN" "$WORK/$1-launcher/main.go"
  build_piece bin "pulumi-language-$1" ".stamp-$1" "$(launcher_stamp "$1")" "$WORK/$1-launcher" \
    "main.hostRelease=$(old_host_release "$1")" .
  # Before the launcher, the Python host itself sat here with its shim; the shim now sits beside it.
  rm -f "$ENGINE_ROOT/bin/pulumi-language-python-exec"
}

if cli_is_built; then
  log "reusing Pulumi v$PULUMI_VERSION from $ENGINE_ROOT"
else
  build_cli
fi
if yaml_host_is_built; then
  log "reusing pulumi-language-yaml v$YAML_HOST_VERSION from $ENGINE_ROOT"
else
  build_yaml_host
fi
# --python and --go (scripts/setup-python.sh, scripts/setup-go.sh): only programs of that
# language need its host.
for runtime in python go; do
  case " $* " in *" --$runtime "*) ;; *) continue ;; esac
  if old_host_is_built "$runtime"; then
    log "reusing pulumi-language-$runtime from $ENGINE_ROOT/$runtime-host"
  else
    build_old_host "$runtime"
  fi
  if launcher_is_built "$runtime"; then
    log "reusing the pulumi-language-$runtime launcher from $ENGINE_ROOT/bin"
  else
    build_launcher "$runtime"
  fi
done
echo "$ENGINE_ROOT"
