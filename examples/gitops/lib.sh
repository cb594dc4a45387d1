# Sourced by the scripts of examples/gitops/ (never run): where things are, and the one set-up
# step the cost policy pack needs in the Pulumi home in force.

GITOPS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GITOPS_REPO=$(cd "$GITOPS_DIR/../.." && pwd)
# The pack (`npm run build` compiles it with the package) and the team's budget for it.
GITOPS_POLICY_PACK="$GITOPS_REPO/policy"
GITOPS_POLICY_CONFIG="${GITOPS_POLICY_CONFIG:-$GITOPS_DIR/budget.json}"

# gitops_policy_launcher: installs the analyzer plugin that starts the pack
# (policy/PulumiPolicy.yaml says why) into the plugin cache of the PULUMI_HOME in force, where
# the engine finds it without a "using … from $PATH" warning: the repository's own install step
# (scripts/lib/engine-env.sh, compute_plugin_install, which installs the native plugin too),
# with the `pulumi` on PATH. Idempotent.
gitops_policy_launcher() {
  local engine_root
  engine_root=$(dirname "$(dirname "$(command -v pulumi)")")
  (cd "$GITOPS_REPO" && source scripts/lib/engine-env.sh && compute_plugin_install "$engine_root")
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
# a review stack run it (from $GITOPS_DIR); then, if an interrupted run had left pending creates
# that this up made again, clears them from the state (pending-creates.js says why), so that
# later runs do not warn about resources the stack holds.
gitops_up() {
  local started work status=0
  started=$(node -p 'new Date().toISOString()')
  pulumi up --stack "$1" --non-interactive --yes \
    --policy-pack "$GITOPS_POLICY_PACK" --policy-pack-config "$GITOPS_POLICY_CONFIG"
  work=$(mktemp -d)
  pulumi stack export --stack "$1" --file "$work/state.json"
  node "$GITOPS_DIR/pending-creates.js" "$started" <"$work/state.json" >"$work/settled.json" || status=$?
  if [ "$status" -eq 0 ]; then
    pulumi stack import --stack "$1" --file "$work/settled.json"
  fi
  rm -rf "$work"
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
}

# gitops_stack_exists <stack>: whether the backend holds a stack of this project by that name.
gitops_stack_exists() {
  pulumi stack ls --json | node -e '
    const stacks = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.exit(stacks.some((stack) => stack.name === process.argv[1]) ? 0 : 1);' "$1"
}
