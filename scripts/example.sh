#!/usr/bin/env bash
# Runs one example program against a fresh in-memory emulator: `npm run example -- <name>`.
# It sets up the clone if needed, starts the emulator, runs `pulumi up --yes` of
# examples/<name>, prints the stack outputs, then destroys the stack and stops the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."

name="${1:-}"
if [ -z "$name" ] || [ ! -f "examples/$name/Pulumi.yaml" ] || [ "$name" = demo ]; then
  echo "usage: npm run example -- <name>, one of:" >&2
  for dir in examples/*/; do d=$(basename "$dir"); [ "$d" != demo ] && echo "  $d" >&2; done
  exit 2
fi

engine_root=$(bash scripts/setup.sh | tail -n 1)
work="$PWD/.demo/examples/$name"
rm -rf "$work"
mkdir -p "$work/state" "$work/home"

node dist/emulator/bin.js --port 0 --profile "${COMPUTE_EXAMPLE_PROFILE:-realistic}" >"$work/emulator.log" 2>&1 &
emulator_pid=$!
trap 'kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "listening on" "$work/emulator.log" 2>/dev/null && break; sleep 0.1; done
base_url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/emulator.log" | head -n 1)
api_key=$(sed -n 's/^API key: *//p' "$work/emulator.log" | head -n 1)
[ -n "$base_url" ] || { echo "the emulator did not start:" >&2; cat "$work/emulator.log" >&2; exit 1; }
echo "Emulator: $base_url"

export PATH="$engine_root/bin:$(node -p 'require("path").dirname(require.resolve("@pulumi/pulumi/package.json"))'):$PATH"
export PULUMI_BACKEND_URL="file://$work/state" PULUMI_HOME="$work/home" PULUMI_CONFIG_PASSPHRASE=example
export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true

cd "examples/$name"
pulumi stack init example >/dev/null
trap 'pulumi stack rm example --yes --force >/dev/null 2>&1 || true; rm -f Pulumi.example.yaml; kill "$emulator_pid" 2>/dev/null || true' EXIT
pulumi config set compute:baseUrl "$base_url" >/dev/null
pulumi config set --secret compute:apiKey "$api_key" >/dev/null

if [ "$name" = adopt-existing-pod ]; then
  # Someone created this pod outside Pulumi; the stack adopts it.
  existing=$(COMPUTE_BASE_URL="$base_url" COMPUTE_API_KEY="$api_key" node -e '
    const { ComputeClient } = require("pulumi-compute/sdk");
    new ComputeClient().pods.create({ name: "legacy-web", image: "nginx:1.27", cpu: { id: "cpu3c", vcpuCount: 2 } })
      .then((pod) => console.log(pod.id), (error) => { console.error(error.message); process.exit(1); });')
  echo "Created pod $existing outside the stack; adopting it."
  pulumi config set existingPodId "$existing" >/dev/null
  pulumi config set existingPodName legacy-web >/dev/null
fi

pulumi up --yes
pulumi destroy --yes >/dev/null
echo "Destroyed the example stack; nothing is left in the emulator."
