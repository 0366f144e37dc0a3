/**
 * Negative answers of an ordinary zone by index: empty non-terminals (RFC 4592 §2.2.2) and the
 * closest encloser of a wildcard (RFC 4592 §3.3.1) are found by a range of reversed owner names, so these
 * answers must stay exactly what they were: NODATA at a name with descendants only, NXDOMAIN elsewhere,
 * wildcard synthesis below an existing encloser, and names that share a suffix but not a label apart.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { dig, freePort, records } from './knot';

const ZONE = 'ent.zk-lookup.test';
let app: TestApp;
let dnsPort: number;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  const user = await app.gql(`mutation { createUser(input: {email: "lookup@example.com"}) { id } }`);
  const zone = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "${ZONE}"}) { id } }`, {
    u: user.data.createUser.id,
  });
  expect(zone.errors).toBeUndefined();
  for (const [owner, type, rdata] of [
    ['a.b.c', 'A', '192.0.2.1'],
    ['*.w', 'A', '192.0.2.2'],
    ['_dmarc.mail', 'TXT', '"v=DMARC1; p=none"'],
    ['x.bc', 'A', '192.0.2.3'],
  ]) {
    const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, {
      r: { zone: ZONE, owner, type, rdata, ttl: 300 },
    });
    expect(res.errors).toBeUndefined();
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const ask = async (name: string, type = 'A') => {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name === '' ? ZONE : `${name}.${ZONE}`, type]);
  return {
    status: result.status,
    answers: records(result)
      .filter((r) => r.type === type)
      .map((r) => r.rdata),
  };
};

test.each([
  // empty non-terminals: NODATA
  ['b.c', 'NOERROR', []],
  ['c', 'NOERROR', []],
  ['mail', 'NOERROR', []],
  ['w', 'NOERROR', []],
  ['bc', 'NOERROR', []],
  // a suffix of a label is not a parent: `c` is a descendant of nothing in `bc`, `b` is not above `a.b.c`
  ['b', 'NXDOMAIN', []],
  ['zz.c', 'NXDOMAIN', []],
  ['dmarc.mail', 'NXDOMAIN', []],
  ['y.bc', 'NXDOMAIN', []],
  ['a.b.c.d', 'NXDOMAIN', []],
  // existing names and wildcard synthesis below the closest encloser `w`
  ['a.b.c', 'NOERROR', ['192.0.2.1']],
  ['q.w', 'NOERROR', ['192.0.2.2']],
  ['deep.q.w', 'NOERROR', ['192.0.2.2']],
])('%s → %s', async (name, status, answers) => {
  expect(await ask(name)).toEqual({ status, answers });
});

/** the statements one query of `name`'s `type` sends (counted at the Database, src/db/pool.ts), and its answer */
async function statementsOf(name: string, type: string) {
  const sent: string[] = [];
  const stop = app.service.database.db.observeStatements((text) => {
    // the look-up's own: its transaction, the zone and its records (nothing else of this process touches them)
    if (/^(begin|commit)|\b(domains|records|dnssec_records)\b/.test(text)) sent.push(text);
  });
  try {
    return { answer: await ask(name, type), sent };
  } finally {
    stop();
  }
}

describe("a look-up's statements: the zone and the records it reads first in one, under their generic plans", () => {
  test.each([
    // a secondary's every refresh asks the apex's SOA
    ['', 'SOA', 'NOERROR', 1],
    ['a.b.c', 'A', 'NOERROR', 1],
    // NODATA at a name with records: the apex's SOA came in the same statement
    ['a.b.c', 'AAAA', 'NOERROR', 0],
    ['_dmarc.mail', 'TXT', 'NOERROR', 1],
  ])('%s %s: %s from one statement in its snapshot', async (name, type, status, answered) => {
    const { answer, sent } = await statementsOf(name, type);
    expect(answer.status).toBe(status);
    expect(answer.answers).toHaveLength(answered);
    expect(sent).toHaveLength(3);
    // planned once a connection (db/pool.ts, GENERIC_PLAN_SETTINGS), set in the BEGIN's own message
    expect(sent[0]).toMatch(/^begin isolation level repeatable read read only; set local plan_cache_mode = force_generic_plan; /);
    expect(sent[2]).toBe('commit');
  });

  test.each([
    // an empty non-terminal, a name below nothing, a wildcard's: the names below are read too
    ['b.c', 'NOERROR'],
    ['b', 'NXDOMAIN'],
    ['q.w', 'NOERROR'],
  ])('%s: the names below it read too (%s)', async (name, status) => {
    const { answer, sent } = await statementsOf(name, 'A');
    expect(answer.status).toBe(status);
    expect(sent.length).toBeGreaterThan(3);
  });
});

