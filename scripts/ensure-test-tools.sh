#!/usr/bin/env bash
# Runs before `npm test`: the tests hold the service against real DNS software from Debian's packages
# (BIND's and Knot's zone checkers, Knot as a secondary, dig). Installs what is missing when it can.
set -euo pipefail
declare -A package_of=(
  [named-checkzone]=bind9-utils
  [kzonecheck]=knot-dnssecutils
  [knotd]=knot
  [knotc]=knot
  [kdig]=knot-dnsutils
  [dig]=bind9-dnsutils
)
missing=()
for tool in "${!package_of[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("${package_of[$tool]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ]; then
  echo "installing test tools from Debian's packages: $packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $packages >/dev/null
  # the knot package starts a system knotd; the tests run their own
  (systemctl stop knot 2>/dev/null || pkill -x knotd 2>/dev/null || true)
elif command -v sudo >/dev/null 2>&1; then
  echo "installing test tools from Debian's packages (sudo): $packages"
  sudo apt-get update -qq
  # shellcheck disable=SC2086
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
else
  echo "the tests need these Debian packages: $packages (apt-get install $packages)" >&2
  exit 1
fi
