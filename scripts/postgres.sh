#!/usr/bin/env bash
# A throwaway PostgreSQL server on a loopback port, for the team-backend tests and the GitOps
# example (docs/team-backend.md): Pulumi's `postgres://` state backend needs a real database,
# and the machines this project targets have PostgreSQL in their distribution's packages.
#
#   bash scripts/postgres.sh install        # the server package, when it is missing (once)
#   bash scripts/postgres.sh start <dir>    # a new server, or the one <dir> describes again
#   bash scripts/postgres.sh stop <dir> [--immediate]   # stopped, its data kept (start resumes)
#   bash scripts/postgres.sh remove <dir>   # stopped and its data deleted; safe when none runs
#
# <dir> is the caller's folder; `start` writes <dir>/postgres.env there (PGHOST, PGPORT, PGUSER,
# PGDATABASE, PGPASSWORD and where the data lives, one KEY=value per line, mode 0600): what the
# caller exports for the engine, which logs in with `postgres://` and those variables, so the
# password is never in a URL (the engine prints its backend URL in its errors).
#
# The server listens on 127.0.0.1 only, with password (SCRAM) authentication over TCP, and keeps
# its data in a temporary folder of its own. PostgreSQL refuses to run as root: as root, every
# server command runs as the `postgres` user the package creates. `--immediate` is PostgreSQL's
# own crash stop (no checkpoint, connections cut): what the tests use for a database that dies.
set -euo pipefail

die() {
  printf 'scripts/postgres.sh: %s\n' "$*" >&2
  exit 1
}

# The newest installed server's programs (Debian installs them outside PATH; a version with only
# its client installed has no initdb, and is passed over).
server_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV) "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")"; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      printf '%s\n' "$dir"
      return 0
    fi
  done
  return 1
}

