#!/usr/bin/env bash
# What Python programs need, on top of scripts/setup.sh (`npm run setup:python`; it runs
# setup.sh first unless COMPUTE_PULUMI_ROOT already names the engine root setup.sh printed).
# Idempotent; each step is skipped while its inputs are unchanged. Everything it makes is a build output, never committed:
#
# 1. The Python language host, built by scripts/install-pulumi-engine.sh --python: as for the
#    Node host, the standalone module is refused by the Go module proxy; sdk/v3 v3.68.0 holds
#    `python/cmd/pulumi-language-python` and its exec shim, and drives 3.248 programs (the
#    program runs on the pulumi package of its virtualenv). That host reads `runtime.options`
#    only as flags, which the 3.248 engine no longer passes, so what sits next to `pulumi` under
#    the host's name (a bundled name there: found without a "from $PATH" warning) is our
#    launcher, scripts/go/language-host/main.go: it reads the project's Pulumi.yaml and starts the
#    host (in the engine root's python-host/) with them. So `virtualenv: <folder>` (relative to
#    the project's folder, or absolute) runs the program in that virtualenv with nothing
#    activated; `toolchain: pip` is the host's own way; poetry, uv and `typechecker` fail at
#    start in one line naming the option. Without `virtualenv`, the `python` first on PATH runs.
# 2. The SDK `pulumi_compute`, generated from schema.json into dist/python by Pulumi's own
#    generator (scripts/go/sdk-gen, built once into the engine cache). Generated, not committed:
#    schema.json is the one source, and test/provider/schema.test.ts keeps that current.
# 3. A virtualenv, .venv, with pulumi==<the engine's release> and that SDK installed, from a
#    wheelhouse in the engine cache (per release and Python): pulumi with its dependencies, the
#    SDK's, and setuptools and wheel to build the SDK. The wheelhouse's folder is recorded in
#    .venv/.wheelhouse: the end-to-end suite of the README's Python steps points pip there
#    (PIP_NO_INDEX, PIP_FIND_LINKS), so that a test installs from it and never reaches PyPI.
#
# Prints the virtualenv's folder on its last line of stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup-python] %s\n' "$*" >&2; }

source scripts/lib/engine-env.sh
if [ -z "${COMPUTE_PULUMI_ROOT:-}" ]; then
  compute_setup
fi
# The engine's release (package.json; compute_engine_version): the pulumi package installed beside it.
PULUMI_VERSION=$(compute_engine_version)
CACHE_ROOT=$(compute_engine_cache)
VENV="$PWD/.venv"

python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  log "error: Python >= 3.10 (python3 with venv and pip) is required for Python programs"
  exit 1
fi

# 1. The language host, built with the engine (and, like it, kept in the cache).
bash scripts/install-pulumi-engine.sh --python >/dev/null

# 2. The SDK (scripts/lib/engine-env.sh, compute_sdk_generate).
compute_sdk_generate python
sdk_key=$COMPUTE_SDK_STAMP

# 3. The virtualenv, from the wheelhouse: `pip download` fills it first (with the index: what it
#    already holds is not fetched again), then pip installs with --no-index.
wheels="$CACHE_ROOT/python-wheels-$PULUMI_VERSION-py$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
pip=(--quiet --disable-pip-version-check)
venv_key="pulumi==$PULUMI_VERSION $sdk_key $("$python" -c 'import sys; print(sys.version.split()[0])') $wheels"
if [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$venv_key" ]; then
  log "downloading pulumi==$PULUMI_VERSION, the SDK's dependencies, setuptools and wheel into $wheels"
  "$python" -m pip download "${pip[@]}" --dest "$wheels" "pulumi==$PULUMI_VERSION" ./dist/python setuptools wheel >&2
  log "installing pulumi==$PULUMI_VERSION and pulumi_compute into $VENV"
  [ -x "$VENV/bin/python" ] || "$python" -m venv "$VENV"
  pip+=(--no-index --find-links "$wheels")
  "$VENV/bin/python" -m pip install "${pip[@]}" "pulumi==$PULUMI_VERSION" >&2
  # --force-reinstall of the SDK alone: its version stays the package's while its code changes.
  "$VENV/bin/python" -m pip install "${pip[@]}" --force-reinstall --no-deps ./dist/python >&2
  "$VENV/bin/python" -m pip install "${pip[@]}" ./dist/python >&2
  printf '%s\n' "$wheels" >"$VENV/.wheelhouse"
  printf '%s\n' "$venv_key" >"$VENV/.stamp"
fi

echo "$VENV"
