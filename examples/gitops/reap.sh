#!/usr/bin/env bash
# The reaper (CI runs it on a schedule, `workflows/reap.yml`): `examples/gitops/reap.sh <stack> [--apply]`.
# Stops or ends what the stack declared a `lifetime` (or an `idle` rule) for once it is past it,
# with nothing but the stack's API key: no program, no `pulumi up`, no laptop
# (docs/provider.md, "Lifetimes"). Only this stack's resources, and only those that carry a
# lifetime, are ever touched. A dry run unless `--apply`: the scheduled job passes it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
stack=${1:?usage: examples/gitops/reap.sh <stack> [--apply]}
shift

cd "$GITOPS_DIR"
gitops_compute "$stack" reap --stack "$(gitops_project)/$stack" "$@"
