#!/usr/bin/env bash
# Run a command (the test suite) beside a throwaway PostgreSQL server.
#
#   scripts/with-postgres.sh .venv/bin/python -m pytest
#
# Finds PostgreSQL's server binaries; when there are none and we are root on Debian,
# installs the `postgresql` package. Then starts a private cluster in a temporary folder
# (trust auth, 127.0.0.1 only, a free port), creates the database `computeatlas_test`,
# exports COMPUTEATLAS_TEST_POSTGRES_URL, runs the command, and always stops the cluster
# and removes the folder. If PostgreSQL cannot be had, the command runs without it and the
# PostgreSQL tests skip saying why. Safe to run again and again; an existing PostgreSQL
# installation and its clusters are left alone. The exit code is the command's.
set -uo pipefail

log() { echo "with-postgres: $*" >&2; }

find_bindir() {
    local found=""
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && found="$dir"
    done
    if [ -z "$found" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        found="$(dirname "$(readlink -f "$(command -v initdb)")")"
    fi
    echo "$found"
}

BINDIR="$(find_bindir)"
if [ -z "$BINDIR" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "PostgreSQL not found: installing the Debian package 'postgresql'"
    if apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; then
        BINDIR="$(find_bindir)"
    else
        log "could not install PostgreSQL"
    fi
fi
if [ -z "$BINDIR" ]; then
    log "no PostgreSQL server available: the PostgreSQL ledger tests will be skipped"
    exec "$@"
fi

# A throwaway cluster: initdb without syncing its files and a server without fsync (the
# tests kill our server, never PostgreSQL's, so a commit is a commit; only an OS crash would
# lose data, and the cluster is deleted at the end anyway).
# wal_recycle=off as the README asks of a ledger's server: a checkpoint removes old WAL segments
# instead of renaming them for reuse, so the erase test can look for an erased address in pg_wal.
# initdb refuses to run as root: run the cluster as the 'postgres' system user then.
RUN_AS=()
if [ "$(id -u)" = 0 ]; then
    PGUSER_NAME=postgres
    if ! id "$PGUSER_NAME" >/dev/null 2>&1; then
        PGUSER_NAME=computeatlas-pg
        id "$PGUSER_NAME" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$PGUSER_NAME"
    fi
    RUN_AS=(runuser -u "$PGUSER_NAME" --)
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/computeatlas-pg.XXXXXX")"
chmod 755 "$WORK"
[ "${#RUN_AS[@]}" -gt 0 ] && chown "$PGUSER_NAME" "$WORK"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

cleanup() {
    "${RUN_AS[@]}" "$BINDIR/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! "${RUN_AS[@]}" "$BINDIR/initdb" -D "$WORK/data" -U postgres --auth=trust -E UTF8 --no-locale --no-sync >"$WORK/initdb.log" 2>&1; then
    log "initdb failed (see below); the PostgreSQL ledger tests will be skipped"
    cat "$WORK/initdb.log" >&2
    "$@"
    exit $?
fi
if ! "${RUN_AS[@]}" "$BINDIR/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $WORK -c max_connections=150 -c fsync=off -c full_page_writes=off -c wal_recycle=off" start >/dev/null; then
    log "the server did not start (log below); the PostgreSQL ledger tests will be skipped"
    cat "$WORK/server.log" >&2
    "$@"
    exit $?
fi
"${RUN_AS[@]}" "$BINDIR/createdb" -h 127.0.0.1 -p "$PORT" -U postgres computeatlas_test
export COMPUTEATLAS_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$PORT/computeatlas_test"
log "PostgreSQL $("$BINDIR/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$PORT for this run"
"$@"
exit $?
