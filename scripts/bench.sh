#!/usr/bin/env bash
# `npm run bench`: set-up from a fresh clone (dependencies, build, the engine from the cache),
# then every benchmark scenario of bench/ (issue #7), which the set-up's build compiled with the
# package into dist/bench. Prints a table of figures against their goals and writes
# bench/results/latest.json; docs/benchmarks.md explains the figures.
# Extra arguments select scenarios (npm run bench -- logs emulator) or repeats (--repeats 1).
# Benchmarks assert nothing: the exit code is non-zero only if a scenario crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
source scripts/lib/engine-env.sh
compute_setup
status=0
node dist/bench/run.js "$@" || status=$?
printf '[bench] total %s s, set-up included\n' "$(( $(date +%s) - started ))" >&2
exit "$status"
