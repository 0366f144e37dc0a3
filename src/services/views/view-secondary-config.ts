/**
 * The configuration of a standard secondary of one view (docs/views.md, «Knot DNS, NSD and PowerDNS»), as text for
 * the operator to paste: the view's key, the primary reached with it, the view's catalog zone (RFC 9432) whose
 * members the secondary then transfers with the same key. The view is picked by the key that signs SOA, AXFR and
 * IXFR, so every one of those requests must carry it.
 *
 * BIND tells views apart by the key of a request (`match-clients { key ...; }`): one server holds every view.
 * Knot DNS, NSD and PowerDNS have no such views: each runs one instance per view, and the split is put in front of
 * them. The key's secret is never printed: it was shown once, when the key was made.
 */
export const SECRET_PLACEHOLDER = "<the key's secret, as given when it was made>";

export const SECONDARY_SOFTWARE = ['bind', 'knot', 'nsd', 'powerdns'] as const;
export type SecondarySoftware = (typeof SECONDARY_SOFTWARE)[number];

export interface ViewSecondary {
  view: string;
  networks: string[];
  keyName: string;
  keyAlgorithm: string;
  /** the catalog zone, without the final dot */
  catalog: string;
  /** the primary as the secondary reaches it */
  host: string;
  port: number;
}

export function viewSecondaryConfig(software: SecondarySoftware, at: ViewSecondary): string {
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

/**
 * A BIND `view` block: `match-clients` on the view's key (the primary's NOTIFYs are signed with it) and its
 * networks, the primary reached with the view's key, and the view's catalog zone, whose members BIND then
 * transfers with that key too (`default-primaries`).
 */
function bindConfig(at: ViewSecondary): string {
  const key = `"${at.keyName}"`;
  const catalog = `${at.catalog}.`;
  const primaries = `${at.host} port ${at.port} key ${key};`;
  return `key ${key} { algorithm ${at.keyAlgorithm}; secret "${SECRET_PLACEHOLDER}"; };
view "${at.view}" {
  match-clients { key ${key};${at.networks.map((n) => ` ${n};`).join('')} };
  server ${at.host} { keys { ${key}; }; };
  catalog-zones {
    zone "${catalog}" default-primaries { ${primaries} } in-memory yes min-update-interval 1;
  };
  zone "${catalog}" {
    type secondary;
    primaries { ${primaries} };
    file "catalog-${at.view}.db";
  };
};
`;
}

/**
 * Knot DNS (3.2, Debian 12's, and later): the view's catalog with `catalog-role: interpret`, each member made from
 * `catalog-template`, all from a `remote` that carries the view's key (Knot signs its SOA queries and transfers
 * with the remote's key), NOTIFY taken from the primary signed with that key. The instance's own `server:`,
 * `database:` and `log:` sections are the operator's.
 */
function knotConfig(at: ViewSecondary): string {
  const remote = `zonekeeper-${at.view}`;
  const acl = `notify-from-zonekeeper-${at.view}`;
  const storage = `/var/lib/knot/${at.view}`;
  return `# Knot DNS 3.2 or later: the instance of view "${at.view}" (one instance per view), beside its server: section
key:
  - id: ${at.keyName}
    algorithm: ${at.keyAlgorithm}
    secret: ${SECRET_PLACEHOLDER}
remote:
  - id: ${remote}
    address: ${at.host}@${at.port}
    key: ${at.keyName}
acl:
  - id: ${acl}
    address: ${at.host}
    key: ${at.keyName}
    action: notify
template:
  - id: default
    storage: "${storage}"
    master: ${remote}
    acl: ${acl}
  - id: ${at.view}-member
    storage: "${storage}"
    master: ${remote}
    acl: ${acl}
zone:
  - domain: ${at.catalog}.
    catalog-role: interpret
    catalog-template: ${at.view}-member
`;
}

/**
 * NSD: a pattern per view (the primary with the view's key for transfers and NOTIFY). NSD 4.6 (Debian 12's)
 * reads no catalog zone; it is transferred as a zone, and its members (RFC 9432 §4.1) are added to the instance
 * with `nsd-control addzone`. NSD 4.9 and later consume it themselves (`catalog: consumer`).
 */
function nsdConfig(at: ViewSecondary): string {
  const pattern = `zonekeeper-${at.view}`;
  return `# NSD: the instance of view "${at.view}" (one instance per view), beside its server: section
key:
    name: "${at.keyName}"
    algorithm: ${at.keyAlgorithm}
    secret: "${SECRET_PLACEHOLDER}"
pattern:
    name: "${pattern}"
    zonefile: "/var/lib/nsd/${at.view}/%s.zone"
    request-xfr: ${at.host}@${at.port} ${at.keyName}
    allow-notify: ${at.host} ${at.keyName}
# the view's catalog: its members are the zones this instance serves
zone:
    name: "${at.catalog}."
    include-pattern: "${pattern}"
    # NSD 4.9 and later read the members themselves:
    # catalog: consumer
    # catalog-member-pattern: "${pattern}"
# NSD before 4.9 reads no catalog: add each member zone of the catalog (and delete each one it drops):
#   nsd-control addzone <zone> ${pattern}
#   nsd-control delzone <zone>
`;
}

/**
 * PowerDNS Authoritative (4.7, Debian 12's, and later): the view's catalog as a consumer zone, its transfers
 * signed with the view's key (AXFR-MASTER-TSIG). PowerDNS gives a member zone the catalog's primaries but not
 * its key, so each member is given the key too: until it has it, its transfer is unsigned, which reads the base
 * zone, or is refused with VIEWS_UNSIGNED_TRANSFERS=refuse.
 */
function powerdnsConfig(at: ViewSecondary): string {
  const primary = at.host.includes(':') ? `[${at.host}]:${at.port}` : `${at.host}:${at.port}`;
  return `# PowerDNS Authoritative 4.7 or later: the instance of view "${at.view}" (one instance, with its own backend, per view)
# pdns.conf (a backend that keeps catalogs: gsqlite3, gmysql, gpgsql, godbc or lmdb):
secondary=yes
allow-notify-from=${at.host}
# then, with pdnsutil on that instance's backend:
pdnsutil import-tsig-key ${at.keyName} ${at.keyAlgorithm} '${SECRET_PLACEHOLDER}'
pdnsutil create-secondary-zone ${at.catalog} ${primary}
pdnsutil set-kind ${at.catalog} consumer
pdnsutil set-meta ${at.catalog} AXFR-MASTER-TSIG ${at.keyName}
# a member zone takes the catalog's primaries but not its key: give every member the key (again after each
# change of the catalog, e.g. from cron; -v lists the members not transferred yet too)
for zone in $(pdnsutil -v list-all-zones secondary | grep -v 'zonecount:'); do pdnsutil set-meta "$zone" AXFR-MASTER-TSIG ${at.keyName}; done
`;
}
