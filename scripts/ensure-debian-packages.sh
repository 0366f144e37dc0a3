#!/usr/bin/env bash
# Installs the Debian packages that provide the given tools, when any of them is missing.
# Usage: ensure-debian-packages.sh "<what needs them>" <tool-or-absolute-path>=<package> ...
# With ENSURE_INSTALLED_FLAG naming a file, the packages installed are written there (nothing when none was).
# As root it runs apt-get; otherwise sudo when there is one; otherwise it names the packages and fails.
set -euo pipefail
purpose=$1
shift
missing=()
for pair in "$@"; do
  tool=${pair%%=*}
  package=${pair#*=}
  if [[ $tool == /* ]]; then
    [ -e "$tool" ] || missing+=("$package")
  else
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
# one install at a time: CI's two lanes each run `npm test`, whose pretest comes here, side by side
if [ -z "${ZONEKEEPER_PACKAGES_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
  ZONEKEEPER_PACKAGES_LOCKED=1 exec flock "${TMPDIR:-/tmp}/zonekeeper-debian-packages.lock" "$0" "$purpose" "$@"
fi
packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ]; then
  echo "installing $purpose from Debian's packages: $packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $packages >/dev/null
  [ -z "${ENSURE_INSTALLED_FLAG:-}" ] || echo "$packages" >"$ENSURE_INSTALLED_FLAG"
elif command -v sudo >/dev/null 2>&1; then
  echo "installing $purpose from Debian's packages (sudo): $packages"
  sudo apt-get update -qq
  # shellcheck disable=SC2086
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
  [ -z "${ENSURE_INSTALLED_FLAG:-}" ] || echo "$packages" >"$ENSURE_INSTALLED_FLAG"
else
  echo "$purpose need these Debian packages: $packages (apt-get install $packages)" >&2
  exit 1
fi
