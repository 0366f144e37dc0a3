import type { AnalyticsSettings } from '../../config/analytics-settings';
import type { SecondarySoftware } from './secondary-config';

/**
 * The lines that make a secondary send its answers as dnstap to the query analytics' collector
 * (docs/analytics.md), added to its printed configuration when the collector listens (ANALYTICS_DNSTAP_LISTEN).
 * BIND 9.18, Knot 3.2 (knot-module-dnstap) and NSD 4.6 (Debian's, built with dnstap) write Frame Streams to a
 * unix socket only: a collector on TCP is reached through a relay on the secondary (socat copies the stream both
 * ways, Frame Streams' handshake with it). Each sends its host name as its identity, which names it in the counts.
 * PowerDNS Authoritative sends no dnstap: dnsdist (1.7, Debian's, built with fstrm) is printed in front of it, sending
 * the answers it passes on (dnstap CLIENT_RESPONSE) to the collector itself, over a unix socket or TCP.
 */

/** where a secondary's dnstap goes when the collector listens on TCP: a relay's socket on the secondary */
export const RELAY_SOCKET = '/run/zonekeeper-dnstap.sock';

export function withDnstap(software: SecondarySoftware, config: string, listen: AnalyticsSettings['dnstapListen']): string {
  if (!listen) return config;
  const socket = 'path' in listen ? listen.path : RELAY_SOCKET;
  const relay =
    'path' in listen
      ? ''
      : `# the collector listens on TCP (${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}); this server writes dnstap to a unix socket only, relayed by:
#   socat UNIX-LISTEN:${socket},fork,unlink-early TCP:${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}
`;
  const header = `# query analytics (docs/analytics.md): the answers sent as dnstap to Zonekeeper's collector\n${relay}`;
  switch (software) {
    case 'bind': {
      // dnstap-output and dnstap-identity are options only, and named.conf takes one options block: into the
      // printed one where there is one, else a block to merge into the operator's
      const lines = `  dnstap { auth response; };
  dnstap-output unix "${socket}";
  dnstap-identity hostname;
`;
      const indented = `${header.trimEnd().replace(/^/gm, '  ')}\n`;
      const opening = /^options \{\n/m;
      if (opening.test(config)) return config.replace(opening, (found) => `${found}${indented}${lines}`);
      return `${config}${header}options {
${lines}};
`;
    }
    case 'knot': {
      // a module is defined before the template that names it, and a global module is set on the default
      // template alone (knotc: "invalid module reference", "global module in non-default template")
      const [templates, template] = ['\ntemplate:\n', '\n  - id: default\n'];
      if (!config.includes(templates) || !config.includes(template))
        throw new Error('the Knot configuration has no default template to add dnstap to');
      const module = `${header}# (Debian: the package knot-module-dnstap)
mod-dnstap:
  - id: zonekeeper
    sink: "unix:${socket}"
    log-queries: off
    log-responses: on
`;
      return config.replace(templates, `\n${module}template:\n`).replace(template, `${template}    global-module: mod-dnstap/zonekeeper\n`);
    }
    case 'nsd':
      return `${config}${header}dnstap:
    dnstap-enable: yes
    dnstap-socket-path: "${socket}"
    dnstap-send-identity: yes
    dnstap-log-auth-query-messages: no
    dnstap-log-auth-response-messages: yes
`;
    case 'powerdns':
      return behindDnsdist(config, listen);
  }
}

/** where PowerDNS answers dnsdist in front of it: on loopback, on a port of its own (dnsdist takes port 53) */
export const POWERDNS_BEHIND_DNSDIST = { host: '127.0.0.1', port: 5301 };
/** dnsdist's Frame Streams options: its queue of answers to send, at libfstrm's most (16,384 frames) */
const QUEUE = '{ inputQueueSize = 16384 }';
/** the line that opens dnsdist's configuration in the printed text: everything after it is dnsdist's Lua */
export const DNSDIST_CONF_LINE = "# dnsdist.conf (dnsdist 1.7 or later, built with fstrm as Debian's is), every line below:";

/**
 * PowerDNS with dnsdist in front of it, which sends what PowerDNS answers as dnstap (dnsdist's Lua: a Frame Streams
 * logger and DnstapLogResponseAction). Every query now reaches PowerDNS from dnsdist, NOTIFY included: PowerDNS
 * takes NOTIFY from dnsdist as a trusted notification proxy's and dnsdist lets through the primary's alone (as
 * dnsdist's documentation advises in front of secondaries). Only the answers to queries are sent (OPCODE QUERY,
 * RFC 1035 §4.1.1): the answer to a NOTIFY (RFC 1996) is no query of the zone's names.
 */
function behindDnsdist(config: string, listen: NonNullable<AnalyticsSettings['dnstapListen']>): string {
  const notifyFrom = /^allow-notify-from=(.+)$/m.exec(config);
  if (!notifyFrom) throw new Error('the PowerDNS configuration names no primary to take NOTIFY from');
  const primary = notifyFrom[1];
  const backend = POWERDNS_BEHIND_DNSDIST;
  const logger =
    'path' in listen
      ? `newFrameStreamUnixLogger("${listen.path}", ${QUEUE})`
      : `newFrameStreamTcpLogger("${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}", ${QUEUE})`;
  const powerdns = `# query analytics (docs/analytics.md): PowerDNS sends no dnstap, dnsdist in front of it does (below). PowerDNS
# answers dnsdist alone, on loopback, and takes NOTIFY through it: dnsdist lets through the primary's only
local-address=${backend.host}
local-port=${backend.port}
allow-notify-from=${backend.host}
trusted-notification-proxy=${backend.host}
`;
  return `${config.replace(notifyFrom[0] + '\n', powerdns)}${DNSDIST_CONF_LINE}
-- an authoritative server answers everyone (dnsdist's default ACL takes private networks only)
setACL({ "0.0.0.0/0", "::/0" })
setLocal("0.0.0.0:53")
addLocal("[::]:53")
newServer({ address = "${backend.host}:${backend.port}", name = "powerdns" })
-- NOTIFY (RFC 1996) from the primary only: PowerDNS sees every query come from dnsdist
addAction(AndRule({ OpcodeRule(DNSOpcode.Notify), NotRule(makeRule("${primary}")) }), RCodeAction(DNSRCode.REFUSED))
-- query analytics: each answer to a query sent as dnstap (CLIENT_RESPONSE; not the queries: their answers are
-- counted) to Zonekeeper's collector, named by this host's name as BIND, Knot and NSD name theirs
local identity = io.popen("hostname"):read("*l")
-- the answers waiting to be sent: fstrm's most (512 by default); a burst past them is dropped, and counted
-- ("dropped" in showResponseRules() on dnsdist's console)
local collector = ${logger}
addResponseAction(OpcodeRule(DNSOpcode.Query), DnstapLogResponseAction(identity, collector))
-- and the answers dnsdist gives itself: from a packet cache (should you add one), its own errors
addCacheHitResponseAction(OpcodeRule(DNSOpcode.Query), DnstapLogResponseAction(identity, collector))
addSelfAnsweredResponseAction(OpcodeRule(DNSOpcode.Query), DnstapLogResponseAction(identity, collector))
`;
}
