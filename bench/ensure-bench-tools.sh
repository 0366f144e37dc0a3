#!/usr/bin/env bash
# Runs before the benchmarks: PowerDNS Authoritative with its PostgreSQL and SQLite backends (the reference of the
# side-by-side run), wrk (the load generator that copes with PowerDNS's one-request-per-connection API) and
# the PostgreSQL client tools (to copy a database into the statement-counting cluster).
set -euo pipefail
bash "$(dirname "$0")/../scripts/ensure-debian-packages.sh" "the benchmark tools" \
  pdns_server=pdns-server /usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql=pdns-backend-pgsql \
  /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql=pdns-backend-sqlite3 sqlite3=sqlite3 \
  pg_dump=postgresql-client psql=postgresql-client wrk=wrk
# the package may start a system pdns; the benchmark runs its own with its own configuration
(systemctl stop pdns 2>/dev/null || true)
(systemctl disable pdns 2>/dev/null || true)
