import type { AnalyticsSettings } from '../../config/analytics-settings';
import type { SecondarySoftware } from './secondary-config';

/**
 * The lines that make a secondary send its answers as dnstap to the query analytics' collector
 * (docs/analytics.md), added to its printed configuration when the collector listens (ANALYTICS_DNSTAP_LISTEN).
 * BIND 9.18, Knot 3.2 (knot-module-dnstap) and NSD 4.6 (Debian's, built with dnstap) write Frame Streams to a
 * unix socket only: a collector on TCP is reached through a relay on the secondary (socat copies the stream both
 * ways, Frame Streams' handshake with it). Each sends its host name as its identity, which names it in the counts.
 * PowerDNS Authoritative sends no dnstap (dnsdist in front of it does: a comment says so).
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
      return `${config}# query analytics (docs/analytics.md): PowerDNS Authoritative sends no dnstap; dnsdist in front of it does
# (${'path' in listen ? `newFrameStreamUnixLogger("${listen.path}")` : `newFrameStreamTcpLogger("${listen.host}:${listen.port}")`} with DnstapLogResponseAction)
`;
  }
}
