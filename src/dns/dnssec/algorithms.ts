/**
 * The DNSSEC signing algorithms the service signs with, each with its key generation, its DNSKEY public-key
 * field and its signature format. Crypto is Node's (OpenSSL); only the encodings the RFCs define are here.
 *
 * RFC 8624 §3.1 lists what signers MUST/RECOMMENDED implement: ECDSAP256SHA256 (13) is the default (small
 * keys and signatures, fast), ED25519 (15) is recommended, RSASHA256 (8) is for parents and resolvers that
 * know nothing newer.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';

export type DnssecAlgorithmName = 'ECDSAP256SHA256' | 'ED25519' | 'RSASHA256';

export interface DnssecAlgorithm {
  name: DnssecAlgorithmName;
  /** IANA "DNS Security Algorithm Numbers" */
  number: number;
  /** a new private key of this algorithm; `bits` only for RSA */
  generate(bits?: number): KeyObject;
  /** the DNSKEY's Public Key field for this key (private or public) */
  publicKeyField(key: KeyObject): Buffer;
  /** the RRSIG's Signature field over `data` */
  sign(data: Buffer, privateKey: KeyObject): Buffer;
  /** whether `signature` (RRSIG form) is valid for `data` under the DNSKEY public-key field (our own self-check) */
  verify(data: Buffer, signature: Buffer, publicKeyField: Buffer): boolean;
  /** the key's size in bits from its DNSKEY public-key field (what PowerDNS's cryptokeys call `bits`) */
  keyBits(publicKeyField: Buffer): number;
}

const base64url = (text: string | undefined): Buffer => Buffer.from(text ?? '', 'base64url');

/** RFC 5702 §2 / RFC 3110 §2: exponent length (1 octet, or 0 then 2 octets), exponent, modulus */
const RSASHA256: DnssecAlgorithm = {
  name: 'RSASHA256',
  number: 8,
  generate: (bits = 2048) => generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 65537 }).privateKey,
  publicKeyField(key) {
    const jwk = createPublicKey(key).export({ format: 'jwk' });
    const exponent = base64url(jwk.e);
    const modulus = base64url(jwk.n);
    const length = exponent.length <= 255 ? Buffer.from([exponent.length]) : Buffer.from([0, exponent.length >> 8, exponent.length & 0xff]);
    return Buffer.concat([length, exponent, modulus]);
  },
  // RFC 5702 §3: RSASSA-PKCS1-v1_5 with SHA-256
  sign: (data, privateKey) => cryptoSign('sha256', data, privateKey),
  verify(data, signature, field) {
    const long = field[0] === 0;
    const exponentLength = long ? field.readUInt16BE(1) : field[0];
    const start = long ? 3 : 1;
    const e = field.subarray(start, start + exponentLength);
    const n = field.subarray(start + exponentLength);
    const key = createPublicKey({ key: { kty: 'RSA', n: n.toString('base64url'), e: e.toString('base64url') }, format: 'jwk' });
    return cryptoVerify('sha256', data, key, signature);
  },
  // the modulus's length: what follows the exponent (RFC 3110 §2), without leading zero bits
  keyBits(field) {
    const long = field[0] === 0;
    const start = (long ? 3 : 1) + (long ? field.readUInt16BE(1) : field[0]);
    const modulus = field.subarray(start);
    const first = modulus.findIndex((octet) => octet !== 0);
    return first < 0 ? 0 : (modulus.length - first) * 8 - (Math.clz32(modulus[first]) - 24);
  },
};

/** RFC 6605 §4: the public key is Q = x | y (32 octets each); the signature r | s (32 octets each) */
const ECDSAP256SHA256: DnssecAlgorithm = {
  name: 'ECDSAP256SHA256',
  number: 13,
  generate: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
  publicKeyField(key) {
    const jwk = createPublicKey(key).export({ format: 'jwk' });
    return Buffer.concat([base64url(jwk.x), base64url(jwk.y)]);
  },
  sign: (data, privateKey) => cryptoSign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
  verify(data, signature, field) {
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: field.subarray(0, 32).toString('base64url'), y: field.subarray(32, 64).toString('base64url') },
      format: 'jwk',
    });
    return cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
  },
  // P-256: a 256-bit curve (the field holds both coordinates)
  keyBits: () => 256,
};

/** RFC 8080 §3: the 32-octet public key as RFC 8032 writes it; the signature is 64 octets */
const ED25519: DnssecAlgorithm = {
  name: 'ED25519',
  number: 15,
  generate: () => generateKeyPairSync('ed25519').privateKey,
  publicKeyField: (key) => base64url(createPublicKey(key).export({ format: 'jwk' }).x),
  sign: (data, privateKey) => cryptoSign(null, data, privateKey),
  verify(data, signature, field) {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: field.toString('base64url') }, format: 'jwk' });
    return cryptoVerify(null, data, key, signature);
  },
  // RFC 8080 §3: a 32-octet key (PowerDNS says 256 as well)
  keyBits: () => 256,
};

export const DNSSEC_ALGORITHMS: Readonly<Record<DnssecAlgorithmName, DnssecAlgorithm>> = { ECDSAP256SHA256, ED25519, RSASHA256 };

export function algorithmByNumber(number: number): DnssecAlgorithm | undefined {
  return Object.values(DNSSEC_ALGORITHMS).find((algorithm) => algorithm.number === number);
}

export const isDnssecAlgorithmName = (name: string): name is DnssecAlgorithmName => Object.hasOwn(DNSSEC_ALGORITHMS, name);

/**
 * Other names tools give these algorithms: PowerDNS's (pdnsutil, its HTTP API's `algorithm`: `ecdsa256` beside
 * the mnemonic); the mnemonics themselves are the IANA registry's (RFC 8624 §3.1)
 */
const OTHER_NAMES: Readonly<Record<string, DnssecAlgorithmName>> = { ECDSA256: 'ECDSAP256SHA256' };

/**
 * An algorithm we sign with as people and tools write it, the one reader of every edge (the CLI, REST, the
 * PowerDNS API): its mnemonic in any case (`ECDSAP256SHA256`, `ecdsap256sha256`), PowerDNS's other name
 * (`ecdsa256`) or its number in the IANA registry (`13`); undefined for anything else, an algorithm we do not
 * sign with included (`RSASHA1`, `5`).
 */
export function parseDnssecAlgorithm(text: string | number): DnssecAlgorithm | undefined {
  const written = String(text).trim().toUpperCase();
  if (/^[0-9]{1,3}$/.test(written)) return algorithmByNumber(Number(written));
  const name = OTHER_NAMES[written] ?? written;
  return isDnssecAlgorithmName(name) ? DNSSEC_ALGORITHMS[name] : undefined;
}

/** what parseDnssecAlgorithm takes, said in a refusal: each mnemonic with its number */
export const DNSSEC_ALGORITHM_CHOICES = Object.values(DNSSEC_ALGORITHMS)
  .map((algorithm) => `${algorithm.name} (${algorithm.number})`)
  .join(', ');

/** a private key from its PKCS#8 DER (how it is kept, encrypted, at rest) */
export const privateKeyFromPkcs8 = (der: Buffer): KeyObject => createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });

export const privateKeyToPkcs8 = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'pkcs8' }) as Buffer;
