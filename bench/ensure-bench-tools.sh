#!/usr/bin/env bash
# Runs before the benchmarks: installs what they need from Debian's packages when it is missing
# (PowerDNS Authoritative with its PostgreSQL backend, the reference of the side-by-side run; wrk, the load
# generator that copes with PowerDNS's one-request-per-connection API; and the
# PostgreSQL client tools used to copy a database into the statement-counting cluster).
set -euo pipefail
declare -A package_of=(
  [pdns_server]=pdns-server
  [/usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql]=pdns-backend-pgsql
  [pg_dump]=postgresql-client
  [psql]=postgresql-client
  [wrk]=wrk
)
missing=()
for tool in "${!package_of[@]}"; do
  if [[ $tool == /* ]]; then
    [ -e "$tool" ] || missing+=("${package_of[$tool]}")
  else
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("${package_of[$tool]}")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ]; then
  echo "installing benchmark tools from Debian's packages: $packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $packages >/dev/null
elif command -v sudo >/dev/null 2>&1; then
  echo "installing benchmark tools from Debian's packages (sudo): $packages"
  sudo apt-get update -qq
  # shellcheck disable=SC2086
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
else
  echo "the benchmarks need these Debian packages: $packages (apt-get install $packages)" >&2
  exit 1
fi
# the package may start a system pdns; the benchmark runs its own with its own configuration
(systemctl stop pdns 2>/dev/null || true)
(systemctl disable pdns 2>/dev/null || true)
