/**
 * The configuration of a standard secondary, as text for the operator to paste: the primary, the catalog zone
 * (RFC 9432) whose members the secondary then transfers, the key of the transfers and NOTIFYs, and the limits
 * sized for the zones it holds (secondary-sizing.ts), each with its reason.
 *
 * Two kinds of secondary:
 * - **a nameserver set's** (docs/transfers.md, «Nameserver sets»): the set's catalog, with TSIG_KEY when it is set;
 * - **a view's** (docs/views.md, «Knot DNS, NSD and PowerDNS»): the view's catalog with the view's key, which
 *   picks the view: SOA, AXFR and IXFR must all carry it. BIND tells views apart by the key of a request
 *   (`match-clients { key ...; }`): one server holds every view. Knot DNS, NSD and PowerDNS have no such views:
 *   each runs one instance per view, and the split is put in front of them.
 *
 * A key's secret is never printed: it was shown once, when the key was made (TSIG_KEY: the operator's setting).
 */
import { grouped, SecondarySizing, TAKE_ALL_WITHIN_SECONDS } from './secondary-sizing';

export const SECRET_PLACEHOLDER = "<the key's secret, as given when it was made>";

export const SECONDARY_SOFTWARE = ['bind', 'knot', 'nsd', 'powerdns'] as const;
export type SecondarySoftware = (typeof SECONDARY_SOFTWARE)[number];

export interface SecondaryAt {
  /** the view's or the set's name: the instance's folders, its remote's and its pattern's names */
  name: string;
  /** a view's secondary: the view's networks (BIND's match-clients); none for a nameserver set's */
  view?: { networks: string[] };
  /** the key of the transfers and NOTIFYs: the view's, or TSIG_KEY for a set (none when it is unset) */
  key?: { name: string; algorithm: string };
  /** the catalog zone, without the final dot */
  catalog: string;
  /** the primary as the secondary reaches it */
  host: string;
  port: number;
  sizing: SecondarySizing;
}

export function secondaryConfig(software: SecondarySoftware, at: SecondaryAt): string {
  switch (software) {
    case 'bind':
      return bindConfig(at);
    case 'knot':
      return knotConfig(at);
    case 'nsd':
      return nsdConfig(at);
    case 'powerdns':
      return powerdnsConfig(at);
  }
}

/** what the secondary is: a view's (one instance per view but BIND's) or a nameserver set's */
const whose = (at: SecondaryAt) => (at.view ? `view "${at.name}"` : `nameserver set "${at.name}"`);

/** the first line of every sizing: for how many zones, and when to print the configuration again */
const sizedLine = (s: SecondarySizing) =>
  `sized for ${grouped(s.sizedFor)} zones (${grouped(s.zones)} now; twice that, rounded up, for growth: print this again past ${grouped(s.sizedFor)})`;

/** what every refresh figure is made of, as comment lines (`// ` or `# ` with their indent) */
const rateReason = (s: SecondarySizing, comment: string) =>
  `${comment}a change to all ${grouped(s.sizedFor)} zones within ${TAKE_ALL_WITHIN_SECONDS} s, and their REFRESH timers (3600 s),
${comment}is ${grouped(s.refreshesPerSecond)} refreshes a second; at about 50 ms each, ${grouped(s.refreshesAtOnce)} at once`;

/** BIND's limits: global, so in its one `options` block (a view's text and a set's alike) */
function bindSizing(s: SecondarySizing): string {
  return `  // ${sizedLine(s)}
  // every refresh, one a NOTIFY asks for included, waits for this limiter of SOA queries (default 20 a second):
${rateReason(s, '  // ')}
  serial-query-rate ${s.bind.serialQueryRate};
  // every zone comes from this one primary, so each transfer waits for a slot of transfers-per-ns (default 2)
  // and of transfers-in (default 10): the refreshes at once above, 10 at least
  transfers-in ${s.bind.transfersIn};
  transfers-per-ns ${s.bind.transfersPerNs};
`;
}

