#!/usr/bin/env bash
# What CI runs when a pull request is closed (merged or not): `examples/gitops/pr-closed.sh <n>`.
# Destroys the pull request's review stack `pr-<n>` (made by `pull-request.sh --review <n>`) and
# removes it from the backend, so nothing it ran keeps billing. Nothing to do when the pull
# request never had one.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
number=${1:?usage: examples/gitops/pr-closed.sh <pull request number>}
[[ "$number" =~ ^[0-9]+$ ]] || { echo "usage: examples/gitops/pr-closed.sh <pull request number>" >&2; exit 2; }
review=pr-$number

cd "$GITOPS_DIR"
if ! gitops_stack_exists "$review"; then
  echo "no review stack $review: nothing to destroy"
  exit 0
fi
pulumi destroy --stack "$review" --non-interactive --yes
# `stack rm` refuses a stack that still holds resources: a destroy that left one fails here.
pulumi stack rm "$review" --non-interactive --yes
echo "review stack $review destroyed and removed"
