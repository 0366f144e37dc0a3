import { createHmac, randomBytes } from 'node:crypto';
import type { Settings } from '../../config/settings';
import { vaultOf } from '../dnssec/zone-signing';

/**
 * A webhook's signing secret, in the Standard Webhooks form (docs/events.md): `whsec_` and the base64 of 32
 * random bytes, shown once, when made or rotated. At rest it is sealed like the zones' private keys (the same
 * key-encryption key and format, key-vault.ts), with the subscription's id as associated data; it is never
 * logged, listed or answered again.
 */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newSecret(): { text: string; bytes: Buffer } {
  const bytes = randomBytes(SECRET_BYTES);
  return { text: `${SECRET_PREFIX}${bytes.toString('base64')}`, bytes };
}

const label = (subscriptionId: number) => `webhook ${subscriptionId}`;

export function sealSecret(settings: Settings, subscriptionId: number, bytes: Buffer): Buffer {
  return vaultOf(settings).sealSecret(bytes, label(subscriptionId));
}

/** opened secrets, by sealed bytes: a delivery opens its endpoint's secret once per process, not once per event */
const opened = new Map<string, Buffer>();
export function openSecret(settings: Settings, subscriptionId: number, sealed: Buffer): Buffer {
  const key = `${subscriptionId}\u0000${sealed.toString('base64')}`;
  let bytes = opened.get(key);
  if (!bytes) {
    bytes = vaultOf(settings).openSecret(sealed, label(subscriptionId));
    if (opened.size >= 10_000) opened.clear();
    opened.set(key, bytes);
  }
  return bytes;
}

/**
 * The `webhook-signature` header of a message (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under each secret's bytes, space-separated; during a rotation's overlap both the new and
 * the previous secret sign, so a receiver that knows either verifies.
 */
export function signatureHeader(secrets: readonly Buffer[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`).join(' ');
}
