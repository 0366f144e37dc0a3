/** Device sign-ins (RFC 8628): a terminal's sign-in under way, found by its device code's hash, polled at a pace */
import type { Sql } from '../../db/pool';

export type DeviceSignInMethod = 'oidc' | 'passkey';

export interface DeviceSignInRow {
  id: number;
  method: DeviceSignInMethod;
  userCode: string;
  providerDeviceCode: string | null;
  intervalSeconds: number;
  expired: boolean;
  personId: number | null;
  denied: boolean;
  sourceAddress: string | null;
  userAgent: string | null;
}

const rowOf = (row: Record<string, any>): DeviceSignInRow => ({
  id: Number(row.id),
  method: row.method,
  userCode: row.user_code,
  providerDeviceCode: row.provider_device_code,
  intervalSeconds: Number(row.interval_seconds),
  expired: row.expired,
  personId: row.person_id === null ? null : Number(row.person_id),
  denied: row.denied,
  sourceAddress: row.source_address,
  userAgent: row.user_agent,
});

const COLUMNS = `id, method, user_code, provider_device_code, interval_seconds, expires_at <= now() as expired, person_id, denied,
  source_address, user_agent`;

export async function insertDeviceSignIn(
  sql: Sql,
  row: {
    deviceCodeHash: string;
    method: DeviceSignInMethod;
    userCode: string;
    providerDeviceCode?: string;
    intervalSeconds: number;
    expiresInSeconds: number;
    sourceAddress?: string;
    userAgent?: string;
  },
): Promise<void> {
  // sign-ins expired an hour ago are dropped as new ones begin: an abandoned one leaves nothing for long
  await sql.rows(`delete from device_sign_ins where expires_at < now() - interval '1 hour'`);
  await sql.rows(
    `insert into device_sign_ins (device_code_hash, method, user_code, provider_device_code, interval_seconds, expires_at,
       source_address, user_agent)
     values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7, $8)`,
    [
      row.deviceCodeHash,
      row.method,
      row.userCode,
      row.providerDeviceCode ?? null,
      row.intervalSeconds,
      row.expiresInSeconds,
      row.sourceAddress ?? null,
      row.userAgent ?? null,
    ],
  );
}

/**
 * One poll of a device code (RFC 8628 §3.4): the sign-in, and whether it came sooner than its interval after the
 * last one, in which case the interval grows by 5 seconds (§3.5, slow_down) as the client is told to. The row is
 * locked while it is read and marked, so two polls at once are paced as two.
 */
export async function pollDeviceSignIn(
  sql: Sql,
  deviceCodeHash: string,
): Promise<{ signIn: DeviceSignInRow; tooSoon: boolean } | undefined> {
  const [row] = await sql.rows(
    `with previous as (
       select id, polled_at is not null and polled_at > now() - make_interval(secs => interval_seconds) as too_soon
       from device_sign_ins where device_code_hash = $1 for update)
     update device_sign_ins d set polled_at = now(),
       interval_seconds = d.interval_seconds + case when previous.too_soon then 5 else 0 end
     from previous where d.id = previous.id
     returning d.id, d.method, d.user_code, d.provider_device_code, d.interval_seconds, d.expires_at <= now() as expired,
       d.person_id, d.denied, d.source_address, d.user_agent, previous.too_soon`,
    [deviceCodeHash],
  );
  return row ? { signIn: rowOf(row), tooSoon: row.too_soon } : undefined;
}

/** the sign-in is over (a session handed out, refused, expired): gone, so its device code answers nothing again */
export async function deleteDeviceSignIn(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql.rows(`delete from device_sign_ins where id = $1 returning id`, [id]);
  return rows.length > 0;
}

/** a live passkey sign-in waiting for a person by its user code (typed on the second device) */
export async function pendingDeviceSignInByUserCode(sql: Sql, userCode: string): Promise<DeviceSignInRow | undefined> {
  const [row] = await sql.rows(
    `select ${COLUMNS} from device_sign_ins
     where user_code = $1 and method = 'passkey' and person_id is null and not denied and expires_at > now()`,
    [userCode],
  );
  return row ? rowOf(row) : undefined;
}

/** the person's answer on the second device: approved (the person) or denied; false if it was answered already */
export async function answerDeviceSignIn(sql: Sql, id: number, answer: { personId: number } | 'denied'): Promise<boolean> {
  const rows = await sql.rows(
    `update device_sign_ins set person_id = $2, denied = $3
     where id = $1 and person_id is null and not denied and expires_at > now() returning id`,
    [id, answer === 'denied' ? null : answer.personId, answer === 'denied'],
  );
  return rows.length > 0;
}
