#!/usr/bin/env bash
# What CI runs when a pull request is merged: `examples/gitops/merge.sh <stack>`.
# `pulumi up` with the same policy pack and budget as the pull request's preview, so a change
# that got past review still cannot go over budget. Not `--skip-preview`: the budget is checked
# on the whole stack, which the engine does in the preview, before anything is created.
#
# Two merges in a row start two of these: the backend's lock lets one run, and the other stops at
# once ("the stack is currently locked by 1 lock(s)") without touching the service; run it again
# once the first has ended, or queue the jobs per stack in CI (docs/team-backend.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
stack=${1:?usage: examples/gitops/merge.sh <stack>}

gitops_policy_launcher
cd "$GITOPS_DIR"
gitops_up "$stack"
