import { hostPortName } from '../config/settings';
import { DEFAULT_RECORD_TTL } from '../dns/ttl';
import { POWERDNS_VERSION, presentServer } from './presenters';
import { PowerDnsRoute, SERVER } from './route-kit';
import { ZONE_ROUTES } from './zone-routes';
import { CRYPTOKEY_ROUTES } from './cryptokey-routes';
import { METADATA_ROUTES } from './metadata-routes';
import { TSIGKEY_ROUTES } from './tsigkey-routes';
import { SEARCH_ROUTES } from './search-routes';

export { PowerDnsError } from './route-kit';
export type { PowerDnsInputs, PowerDnsResult, PowerDnsRoute } from './route-kit';

/**
 * The PowerDNS HTTP API as a table (docs/powerdns-api.md): each path of the part of the API that the PowerDNS
 * clients use (external-dns, cert-manager's webhook, lego, acme.sh, octoDNS, DNSControl, Terraform,
 * PowerDNS-Admin) reads its inputs and calls the services as the key's principal. The services decide;
 * this table only translates PowerDNS's names and shapes to theirs and back.
 */
export const POWERDNS_ROUTES: PowerDnsRoute[] = [
  // the API's root: its features (none of PowerDNS's optional ones) and where its servers are, as PowerDNS answers
  { method: 'get', path: '/', handle: () => ({ status: 200, body: [{ api_features: [], server_url: '/api/v1/servers{/server}' }] }) },
  { method: 'get', path: '/servers', handle: () => ({ status: 200, body: [presentServer()] }) },
  { method: 'get', path: SERVER, handle: () => ({ status: 200, body: presentServer() }) },
  {
    // what octoDNS and PowerDNS-Admin read of the configuration: the settings that describe this server
    method: 'get',
    path: `${SERVER}/config`,
    handle: ({ services }) => ({
      status: 200,
      body: [
        ['api', 'yes'],
        ['daemon', 'no'],
        ['default-soa-edit', ''],
        ['default-ttl', String(DEFAULT_RECORD_TTL)],
        ['dnssec', 'yes'],
        // steering takes octoDNS's dynamic records, which octodns-powerdns writes as LUA records once it reads
        // this (docs/steering.md); other Lua is refused. Steering has no switch: it is always on
        ['enable-lua-records', 'yes'],
        ['primary', 'yes'],
        ['secondary', 'no'],
        ['version-string', POWERDNS_VERSION],
        ['local-address', services.settings.dnsListen ? hostPortName(services.settings.dnsListen) : ''],
      ].map(([name, value]) => ({ type: 'ConfigSetting', name, value })),
    }),
  },
  { method: 'get', path: `${SERVER}/statistics`, handle: () => ({ status: 200, body: [] }) },
  // no autoprimaries: Zonekeeper is the primary, not a secondary that provisions zones from a primary's NOTIFY
  { method: 'get', path: `${SERVER}/autoprimaries`, handle: () => ({ status: 200, body: [] }) },
  ...ZONE_ROUTES,
  ...CRYPTOKEY_ROUTES,
  ...METADATA_ROUTES,
  ...TSIGKEY_ROUTES,
  ...SEARCH_ROUTES,
];
