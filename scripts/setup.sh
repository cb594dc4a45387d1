#!/usr/bin/env bash
# One-time (and idempotent) set-up of a clone: dependencies, build, the package's link to
# itself, the Pulumi engine (CLI, Node.js and YAML language hosts) and the native plugin
# installed for the user. Every other script calls this first.
#
# Prints nothing on stdout but the engine root on its last line (scripts capture it).
#
# `--deps-only`: the npm install step alone (scripts/test.sh runs it first, so that the test
# type check can start beside the build).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

# package.json `engines`: Node.js >= 20.18 (major and minor, not the major alone).
if ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > 20 || (major === 20 && minor >= 18) ? 0 : 1)'; then
  log "error: Node.js >= 20.18 is required (found $(node -v))"
  exit 1
fi

# Dependencies, from package-lock.json; only when it changed since the last install.
# `npm install`, not `npm ci`: the registry mirror these machines use serves only the Linux
# builds of some optional platform packages (jest's resolver bindings), so the lock omits the
# others and `npm ci`'s strict lock check refuses it, although the install itself is complete.
# `--no-save`: it installs what the lock says and leaves the lock as committed (without it, npm
# writes the other platforms' entries back into package-lock.json, and a clone is left modified
# by its own set-up). `--prefer-offline`: what npm's cache holds of the lock's packages is taken
# from it without asking the registry again (a fresh clone's install: 23 -> 17.5 s on 2 cores).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  npm install --no-save --no-audit --no-fund --prefer-offline --loglevel=error >&2
fi
[ "${1:-}" = --deps-only ] && exit 0

log "building TypeScript (dist/)"
npx tsc -p tsconfig.json >&2

# The dynamic provider requires its runtime by package name from the Pulumi project's
# directory, as it would from an installed package; inside this repository the package
# resolves to itself through this link.
if [ ! -e node_modules/pulumi-compute ]; then
  ln -s .. node_modules/pulumi-compute
fi

engine_root=$(bash scripts/install-pulumi-engine.sh | tail -n 1)

# Dynamic resources run in the engine's `pulumi-resource-pulumi-nodejs`, a launcher shipped with
# @pulumi/pulumi. The engine looks for it next to `pulumi` ("bundled"); found anywhere else on
# PATH it prints "using … from $PATH" on every run. So it is copied there, not linked: the engine
# compares the resolved path. It finds @pulumi/pulumi from the program's folder at run time, so
# one copy serves every project.
nodejs_launcher=node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs
if ! cmp -s "$nodejs_launcher" "$engine_root/bin/pulumi-resource-pulumi-nodejs"; then
  cp "$nodejs_launcher" "$engine_root/bin/.pulumi-resource-pulumi-nodejs.partial"
  chmod 0755 "$engine_root/bin/.pulumi-resource-pulumi-nodejs.partial"
  mv "$engine_root/bin/.pulumi-resource-pulumi-nodejs.partial" "$engine_root/bin/pulumi-resource-pulumi-nodejs"
fi

# The native plugin (provider/native) and the cost policy pack's launcher, installed for the
# user: with the engine's bin/ on PATH, a TypeScript or YAML program and
# `pulumi preview --policy-pack <clone>/policy` need nothing else (docs/native-plugin.md, "The
# native plugin"; docs/cost.md).
source scripts/lib/engine-env.sh
compute_plugin_launcher
log "installing the native plugin and the policy pack launcher (v$(compute_plugin_version)) into ${PULUMI_HOME:-$HOME/.pulumi}/plugins"
compute_plugin_install "$engine_root" >&2

echo "$engine_root"
