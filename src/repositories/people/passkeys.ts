/** Passkeys (WebAuthn): a person's credentials, and the challenges of the ceremonies, each taken once */
import type { Sql } from '../../db/pool';
import { date } from './dates';

export interface PasskeyRow {
  id: number;
  personId: number;
  email: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[] | null;
  createdAt: Date;
}

const PASSKEY_SELECT = `select k.id, k.person_id, p.email, k.credential_id, k.public_key, k.counter, k.transports, k.created_at
  from passkeys k join people p on p.id = k.person_id`;
const toPasskey = (r: any): PasskeyRow => ({
  id: Number(r.id),
  personId: Number(r.person_id),
  email: r.email,
  credentialId: r.credential_id,
  publicKey: new Uint8Array(r.public_key as Buffer),
  counter: Number(r.counter),
  transports: r.transports ?? null,
  createdAt: date(r.created_at),
});

export async function insertPasskey(
  sql: Sql,
  passkey: { personId: number; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[] | null },
): Promise<number> {
  const [row] = await sql.rows(
    `insert into passkeys (person_id, credential_id, public_key, counter, transports) values ($1, $2, $3, $4, $5) returning id`,
    [passkey.personId, passkey.credentialId, Buffer.from(passkey.publicKey), passkey.counter, passkey.transports],
  );
  return Number(row.id);
}

export async function passkeyByCredential(sql: Sql, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await sql.rows(`${PASSKEY_SELECT} where k.credential_id = $1`, [credentialId]);
  return row ? toPasskey(row) : undefined;
}

export async function passkeysOfPerson(sql: Sql, personId: number): Promise<PasskeyRow[]> {
  return (await sql.rows(`${PASSKEY_SELECT} where k.person_id = $1 order by k.id`, [personId])).map(toPasskey);
}

/** a person's passkeys as they list them: no key material, when each was added and last used */
export async function passkeyListOfPerson(
  sql: Sql,
  personId: number,
): Promise<{ id: number; createdAt: Date; lastUsedAt: Date | null; transports: string[] | null }[]> {
  const rows = await sql.rows(`select id, created_at, last_used_at, transports from passkeys where person_id = $1 order by id`, [personId]);
  return rows.map((r: any) => ({
    id: Number(r.id),
    createdAt: date(r.created_at),
    lastUsedAt: r.last_used_at ? date(r.last_used_at) : null,
    transports: r.transports ?? null,
  }));
}

/** removes one of a person's passkeys; false when the id is not one of theirs */
export async function deletePasskey(sql: Sql, personId: number, id: number): Promise<boolean> {
  return (await sql.affected(`delete from passkeys where id = $1 and person_id = $2`, [id, personId])) > 0;
}

/** the new signature counter, only forward (WebAuthn §6.1.1: a counter that does not grow may be a clone) */
export async function advancePasskeyCounter(sql: Sql, id: number, counter: number): Promise<boolean> {
  return (
    (await sql.affected(`update passkeys set counter = $2, last_used_at = now() where id = $1 and (counter < $2 or $2 = 0)`, [
      id,
      counter,
    ])) > 0
  );
}

export async function insertChallenge(sql: Sql, idHash: string, challenge: string, personId: number | null): Promise<void> {
  await sql.rows(`delete from webauthn_challenges where created_at < now() - interval '1 hour'`);
  await sql.rows(`insert into webauthn_challenges (id_hash, challenge, person_id) values ($1, $2, $3)`, [idHash, challenge, personId]);
}

/** takes a ceremony's challenge once, if it is younger than `maxSeconds` */
export async function takeChallenge(
  sql: Sql,
  idHash: string,
  maxSeconds: number,
): Promise<{ challenge: string; personId: number | null } | undefined> {
  const [row] = await sql.rows(
    `delete from webauthn_challenges where id_hash = $1 returning challenge, person_id, created_at > now() - make_interval(secs => $2) as fresh`,
    [idHash, maxSeconds],
  );
  if (!row?.fresh) return undefined;
  return { challenge: row.challenge, personId: row.person_id === null ? null : Number(row.person_id) };
}
