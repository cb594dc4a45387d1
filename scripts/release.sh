#!/usr/bin/env bash
# `npm run release`: everything a user installs, of one version (package.json's), built into one
# folder, dist/release/ (docs/install.md says how each piece is installed):
#
#   pulumi-compute-<v>.tgz                              the npm package: the TypeScript classes
#                                                       and functions, the SDK, the emulator and
#                                                       the `compute` CLI (`npm install <file>`)
#   pulumi-resource-compute-v<v>-linux-<arch>.tar.gz    the native plugin, as a Pulumi plugin
#                                                       archive (`pulumi plugin install resource
#                                                       compute <v> --file <file>`)
#   pulumi_compute-<v>-py3-none-any.whl, …<v>.tar.gz    the Python SDK, wheel and sdist
#   pulumi-compute-go-v<v>.tar.gz                       the Go SDK module, to unpack and `replace`
#   SHA256SUMS                                          the checksums of the files above
#
# The plugin archive is self-contained: the npm package installed with its production
# dependencies beside a launcher, the executable at the archive's root that Pulumi runs. It needs
# Node.js on PATH and nothing from this clone, so moving or deleting the clone, or pulling a new
# commit into it, changes no installed plugin (the development plugin `npm run setup` installs is
# a launcher into the clone instead). It is built from the tarball itself, so the archive runs
# exactly the code the npm package ships.
#
# The folder is built whole (staged, then moved into place): a release folder never mixes two
# builds. A build with the same inputs as the folder's keeps it (.stamp). Prints the folder's path
# on its last line of stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[release] %s\n' "$*" >&2; }

source scripts/lib/engine-env.sh
# The build, the engine, the Python virtualenv (which builds the wheel) and the Go SDK; all of
# them already done by the caller with --after-setup (scripts/test.sh, which ran them side by side).
if [ "${1:-}" = --after-setup ]; then
  : "${COMPUTE_PULUMI_ROOT:?--after-setup needs the set-up's COMPUTE_PULUMI_ROOT}"
  : "${COMPUTE_PYTHON_VENV:?--after-setup needs the Python set-up's COMPUTE_PYTHON_VENV}"
else
  # The set-up installs the development plugin (a launcher into this clone) under the package's
  # version; into the user's Pulumi home it would replace a release plugin installed there.
  # Building a release changes nothing installed: the set-up gets a Pulumi home of its own.
  setup_home=$(mktemp -d)
  trap 'rm -rf "$setup_home"' EXIT
  PULUMI_HOME=$setup_home compute_setup
  PULUMI_HOME=$setup_home compute_setup_python
  PULUMI_HOME=$setup_home compute_setup_go
  rm -rf "$setup_home"
  trap - EXIT
fi

version=$(compute_plugin_version)
schema_version=$(node -p 'require("./schema.json").version')
if [ "$schema_version" != "$version" ]; then
  log "error: schema.json is version $schema_version, package.json $version: run \`npm run schema\` and commit"
  exit 1
fi
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) log "error: no plugin archive name for machine $(uname -m)"; exit 1 ;;
esac
os=$(uname -s | tr '[:upper:]' '[:lower:]')

out=dist/release
# Staged beside dist/, not in it: npm pack packs dist/.
stage=$PWD/$(mktemp -d .release.XXXXXX)
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"

log "npm package pulumi-compute-$version.tgz"
npm pack --silent --pack-destination "$stage" >/dev/null
tarball="$stage/pulumi-compute-$version.tgz"
[ -f "$tarball" ] || { log "error: npm pack made no $tarball"; exit 1; }

# Unchanged since the last release build (the same package, lock, SDKs, script and
# machine): that folder stands, and a second `npm run release` costs only the set-up and pack.
# Each read on its own line: in one line, `set -e` would see only the last one fail. The lock
# stands for the dependencies the plugin archive installs.
package_key=$(cat "$tarball" scripts/release.sh package-lock.json | sha256sum | cut -c1-64)
python_key=$(cat dist/python/.stamp)
go_key=$(cat dist/go/.stamp)
stamp="$package_key $python_key $go_key $os-$arch"
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ] && (cd "$out" && sha256sum --quiet -c SHA256SUMS); then
  log "unchanged: $out"
  echo "$PWD/$out"
  exit 0
fi

log "plugin archive pulumi-resource-compute-v$version-$os-$arch.tar.gz (the package and its production dependencies)"
plugin="$stage/plugin"
mkdir -p "$plugin"
printf '{"private":true}\n' >"$plugin/package.json"
# Exactly the lock's versions of the shared dependencies would need the lock inside the tarball;
# the tarball's own ranges are what a user's `npm install` resolves too, so the plugin runs what
# an npm user runs. --prefer-offline: the set-up already filled npm's cache with most of them.
npm install --prefix "$plugin" --omit=dev --no-audit --no-fund --prefer-offline --loglevel=error \
  "$tarball" "@pulumi/pulumi@$(node -p 'require("@pulumi/pulumi/package.json").version')" >&2
rm "$plugin/package.json" "$plugin/package-lock.json"
cat >"$plugin/pulumi-resource-compute" <<'LAUNCHER'
#!/usr/bin/env bash
# The native plugin of pulumi-compute: Node.js runs the provider installed beside this file.
# COMPUTE_NODE names the node to use where the engine starts plugins without it on PATH.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
node=${COMPUTE_NODE:-$(command -v node || true)}
if [ -z "$node" ]; then
  echo "pulumi-resource-compute: Node.js >= 20.18 is needed: put node on PATH or set COMPUTE_NODE" >&2
  exit 1
fi
exec "$node" "$here/node_modules/pulumi-compute/dist/provider/native/main.js" "$@"
LAUNCHER
chmod 0755 "$plugin/pulumi-resource-compute"
tar -czf "$stage/pulumi-resource-compute-v$version-$os-$arch.tar.gz" -C "$plugin" .
rm -rf "$plugin"

log "Python SDK: wheel and sdist"
python_stage="$stage/python"
cp -r dist/python "$python_stage"
rm -rf "$python_stage/.stamp" "$python_stage/build" "$python_stage"/*.egg-info
# PEP 517 hooks called directly in the set-up's virtualenv (setuptools from its wheelhouse): no
# download and no build isolation, so the same on a machine without PyPI. One process per hook:
# setuptools keeps state between two builds in one process and then writes no sdist.
"$COMPUTE_PYTHON_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
  --find-links "$(cat "$COMPUTE_PYTHON_VENV/.wheelhouse")" setuptools wheel >&2
for hook in build_sdist build_wheel; do
  if ! (cd "$python_stage" && "$COMPUTE_PYTHON_VENV/bin/python" -W ignore -c \
    'import sys; from setuptools import build_meta; getattr(build_meta, sys.argv[1])(sys.argv[2])' \
    "$hook" "$stage" >"$stage/python.log" 2>&1); then
    cat "$stage/python.log" >&2
    exit 1
  fi
done
rm "$stage/python.log"
rm -rf "$python_stage"

log "Go SDK module pulumi-compute-go-v$version.tar.gz"
# One folder, compute-go/, to unpack into a project and point a `replace` at.
tar -czf "$stage/pulumi-compute-go-v$version.tar.gz" --exclude='.stamp*' --transform 's,^go,compute-go,' -C dist go

(cd "$stage" && sha256sum -- * >SHA256SUMS)
printf '%s\n' "$stamp" >"$stage/.stamp"
rm -rf "$out"
mv "$stage" "$out"
trap - EXIT
log "done: $(ls "$out" | tr '\n' ' ')"
echo "$PWD/$out"
