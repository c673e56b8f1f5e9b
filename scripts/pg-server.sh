#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server from Debian's binaries under a temp dir on a loopback port.
# Usage: scripts/pg-server.sh start [port]  -> prints the admin URL;  scripts/pg-server.sh stop [port]
set -euo pipefail
cmd=${1:-start}
port=${2:-55432}
dir=/tmp/scango-pg-$port
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || { echo "PostgreSQL server binaries not found (apt-get install -y postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
  start)
    if [ -f "$dir/data/postmaster.pid" ] && as_pg "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      echo "postgres://postgres@127.0.0.1:$port/postgres"; exit 0
    fi
    rm -rf "$dir"; mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-h 127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off -c synchronous_commit=off" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_pg "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop [port]" >&2; exit 2 ;;
esac
