import { parseDnssecAlgorithm } from '../dns/dnssec/algorithms';
import { presentCryptokey } from './presenters';
import { PowerDnsRoute, shown, refuse, objectBody, zoneOf, ZONE } from './route-kit';

/** a zone's DNSSEC keys, as PowerDNS shows and changes them */
export const CRYPTOKEY_ROUTES: PowerDnsRoute[] = [
  {
    method: 'get',
    path: `${ZONE}/cryptokeys`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const status = await inputs.services.dnssec.status(inputs.ctx, { id: zone.id });
      const live = status.keys.filter((key) => key.state !== 'removed');
      return { status: 200, body: live.map((key) => presentCryptokey(key, status)) };
    },
  },
  {
    method: 'get',
    path: `${ZONE}/cryptokeys/:id`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const status = await inputs.services.dnssec.status(inputs.ctx, { id: zone.id });
      const key = status.keys.find((k) => String(k.id) === inputs.params.id && k.state !== 'removed');
      if (!key) throw refuse('Not Found', 404);
      return { status: 200, body: presentCryptokey(key, status) };
    },
  },
  {
    // the first key signs the zone (DNSControl's AUTODNSSEC, PowerDNS-Admin's DNSSEC page): a csk gives one
    // combined key, ksk or zsk a KSK and a ZSK. A signed zone's keys are rolled by Zonekeeper, not added by hand.
    method: 'post',
    path: `${ZONE}/cryptokeys`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const body = objectBody(inputs.body);
      const keytype = typeof body.keytype === 'string' ? body.keytype.toLowerCase() : '';
      if (!['ksk', 'zsk', 'csk'].includes(keytype)) throw refuse(`Invalid keytype ${shown(body.keytype ?? '')}`);
      if (body.privatekey !== undefined) throw refuse('privatekey: Zonekeeper makes its keys itself; importing one is not supported');
      // PowerDNS's names and numbers (ecdsap256sha256, ecdsa256, 13), read as every edge reads them
      const algorithm = body.algorithm === undefined ? 'ECDSAP256SHA256' : parseDnssecAlgorithm(shown(body.algorithm))?.name;
      if (!algorithm) throw refuse(`Unknown algorithm: ${shown(body.algorithm)}`);
      const { services, ctx } = inputs;
      if ((await services.dnssec.signedAmong(ctx, [zone])).has(zone.id))
        throw refuse('the zone is signed already; Zonekeeper rolls its keys itself (docs/dnssec.md), a key is not added by hand', 409);
      const status = await services.dnssec.enable(ctx, { zone: zone.name, algorithm, keyLayout: keytype === 'csk' ? 'CSK' : 'KSK_ZSK' });
      const role = keytype.toUpperCase();
      const key = status.keys.find((k) => k.role === role) ?? status.keys[0];
      return { status: 201, body: presentCryptokey(key, status) };
    },
  },
  {
    // a zone's keys go together: deleting one stops signing the zone (DNSControl's AUTODNSSEC off deletes each)
    method: 'delete',
    path: `${ZONE}/cryptokeys/:id`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const status = await inputs.services.dnssec.status(inputs.ctx, { id: zone.id });
      if (!status.keys.some((k) => String(k.id) === inputs.params.id && k.state !== 'removed')) throw refuse('Not Found', 404);
      if (status.state === 'signed') await inputs.services.dnssec.disable(inputs.ctx, zone.name);
      return { status: 204 };
    },
  },
  {
    method: 'put',
    path: `${ZONE}/cryptokeys/:id`,
    handle() {
      throw refuse('Zonekeeper activates and retires keys itself as it rolls them (docs/dnssec.md)');
    },
  },
];
