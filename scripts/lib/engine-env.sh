# Sourced, never run, by the scripts of scripts/, from the repository root (each one cds there
# first). What they share lives here once: the set-up, the environment the Pulumi engine runs
# in, and an emulator in the background, read from its ready file (docs/emulator.md, "Started
# by a script") rather than from its human start-up lines.

# The clone's root, from this file's own place: install-pulumi-engine.sh and engine-bin.sh source
# this file without changing to the root first.
compute_clone_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# compute_engine_version: the Pulumi engine release that set-up builds and every script, suite
# and benchmark runs. Stated once, in package.json: it is the exact version of the
# `@pulumi/pulumi` development dependency, the Node.js SDK the programs run on, because the engine
# follows that SDK's release (docs/setup.md). TypeScript reads it the same way
# (scripts/lib/engine-version.ts). PULUMI_VERSION, when set, overrides it (to try another release).
compute_engine_version() {
  if [ -n "${PULUMI_VERSION:-}" ]; then
    printf '%s\n' "$PULUMI_VERSION"
    return
  fi
  node -e '
    const version = require(process.argv[1]).devDependencies?.["@pulumi/pulumi"] ?? "";
    if (!/^\d+\.\d+\.\d+$/.test(version)) {
      console.error(`package.json: the @pulumi/pulumi development dependency must be an exact release (x.y.z), the engine is built at it; found "${version}"`);
      process.exit(1);
    }
    console.log(version);' "$compute_clone_root/package.json"
}

# compute_engine_root: the folder set-up builds that engine into (bin/pulumi and its hosts).
compute_engine_root() {
  local version
  # `|| return`: a command substitution does not inherit `set -e`, so the failure is passed on.
  version=$(compute_engine_version) || return
  printf '%s/pulumi-v%s\n' "$(compute_engine_cache)" "$version"
}

# compute_engine_cache: the folder of everything built outside the clone (the engine, its hosts,
# the SDK generator, the Python wheels): COMPUTE_ENGINE_CACHE, or compute-provider/ in the user's
# cache folder.
compute_engine_cache() {
  printf '%s\n' "${COMPUTE_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/compute-provider}"
}

# compute_setup: set-up of the clone (scripts/setup.sh, idempotent), then exports
# COMPUTE_PULUMI_ROOT, the engine root setup prints on its last line: the name the end-to-end
# suites and the benchmarks read it by.
compute_setup() {
  # A plain assignment, not `export X=$(…)`, which would hide a failed set-up from `set -e`.
  COMPUTE_PULUMI_ROOT=$(bash scripts/setup.sh | tail -n 1)
  export COMPUTE_PULUMI_ROOT
}

# compute_setup_python: what Python programs need on top of compute_setup (the Python host, the
# generated SDK, the virtualenv .venv; scripts/setup-python.sh), then exports
# COMPUTE_PYTHON_VENV, the virtualenv it printed on its last line.
compute_setup_python() {
  COMPUTE_PYTHON_VENV=$(bash scripts/setup-python.sh | tail -n 1)
  export COMPUTE_PYTHON_VENV
}

# compute_setup_go: what Go programs need on top of compute_setup (the Go host, the generated SDK
# in dist/go, the example compiled once; scripts/setup-go.sh).
compute_setup_go() {
  bash scripts/setup-go.sh >/dev/null
}

