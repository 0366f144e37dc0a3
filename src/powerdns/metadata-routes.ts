import type { DomainRow } from '../repositories/read-model';
import { absoluteName, presentPrimary } from './presenters';
import { PowerDnsInputs, PowerDnsRoute, refuse, objectBody, zoneOf, primaryOf, SOA_EDIT_API, ZONE } from './route-kit';

const METADATA_KINDS_TAKEN =
  "Zonekeeper writes ALSO-NOTIFY (the zone's extra secondaries); SOA-EDIT-API (SERIAL_POLICY), ALLOW-AXFR-FROM and TSIG-ALLOW-AXFR (the extra secondaries' addresses and keys) and AXFR-MASTER-TSIG (a secondary zone's transfer key, its slave_tsig_key_ids) are read from what the zone holds; other kinds are not kept";

const presentMetadata = (kind: string, metadata: string[]) => ({ type: 'Metadata', kind, metadata });

/**
 * A zone's metadata in PowerDNS's kinds, from what the zone holds (no store of its own): SOA-EDIT-API is the
 * serial policy; the zone's extra secondaries (docs/transfers.md) are its ALSO-NOTIFY (each `address[:port]`,
 * NOTIFYed), ALLOW-AXFR-FROM (their addresses, which may transfer it) and TSIG-ALLOW-AXFR (their keys); a
 * secondary zone's AXFR-MASTER-TSIG is the key its transfers from its primaries are signed with.
 */
async function metadataOf(inputs: PowerDnsInputs, zone: DomainRow): Promise<Map<string, string[]>> {
  const { services, ctx } = inputs;
  const [secondaries, primaries] = await Promise.all([
    services.zoneSecondaries.list(ctx, zone),
    services.secondaryZones.primariesOf(ctx, [zone]),
  ]);
  const unique = (values: string[]) => [...new Set(values)];
  return new Map([
    ['ALLOW-AXFR-FROM', unique(secondaries.map((s) => s.address))],
    ['ALSO-NOTIFY', secondaries.map((s) => presentPrimary(s))],
    ['AXFR-MASTER-TSIG', unique((primaries.get(zone.id) ?? []).flatMap((p) => (p.tsigKeyName ? [absoluteName(p.tsigKeyName)] : [])))],
    ['SOA-EDIT-API', [SOA_EDIT_API[services.settings.serialPolicy]]],
    ['TSIG-ALLOW-AXFR', unique(secondaries.map((s) => absoluteName(s.tsigKeyName)))],
  ]);
}

/** a zone's metadata, read from what the zone holds */
export const METADATA_ROUTES: PowerDnsRoute[] = [
  {
    // the zone's metadata, as PowerDNS lists it: the kinds that have values, read from what the zone holds
    method: 'get',
    path: `${ZONE}/metadata`,
    async handle(inputs) {
      const held = await metadataOf(inputs, await zoneOf(inputs));
      return { status: 200, body: [...held].filter(([, values]) => values.length).map(([kind, values]) => presentMetadata(kind, values)) };
    },
  },
  {
    method: 'get',
    path: `${ZONE}/metadata/:kind`,
    async handle(inputs) {
      const kind = inputs.params.kind.toUpperCase();
      const zone = await zoneOf(inputs);
      // PowerDNS 4.7 shows SOA-EDIT-API in the list only: the zone's `soa_edit_api` is where it is read alone
      if (kind === 'SOA-EDIT-API') throw refuse(`Unsupported metadata kind '${kind}': the zone's soa_edit_api gives it`);
      const held = await metadataOf(inputs, zone);
      return { status: 200, body: presentMetadata(kind, held.get(kind) ?? []) };
    },
  },
  ...(['post', 'put', 'delete'] as const).map((method): PowerDnsRoute => ({
    // ALSO-NOTIFY: the zone's extra secondaries' addresses (POST adds, PUT replaces, DELETE removes them)
    method,
    path: method === 'post' ? `${ZONE}/metadata` : `${ZONE}/metadata/:kind`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const body = method === 'delete' ? {} : objectBody(inputs.body);
      const given = method === 'post' ? body.kind : inputs.params.kind;
      const kind = (typeof given === 'string' ? given : '').toUpperCase();
      if (kind !== 'ALSO-NOTIFY') throw refuse(`Unsupported metadata kind '${kind}': ${METADATA_KINDS_TAKEN}`);
      const values = method === 'delete' ? [] : body.metadata;
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) throw refuse('metadata: a list of strings');
      const { services, ctx } = inputs;
      const current = await services.zoneSecondaries.list(ctx, zone);
      const wanted = [...(method === 'post' ? current.map((s) => presentPrimary(s)) : []), ...(values as string[])];
      const keys = [...new Set(current.map((s) => s.tsigKeyName))];
      if (wanted.length && keys.length !== 1)
        throw refuse(
          `ALSO-NOTIFY: each secondary of a zone here transfers with a TSIG key of the zone's user: ${keys.length ? 'its secondaries have several keys' : 'it has no secondaries yet'}; set them with their keys through GraphQL's setZoneSecondaries or \`zonekeeper secondaries set\`, then ALSO-NOTIFY changes their addresses`,
        );
      const servers = [...new Map(wanted.map((text) => [text, primaryOf(text, 'ALSO-NOTIFY')])).values()];
      const set = await services.zoneSecondaries.set(
        ctx,
        zone.name,
        servers.map((server) => ({ ...server, tsigKeyName: keys[0] })),
      );
      if (method === 'delete') return { status: 204 };
      return {
        status: method === 'post' ? 201 : 200,
        body: presentMetadata(
          kind,
          set.map((s) => presentPrimary(s)),
        ),
      };
    },
  })),
];
