#!/usr/bin/env bash
# The GitOps flow of this folder, played locally against the emulator with one command, on the
# kind of state backend a team shares: a PostgreSQL database.
#
#   bash examples/gitops/run-local.sh                  # state in PostgreSQL (started here)
#   bash examples/gitops/run-local.sh --file-backend   # state in a folder, no database
#
# 1. main is deployed (merge.sh): a web pod and a sandbox;
# 2. a pull request adds one H100 pod (`trainers: 1` in the stack's configuration): its preview
#    with the cost policy pack, and the Markdown a bot would post; with `--review 1`, the change
#    also runs for real in the pull request's review stack `pr-1` (pull-request.sh);
# 3. a pull request adding four: over the 10 $/hr budget of budget.json, the preview fails;
# 4. the first one is merged (merge.sh), and its review stack destroyed (pr-closed.sh);
# 5. the drift check passes (drift.sh), then fails once the web pod is stopped by hand.
#
# The database is a PostgreSQL server from the distribution's packages (installed by
# scripts/postgres.sh when missing), run as a non-root user on a loopback port with its data in
# a temporary folder, and stopped at the end. The engine logs in as a team's CI does
# (docs/team-backend.md): `PULUMI_BACKEND_URL=postgres://compute@127.0.0.1:<port>/pulumi` with
# the password in PGPASSWORD, never in the URL. Everything else lives in .demo/gitops, and
# everything the flow made is destroyed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

backend=postgres
case "${1:-}" in
  "") ;;
  --file-backend) backend=file ;;
  *) echo "usage: bash examples/gitops/run-local.sh [--file-backend]" >&2; exit 2 ;;
esac

source scripts/lib/engine-env.sh
source examples/gitops/lib.sh
compute_setup
work="$PWD/.demo/gitops"
# A server an earlier run left (killed before its clean-up) first, then its folder.
bash scripts/postgres.sh remove "$work/postgres"
rm -rf "$work"
mkdir -p "$work/state" "$work/home"

stack=gitops-local
cleanup() {
  local s exists
  for s in pr-1 "$stack"; do
    exists=0
    (cd examples/gitops && gitops_stack_exists "$s") || exists=$?
    [ "$exists" -ne 1 ] || continue
    if ! (cd examples/gitops && pulumi destroy --stack "$s" --yes --non-interactive >/dev/null &&
      pulumi stack rm "$s" --yes --non-interactive >/dev/null); then
      echo "warning: stack $s was not destroyed (its resources are in the emulator, which stops now)" >&2
    fi
  done
  rm -f "examples/gitops/Pulumi.$stack.yaml" examples/gitops/Pulumi.pr-1.yaml
  compute_emulator_stop
  if [ "$backend" = postgres ]; then bash scripts/postgres.sh remove "$work/postgres"; fi
}
trap cleanup EXIT
compute_emulator_start "$work" --port 0 --profile fast
if [ "$backend" = postgres ]; then
  bash scripts/postgres.sh start "$work/postgres"
  # PGPASSWORD as a CI job gets it: from the environment (a CI secret), not from the URL.
  source "$work/postgres/postgres.env"
  export PGPASSWORD
  state="postgres://$PGUSER@$PGHOST:$PGPORT/$PGDATABASE?sslmode=disable"
else
  state="$work/state"
fi
compute_engine_env "$state" "$work/home" gitops-local
echo "state backend: $PULUMI_BACKEND_URL"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
configure() { (cd examples/gitops && pulumi config set --stack "$stack" "$@" >/dev/null); }

(cd examples/gitops && pulumi stack init "$stack" >/dev/null)
configure compute:baseUrl "$EMULATOR_URL"
configure --secret compute:apiKey "$EMULATOR_API_KEY"
configure trainers 0

step "main is merged: merge.sh deploys it"
bash examples/gitops/merge.sh "$stack"

step "pull request #1 adds one H100 pod: pull-request.sh --review 1 (the Markdown a bot posts; the change runs in review stack pr-1)"
configure trainers 1
bash examples/gitops/pull-request.sh "$stack" --review 1

step "pull request #2 adds four: over the budget of examples/gitops/budget.json, the preview fails"
configure trainers 4
if bash examples/gitops/pull-request.sh "$stack"; then
  echo "expected the budget to stop pull request #2" >&2
  exit 1
fi
echo "(pull-request.sh failed: CI marks the pull request red and it cannot be merged)"

step "pull request #1 is merged: merge.sh, then pr-closed.sh 1 destroys its review stack"
configure trainers 1
bash examples/gitops/merge.sh "$stack"
bash examples/gitops/pr-closed.sh 1

step "drift check: drift.sh"
bash examples/gitops/drift.sh "$stack"

step "someone stops the web pod by hand; the next drift check fails"
web=$(cd examples/gitops && pulumi stack export --stack "$stack" |
  node -e 'const s = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(s.deployment.resources.find((r) => r.urn.endsWith("::web")).id)')
# With node's fetch (no curl needed), the key from the environment rather than the command line.
COMPUTE_BASE_URL="$EMULATOR_URL" COMPUTE_API_KEY="$EMULATOR_API_KEY" node -e '
  const { ComputeClient } = require("pulumi-compute/sdk");
  const client = new ComputeClient();
  client.pods.stop(process.argv[1]).then(() => client.close(), (error) => { console.error(error.message); process.exit(1); });' "$web"
if bash examples/gitops/drift.sh "$stack"; then
  echo "expected the drift check to fail" >&2
  exit 1
fi
echo "(drift.sh failed, as it should: the stopped pod is drift)"

step "done: destroying the stack"
