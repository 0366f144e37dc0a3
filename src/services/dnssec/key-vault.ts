import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { Settings } from '../../config/settings';
import { privateKeyFromPkcs8, privateKeyToPkcs8 } from '../../dns/dnssec/algorithms';

/**
 * The zones' private keys at rest: PKCS#8, sealed with AES-256-GCM under the key-encryption key (KEK) of the
 * settings (`dnssecKeyEncryptionKey`). A sealed key is `version ‖ KEK id ‖ IV ‖ tag ‖ ciphertext`; the KEK id
 * (8 bytes of its SHA-256) says at once when a database meets the wrong KEK, rather than a decryption failure
 * deep in a signing step. The zone and key tag are the GCM's associated data, so a sealed key copied to
 * another zone's row does not open. A private key is opened only to sign, and never logged or returned.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEK_ID_BYTES = 8;

export class KeyVaultError extends Error {}

export class KeyVault {
  private readonly kekId: Buffer;
  /** opened keys, by sealed bytes: a signing step opens each key once per process, not once per change */
  private readonly opened = new Map<string, KeyObject>();

  constructor(private readonly kek: Buffer) {
    if (kek.length !== 32) throw new KeyVaultError('the DNSSEC key-encryption key must be 32 bytes');
    this.kekId = createHash('sha256').update(kek).digest().subarray(0, KEK_ID_BYTES);
  }

  /** the vault of the settings: the KEK given, or the one in its file (created, mode 0600, when absent) */
  static fromSettings(settings: Settings): KeyVault {
    const configured = settings.dnssecKeyEncryptionKey;
    if (Buffer.isBuffer(configured)) return new KeyVault(configured);
    return new KeyVault(readOrCreateKekFile(configured.file));
  }

  seal(privateKey: KeyObject, context: { zone: string; keyTag: number }): Buffer {
    return this.sealBytes(privateKeyToPkcs8(privateKey), associatedData(context));
  }

  open(sealed: Buffer, context: { zone: string; keyTag: number }): KeyObject {
    const cacheKey = `${context.zone}\u0000${context.keyTag}\u0000${sealed.toString('base64')}`;
    const known = this.opened.get(cacheKey);
    if (known) return known;
    const der = this.openBytes(sealed, associatedData(context), {
      format: `a DNSSEC key of ${context.zone} is sealed in an unknown format`,
      kek: `the DNSSEC keys of ${context.zone} were sealed under another key-encryption key than the one configured`,
      altered: `a DNSSEC key of ${context.zone} does not open: it was altered or belongs to another zone`,
    });
    const key = privateKeyFromPkcs8(der);
    der.fill(0);
    if (this.opened.size >= 10_000) this.opened.clear();
    this.opened.set(cacheKey, key);
    return key;
  }

  /**
   * Another secret of the service at rest under the same KEK and format (a webhook's signing secret,
   * services/events/webhook-secrets.ts); `label` is the associated data, so a sealed secret moved to another row
   * does not open.
   */
  sealSecret(secret: Buffer, label: string): Buffer {
    return this.sealBytes(secret, Buffer.from(`zonekeeper secret ${label}`));
  }

  openSecret(sealed: Buffer, label: string): Buffer {
    return this.openBytes(sealed, Buffer.from(`zonekeeper secret ${label}`), {
      format: `the secret of ${label} is sealed in an unknown format`,
      kek: `the secret of ${label} was sealed under another key-encryption key than the one configured`,
      altered: `the secret of ${label} does not open: it was altered or belongs to another row`,
    });
  }

  private sealBytes(plain: Buffer, aad: Buffer): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), this.kekId, iv, cipher.getAuthTag(), ciphertext]);
  }

  private openBytes(sealed: Buffer, aad: Buffer, messages: { format: string; kek: string; altered: string }): Buffer {
    if (sealed[0] !== VERSION) throw new KeyVaultError(messages.format);
    let at = 1;
    const kekId = sealed.subarray(at, (at += KEK_ID_BYTES));
    if (!kekId.equals(this.kekId)) throw new KeyVaultError(messages.kek);
    const iv = sealed.subarray(at, (at += IV_BYTES));
    const tag = sealed.subarray(at, (at += TAG_BYTES));
    const decipher = createDecipheriv('aes-256-gcm', this.kek, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(sealed.subarray(at)), decipher.final()]);
    } catch {
      throw new KeyVaultError(messages.altered);
    }
  }
}

const associatedData = (context: { zone: string; keyTag: number }) =>
  Buffer.from(`zonekeeper dnssec key ${context.zone} ${context.keyTag}`);

/** the KEK in its file; a new one, written so that only the service's user reads it, when there is none */
function readOrCreateKekFile(file: string): Buffer {
  try {
    return decodeKek(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const kek = randomBytes(32);
  try {
    // 'wx': two processes starting at once on one DATA_DIR do not both write; the loser reads the winner's
    writeFileSync(file, `${kek.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return kek;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return decodeKek(readFileSync(file, 'utf8'), file);
  }
}

function decodeKek(text: string, file: string): Buffer {
  const kek = Buffer.from(text.trim(), 'base64');
  if (kek.length !== 32) throw new KeyVaultError(`${file} must hold a 32-byte key in base64`);
  return kek;
}
