/**
 * DNSSEC private keys at rest (services/dnssec/key-vault.ts): sealed with AES-256-GCM under the
 * key-encryption key, so the stored bytes hold no trace of the PKCS#8 key; a sealed key opens only under its
 * KEK and for the zone and key tag it was sealed for; the KEK file the embedded set-up makes is the service
 * user's alone and is read back, never replaced, on the next start.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DNSSEC_ALGORITHMS, privateKeyToPkcs8 } from '../../src/dns/dnssec/algorithms';
import { KeyVault, KeyVaultError } from '../../src/services/dnssec/key-vault';
import { loadSettings } from '../../src/config/settings';

const key = DNSSEC_ALGORITHMS.ECDSAP256SHA256.generate();
const context = { zone: 'vault.example', keyTag: 4242 };

it('a sealed key holds no trace of the private key and opens to the same key', () => {
  const kek = randomBytes(32);
  const sealed = new KeyVault(kek).seal(key, context);
  const der = privateKeyToPkcs8(key);
  expect(sealed.includes(der.subarray(-32))).toBe(false);
  // another vault with the same KEK (another process, a restart) opens it
  expect(privateKeyToPkcs8(new KeyVault(kek).open(sealed, context)).equals(der)).toBe(true);
});

it('opens only under its KEK, for its zone and key tag, and unaltered', () => {
  const kek = randomBytes(32);
  const sealed = new KeyVault(kek).seal(key, context);
  expect(() => new KeyVault(randomBytes(32)).open(sealed, context)).toThrow(KeyVaultError);
  expect(() => new KeyVault(kek).open(sealed, { ...context, zone: 'other.example' })).toThrow(KeyVaultError);
  expect(() => new KeyVault(kek).open(sealed, { ...context, keyTag: 1 })).toThrow(KeyVaultError);
  const altered = Buffer.from(sealed);
  altered[altered.length - 1] ^= 1;
  expect(() => new KeyVault(kek).open(altered, context)).toThrow(KeyVaultError);
});

it('the embedded default makes a KEK file readable by its owner only, and reads it back on the next start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zk-kek-'));
  try {
    const settings = loadSettings({ DATA_DIR: dir }, dir);
    const sealed = KeyVault.fromSettings(settings).seal(key, context);
    const file = join(dir, 'dnssec-kek');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    // a second process (or a restart) finds the same KEK: the key sealed before still opens
    expect(() => KeyVault.fromSettings(loadSettings({ DATA_DIR: dir }, dir)).open(sealed, context)).not.toThrow();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('DNSSEC_KEY_ENCRYPTION_KEY must be 32 bytes', () => {
  expect(() => loadSettings({ DNSSEC_KEY_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toThrow(/DNSSEC_KEY_ENCRYPTION_KEY/);
});