install_server() {
  server_bin >/dev/null && return 0
  local root=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo -n true 2>/dev/null || die "PostgreSQL's server is not installed, and installing it needs root: run \`sudo apt-get install postgresql\` once"
    root=(sudo -n)
  fi
  printf '[postgres] installing the Debian package postgresql\n' >&2
  # The package would create a cluster of its own and start it on port 5432 wherever services
  # may start: this project starts its servers itself, and leaves none running.
  "${root[@]}" mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | "${root[@]}" tee /etc/postgresql-common/createcluster.d/compute-provider.conf >/dev/null
  # The package index may be stale on a new machine: refreshed once if the first try fails.
  local install=("${root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
  "${install[@]}" install -y --no-install-recommends postgresql >&2 ||
    { "${install[@]}" update >&2 && "${install[@]}" install -y --no-install-recommends postgresql >&2; }
  server_bin >/dev/null || die "the postgresql package installed no server programs under /usr/lib/postgresql"
}

# as_server <command…>: runs a server program as the user the server runs as.
as_server() {
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root needs the \`postgres\` user (the postgresql package creates it)"
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# free_port: a free loopback port below the kernel's ephemeral range. The suites stop the server
# and start it again on the same port (the stack's backend URL names it); a port from the
# ephemeral range may meanwhile go to any process that listens on port 0 (an emulator of another
# suite), and the restart then fails with "Address already in use".
free_port() {
  node -e '
    const net = require("net");
    let ephemeral = 32768;
    try { ephemeral = Number(require("fs").readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]) || ephemeral; } catch {}
    const lowest = Math.max(1024, ephemeral - 10000);
    const attempt = (left) => {
      const port = lowest + Math.floor(Math.random() * (ephemeral - lowest));
      const server = net.createServer().once("error", () => {
        if (left > 1) return attempt(left - 1);
        console.error("no free port between " + lowest + " and " + (ephemeral - 1));
        process.exit(1);
      });
      server.listen(port, "127.0.0.1", () => { console.log(port); server.close(); });
    };
    attempt(50);
  '
}

# env_of <dir>: reads <dir>/postgres.env into this shell (values are digits, hex and paths).
env_of() {
  [ -s "$1/postgres.env" ] || return 1
  # shellcheck disable=SC1091
  source "$1/postgres.env"
}

start() {
  local dir=${1:?usage: scripts/postgres.sh start <dir>}
  install_server
  local bin
  bin=$(server_bin)
  mkdir -p "$dir"
  if ! env_of "$dir"; then
    local data password
    data=$(as_server mktemp -d -t compute-postgres-XXXXXX)
    password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    # The password reaches initdb in a file only the server's user can read, removed at once.
    printf '%s\n' "$password" | as_server sh -c 'umask 077; cat >"$1"' sh "$data/password"
    as_server "$bin/initdb" -D "$data/cluster" -U compute --pwfile="$data/password" \
      --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-instructions >"$dir/postgres-initdb.log" 2>&1 ||
      { cat "$dir/postgres-initdb.log" >&2; as_server rm -rf "$data"; die "initdb failed"; }
    as_server rm -f "$data/password"
    (
      umask 077
      printf 'PGHOST=127.0.0.1\nPGPORT=%s\nPGUSER=compute\nPGDATABASE=pulumi\nPGPASSWORD=%s\nCOMPUTE_POSTGRES_DATA=%s\n' \
        "$(free_port)" "$password" "$data" >"$dir/postgres.env"
    )
    env_of "$dir"
    launch "$bin" 3 "$dir"
    PGPASSWORD="$PGPASSWORD" "$bin/psql" -X -q -h 127.0.0.1 -p "$PGPORT" -U compute -d postgres \
      -c "CREATE DATABASE pulumi" >/dev/null
  else
    launch "$bin" 1 "$dir"
  fi
}

# launch <bin> <tries> <dir>: starts the server on PGPORT (a new one on a clash, for a new server);
# pg_ctl waits until it accepts connections, at most 60 s.
launch() {
  local bin=$1 tries=$2 dir=$3 attempt=1
  until as_server "$bin/pg_ctl" -D "$COMPUTE_POSTGRES_DATA/cluster" -l "$COMPUTE_POSTGRES_DATA/server.log" -w -t 60 \
    -o "-p $PGPORT -c listen_addresses=127.0.0.1 -k $COMPUTE_POSTGRES_DATA" start >/dev/null; do
    if [ "$attempt" -ge "$tries" ]; then
      as_server cat "$COMPUTE_POSTGRES_DATA/server.log" >&2 || true
      die "the server did not start on 127.0.0.1:$PGPORT"
    fi
    attempt=$((attempt + 1))
    PGPORT=$(free_port)
    sed -i "s/^PGPORT=.*/PGPORT=$PGPORT/" "$dir/postgres.env"
  done
}

stop() {
  local dir=${1:?usage: scripts/postgres.sh stop <dir> [--immediate]} mode=fast
  [ "${2:-}" = --immediate ] && mode=immediate
  env_of "$dir" || die "$dir/postgres.env is missing: no server was started there"
  as_server "$(server_bin)/pg_ctl" -D "$COMPUTE_POSTGRES_DATA/cluster" -m "$mode" -w -t 60 stop >/dev/null
}

remove() {
  local dir=${1:?usage: scripts/postgres.sh remove <dir>}
  env_of "$dir" || return 0
  local pidfile="$COMPUTE_POSTGRES_DATA/cluster/postmaster.pid" pid tries=0
  if [ -f "$pidfile" ] && ! as_server "$(server_bin)/pg_ctl" -D "$COMPUTE_POSTGRES_DATA/cluster" -m immediate -w -t 30 stop >/dev/null 2>&1; then
    # pg_ctl could not stop it: the postmaster by its pid, so that no server outlives its data.
    pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
    if [ -n "$pid" ]; then
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do
        [ "$tries" -lt 100 ] || die "the server (pid $pid) does not stop: its data is kept in $COMPUTE_POSTGRES_DATA"
        sleep 0.1
        tries=$((tries + 1))
      done
    fi
  fi
  case "$COMPUTE_POSTGRES_DATA" in
    */compute-postgres-*) as_server rm -rf "$COMPUTE_POSTGRES_DATA" ;;
  esac
  rm -f "$dir/postgres.env" "$dir/postgres-initdb.log"
}

case "${1:-}" in
  install) install_server ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" "${3:-}" ;;
  remove) remove "${2:-}" ;;
  *) die "usage: scripts/postgres.sh install | start <dir> | stop <dir> [--immediate] | remove <dir>" ;;
esac
