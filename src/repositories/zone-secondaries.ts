import type { Sql } from '../db/pool';
import type { TsigAlgorithm } from '../dns/wire/tsig';

/**
 * A zone's extra secondaries (docs/transfers.md): the servers of the zone's user, besides the fleet, that get its
 * NOTIFYs and may transfer it with their TSIG key. Plain rows; ZoneSecondariesService decides what may be stored.
 */
export interface ZoneSecondaryRow {
  address: string;
  port: number;
  tsigKeyId: number;
  tsigKeyName: string;
}

/** a zone's extra secondary as the notifier needs it: where, and the key its NOTIFY is signed with */
export interface SecondaryToNotify {
  zone: string;
  address: string;
  port: number;
  key: { name: string; algorithm: TsigAlgorithm; secret: Buffer };
}

interface StoredSecondary {
  address: string;
  port: number;
  tsig_key_id: string;
  tsig_key_name: string;
}

const toRow = (row: StoredSecondary): ZoneSecondaryRow => ({
  address: row.address,
  port: row.port,
  tsigKeyId: Number(row.tsig_key_id),
  tsigKeyName: row.tsig_key_name,
});

/** the zone's extra secondaries whose key is active, in address order */
export async function zoneSecondaries(sql: Sql, domainId: number): Promise<ZoneSecondaryRow[]> {
  const rows = await sql.rows<StoredSecondary>(
    `select host(s.address) as address, s.port, s.tsig_key_id, k.name as tsig_key_name
       from zone_secondaries s join tsig_keys k on k.id = s.tsig_key_id and k.revoked_at is null
      where s.domain_id = $1 order by s.address, s.port`,
    [domainId],
  );
  return rows.map(toRow);
}

/** replaces the zone's extra secondaries with these (in the caller's transaction) */
export async function replaceZoneSecondaries(
  sql: Sql,
  domainId: number,
  entries: { address: string; port: number; tsigKeyId: number }[],
): Promise<void> {
  await sql.rows('delete from zone_secondaries where domain_id = $1', [domainId]);
  if (!entries.length) return;
  await sql.rows(
    `insert into zone_secondaries (domain_id, address, port, tsig_key_id)
     select $1::bigint, a, p, k from unnest($2::inet[], $3::int[], $4::bigint[]) as e(a, p, k)`,
    [domainId, entries.map((e) => e.address), entries.map((e) => e.port), entries.map((e) => e.tsigKeyId)],
  );
}

/** is `address` an extra secondary of the zone that transfers with the (active) key `tsigKeyId`? */
export async function isZoneSecondary(sql: Sql, domainId: number, address: string, tsigKeyId: number): Promise<boolean> {
  const rows = await sql.rows(
    `select 1 from zone_secondaries s join tsig_keys k on k.id = s.tsig_key_id and k.revoked_at is null
      where s.domain_id = $1 and s.address = $2::inet and s.tsig_key_id = $3 limit 1`,
    [domainId, address, tsigKeyId],
  );
  return rows.length > 0;
}

/**
 * The extra secondaries of the zone `domainIdSql` names (an SQL expression), with their active keys, as one json
 * value (null: none): the outbox claim reads them in its own statement (PropagationRepository.claimChanges), so a
 * drain is one round trip whether or not a zone has any. Read with `secondariesOf`.
 */
export const secondariesToNotifySql = (domainIdSql: string): string =>
  `(select json_agg(json_build_object('address', host(s.address), 'port', s.port, 'key_name', k.name, 'algorithm', k.algorithm,
                                      'secret', encode(k.secret, 'base64')))
      from zone_secondaries s join tsig_keys k on k.id = s.tsig_key_id and k.revoked_at is null
     where s.domain_id = ${domainIdSql})`;

/** the value `secondariesToNotifySql` read, for the zone named `zone` */
export function secondariesOf(
  zone: string,
  json: { address: string; port: number; key_name: string; algorithm: TsigAlgorithm; secret: string }[] | null,
): SecondaryToNotify[] {
  return (json ?? []).map((row) => ({
    zone,
    address: row.address,
    port: row.port,
    key: { name: row.key_name, algorithm: row.algorithm, secret: Buffer.from(row.secret, 'base64') },
  }));
}