/**
 * BIND: its limits in an `options` block (BIND reads one: merge it into yours), then the catalog (RFC 9432) whose
 * members BIND transfers from the primary (`default-primaries`). A view's: a `view` block matched by the view's key
 * (the primary's NOTIFYs are signed with it) and its networks, the primary reached with that key.
 */
function bindConfig(at: SecondaryAt): string {
  const keyName = at.key ? `"${at.key.name}"` : undefined;
  const catalog = `${at.catalog}.`;
  const primaries = `${at.host} port ${at.port}${keyName ? ` key ${keyName}` : ''};`;
  const catalogZones = (indent: string) =>
    `${indent}catalog-zones {
${indent}  zone "${catalog}" default-primaries { ${primaries} } in-memory yes min-update-interval 1;
${indent}};
`;
  const catalogZone = (indent: string) => `${indent}zone "${catalog}" {
${indent}  type secondary;
${indent}  primaries { ${primaries} };
${indent}  file "catalog-${at.name}.db";
${indent}};
`;
  const key = at.key ? `key ${keyName} { algorithm ${at.key.algorithm}; secret "${SECRET_PLACEHOLDER}"; };\n` : '';
  const leaf = (indent: string) =>
    `${indent}// a leaf: the primary NOTIFYs every secondary itself; BIND's own NOTIFYs after each transfer, to every
${indent}// zone's NS names, would be paced at notify-rate (20 a second)
${indent}notify no;
`;
  if (at.view)
    return `// BIND 9.18 or later: ${whose(at)} of a secondary that holds every view (one options block for all of them)
options {
${bindSizing(at.sizing)}};
${key}view "${at.name}" {
  match-clients {${keyName ? ` key ${keyName};` : ''}${at.view.networks.map((n) => ` ${n};`).join('')} };
${keyName ? `  server ${at.host} { keys { ${keyName}; }; };\n` : ''}${leaf('  ')}${catalogZones('  ')}${catalogZone('  ')}};
`;
  return `// BIND 9.18 or later: a secondary of ${whose(at)}, its catalog and every zone in it from this primary
// (named.conf has one options block: merge these lines into yours)
options {
${bindSizing(at.sizing)}${leaf('  ')}${catalogZones('  ')}};
${key}${catalogZone('')}`;
}

/**
 * Knot DNS (3.2, Debian 12's, and later): its limit in a `server:` section (Knot merges it with yours), the catalog
 * with `catalog-role: interpret`, each member made from the `catalog-template` and transferred from a `remote` that
 * carries the key (Knot signs its SOA queries and transfers with the remote's key), NOTIFY taken from the primary
 * signed with that key. The instance's own `server:` (listen), `database:` and `log:` are the operator's.
 */
function knotConfig(at: SecondaryAt): string {
  const s = at.sizing;
  const remote = `zonekeeper-${at.name}`;
  const acl = `notify-from-zonekeeper-${at.name}`;
  const storage = `/var/lib/knot/${at.name}`;
  const member = `${at.name}-member`;
  const keyLine = (indent: string) => (at.key ? `${indent}key: ${at.key.name}\n` : '');
  const members = `    # ${grouped(s.sizedFor)} zones: none written to a zone file after each transfer (by default one is written at
    # once, so a change to every zone writes every file); each zone is kept whole in the journal, and loaded from it
    zonefile-sync: -1
    zonefile-load: none
    journal-content: all
`;
  return `# Knot DNS 3.2 or later: ${at.view ? `the instance of ${whose(at)} (one instance per view)` : `a secondary of ${whose(at)}`}, beside your server: section
# ${sizedLine(s)}
server:
    # a zone's refresh (its SOA query, then its transfer) runs in a background worker, waiting on the network more
    # than on a core (default: one per core, at most 10); 10 to 64 of them:
${rateReason(s, '    # ')}
    background-workers: ${s.knot.backgroundWorkers}
${
  at.key
    ? `key:
  - id: ${at.key.name}
    algorithm: ${at.key.algorithm}
    secret: ${SECRET_PLACEHOLDER}
`
    : ''
}remote:
  - id: ${remote}
    address: ${at.host}@${at.port}
${keyLine('    ')}    # a leaf secondary: no wait of up to a second after a transfer for NOTIFYs of its own (docs/propagation.md)
    block-notify-after-transfer: on
acl:
  - id: ${acl}
    address: ${at.host}
${keyLine('    ')}    action: notify
template:
${
  at.view
    ? `  - id: default
    storage: "${storage}"
    master: ${remote}
    acl: ${acl}
`
    : ''
}  - id: ${member}
    storage: "${storage}"
    master: ${remote}
    acl: ${acl}
${members}zone:
  - domain: ${at.catalog}.
${at.view ? '' : `    storage: "${storage}"\n    master: ${remote}\n    acl: ${acl}\n`}    catalog-role: interpret
    catalog-template: ${member}
`;
}

