#!/usr/bin/env bash
# The README's demo command (`npm run demo`): set-up, the emulator with the realistic timing
# profile, then `pulumi up` of the root demo stack (Pulumi.yaml) against it, then a summary of
# what it made. `npm run demo -- --destroy` destroys the stack instead.
#
# Everything lives in .demo/ (git-ignored): the emulator's data (so a second run finds the same
# resources and shows no changes), the local file backend and Pulumi's home. Without .demo/ the
# demo starts from zero: the emulator's default fixture.
#
# The demo runs on the fixture's development account, which holds things of its own (two SSH
# keys, network volumes, templates, a registry credential, the pods of a cluster). The stack
# makes everything it uses (credential, template, volume, SSH key, pods, sandboxes, endpoint)
# and touches none of those, so it needs no empty account, and `--destroy` leaves the account
# as the fixture made it (the SSH key resource removes only its own line).
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

source scripts/lib/engine-env.sh
compute_setup
demo_dir="$PWD/.demo"
mkdir -p "$demo_dir/state" "$demo_dir/emulator" "$demo_dir/pulumi-home"
port="${COMPUTE_DEMO_PORT:-8787}"

trap compute_emulator_stop EXIT
compute_emulator_start "$demo_dir" --port "$port" --data-dir "$demo_dir/emulator" --profile realistic
echo "Emulator: $EMULATOR_URL (log: .demo/emulator.log)"

# A local demo passphrase for the local state; a real stack uses its own secrets provider.
compute_engine_env "$demo_dir/state" "$demo_dir/pulumi-home" "${PULUMI_CONFIG_PASSPHRASE:-compute-demo}"

pulumi stack select demo --create >/dev/null
pulumi config set compute:baseUrl "$EMULATOR_URL" >/dev/null
pulumi config set --secret compute:apiKey "$EMULATOR_API_KEY" >/dev/null

if [ "$action" = destroy ]; then
  pulumi destroy --yes
  exit 0
fi

pulumi up --yes
node scripts/demo-summary.js "$(pulumi stack output --json)"