# compute_sdk_generate python|go: the SDK of that language, generated from schema.json into
# dist/<language> by Pulumi's own generator of the engine's release (scripts/go/sdk-gen, built once
# per source into the engine cache). Generated, not committed: schema.json is the one source, and
# test/provider/schema.test.ts keeps that current. Skipped while schema and generator are
# unchanged (dist/<language>/.stamp).
compute_sdk_generate() {
  local language=$1 cache key generator stamp
  cache=$(compute_engine_cache)
  # Keyed by the generator's content, not its path: moving the folder rebuilds nothing.
  key=$(cat scripts/go/sdk-gen/main.go scripts/go/sdk-gen/go.mod | sha256sum | cut -c1-16)
  generator="$cache/sdk-gen-$key"
  # The Python and Go set-ups run at the same time (scripts/test.sh): the lock makes the second
  # wait for the first one's build (a minute of both cores, the first time) and reuse it.
  mkdir -p "$cache"
  (
    flock 9
    if [ ! -x "$generator" ]; then
      printf '[setup-%s] building the SDK generator (Pulumi'"'"'s pkg/v3/codegen of the engine'"'"'s release)\n' "$language" >&2
      # -buildvcs=false: built inside the clone, whose git metadata the build must not need; the
      # checksum database is not reachable from every machine (scripts/install-pulumi-engine.sh).
      (cd scripts/go/sdk-gen && GOFLAGS="$(go env GOFLAGS) -mod=mod" GOSUMDB="${GOSUMDB:-off}" \
        go build -buildvcs=false -trimpath -o "$generator.partial" .)
      mv "$generator.partial" "$generator"
    fi
  ) 9>"$cache/.sdk-gen.lock"
  stamp="$key $(sha256sum schema.json | cut -c1-16)"
  if [ "$(cat "dist/$language/.stamp" 2>/dev/null)" != "$stamp" ]; then
    printf '[setup-%s] generating the %s SDK into dist/%s\n' "$language" "$language" "$language" >&2
    "$generator" "$language" schema.json "dist/$language"
    printf '%s\n' "$stamp" >"dist/$language/.stamp"
  fi
  COMPUTE_SDK_STAMP=$stamp
}

# compute_plugin_launcher: writes dist/bin/pulumi-resource-compute, the native plugin's
# executable: it runs the built entry point with absolute paths (the engine starts plugins in
# the project's folder) and `exec`, so the engine's signals reach node. Rewritten only when its
# text changes. No PulumiPlugin.yaml beside it: `plugin install` would then run the Node host's
# dependency install, which this plain executable does not need.
compute_plugin_launcher() {
  local launcher=dist/bin/pulumi-resource-compute text
  # node by its absolute path (the engine may start the plugin where node is not on PATH, e.g. a
  # CI step of a YAML project), and both paths quoted for the shell whatever the clone's name.
  text=$(printf '#!/usr/bin/env bash\nexec %q %q "$@"' "$(command -v node)" "$PWD/dist/provider/native/main.js")
  if [ "$(cat "$launcher" 2>/dev/null)" != "$text" ]; then
    mkdir -p dist/bin
    printf '%s\n' "$text" >"$launcher.partial"
    chmod 0755 "$launcher.partial"
    mv "$launcher.partial" "$launcher"
  fi
}

# compute_plugin_version: the native plugin's version, the package's.
compute_plugin_version() {
  node -p 'require("./package.json").version'
}

# compute_plugin_install <engine root> [--if-changed]: installs this clone's two plugins into the plugin cache
# of the PULUMI_HOME in force (~/.pulumi without one), where the engine (and the YAML host) find
# them without a "from $PATH" warning (design/native-plugin-engine-facts.md, §3): the native
# plugin `pulumi-resource-compute`, and the analyzer that starts the cost policy pack
# (policy/PulumiPolicy.yaml says why it needs one). `--reinstall` each time: it takes a moment
# and refreshes both schema caches, which an unchanged launcher would keep.
#
# `--if-changed`: only a plugin whose installed file differs from this clone's, for jobs that
# share a Pulumi home (the GitOps scripts): a reinstall replaces the plugin's folder, which
# another job may be reading at that moment.
compute_plugin_install() {
  local output kind name file version installed
  version=$(compute_plugin_version)
  for plugin in "resource compute dist/bin/pulumi-resource-compute" \
    "analyzer policy-nodejs-launcher policy/bin/pulumi-analyzer-policy-nodejs-launcher"; do
    read -r kind name file <<<"$plugin"
    if [ ! -x "$file" ]; then
      printf '%s is missing: run `bash scripts/setup.sh` (npm test and npm run demo do) first\n' "$PWD/$file" >&2
      return 1
    fi
    installed="${PULUMI_HOME:-$HOME/.pulumi}/plugins/$kind-$name-v$version/$(basename "$file")"
    if [ "${2:-}" = --if-changed ] && cmp -s "$file" "$installed"; then
      continue
    fi
    if ! output=$(PULUMI_SKIP_UPDATE_CHECK=true "$1/bin/pulumi" plugin install "$kind" "$name" \
      "$version" --file "$file" --reinstall 2>&1); then
      printf 'installing the %s plugin %s failed:\n%s\n' "$kind" "$name" "$output" >&2
      return 1
    fi
  done
}

