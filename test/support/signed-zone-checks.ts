/**
 * What the roll tests (test/dnssec/key-rollover.test.ts, algorithm-rollover.test.ts) check of a signed zone
 * while its keys change: the zone as the primary serves it (AXFR with TSIG), through the three verifiers, and a
 * validating resolver asked again and again, none of whose answers may fail.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { dig } from '../propagation/knot';
import type { Unbound } from './unbound';

const run = promisify(execFile);

/** the zone by AXFR from the primary at `port`, signed with the TSIG key: its text (TSIG records left out) and serial */
export async function transferZone(
  port: number,
  tsig: { name: string; secret: string },
  zone: string,
): Promise<{ text: string; serial: number }> {
  const axfr = await dig([
    '-y',
    `hmac-sha256:${tsig.name}:${tsig.secret}`,
    '@127.0.0.1',
    '-p',
    String(port),
    zone,
    'AXFR',
    '+nocomments',
    '+nostats',
  ]);
  const lines = axfr.lines.filter((line) => line.split(/\s+/)[3] !== 'TSIG').slice(0, -1);
  return { text: `${lines.join('\n')}\n`, serial: Number(lines[0].split(/\s+/)[6]) };
}

/**
 * A zone file through BIND's dnssec-verify, ldns's ldns-verify-zone and Knot's kzonecheck, side by side;
 * kzonecheck's semantic check also holds the CDS/CDNSKEY against the DNSKEY RRset (docs/dnssec.md, «CDS and
 * CDNSKEY»). `csk`: a key with the KSK flag signs the data too (dnssec-verify -z).
 *
 * Knot's zone check (3.2) takes a DNSKEY RRset of SEP keys alone as a combined key only when there is one:
 * with two (a CSK algorithm roll's middle steps) it wants a ZSK's signature below the apex and finds none. A
 * zone BIND's dnssec-signzone signs with two CSKs, of one algorithm or two, fails it the same way; so for such
 * a file the two other verifiers speak alone.
 */
export async function verifySignedZone(zone: string, file: string, options: { csk?: boolean } = {}): Promise<void> {
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
