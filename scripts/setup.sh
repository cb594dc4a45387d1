#!/usr/bin/env bash
# One-time (and idempotent) set-up of a clone: dependencies, build, the package's link to
# itself, and the Pulumi engine. Every other script calls this first.
#
# Prints nothing on stdout but the engine root on its last line (scripts capture it).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  log "error: Node.js >= 20.18 is required (found $(node -v))"
  exit 1
fi

# Dependencies, from package-lock.json; only when it changed since the last install.
# `npm install`, not `npm ci`: the registry mirror these machines use serves only the Linux
# builds of some optional platform packages (jest's resolver bindings), so the lock omits the
# others and `npm ci`'s strict lock check refuses it, although the install itself is complete.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  npm install --no-audit --no-fund --loglevel=error >&2
fi

log "building TypeScript (dist/)"
npx tsc -p tsconfig.json >&2

# The dynamic provider requires its runtime by package name from the Pulumi project's
# directory, as it would from an installed package; inside this repository the package
# resolves to itself through this link.
if [ ! -e node_modules/pulumi-compute ]; then
  ln -s .. node_modules/pulumi-compute
fi

bash scripts/install-pulumi-engine.sh
