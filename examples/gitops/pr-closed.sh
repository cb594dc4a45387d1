#!/usr/bin/env bash
# What CI runs when a pull request is closed (merged or not): `examples/gitops/pr-closed.sh <n>`.
# Destroys the pull request's review stack `pr-<n>` (made by `pull-request.sh --review <n>`) and
# removes it from the backend, so nothing it ran keeps billing. Nothing to do when the pull
# request never had one; a backend that cannot be read, or a review stack an interrupted run
# left with pending creates, fails the job instead (the stack is kept).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
number=${1:?usage: examples/gitops/pr-closed.sh <pull request number>}
[[ "$number" =~ ^[0-9]+$ ]] || { echo "usage: examples/gitops/pr-closed.sh <pull request number>" >&2; exit 2; }
review=pr-$number

cd "$GITOPS_DIR"
exists=0
gitops_stack_exists "$review" || exists=$?
case "$exists" in
  0) ;;
  1)
    echo "no review stack $review: nothing to destroy"
    exit 0
    ;;
  *) exit "$exists" ;;
esac
# A pending create is a resource an interrupted run may have made that the state has no id for:
# `destroy` cannot reach it, and `stack rm` would drop the last trace of it.
pending=$(gitops_pending_creates "$review")
if [ -n "$pending" ]; then
  printf '%s has pending creates from an interrupted run, which destroy cannot reach:\n%s\n' "$review" "$pending" >&2
  printf 'kept; run `pull-request.sh <stack> --review %s` once more (its up adopts them), then this again; `compute ps --stack %s/%s` lists what runs\n' "$number" "$(gitops_project)" "$review" >&2
  exit 1
fi
pulumi destroy --stack "$review" --non-interactive --yes
# `stack rm` refuses a stack that still holds resources: a destroy that left one fails here.
pulumi stack rm "$review" --non-interactive --yes
echo "review stack $review destroyed and removed"
