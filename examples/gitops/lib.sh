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
