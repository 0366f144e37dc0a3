/**
 * Every DNS refusal says why: an Extended DNS Error (RFC 8914) with the reason in words, as nsupdate, dig and
 * dnspython (certbot's library) show it; TSIG failures answer with the request's algorithm (RFC 8945 §5.3.2),
 * so nsupdate reports the real error; the DNS metrics count queries, transfers and updates by outcome.
 */
import { randomBytes } from 'node:crypto';
import dnsPacket from 'dns-packet';
import { askTcp, extendedError } from '../support/dns-tcp';
import { startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createZone } from '../support/fixtures';
import { KeyArg, nsupdate, python, runClient } from '../support/update-clients';
import { dig, findBinary, freePort } from './knot';

const ZONE = 'refusals.zk.test';
const TRANSFER_KEY = { name: 'zk-xfr', secret: randomBytes(32).toString('base64') };
let app: TestApp;
let dnsPort: number;
let key: KeyArg;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TSIG_KEY: `${TRANSFER_KEY.name}:hmac-sha256:${TRANSFER_KEY.secret}`,
  });
  const userId = await createUser(app, 'owner@refusals.zk.test');
  await createZone(app, userId, ZONE);
  key = await createTsigKey(app, userId, 'refusals-key');
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test('nsupdate (-d shows the answer): a rule refusal carries its reason as an EDE', async () => {
  // a new zone has www CNAME <apex>: an A beside it breaks RFC 1034 §3.6.2
  const run = await runClient(
    findBinary('nsupdate'),
    ['-d', '-y', `${key.algorithm}:${key.name}:${key.secret}`],
    [`server 127.0.0.1 ${dnsPort}`, `zone ${ZONE}`, `update add www.${ZONE} 300 A 192.0.2.1`, 'send', ''].join('\n'),
  );
  expect(run.code).not.toBe(0);
  const output = run.stdout + run.stderr;
  expect(output).toMatch(/Reply from update query:\n;; ->>HEADER<<- opcode: UPDATE, status: REFUSED/);
  expect(output).toContain('EDE: 0 (Other): (A CNAME record already exist with that owner: changes[0].type: owner www has a CNAME record');
});

test('dig: a name in no zone here is REFUSED with EDE 20 (Not Authoritative) and the reason', async () => {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', 'www.example.org', 'A']);
  expect(result.status).toBe('REFUSED');
  expect(result.stdout).toMatch(/EDE: 20 \(Not Authoritative\): \(www\.example\.org is in no zone served here\)/);
});

test('a transfer without the transfer key is REFUSED with EDE 18 (Prohibited)', async () => {
  // dig and kdig print only "Transfer failed" / "REFUSED" for a refused transfer: read the answer itself
  const answer = await askTcp(dnsPort, dnsPacket.encode({ id: 7, type: 'query', questions: [{ name: ZONE, type: 'AXFR', class: 'IN' }] }));
  expect(answer.rcode).toBe('REFUSED');
  expect(extendedError(answer)).toEqual({ code: 18, text: 'transfers must be signed with the transfer key (TSIG_KEY)' });
});

/** sends an update with dnspython (certbot's library, no EDNS, as certbot sends it) and prints rcode, EDE and TSIG error */
const DNSPYTHON_UPDATE = `
import sys, base64, dns.update, dns.query, dns.tsigkeyring, dns.rcode, dns.tsig, dns.message
zone, port, name, secret, algorithm, owner, rtype, rdata = sys.argv[1:9]
keyring = dns.tsigkeyring.from_text({name: secret})
u = dns.update.UpdateMessage(zone, keyring=keyring, keyalgorithm=algorithm)
u.add(owner, 300, rtype, rdata)
try:
    r = dns.query.tcp(u, '127.0.0.1', port=int(port), timeout=5)
    print('rcode', dns.rcode.to_text(r.rcode()))
    for o in (r.options or []):
        if o.otype == 15: print('ede', int(o.code), o.text)
except dns.tsig.PeerBadKey as e: print('tsig BADKEY')
except dns.tsig.PeerBadSignature as e: print('tsig BADSIG')
except Exception as e: print('error', type(e).__name__, e)
`;

test('dnspython (no EDNS in the request): the refusal still says why, in words', async () => {
  const run = await python(DNSPYTHON_UPDATE, [
    ZONE,
    String(dnsPort),
    key.name,
    key.secret,
    'hmac-sha256',
    `www.${ZONE}.`,
    'A',
    '192.0.2.1',
  ]);
  expect(run.stdout).toContain('rcode REFUSED');
  expect(run.stdout).toMatch(/ede 0 .*CNAME/);
});

test('a wrong secret: NOTAUTH/BADSIG, and the client is told so', async () => {
  const wrong = Buffer.alloc(32, 1).toString('base64');
  const run = await python(DNSPYTHON_UPDATE, [ZONE, String(dnsPort), key.name, wrong, 'hmac-sha256', `host.${ZONE}.`, 'A', '192.0.2.1']);
  expect(run.stdout.trim()).toBe('tsig BADSIG');
});

test("a request signed with another algorithm than the key's: nsupdate hears BADKEY, not a verify failure", async () => {
  const run = await nsupdate(dnsPort, { ...key, algorithm: 'hmac-sha512' }, [
    `zone ${ZONE}`,
    `update add host.${ZONE} 300 A 192.0.2.1`,
    'send',
  ]);
  expect(run.code).not.toBe(0);
  expect(run.stderr + run.stdout).not.toContain('tsig verify failure');
  expect(run.stderr + run.stdout).toContain('BADKEY');
});

test('metrics: queries by type and RCODE, TSIG failures and updates by reason', async () => {
  await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', ZONE, 'SOA']);
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const value = (line: RegExp) =>
    Number(
      text
        .split('\n')
        .find((l) => line.test(l))
        ?.split(' ')
        .pop() ?? 0,
    );
  expect(value(/^zonekeeper_dns_queries_total\{qtype="SOA",rcode="NOERROR"\}/)).toBeGreaterThanOrEqual(1);
  expect(value(/^zonekeeper_dns_queries_total\{qtype="A",rcode="REFUSED"\}/)).toBeGreaterThanOrEqual(1);
  expect(value(/^zonekeeper_dns_tsig_failures_total\{error="BADSIG"\}/)).toBeGreaterThanOrEqual(1);
  expect(value(/^zonekeeper_dns_updates_total\{rcode="REFUSED",reason="refused_by_rules"\}/)).toBeGreaterThanOrEqual(2);
  expect(value(/^zonekeeper_dns_updates_total\{rcode="NOTAUTH",reason="tsig"\}/)).toBeGreaterThanOrEqual(2);
});