/**
 * NSD: its limits in a `server:` section (NSD merges it with yours), a pattern (the primary, with the key, for
 * transfers and NOTIFY). NSD 4.6 (Debian 12's) reads no catalog zone; it is transferred as a zone, and its members
 * (RFC 9432 §4.1) are added to the instance with `nsd-control addzone`. NSD 4.9 and later consume it themselves
 * (`catalog: consumer`).
 */
function nsdConfig(at: SecondaryAt): string {
  const s = at.sizing;
  const pattern = `zonekeeper-${at.name}`;
  const key = at.key?.name ?? 'NOKEY';
  return `# NSD: ${at.view ? `the instance of ${whose(at)} (one instance per view)` : `a secondary of ${whose(at)}`}, beside your server: section
# ${sizedLine(s)}
server:
    # the primary answers a connection's requests one after the other, so transfers run side by side over
    # connections, one on each (defaults: 128 connections, 128 transfers on each); 128 connections at least:
${rateReason(s, '    # ')}
    xfrd-tcp-max: ${s.nsd.xfrdTcpMax}
    xfrd-tcp-pipeline: ${s.nsd.xfrdTcpPipeline}
${
  at.key
    ? `key:
    name: "${at.key.name}"
    algorithm: ${at.key.algorithm}
    secret: "${SECRET_PLACEHOLDER}"
`
    : ''
}pattern:
    name: "${pattern}"
    zonefile: "/var/lib/nsd/${at.name}/%s.zone"
    request-xfr: ${at.host}@${at.port} ${key}
    allow-notify: ${at.host} ${key}
# the catalog: its members are the zones this instance serves
zone:
    name: "${at.catalog}."
    include-pattern: "${pattern}"
    # NSD 4.9 and later read the members themselves:
    # catalog: consumer
    # catalog-member-pattern: "${pattern}"
# NSD before 4.9 reads no catalog: add each member zone of the catalog (and delete each one it drops):
#   nsd-control addzone <zone> ${pattern}
#   nsd-control delzone <zone>
# or every member at once, from the catalog's transfer (again after each change of the catalog, e.g. from cron;
# a member already served is left as it is), 200 a call: NSD 4.6 stops answering a list of a few hundred${
    at.key
      ? `
# dig reads the key from a file only root reads (on its command line any user's ps would show the secret),
# ${digKeyFile(at)}:
#   ${digKey(at.key)}`
      : ''
  }
