import { createHmac, randomBytes } from 'node:crypto';
import { DomainError } from '../../errors/catalogue';
import type { SettingsKeyVault } from '../dnssec/settings-key-vault';

/**
 * A webhook's signing secret, in the Standard Webhooks form (docs/events.md): `whsec_` and the base64 of 32
 * random bytes, shown once, when made or rotated. At rest it is sealed like the zones' private keys (the same
 * key-encryption key and format, key-vault.ts), with the subscription's id as associated data; it is never
 * logged, listed or answered again.
 */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** a secret given by the caller: from 24 to 64 bytes, the sizes the Standard Webhooks specification recommends */
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;
/** base64 (RFC 4648 §4): the standard alphabet, in groups of four, `=` padding only at the end */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function newSecret(): { text: string; bytes: Buffer } {
  const bytes = randomBytes(SECRET_BYTES);
  return { text: `${SECRET_PREFIX}${bytes.toString('base64')}`, bytes };
}

/**
 * A secret the caller chose (a rotation to a secret its receiver already has), in the form a new one is given:
 * `whsec_` and the base64 (RFC 4648 §4, padded, as the Standard Webhooks libraries decode it) of 24 to 64 bytes.
 * Anything else is refused naming `field`: INVALID_SECRET (the form), SECRET_TOO_SHORT or SECRET_TOO_LONG (the
 * bytes, with the limit). Its bytes are never in a message.
 */
export function parseSecret(input: string, field = 'secret'): { text: string; bytes: Buffer } {
  const text = input.trim();
  const form = `${field}: a secret is whsec_ followed by the base64 of ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES} random bytes`;
  if (!text.startsWith(SECRET_PREFIX)) throw DomainError.invalid(field, `${form}; it does not begin with whsec_`, 'INVALID_SECRET');
  const encoded = text.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded))
    throw DomainError.invalid(field, `${form}; what follows whsec_ is not base64 (A–Z, a–z, 0–9, +, /, padded with =)`, 'INVALID_SECRET');
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length < SECRET_MIN_BYTES || bytes.length > SECRET_MAX_BYTES) {
    const short = bytes.length < SECRET_MIN_BYTES;
    const message = `${form}; it holds ${bytes.length} bytes`;
    const code = short ? 'SECRET_TOO_SHORT' : 'SECRET_TOO_LONG';
    const limit = short ? SECRET_MIN_BYTES : SECRET_MAX_BYTES;
    throw new DomainError('INVALID_INPUT', message, [{ field, code, message, limit }]);
  }
  return { text, bytes };
}

const label = (subscriptionId: number) => `webhook ${subscriptionId}`;

/**
 * The webhooks' secrets at rest, sealed in the process's key vault (the one the zones' keys are sealed in:
 * services/index.ts hands both the same), and the ones opened, by sealed bytes: a delivery opens its endpoint's
 * secret once per process, not once per event.
 */
export class WebhookSecrets {
  private readonly opened = new Map<string, Buffer>();

  constructor(private readonly keys: SettingsKeyVault) {}

  seal(subscriptionId: number, bytes: Buffer): Buffer {
    return this.keys.vault().sealSecret(bytes, label(subscriptionId));
  }

  open(subscriptionId: number, sealed: Buffer): Buffer {
    const key = `${subscriptionId}\u0000${sealed.toString('base64')}`;
    let bytes = this.opened.get(key);
    if (!bytes) {
      bytes = this.keys.vault().openSecret(sealed, label(subscriptionId));
      if (this.opened.size >= 10_000) this.opened.clear();
      this.opened.set(key, bytes);
    }
    return bytes;
  }
}

/**
 * The `webhook-signature` header of a message (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under each secret's bytes, space-separated; the current secret and every previous one still
 * in its overlap each sign, so a receiver that knows any of them verifies.
 */
export function signatureHeader(secrets: readonly Buffer[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`).join(' ');
}
