#!/usr/bin/env bash
# Runs before `npm test`: the tests hold the service against real DNS software from Debian's packages
# (BIND's and Knot's zone checkers, the DNSSEC verifiers dnssec-verify, ldns-verify-zone and kzonecheck, Knot and NSD as secondaries, dig; the DNS UPDATE clients nsupdate, knsupdate,
# dnspython and certbot's dns-rfc2136 plugin; Unbound as a validating resolver; certbot, lego and the pebble ACME server with openssl for its
# TLS certificate; PowerDNS Authoritative on SQLite, the reference of the PowerDNS API differential, and dns-lexicon, one of its clients; dnsdist in front of
# PowerDNS, its dnstap for the query analytics; python3's venv
# with octoDNS's dependencies that Debian packages, for the octoDNS test, test/powerdns/octodns.test.ts), PgBouncer in front of PostgreSQL,
# pg_auto_failover (PostgreSQL 15) for the failover tests, iproute2 for the test hosts in network namespaces (steering's
# vantages), and Chromium (headless) for the GraphiQL page.
set -euo pipefail
installed=$(mktemp)
trap 'rm -f "$installed"' EXIT
ENSURE_INSTALLED_FLAG=$installed bash "$(dirname "$0")/ensure-debian-packages.sh" "the test tools" \
  named-checkzone=bind9-utils named=bind9 kzonecheck=knot-dnssecutils dnssec-verify=bind9-utils ldns-verify-zone=ldnsutils knotd=knot knotc=knot kdig=knot-dnsutils knsupdate=knot-dnsutils dig=bind9-dnsutils nsupdate=bind9-dnsutils \
  /usr/lib/python3/dist-packages/dns/update.py=python3-dnspython \
  /usr/lib/python3/dist-packages/certbot_dns_rfc2136/__init__.py=python3-certbot-dns-rfc2136 \
  unbound=unbound nsd=nsd \
  pgbouncer=pgbouncer \
  pg_autoctl=pg-auto-failover-cli /usr/lib/postgresql/15/lib/pgautofailover.so=postgresql-15-auto-failover \
  pebble=pebble lego=lego certbot=certbot openssl=openssl \
  pdns_server=pdns-server /usr/lib/x86_64-linux-gnu/pdns/libgsqlite3backend.so=pdns-backend-sqlite3 sqlite3=sqlite3 lexicon=lexicon dnsdist=dnsdist \
  /usr/lib/python3.11/ensurepip/__init__.py=python3-venv /usr/lib/python3/dist-packages/yaml/__init__.py=python3-yaml \
  /usr/lib/python3/dist-packages/requests/__init__.py=python3-requests /usr/lib/python3/dist-packages/natsort/__init__.py=python3-natsort \
  /usr/lib/python3/dist-packages/dateutil/__init__.py=python3-dateutil \
  fstrm_capture=fstrm-bin fstrm_replay=fstrm-bin dnstap-ldns=dnstap-ldns /usr/lib/x86_64-linux-gnu/knot/modules-3.2/dnstap.so=knot-module-dnstap \
  ip=iproute2 \
  chromium=chromium /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf=fonts-dejavu-core
# Installing the knot, bind9, nsd, unbound, pgbouncer, pdns and dnsdist packages may start the system's own servers; the tests
# run their own. They are stopped right after an install, and only then: this script runs before every `npm test`
# (its pretest), also while another `npm test` runs beside it (CI's two lanes), and `service named stop` stops
# every named on the machine, the other run's test servers with it.
if [ -s "$installed" ]; then
  (systemctl stop named 2>/dev/null || service named stop 2>/dev/null || true)
  (systemctl stop knot 2>/dev/null || true)
  (systemctl stop nsd 2>/dev/null || true)
  (systemctl stop unbound 2>/dev/null || true)
  (systemctl stop pgbouncer 2>/dev/null || true)
  (systemctl stop pdns 2>/dev/null || true)
  (systemctl stop dnsdist 2>/dev/null || true)
fi
