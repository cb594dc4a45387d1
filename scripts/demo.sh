#!/usr/bin/env bash
# The README's demo command (`npm run demo`): set-up, the emulator with the realistic timing
# profile, then `pulumi up` of the root demo stack (Pulumi.yaml) against it, then a summary of
# every pod and sandbox. `npm run demo -- --destroy` destroys the stack instead.
#
# Everything lives in .demo/ (git-ignored): the emulator's data (so a second run finds the same
# pods and shows no changes), the local file backend and Pulumi's home.
set -euo pipefail
cd "$(dirname "$0")/.."

action=up
for arg in "$@"; do
  case "$arg" in
    --destroy) action=destroy ;;
    -h|--help) echo "usage: npm run demo [-- --destroy]"; exit 0 ;;
    *) echo "unknown option: $arg (usage: npm run demo [-- --destroy])" >&2; exit 2 ;;
  esac
done

engine_root=$(bash scripts/setup.sh | tail -n 1)
demo_dir="$PWD/.demo"
mkdir -p "$demo_dir/state" "$demo_dir/emulator" "$demo_dir/pulumi-home"
port="${COMPUTE_DEMO_PORT:-8787}"

node dist/emulator/bin.js --port "$port" --data-dir "$demo_dir/emulator" --profile realistic >"$demo_dir/emulator.log" 2>&1 &
emulator_pid=$!
trap 'kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q "listening on" "$demo_dir/emulator.log" 2>/dev/null && break
  if ! kill -0 "$emulator_pid" 2>/dev/null; then
    echo "the emulator did not start:" >&2
    cat "$demo_dir/emulator.log" >&2
    exit 1
  fi
  sleep 0.1
done
base_url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$demo_dir/emulator.log" | head -n 1)
api_key=$(sed -n 's/^API key: *//p' "$demo_dir/emulator.log" | head -n 1)
echo "Emulator: $base_url (log: .demo/emulator.log)"

export PATH="$engine_root/bin:$(node -p 'require("path").dirname(require.resolve("@pulumi/pulumi/package.json"))'):$PATH"
export PULUMI_BACKEND_URL="file://$demo_dir/state"
export PULUMI_HOME="$demo_dir/pulumi-home"
# A local demo passphrase for the local state; a real stack uses its own secrets provider.
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-compute-demo}"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true

pulumi stack select demo --create >/dev/null
pulumi config set compute:baseUrl "$base_url" >/dev/null
pulumi config set --secret compute:apiKey "$api_key" >/dev/null

if [ "$action" = destroy ]; then
  pulumi destroy --yes
  exit 0
fi

pulumi up --yes
node scripts/demo-summary.js "$(pulumi stack output --json)"
