#!/usr/bin/env bash
# What CI runs when a pull request is merged: `examples/gitops/merge.sh <stack>`.
# `pulumi up` with the same policy pack and budget as the pull request's preview, so a change
# that got past review still cannot go over budget. Not `--skip-preview`: the budget is checked
# on the whole stack, which the engine does in the preview, before anything is created.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
stack=${1:?usage: examples/gitops/merge.sh <stack>}

gitops_policy_launcher
cd "$GITOPS_DIR"
pulumi up --stack "$stack" --non-interactive --yes \
  --policy-pack "$GITOPS_POLICY_PACK" --policy-pack-config "$GITOPS_POLICY_CONFIG"
