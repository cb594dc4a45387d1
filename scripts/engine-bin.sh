#!/usr/bin/env bash
# Prints the folder of the `pulumi` CLI (and its language hosts) that `npm run setup` builds, for
# a user without a Pulumi CLI of their own: export PATH="$(bash <clone>/scripts/engine-bin.sh):$PATH".
# It lives in the engine cache (scripts/lib/engine-env.sh, compute_engine_cache), which
# COMPUTE_ENGINE_CACHE or XDG_CACHE_HOME may move.
set -euo pipefail
source "$(dirname "$0")/lib/engine-env.sh"
# The engine root of the release package.json names (compute_engine_root).
root=$(compute_engine_root)
bin="$root/bin"
if [ ! -x "$bin/pulumi" ]; then
  echo "no Pulumi CLI in $bin: run \`npm run setup\` in $(cd "$(dirname "$0")/.." && pwd) first" >&2
  exit 1
fi
echo "$bin"
