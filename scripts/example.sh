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

source scripts/lib/engine-env.sh
compute_setup
work="$PWD/.demo/examples/$name"
rm -rf "$work"
mkdir -p "$work/state" "$work/home"

trap compute_emulator_stop EXIT
compute_emulator_start "$work" --port 0 --profile "${COMPUTE_EXAMPLE_PROFILE:-realistic}"
echo "Emulator: $EMULATOR_URL"

compute_engine_env "$work/state" "$work/home" example
runtime=$(node -e '
  const { runtime } = require("yaml").parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(typeof runtime === "string" ? runtime : runtime.name);' "examples/$name/Pulumi.yaml")
if [ "$runtime" = python ]; then
  # A Python program runs on the virtualenv's python, first on PATH as when it is activated.
  compute_setup_python
  export PATH="$COMPUTE_PYTHON_VENV/bin:$PATH"
elif [ "$runtime" = go ]; then
  # The Go host and the SDK in dist/go, which the example's go.mod points at.
  compute_setup_go
fi

cd "examples/$name"
pulumi stack init example >/dev/null
trap 'pulumi stack rm example --yes --force >/dev/null 2>&1 || true; rm -f Pulumi.example.yaml; compute_emulator_stop' EXIT
pulumi config set compute:baseUrl "$EMULATOR_URL" >/dev/null
pulumi config set --secret compute:apiKey "$EMULATOR_API_KEY" >/dev/null

if [ "$name" = adopt-existing-pod ]; then
  # Someone created this pod outside Pulumi; the stack adopts it.
  existing=$(COMPUTE_BASE_URL="$EMULATOR_URL" COMPUTE_API_KEY="$EMULATOR_API_KEY" node -e '
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