describe('additional-section processing (RFC 1034 §4.3.2), as BIND and Knot answer', () => {
  const ZONE2 = 'extra.zk-lookup.test';
  beforeAll(async () => {
    const user = await app.gql(`mutation { createUser(input: {email: "extra@example.com"}) { id } }`);
    await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "${ZONE2}"}) { id } }`, { u: user.data.createUser.id });
    for (const [owner, type, rdata] of [
      ['alias', 'CNAME', `alias2.${ZONE2}.`],
      ['alias2', 'CNAME', `host.${ZONE2}.`],
      ['host', 'A', '192.0.2.10'],
      ['host', 'AAAA', '2001:db8::10'],
      ['dangling', 'CNAME', `nowhere.${ZONE2}.`],
      ['outside', 'CNAME', 'host.example.net.'],
      ['@', 'MX', `10 mail.${ZONE2}.`],
      ['@', 'MX', '20 mx.example.net.'],
      ['mail', 'A', '192.0.2.25'],
      ['_sip._tcp', 'SRV', `10 60 5060 host.${ZONE2}.`],
      // the glue before the delegation that needs it: a delegation without it is refused (GLUE_MISSING)
      ['ns1.sub', 'A', '192.0.2.53'],
      ['sub', 'NS', `ns1.sub.${ZONE2}.`],
      ['sub', 'NS', 'ns.example.net.'],
    ]) {
      const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, {
        r: { zone: ZONE2, owner, type, rdata, ttl: 300 },
      });
      expect(res.errors).toBeUndefined();
    }
  });

  const section = (stdout: string, name: string) => {
    const start = stdout.indexOf(`;; ${name} SECTION:`);
    if (start < 0) return [];
    const rest = stdout.slice(start).split('\n').slice(1);
    const lines = rest.slice(
      0,
      rest.findIndex((l) => l.trim() === ''),
    );
    return lines.map((l) => l.split(/\s+/)).map((f) => `${f[0]} ${f[3]} ${f.slice(4).join(' ')}`);
  };
  const query = async (name: string, type: string) => {
    const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `${name}.${ZONE2}`.replace(/^@\./, ''), type]);
    return {
      status: result.status,
      answer: section(result.stdout, 'ANSWER'),
      authority: section(result.stdout, 'AUTHORITY'),
      additional: section(result.stdout, 'ADDITIONAL'),
    };
  };

  test('a CNAME chain inside the zone is followed to the address', async () => {
    const answer = await query('alias', 'A');
    expect(answer.status).toBe('NOERROR');
    expect(answer.answer).toEqual([
      `alias.${ZONE2}. CNAME alias2.${ZONE2}.`,
      `alias2.${ZONE2}. CNAME host.${ZONE2}.`,
      `host.${ZONE2}. A 192.0.2.10`,
    ]);
  });

  test("a CNAME to a missing in-zone name answers NXDOMAIN with the CNAME (the target's outcome)", async () => {
    const answer = await query('dangling', 'A');
    expect(answer.status).toBe('NXDOMAIN');
    expect(answer.answer).toEqual([`dangling.${ZONE2}. CNAME nowhere.${ZONE2}.`]);
    expect(answer.authority.map((l) => l.split(' ')[1])).toEqual(['SOA']);
  });

  test('a CNAME out of the zone is not chased', async () => {
    expect((await query('outside', 'A')).answer).toEqual([`outside.${ZONE2}. CNAME host.example.net.`]);
  });

  test("MX and SRV answers carry the in-zone targets' addresses", async () => {
    const mx = await query('@', 'MX');
    expect(mx.additional).toEqual([`mail.${ZONE2}. A 192.0.2.25`]);
    const srv = await query('_sip._tcp', 'SRV');
    expect(srv.additional.sort()).toEqual([`host.${ZONE2}. A 192.0.2.10`, `host.${ZONE2}. AAAA 2001:db8::10`]);
  });

  test('a referral carries its glue', async () => {
    const referral = await query('www.sub', 'A');
    expect(referral.answer).toEqual([]);
    expect(referral.authority.sort()).toEqual([`sub.${ZONE2}. NS ns.example.net.`, `sub.${ZONE2}. NS ns1.sub.${ZONE2}.`]);
    expect(referral.additional).toEqual([`ns1.sub.${ZONE2}. A 192.0.2.53`]);
  });
});

describe('types known by number, escaped owners (the wire module reads and writes both)', () => {
  test('a query for TYPEnnn (RFC 3597 §5) is answered with that RRset', async () => {
    const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, {
      r: { zone: ZONE, owner: 'opaque', type: 'TYPE65280', rdata: '\\# 3 ABCDEF', ttl: 300 },
    });
    expect(res.errors).toBeUndefined();
    expect(await ask('opaque', 'TYPE65280')).toEqual({ status: 'NOERROR', answers: ['\\# 3 ABCDEF'] });
  });

  test('an owner with an escaped dot and an octet above 127 is found and answered as sent', async () => {
    const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, {
      r: { zone: ZONE, owner: 'a\\.b.\\200', type: 'A', rdata: '192.0.2.77', ttl: 300 },
    });
    expect(res.errors).toBeUndefined();
    const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `a\\.b.\\200.${ZONE}`, 'A']);
    expect(result.status).toBe('NOERROR');
    expect(records(result).map((r) => `${r.name} ${r.rdata}`)).toEqual([`a\\.b.\\200.${ZONE}. 192.0.2.77`]);
  });

  test("a name whose escaped dot only looks like the zone's boundary is outside the zone: refused, not answered from it", async () => {
    // `x\.ent.zk-lookup.test` is the label `x.ent` under zk-lookup.test, a zone not served here (RFC 1035 §5.1)
    const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `x\\.${ZONE}`, 'A']);
    expect(result.status).toBe('REFUSED');
  });
});
