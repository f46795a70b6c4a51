#!/bin/sh
# A small stand-in for the official postgres image's entrypoint: on an empty data folder, initdb
# with POSTGRES_USER as the superuser (password POSTGRES_PASSWORD, scram-sha-256 over TCP), the
# database POSTGRES_DB and the vector extension in it; then `postgres` with the given arguments.
set -eu
if [ "${1:-postgres}" != postgres ]; then
    exec "$@"
fi
[ $# -gt 0 ] && shift
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "docker-entrypoint: POSTGRES_PASSWORD is not set" >&2
        exit 1
    fi
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    # a first start on the socket only, to make the database
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -k /var/run/postgresql" start >/dev/null
    if [ "$db" != postgres ]; then
        psql -h /var/run/postgresql -U "$user" -d postgres -qAt -c "CREATE DATABASE \"$db\"" >/dev/null
    fi
    psql -h /var/run/postgresql -U "$user" -d "$db" -qAt -c "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "docker-entrypoint: initialised $PGDATA (user $user, database $db, extension vector)" >&2
fi
exec postgres -D "$PGDATA" -k /var/run/postgresql "$@"
