#!/usr/bin/env bash
# What CI runs on a pull request: `examples/gitops/pull-request.sh <stack> > comment.md`.
#
# Previews the change with the cost policy pack and the team's budget (budget.json), and prints,
# as Markdown a bot can post on the pull request, what the preview will do and what it does to
# the stack's estimated cost per hour (the stack's state against the preview). Changes nothing.
# Exits with the preview's status: non-zero when the change breaks the budget (or the preview
# fails), which is what stops the merge.
#
# Needs: the repository built (`npm run build`; `npm run setup` does it), `pulumi` on PATH, the
# backend and the stack's passphrase as for any `pulumi preview`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
stack=${1:?usage: examples/gitops/pull-request.sh <stack>}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gitops_policy_launcher
cd "$GITOPS_DIR"

pulumi stack export --stack "$stack" >"$work/state.json"
status=0
pulumi preview --stack "$stack" --non-interactive --json --show-sames \
  --policy-pack "$GITOPS_POLICY_PACK" --policy-pack-config "$GITOPS_POLICY_CONFIG" \
  >"$work/preview.json" 2>"$work/preview.log" || status=$?
if [ ! -s "$work/preview.json" ]; then
  echo "the preview failed before describing the change (exit $status):" >&2
  cat "$work/preview.log" >&2
  exit "$status"
fi

# Prices from the stack's own service, found as the policy pack finds it. Read on a line of its
# own, so a config that cannot be read (a wrong passphrase) stops here under `set -e`.
config=$(gitops_stack_config "$stack")
PULUMI_CONFIG="$config" node "$GITOPS_REPO/dist/policy/report-command.js" \
  --preview "$work/preview.json" --state "$work/state.json" \
  --policy-config "$GITOPS_POLICY_CONFIG" --preview-exit-code "$status"
exit "$status"
