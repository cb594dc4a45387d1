#!/usr/bin/env bash
# What CI runs on a pull request: `examples/gitops/pull-request.sh <stack> [--review <n>] > comment.md`.
#
# Previews the change with the cost policy pack and the team's budget (budget.json), and prints,
# as Markdown a bot can post on the pull request, what the preview will do and what it does to
# the stack's estimated cost per hour (the stack's state against the preview). Changes nothing
# in <stack>. Exits with the preview's status: non-zero when the change breaks the budget (or
# the preview fails), which is what stops the merge.
#
# `--review <n>`: when the preview passes, also deploys the change for real to the pull
# request's own review stack `pr-<n>` (made on first use with <stack>'s configuration, and given
# it again on every push; `review: true` keeps it small, index.ts says how), under the same
# budget, and adds its outputs to the comment. `pr-closed.sh <n>` destroys it when the pull
# request closes. Its `up` output goes to stderr, so stdout stays the comment.
#
# Previews take no lock, so any number run at once, on one stack or on many; review stacks are
# stacks of their own, each with its own lock and its own resources (docs/team-backend.md).
#
# Needs: the repository built (`npm run build`; `npm run setup` does it), `pulumi` on PATH, the
# backend and the stack's passphrase as for any `pulumi preview`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
usage="usage: examples/gitops/pull-request.sh <stack> [--review <pull request number>]"
stack=${1:?$usage}
review=
if [ $# -gt 1 ]; then
  [ "$2" = --review ] && [[ "${3:-}" =~ ^[0-9]+$ ]] || { echo "$usage" >&2; exit 2; }
  review=pr-$3
fi

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
[ "$status" -eq 0 ] && [ -n "$review" ] || exit "$status"

exists=0
gitops_stack_exists "$review" || exists=$?
case "$exists" in
  0) pulumi config cp --stack "$stack" --dest "$review" >&2 ;;
  1) pulumi stack init "$review" --copy-config-from "$stack" --non-interactive >&2 ;;
  *) exit "$exists" ;;
esac
pulumi config set --stack "$review" review true >&2
gitops_up "$review" >&2
printf '\n#### Review stack `%s`\n\nThe change runs for real in `%s` until this pull request closes:\n\n```json\n%s\n```\n' \
  "$review" "$review" "$(pulumi stack output --stack "$review" --json)"
