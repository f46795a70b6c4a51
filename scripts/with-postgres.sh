#!/usr/bin/env bash
# Run a command beside a throwaway PostgreSQL 15 + pgvector 0.8.0 server on 127.0.0.1, then stop
# it. Installs what is missing first (Debian: postgresql-15, and pgvector built from Debian's
# 0.8.0 source against postgresql-server-dev-15, since bookworm ships no pgvector package).
# Idempotent: a second run reuses the build and starts a fresh cluster.
#   scripts/with-postgres.sh .venv/bin/pytest
# The command sees SHU_TEST_POSTGRES_URL. Without root and without a server, it runs the command
# anyway; the PostgreSQL tests then skip and say why.
set -uo pipefail

PORT="${SHU_PG_PORT:-55432}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STATE="${SHU_PG_STATE:-/tmp/shu-postgres-$PORT}"
PGBIN="/usr/lib/postgresql/15/bin"
export SHU_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$PORT/shu_test"

log() { echo "with-postgres: $*" >&2; }

install_server() {
    if [ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/pg_config" -o -x /usr/bin/pg_config ] \
        && [ -f /usr/share/postgresql/15/extension/vector.control ]; then
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        log "PostgreSQL 15 + pgvector are not installed and this user cannot install them"
        return 1
    fi
    log "installing postgresql-15, postgresql-server-dev-15, build tools"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq postgresql-15 postgresql-server-dev-15 \
        build-essential dpkg-dev >/dev/null || return 1
    if [ ! -f /usr/share/postgresql/15/extension/vector.control ]; then
        build_pgvector || return 1
    fi
}

build_pgvector() {
    local work="$STATE/pgvector-src"
    rm -rf "$work" && mkdir -p "$work/apt" && cd "$work" || return 1
    # Debian's own source package (bookworm has none; trixie carries 0.8.0-1).
    echo "deb-src http://deb.debian.org/debian trixie main" > "$work/apt/sources.list"
    local opts=(-o "Dir::Etc::sourcelist=$work/apt/sources.list" -o "Dir::Etc::sourceparts=-"
        -o "Dir::State::Lists=$work/apt/lists" -o "APT::Get::List-Cleanup=0")
    mkdir -p "$work/apt/lists/partial"
    log "fetching Debian's pgvector 0.8.0 source"
    apt-get "${opts[@]}" update -qq >/dev/null 2>&1 || return 1
    apt-get "${opts[@]}" source --download-only -qq pgvector=0.8.0-1 >/dev/null 2>&1 || return 1
    tar -xzf pgvector_0.8.0.orig.tar.gz && cd pgvector-0.8.0 || return 1
    log "building pgvector against postgresql-server-dev-15"
    make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config OPTFLAGS="" >/dev/null \
        && make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config install >/dev/null
    cd "$ROOT"
}

start_server() {
    local data="$STATE/data"
    if [ "$(id -u)" = 0 ]; then
        as_postgres() { su postgres -s /bin/bash -c "$*"; }
    else
        as_postgres() { bash -c "$*"; }
    fi
    stop_server quiet
    rm -rf "$data" && mkdir -p "$STATE/run" "$data" && chmod 755 "$STATE"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$STATE/run" "$data"
    as_postgres "$PGBIN/initdb -D '$data' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null" || return 1
    as_postgres "$PGBIN/pg_ctl -D '$data' -l '$data/server.log' -w -t 60 \
        -o \"-c listen_addresses=127.0.0.1 -p $PORT -k '$STATE/run' -c fsync=off -c full_page_writes=off \
        -c shared_buffers=256MB -c maintenance_work_mem=512MB\" start >/dev/null" || {
        cat "$data/server.log" >&2; return 1; }
    as_postgres "$PGBIN/psql -h 127.0.0.1 -p $PORT -U postgres -qAt -c 'CREATE DATABASE shu_test' >/dev/null" \
        && as_postgres "$PGBIN/psql -h 127.0.0.1 -p $PORT -U postgres -d shu_test -qAt -c 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null"
}

stop_server() {
    local data="$STATE/data"
    if [ -f "$data/postmaster.pid" ]; then
        if [ "$(id -u)" = 0 ]; then
            su postgres -s /bin/bash -c "$PGBIN/pg_ctl -D '$data' -m fast -w stop >/dev/null" 2>/dev/null
        else
            "$PGBIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1
        fi
        [ "${1:-}" = quiet ] || log "server stopped"
    fi
}

if install_server && start_server; then
    log "PostgreSQL with pgvector on 127.0.0.1:$PORT ($SHU_TEST_POSTGRES_URL)"
    trap stop_server EXIT
else
    log "no PostgreSQL server: the PostgreSQL tests will skip"
    unset SHU_TEST_POSTGRES_URL
fi
"$@"