#   ${catalogMembers(at, `"${pattern}"`)} | split -l 200 --filter='nsd-control addzones'
`;
}

/** where the printed text has dig read the key from (`dig -k`): NSD's folder, a file per set or view */
function digKeyFile(at: SecondaryAt): string {
  return `/etc/nsd/zonekeeper-${at.name}.dig.key`;
}

/** the key as `dig -k` reads it: a named.conf key statement (what tsig-keygen writes) */
function digKey(key: NonNullable<SecondaryAt['key']>): string {
  return `key "${key.name}" { algorithm ${key.algorithm}; secret "${SECRET_PLACEHOLDER}"; };`;
}

/**
 * a shell pipeline that writes the catalog's member zones (RFC 9432 §4.1), one a line and each followed by `more`
 * (an awk expression), from its AXFR with dig
 */
function catalogMembers(at: SecondaryAt, more: string): string {
  const key = at.key ? ` -k ${digKeyFile(at)}` : '';
  const members = `.zones.${at.catalog}.`.toLowerCase().replaceAll('.', '\\.');
  return `dig @${at.host} -p ${at.port}${key} ${at.catalog}. AXFR +noall +answer | awk 'tolower($1) ~ /${members}$/ && $4 == "PTR" { print $5, ${more} }'`;
}

/**
 * the generic SQL backends' statement that gives every member of the catalog without a key the catalog's key (their
 * `domains.catalog` holds the catalog's name without its final dot)
 */
function powerdnsMembersKey(catalog: string, key: string): string {
  return `insert into domainmetadata (domain_id, kind, content) select id, 'AXFR-MASTER-TSIG', '${key}' from domains where catalog = '${catalog}' and id not in (select domain_id from domainmetadata where kind = 'AXFR-MASTER-TSIG');`;
}

/**
 * PowerDNS Authoritative (4.7, Debian 12's, and later): the catalog as a consumer zone, its transfers signed with
 * the key (AXFR-MASTER-TSIG). PowerDNS gives a member zone the catalog's primaries but not its key, so each member
 * is given the key too: until it has it, its transfer is unsigned (a view's reads the base zone, or is refused with
 * VIEWS_UNSIGNED_TRANSFERS=refuse; a set's is refused when TSIG_KEY is set).
 */
function powerdnsConfig(at: SecondaryAt): string {
  const s = at.sizing;
  const primary = at.host.includes(':') ? `[${at.host}]:${at.port}` : `${at.host}:${at.port}`;
  const keyed = at.key
    ? `pdnsutil import-tsig-key ${at.key.name} ${at.key.algorithm} '${SECRET_PLACEHOLDER}'
`
    : '';
  const catalogKey = at.key ? `pdnsutil set-meta ${at.catalog} AXFR-MASTER-TSIG ${at.key.name}\n` : '';
  const membersKey = at.key
    ? `# a member zone takes the catalog's primaries but not its key: give every member the key (again after each
# change of the catalog, e.g. from cron; -v lists the members not transferred yet too)
for zone in $(pdnsutil -v list-all-zones secondary | grep -v 'zonecount:'); do pdnsutil set-meta "$zone" AXFR-MASTER-TSIG ${at.key.name}; done
# or, with a generic SQL backend (gsqlite3, gmysql, gpgsql), every member in one statement on its database, where a
# pdnsutil a zone takes minutes at a hoster's scale:
#   ${powerdnsMembersKey(at.catalog, at.key.name)}
`
    : '';
  return `# PowerDNS Authoritative 4.7 or later: ${at.view ? `the instance of ${whose(at)} (one instance, with its own backend, per view)` : `a secondary of ${whose(at)}`}
# pdns.conf (a backend that keeps catalogs: gsqlite3, gmysql, gpgsql, godbc or lmdb; at 100,000 zones on one host,
# gsqlite3 took every zone within 6 minutes and gpgsql about 20, a new connection a transfer: docs/scale.md):
secondary=yes
allow-notify-from=${at.host}
# ${sizedLine(s)}
# transfers run in these threads (default 2), each written to the backend, about 100 ms a zone, so twice the
# refreshes at once below; 2 to 32 threads (each holds a connection to the backend):
${rateReason(s, '# ')}
retrieval-threads=${s.powerdns.retrievalThreads}
# the members a catalog adds wait for the next cycle (default 60 s); a cycle reads every secondary zone's
# refresh state from the backend: a second of cycle per 10,000 zones, 10 s at least
xfr-cycle-interval=${s.powerdns.xfrCycleInterval}
# then, with pdnsutil on that instance's backend:
${keyed}pdnsutil create-secondary-zone ${at.catalog} ${primary}
pdnsutil set-kind ${at.catalog} consumer
${catalogKey}${membersKey}`;
}
