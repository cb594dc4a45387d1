#!/usr/bin/env bash
# The README's test command (`npm test`): set-up from a fresh clone, then every suite (unit,
# emulator HTTP, provider, CLI, and the end-to-end suites that drive the real Pulumi engine with
# TypeScript, YAML, Python and Go programs, one of them on a PostgreSQL state backend).
#
# The steps before jest are independent once the dependencies are installed, so they run side
# by side (a 2-core machine has a core idle while one of them runs): the Python and Go set-ups
# (they need only the engine root and the committed schema.json), the type check of the suites, and the
# rest of the set-up (build, engine, plugins). Each one's output is shown as it ends; the first
# that fails fails the command, as when they ran one after the other.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/engine-env.sh
work=.test-home
mkdir -p "$work"

# The engine root (from the cache; built here the first time), for the Python and Go set-ups to
# start now.
COMPUTE_PULUMI_ROOT=$(bash scripts/install-pulumi-engine.sh | tail -n 1)
export COMPUTE_PULUMI_ROOT

pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT

# The Python suites and example need the Python host, the generated SDK and a virtualenv; the Go
# ones the Go host, the generated SDK and a first build of the Pulumi Go SDK (its build cache).
bash scripts/setup-python.sh >"$work/setup-python.out" 2>"$work/setup-python.log" &
pids+=($!)
python_pid=$!
bash scripts/setup-go.sh >/dev/null 2>"$work/setup-go.log" &
pids+=($!)
go_pid=$!

bash scripts/setup.sh --deps-only
# The team-backend suite starts its own PostgreSQL server: the package, when missing (once).
# Where it cannot be installed (no root), the other suites still run, and that one fails saying why.
bash scripts/postgres.sh install || echo "[test] PostgreSQL is not installed: test/e2e/team-backend.test.ts will fail" >&2
# jest transpiles each file on its own; the suites are type-checked as a whole here (incremental:
# a second run in the same clone checks only what changed).
npx tsc -p tsconfig.test.json --noEmit --incremental --tsBuildInfoFile "$work/tsconfig.test.tsbuildinfo" >"$work/tsc.log" 2>&1 &
pids+=($!)
tsc_pid=$!

compute_setup

status=0
wait "$tsc_pid" || status=$?
cat "$work/tsc.log"
[ "$status" -eq 0 ] || exit "$status"

wait "$python_pid" || status=$?
cat "$work/setup-python.log" >&2
[ "$status" -eq 0 ] || exit "$status"
COMPUTE_PYTHON_VENV=$(tail -n 1 "$work/setup-python.out")
export COMPUTE_PYTHON_VENV

wait "$go_pid" || status=$?
cat "$work/setup-go.log" >&2
[ "$status" -eq 0 ] || exit "$status"
trap - EXIT

# The release folder the first-steps suite installs from (test/e2e/first-steps.test.ts): built
# here, before any suite, since a suite that built it would rebuild dist/ under the others. Only
# when that suite runs: with no selection, or a jest pattern (a regular expression on the path)
# that matches it, so `npm test -- test/sdk` builds nothing it does not need.
first_steps=test/e2e/first-steps.test.ts
needs_release=true
for arg in "$@"; do
  case "$arg" in -*) continue ;; esac
  needs_release=false
  if [[ "$first_steps" =~ $arg ]]; then needs_release=true; break; fi
done
if [ "$needs_release" = true ]; then
  bash scripts/release.sh --after-setup >/dev/null
fi

# jest's own exit code is the verdict; extra arguments select suites (npm test -- test/sdk).
exec npx jest --ci "$@"