# compute_engine_env <state dir | backend URL> <pulumi home> <passphrase>: the environment
# `pulumi` runs in, self-contained: a file backend in <state dir> (or the backend a URL names,
# e.g. `postgres://…` with its password in PGPASSWORD), its own home (with the native plugin
# installed), no update check, no plugin download, and the engine compute_setup built first on
# PATH. Nothing else goes on PATH: the language hosts and the dynamic provider's launcher sit
# next to `pulumi`, where the engine looks without warning.
compute_engine_env() {
  export PATH="$COMPUTE_PULUMI_ROOT/bin:$PATH"
  case "$1" in
    *://*) export PULUMI_BACKEND_URL="$1" ;;
    *) export PULUMI_BACKEND_URL="file://$1" ;;
  esac
  export PULUMI_HOME="$2"
  export PULUMI_CONFIG_PASSPHRASE="$3"
  export PULUMI_SKIP_UPDATE_CHECK=true
  export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
  compute_plugin_install "$COMPUTE_PULUMI_ROOT"
}

# compute_emulator_start <dir> [compute-emulator flag…]: starts the built emulator in the
# background, its output in <dir>/emulator.log, and returns once it listens, with
# EMULATOR_URL, EMULATOR_API_KEY, EMULATOR_ADMIN_TOKEN and EMULATOR_PID set. If the emulator
# exits first (or is not listening within 30 s), shows its log and fails. One emulator at a
# time: call `trap compute_emulator_stop EXIT` first, so that it ends with the script.
compute_emulator_start() {
  local dir=$1
  shift
  local ready="$dir/emulator.json" log="$dir/emulator.log" tries=0
  # The emulator removes a stale file too, but only once it runs: this loop may look earlier.
  rm -f "$ready"
  node dist/emulator/bin.js --ready-file "$ready" "$@" >"$log" 2>&1 &
  EMULATOR_PID=$!
  # The file appears whole (written aside, then renamed) once the server listens.
  until [ -s "$ready" ]; do
    if ! kill -0 "$EMULATOR_PID" 2>/dev/null || [ "$tries" -ge 300 ]; then
      echo "the emulator did not start (log: $log):" >&2
      cat "$log" >&2
      compute_emulator_stop
      return 1
    fi
    sleep 0.1
    tries=$((tries + 1))
  done
  local fields
  fields=$(node -e '
    const ready = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log([ready.url, ready.apiKey, ready.adminToken].join("\n"));' "$ready")
  { read -r EMULATOR_URL; read -r EMULATOR_API_KEY; read -r EMULATOR_ADMIN_TOKEN; } <<<"$fields"
}

# compute_emulator_stop: ends the emulator compute_emulator_start started (SIGTERM, a clean
# close that also removes its ready file) and waits for it. Safe when none runs, and twice.
compute_emulator_stop() {
  [ -n "${EMULATOR_PID:-}" ] || return 0
  kill "$EMULATOR_PID" 2>/dev/null || true
  wait "$EMULATOR_PID" 2>/dev/null || true
  EMULATOR_PID=
}
