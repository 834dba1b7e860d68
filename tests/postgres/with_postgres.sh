#!/usr/bin/env bash
# with_postgres.sh CMD ARGS...: runs CMD next to a throwaway PostgreSQL 15
# cluster and exits with CMD's status.
#
# Why a cluster per run: the PostgreSQL store's tests need a real server
# (locks, snapshots, lost connections), and a private one in a temp dir
# needs no setup, leaves nothing behind and lets two runs (e.g. two ctest
# jobs) go side by side on different ports. fsync stays on: the tests check
# that committed data survives.
#
# CMD sees LDP_TEST_POSTGRES_URL (database "ldp", user postgres, trust
# auth), and LDP_TEST_PGCTL / LDP_TEST_PGDATA to restart or stop the
# server ("$LDP_TEST_PGCTL" -D "$LDP_TEST_PGDATA" -m fast -w stop, then
# ... -l "$LDP_TEST_PGDATA/../server.log" -w start).
set -euo pipefail

PGBIN="${LDP_PGBIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$PGBIN/initdb" ]; then
  echo "with_postgres.sh: $PGBIN/initdb not found; install PostgreSQL 15 with deploy/install-deps.sh" >&2
  exit 1
fi
if [ $# -eq 0 ]; then
  echo "usage: with_postgres.sh CMD [ARGS...]" >&2
  exit 2
fi

# PostgreSQL refuses to run as root: then the cluster belongs to the
# postgres OS user.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

dir=$(mktemp -d /tmp/ldp-pg.XXXXXX)
data="$dir/data"
started=0
cleanup() {
  if [ "$started" = 1 ]; then
    as_owner "$PGBIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
if ! as_owner "$PGBIN/initdb" -D "$data" -U postgres -A trust -E UTF8 \
    --no-instructions >"$dir/initdb.log" 2>&1; then
  echo "with_postgres.sh: initdb failed:" >&2
  cat "$dir/initdb.log" >&2
  exit 1
fi

# Settings in postgresql.conf rather than on pg_ctl's command line, so that
# a test's plain "pg_ctl start" after a stop brings the same server back.
cat >>"$data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
max_connections = 100
fsync = on
EOF
# LDP_PG_SETTINGS: more postgresql.conf lines (benchmarks size the server
# like a production one; tests keep the defaults).
if [ -n "${LDP_PG_SETTINGS:-}" ]; then
  printf '%s\n' "$LDP_PG_SETTINGS" >>"$data/postgresql.conf"
fi

# A test restarts the server with this (pg_ctl as the cluster's owner).
cat >"$dir/pg_ctl" <<EOF
#!/usr/bin/env bash
if [ "\$(id -u)" -eq 0 ]; then
  exec runuser -u postgres -- "$PGBIN/pg_ctl" "\$@"
fi
exec "$PGBIN/pg_ctl" "\$@"
EOF
chmod 755 "$dir/pg_ctl"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Another run may take the port between our probe and the server's bind:
# then try another.
port=""
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  candidate=$(free_port)
  echo "port = $candidate" >>"$data/postgresql.conf"  # the last one counts
  if as_owner "$PGBIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
      start >/dev/null 2>&1; then
    started=1
    port=$candidate
    break
  fi
  if ! grep -q "could not bind\|Address already in use\|could not create any TCP/IP sockets" \
      "$dir/server.log" 2>/dev/null; then
    echo "with_postgres.sh: the PostgreSQL server did not start:" >&2
    cat "$dir/server.log" >&2 || true
    exit 1
  fi
  : >"$dir/server.log"
done
if [ -z "$port" ]; then
  echo "with_postgres.sh: found no free port for PostgreSQL after 10 tries" >&2
  exit 1
fi

"$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 60
"$PGBIN/createdb" -h 127.0.0.1 -p "$port" -U postgres ldp

export LDP_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$port/ldp"
export LDP_TEST_PGCTL="$dir/pg_ctl"
export LDP_TEST_PGDATA="$data"
set +e
"$@"
status=$?
set -e
exit "$status"
