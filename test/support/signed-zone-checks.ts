/**
 * What the DNSSEC tests check of a signed zone: the zone as a server transfers it (AXFR, with TSIG from the
 * primary), through the three verifiers, and, while its keys change (test/dnssec/key-rollover.test.ts,
 * algorithm-rollover.test.ts), a validating resolver asked again and again, none of whose answers may fail.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { dig } from '../propagation/knot';
import type { Unbound } from './unbound';

const run = promisify(execFile);

/**
 * the zone by AXFR from the server at `port`, signed with the TSIG key when there is one: its text (TSIG records
 * and the closing SOA left out) and serial. `expectContent`: a transfer of no more than two records, or one that
 * does not open with the SOA, is taken for a failed one (a server that does not hold the zone yet, or refused it)
 * and throws with dig's whole answer.
 */
export async function transferZone(
  port: number,
  tsig: { name: string; secret: string } | undefined,
  zone: string,
  options: { expectContent?: boolean } = {},
): Promise<{ text: string; serial: number }> {
  const axfr = await dig([
    ...(tsig ? ['-y', `hmac-sha256:${tsig.name}:${tsig.secret}`] : []),
    '@127.0.0.1',
    '-p',
    String(port),
    zone,
    'AXFR',
    '+nocomments',
    '+nostats',
    // a signed zone's transfer on a loaded two-core host can take longer than the 2 s dig is given by default
    '+time=5',
  ]);
  const lines = axfr.lines.filter((line) => line.split(/\s+/)[3] !== 'TSIG').slice(0, -1);
  if (options.expectContent && (lines.length <= 2 || lines[0].split(/\s+/)[3] !== 'SOA'))
    throw new Error(`AXFR of ${zone} from port ${port}: ${axfr.stdout}`);
  return { text: `${lines.join('\n')}\n`, serial: Number(lines[0].split(/\s+/)[6]) };
}

/**
 * A zone file through BIND's dnssec-verify, ldns's ldns-verify-zone and Knot's kzonecheck, side by side;
 * kzonecheck's semantic check also holds the CDS/CDNSKEY against the DNSKEY RRset (docs/dnssec.md, «CDS and
 * CDNSKEY»). `csk`: a key with the KSK flag signs the data too (dnssec-verify -z). `text`: the zone as
 * transferred, written to `file` first (where it stays to be read when a verifier finds fault).
 *
 * Knot's zone check (3.2) takes a DNSKEY RRset of SEP keys alone as a combined key only when there is one:
 * with two (a CSK algorithm roll's middle steps) it wants a ZSK's signature below the apex and finds none. A
 * zone BIND's dnssec-signzone signs with two CSKs, of one algorithm or two, fails it the same way; so for such
 * a file the two other verifiers speak alone.
 */
export async function verifySignedZone(zone: string, file: string, options: { csk?: boolean; text?: string } = {}): Promise<void> {
  if (options.text !== undefined) writeFileSync(file, options.text);
  const tool = async (name: string, args: string[]) =>
    run(name, args, { maxBuffer: 64 * 1024 * 1024 }).catch((error) => {
      throw new Error(`${name}: ${error.stdout}${error.stderr}`);
    });
  const flags = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => f[0] === `${zone}.` && f[3] === 'DNSKEY')
    .map((f) => f[4]);
  const twoCsks = flags.length > 1 && flags.every((f) => f === '257');
  const [, ldns] = await Promise.all([
    tool('dnssec-verify', [...(options.csk ? ['-z'] : []), '-o', zone, file]),
    tool('ldns-verify-zone', [file]),
    twoCsks ? undefined : tool('kzonecheck', ['--dnssec', 'on', '-o', zone, file]),
  ]);
  if (!/Zone is verified and complete/.test(ldns.stdout + ldns.stderr)) throw new Error(`ldns-verify-zone: ${ldns.stdout}${ldns.stderr}`);
}

/**
 * Asks the validating resolver for `name` A every 100 ms until stopped; every answer must be NOERROR with AD
 * (a SERVFAIL or an unauthenticated answer means the chain of trust broke for a moment). The failures come
 * with the end of the resolver's log.
 */
export function pollValidator(unbound: Unbound, name: string): { stop(): Promise<{ asked: number; failures: string[] }> } {
  let running = true;
  let asked = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      let answer: Awaited<ReturnType<Unbound['query']>>;
      try {
        answer = await unbound.query(name, 'A');
      } catch (error) {
        // a question that could not be asked (the resolver gone, e.g. stopped by afterAll after a failed test)
        // ends the poll as a failure, not as a rejection nobody awaits, which fails whatever suite runs next
        failures.push(`${new Date().toISOString()} ${(error as Error).message.split('\n')[0]}`);
        break;
      }
      asked++;
      if (answer.rcode !== 'NOERROR' || !answer.ad) failures.push(`${new Date().toISOString()} ${answer.rcode} ad=${answer.ad}`);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failures.length) failures.push(unbound.log().split('\n').slice(-20).join('\n'));
      return { asked, failures };
    },
  };
}
