#!/usr/bin/env bash
# Records what a user of an earlier build has, for the upgrade suite (test/upgrades/README.md):
#
#   bash scripts/record-upgrade.sh <git ref> <program>     # e.g. v0.2.0 every-kind
#
# <program> is a folder of test/upgrades/programs/ with a `typescript` and a `yaml` program. For
# each face, the build of <git ref> is installed as a user's project has it (its own dependencies,
# its own build, its own native plugin), the program is brought up with it against an emulator
# of this clone, and what the user then holds is written to
# test/upgrades/recordings/<version>-<commit>/<program>/<face>/:
#   - the program as it was run, and its stack settings file (Pulumi.upgrade.yaml: the secrets salt
#     and the config, secrets as ciphertext);
#   - stack.json, the state (`pulumi stack export`);
#   - emulator.json, the service's side (the emulator's saved state, its clock frozen at the end
#     of the run so that nothing in it expires while the recording waits in the repository);
#   - recording.json: the build, the date, the emulator URL the state names, the passphrase;
# and, once per build, test/upgrades/recordings/<version>-<commit>/schema.json: that build's
# package schema, the schema gate's baseline while it is the newest recording.
# Nothing here runs in CI: the suite restores the emulator from its saved state, so no old build
# ever runs again. Needs the network of `npm install` (the recorded build's dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/engine-env.sh

ref=${1:?usage: record-upgrade.sh <git ref> <program>}
program=${2:?usage: record-upgrade.sh <git ref> <program>}
[ -d "test/upgrades/programs/$program" ] || { echo "no program test/upgrades/programs/$program" >&2; exit 2; }

commit=$(git rev-parse --short=7 "$ref^{commit}")
date=$(git log -1 --format=%cs "$commit")
version=$(git show "$commit:package.json" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).version)')
out="test/upgrades/recordings/$version-$commit/$program"
passphrase=upgrade-recording
# A recording is what users hold: never overwritten. Remove it by hand to record it again.
[ ! -e "$out" ] || { echo "$out exists: a recording is never overwritten (remove it first to record it again)" >&2; exit 2; }

compute_setup # this clone's build: the engine and the emulator that plays the service
work=$(mktemp -d "${TMPDIR:-/tmp}/compute-record-XXXXXX")
trap 'compute_emulator_stop; rm -rf "$work"' EXIT
# Everything is written here first and moved into the repository at the end, whole: a face that
# fails leaves no half recording behind for the suites to run.
staged="$work/out/$program"
git show "$commit:schema.json" >"$work/schema.json"

echo "[record] installing $commit ($version, $date) as a user's project has it" >&2
mkdir -p "$work/build"
git archive "$commit" | tar -x -C "$work/build"
# `npm install --no-save` from its lock file, as its own set-up did (`npm ci` refuses the lock
# files of this registry mirror: scripts/setup.sh).
# The link its set-up makes too: the programs (and the dynamic-provider host) find it by name.
(cd "$work/build" && npm install --no-save --no-audit --no-fund --loglevel=error >&2 && npm run --silent build >&2 &&
  { [ -e node_modules/pulumi-compute ] || ln -s .. node_modules/pulumi-compute; })
# Its own plugin, into a Pulumi home of its own: the version and the code that build shipped.
home="$work/home"
mkdir -p "$home"
(cd "$work/build" && source scripts/lib/engine-env.sh && compute_plugin_launcher && PULUMI_HOME="$home" compute_plugin_install "$COMPUTE_PULUMI_ROOT")

for face in typescript yaml; do
  echo "[record] $program/$face with $commit" >&2
  # Inside the recorded build's tree, so that `pulumi-compute` is that build (a user's node_modules).
  dir="$work/build/upgrade-program-$face"
  cp -R "test/upgrades/programs/$program/$face" "$dir"
  mkdir -p "$work/emulator-$face"
  compute_emulator_start "$work/emulator-$face" --data-dir "$work/emulator-$face/data" --profile fast --port 0 --quiet
  (
    cd "$dir"
    export PATH="$COMPUTE_PULUMI_ROOT/bin:$PATH" PULUMI_HOME="$home" PULUMI_CONFIG_PASSPHRASE="$passphrase"
    export PULUMI_BACKEND_URL="file://$work/state-$face" PULUMI_SKIP_UPDATE_CHECK=true
    export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PULUMI_NODEJS_TRANSPILE_ONLY=true
    mkdir -p "$work/state-$face"
    pulumi stack init upgrade --non-interactive >&2
    pulumi config set compute:baseUrl "$EMULATOR_URL" >&2
    pulumi config set --secret compute:apiKey "$EMULATOR_API_KEY" >&2
    pulumi config set --secret wandbKey recorded-wandb-key >&2
    pulumi config set --secret registryPassword recorded-registry-password >&2
    pulumi up --yes --skip-preview --non-interactive >&2
    mkdir -p "$staged/$face"
    pulumi stack export --file "$staged/$face/stack.json"
  )
  # Frozen, then stopped: the saved state keeps the instant, and a restore starts from it.
  curl -fsS -X POST -H "authorization: Bearer $EMULATOR_ADMIN_TOKEN" -H 'content-type: application/json' \
    -d '{"freeze":true}' "$EMULATOR_URL/_emulator/clock" >/dev/null
  url=$EMULATOR_URL
  compute_emulator_stop
  cp "$work/emulator-$face/data/state.json" "$staged/$face/emulator.json"
  cp "$dir/Pulumi.yaml" "$dir/Pulumi.upgrade.yaml" "$staged/$face/"
  [ ! -f "$dir/index.ts" ] || cp "$dir/index.ts" "$staged/$face/"
  node -e '
    const [file, commit, date, version, url, passphrase] = process.argv.slice(1);
    const recording = { commit, date, version, stack: "upgrade", baseUrl: url, passphrase };
    require("fs").writeFileSync(file, JSON.stringify(recording, null, 2) + "\n");' \
    "$staged/$face/recording.json" "$commit" "$date" "$version" "$url" "$passphrase"
done
mkdir -p "$(dirname "$out")"
[ -e "$(dirname "$out")/schema.json" ] || cp "$work/schema.json" "$(dirname "$out")/schema.json"
mv "$staged" "$out"
echo "[record] wrote $out" >&2
