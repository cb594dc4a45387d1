# Sourced by the scripts of examples/gitops/ (never run): where things are, and the one set-up
# step the cost policy pack needs in the Pulumi home in force.

GITOPS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GITOPS_REPO=$(cd "$GITOPS_DIR/../.." && pwd)
# The pack (`npm run build` compiles it with the package) and the team's budget for it.
GITOPS_POLICY_PACK="$GITOPS_REPO/policy"
GITOPS_POLICY_CONFIG="${GITOPS_POLICY_CONFIG:-$GITOPS_DIR/budget.json}"

# A stack whose Pulumi.<stack>.yaml is missing on this runner (a review stack's, made on another
# runner and never committed) gets its secrets salt back from the state instead of a new one:
# the salt is part of every owner mark, and a new one would keep the next run from adopting what
# an interrupted one made (docs/team-backend.md).
export PULUMI_FALLBACK_TO_STATE_SECRETS_MANAGER=true

# gitops_policy_launcher: installs the analyzer plugin that starts the pack
# (policy/PulumiPolicy.yaml says why) into the plugin cache of the PULUMI_HOME in force, where
# the engine finds it without a "using … from $PATH" warning: the repository's own install step
# (scripts/lib/engine-env.sh, compute_plugin_install, which installs the native plugin too),
# with the `pulumi` on PATH, and only what changed: CI jobs may share a Pulumi home.
gitops_policy_launcher() {
  local engine_root
  engine_root=$(dirname "$(dirname "$(command -v pulumi)")")
  (cd "$GITOPS_REPO" && source scripts/lib/engine-env.sh && compute_plugin_install "$engine_root" --if-changed)
}

# gitops_stack_config <stack>: the stack's configuration as one JSON object of key → value,
# secrets decrypted: what the engine hands a policy pack as PULUMI_CONFIG. Kept in a variable,
# never written to a file or printed.
gitops_stack_config() {
  pulumi config --stack "$1" --show-secrets --json | node -e '
    const config = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(config).map(([key, entry]) => [key, entry.value]))));'
}

# gitops_up <stack>: `pulumi up` with the cost policy pack and the team's budget, as merge.sh and
# a review stack run it (from $GITOPS_DIR), then gitops_settle_pending_creates.
gitops_up() {
  local started
  started=$(node -p 'new Date().toISOString()')
  pulumi up --stack "$1" --non-interactive --yes \
    --policy-pack "$GITOPS_POLICY_PACK" --policy-pack-config "$GITOPS_POLICY_CONFIG"
  gitops_settle_pending_creates "$1" "$started"
}

# gitops_settle_pending_creates <stack> <up start>: if an interrupted run had left pending
# creates that the up started then made again, clears them from the state
# (pending-creates.js says when, and why), so that later runs do not warn about resources the
# stack holds. Nothing to do, and no request, when nothing is pending. A subshell, so that its
# folder (the state, secrets as ciphertext) goes whatever fails.
gitops_settle_pending_creates() (
  local stack=$1 started=$2 status=0 pending work
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  pulumi stack export --stack "$stack" --file "$work/state.json"
  pending=$(node "$GITOPS_DIR/pending-creates.js" --list <"$work/state.json")
  [ -n "$pending" ] || exit 0
  gitops_compute "$stack" ps --stack "$(gitops_project)/$stack" --json >"$work/live.json"
  node "$GITOPS_DIR/pending-creates.js" "$started" "$work/live.json" <"$work/state.json" >"$work/settled.json" || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"
  [ "$status" -eq 0 ] || exit 0
  # Export and import are two steps (the import alone takes the lock): written back only if no
  # other run changed the state in between.
  pulumi stack export --stack "$stack" --file "$work/again.json"
  if cmp -s "$work/state.json" "$work/again.json"; then
    pulumi stack import --stack "$stack" --file "$work/settled.json"
  else
    echo "warning: the state of $stack changed while its pending creates were being settled: left as they are" >&2
  fi
)

# gitops_project: the project's name, from Pulumi.yaml.
gitops_project() {
  sed -n 's/^name: *//p' "$GITOPS_DIR/Pulumi.yaml"
}

# gitops_compute <stack> <compute argument…>: the repository's `compute` command against the
# stack's own service (compute:baseUrl, compute:apiKey and compute:teamId from its config, else
# the environment's), the key handed over in the child's environment, never on a command line.
gitops_compute() {
  local stack=$1 config
  shift
  config=$(gitops_stack_config "$stack")
  PULUMI_CONFIG="$config" node -e '
    const config = JSON.parse(process.env.PULUMI_CONFIG);
    const env = { ...process.env };
    delete env.PULUMI_CONFIG;
    for (const [key, name] of [["compute:baseUrl", "COMPUTE_BASE_URL"], ["compute:apiKey", "COMPUTE_API_KEY"], ["compute:teamId", "COMPUTE_TEAM_ID"]]) {
      if (config[key]) env[name] = config[key];
    }
    const run = require("child_process").spawnSync(process.execPath, process.argv.slice(1), { env, stdio: "inherit" });
    process.exit(run.status ?? 1);' "$GITOPS_REPO/dist/cli/bin.js" "$@"
}

# gitops_stack_exists <stack>: 0 when the backend holds a stack of this project by that name, 1
# when it does not, 2 when the backend cannot be read (never "no" for a database that is down:
# a caller that took it for "no" would leave a review stack billing). `set -e` does not apply
# inside a condition, hence the explicit statuses.
gitops_stack_exists() {
  local stacks
  stacks=$(pulumi stack ls --json) || { echo "cannot list the stacks of the backend" >&2; return 2; }
  node -e '
    let stacks;
    try { stacks = JSON.parse(process.argv[2]); } catch { console.error("cannot read `pulumi stack ls --json`"); process.exit(2); }
    process.exit(stacks.some((stack) => stack.name === process.argv[1]) ? 0 : 1);' "$1" "$stacks"
}

# gitops_pending_creates <stack>: the URNs of the stack's pending creates, one per line.
gitops_pending_creates() {
  pulumi stack export --stack "$1" | node "$GITOPS_DIR/pending-creates.js" --list
}
