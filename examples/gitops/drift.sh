#!/usr/bin/env bash
# The drift check (CI runs it on a schedule): `examples/gitops/drift.sh <stack>`.
# Reads every pod and sandbox of the stack from the service (`pulumi refresh --preview-only`:
# reads only, the state is not written) and fails when the live service differs from the
# stack: a pod stopped or changed by hand, a sandbox that ended. `pulumi up --refresh` brings
# the service back to the stack.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
stack=${1:?usage: examples/gitops/drift.sh <stack>}

cd "$GITOPS_DIR"
if pulumi refresh --stack "$stack" --non-interactive --preview-only --expect-no-changes; then
  echo "no drift: the service matches stack $stack"
else
  status=$?
  echo "drift: the service differs from stack $stack (the refresh above lists what); \`pulumi up --refresh\` converges it" >&2
  exit "$status"
fi
