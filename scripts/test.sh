#!/usr/bin/env bash
# The README's test command (`npm test`): set-up from a fresh clone, then every suite (unit,
# emulator HTTP, provider, CLI, and the end-to-end suites that drive the real Pulumi engine with
# TypeScript, YAML and Python programs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/engine-env.sh
compute_setup
# The Python suites and example need the Python host, the generated SDK and a virtualenv.
compute_setup_python
# jest transpiles each file on its own; the suites are type-checked as a whole here.
npx tsc -p tsconfig.test.json --noEmit
# jest's own exit code is the verdict; extra arguments select suites (npm test -- test/sdk).
exec npx jest --ci "$@"
