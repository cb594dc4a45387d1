#!/usr/bin/env bash
# What Go programs need, on top of scripts/setup.sh (`npm run setup:go`; it runs setup.sh first
# unless COMPUTE_PULUMI_ROOT already names the engine root setup.sh printed). Idempotent; each
# step is skipped while its inputs are unchanged. Everything it makes is a build output, never
# committed:
#
# 1. The Go language host, built by scripts/install-pulumi-engine.sh --go: the standalone module
#    of 3.248 is refused by the Go module proxy, and sdk/v3 v3.66.0, the last release holding
#    `go/pulumi-language-go`, drives 3.248 programs (it builds the program with the `go` on PATH,
#    against the sdk/v3 release of the program's own go.mod). Next to `pulumi` under the host's
#    name sits the launcher scripts/go/language-host/main.go, which hands the host the project's
#    `runtime.options` (`binary`, `buildTarget`), as for Python.
# 2. The Go SDK, generated from schema.json into dist/go by Pulumi's own generator
#    (scripts/go/sdk-gen): the module example.com/pulumi-compute/sdk/go, package
#    example.com/pulumi-compute/sdk/go/compute. A program's go.mod points the module at the
#    clone with a `replace` (examples/go-stack/go.mod; docs/native-plugin.md, "Go programs").
# 3. examples/go-stack compiled once with the machine's own Go settings, the way the host will
#    build it: this fills the Go build cache (the Pulumi Go SDK takes a minute or more to compile
#    on two cores the first time; seconds after that) and proves the generated SDK compiles.
#
# Prints the folder of the Go SDK's module on its last line of stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup-go] %s\n' "$*" >&2; }

source scripts/lib/engine-env.sh
if [ -z "${COMPUTE_PULUMI_ROOT:-}" ]; then
  compute_setup
fi
if ! command -v go >/dev/null 2>&1; then
  log "error: Go >= 1.25.11 is required for Go programs (the engine itself is built with it)"
  exit 1
fi
# The same floor as the engine build (scripts/install-pulumi-engine.sh); a development build of
# Go, whose version cannot be read, passes.
go_version=$(go env GOVERSION 2>/dev/null)
go_version=${go_version#go}
go_version=${go_version%%[!0-9.]*}
if [[ $go_version =~ ^[0-9]+(\.[0-9]+)*$ ]] \
  && [ "$(printf '1.25.11\n%s\n' "$go_version" | sort -V | head -n 1)" != 1.25.11 ]; then
  log "error: Go >= 1.25.11 is required for Go programs (found $(go env GOVERSION))"
  exit 1
fi

# 1. The language host, built with the engine (and, like it, kept in the cache).
bash scripts/install-pulumi-engine.sh --go >/dev/null

# 2. The SDK.
compute_sdk_generate go

# 3. The example, built as `pulumi up` builds it (its go.sum is committed: no -mod=mod here, so a
#    missing checksum fails now rather than in a user's first `up`). Only when the SDK or the
#    example changed; the binary itself is not kept.
build_key="$COMPUTE_SDK_STAMP $(cat examples/go-stack/*.go examples/go-stack/go.mod examples/go-stack/go.sum | sha256sum | cut -c1-16) $(go version)"
if [ "$(cat dist/go/.stamp-example 2>/dev/null)" != "$build_key" ]; then
  log "compiling examples/go-stack against dist/go (the first time fills the Go build cache)"
  (cd examples/go-stack && go build -o /dev/null .)
  printf '%s\n' "$build_key" >dist/go/.stamp-example
fi

echo "$PWD/dist/go"
