/**
 * Least-privilege TSIG keys over DNS (docs/least-privilege.md): the same policy engine as the HTTP API decides
 * every RR and prerequisite of an UPDATE (REFUSED with an Extended DNS Error naming the missing rule, nothing
 * written) and transfers asked with a user's key (the whole zone must be readable). Expired, idle and
 * wrong-network keys are refused. No TSIG_KEY here: a transfer signed with a user's key is judged by that key.
 */
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { KeyArg, nsupdate, runClient } from '../support/update-clients';
import { dig, findBinary, freePort, records } from './knot';
import { waitUntil } from '../support/wait-for';

const ZONE = 'lp-dns.zk.test';
const OTHER = 'lp-dns-other.zk.test';

let app: TestApp;
let db: Client;
let dnsPort: number;
let userId: string;

/** a TSIG key of the user with a policy or preset, as nsupdate's -y takes it */
async function tsigKey(name: string, input: Record<string, unknown>): Promise<KeyArg> {
  const res = await app.gql(`mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret } }`, {
    input: { userId, name, ...input },
  });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return { algorithm: 'hmac-sha256', name, secret: res.data.createTsigKey.secret };
}

/** nsupdate -d: the answer's header and EDE are in its output */
async function update(key: KeyArg, lines: string[]): Promise<{ code: number; output: string }> {
  const run = await runClient(
    findBinary('nsupdate'),
    ['-d', '-y', `${key.algorithm}:${key.name}:${key.secret}`],
    [`server 127.0.0.1 ${dnsPort}`, `zone ${ZONE}`, ...lines, 'send', ''].join('\n'),
  );
  return { code: run.code, output: run.stdout + run.stderr };
}

async function zoneState(zone: string): Promise<{ serial: number; records: string[] }> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { serial records { owner type rdata } } }`, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return { serial: res.data.domain.serial, records: res.data.domain.records.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort() };
}

function expectRefused(run: { code: number; output: string }, text: string) {
  expect(run.code).not.toBe(0);
  expect(run.output).toMatch(/opcode: UPDATE, status: REFUSED/);
  expect(run.output).toContain(`EDE: 18 (Prohibited): (${text}`);
}

const axfr = (key: KeyArg, zone: string) =>
  dig(['-y', `${key.algorithm}:${key.name}:${key.secret}`, '@127.0.0.1', '-p', String(dnsPort), zone, 'AXFR']);

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  userId = await createUser(app, 'owner@lp-dns.zk.test');
  await createZone(app, userId, ZONE);
  await createZone(app, await createUser(app, 'other@lp-dns.zk.test'), OTHER);
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

describe('an ACME-preset TSIG key', () => {
  let key: KeyArg;
  beforeAll(async () => {
    key = await tsigKey('acme.lp-dns.zk.test', { preset: 'ACME', zone: ZONE });
  });

  it('adds and removes a TXT at _acme-challenge (nsupdate)', async () => {
    const added = await nsupdate(dnsPort, key, [`zone ${ZONE}`, `update add _acme-challenge.www.${ZONE} 300 TXT "token-1"`, 'send']);
    expect(added).toMatchObject({ code: 0 });
    expect((await zoneState(ZONE)).records).toContain('_acme-challenge.www TXT "token-1"');
    const removed = await nsupdate(dnsPort, key, [`zone ${ZONE}`, `update delete _acme-challenge.www.${ZONE} TXT "token-1"`, 'send']);
    expect(removed).toMatchObject({ code: 0 });
    expect((await zoneState(ZONE)).records).not.toContain('_acme-challenge.www TXT "token-1"');
  });

  it('is REFUSED for an A record, with the missing rule as its EDE, and writes nothing of the update', async () => {
    const before = await zoneState(ZONE);
    const run = await update(key, [
      `update add _acme-challenge.${ZONE} 300 TXT "allowed-alone"`,
      `update add host.${ZONE} 300 A 192.0.2.1`,
    ]);
    expectRefused(run, `updates[1]: no rule lets this key write A at host.${ZONE}`);
    expect(await zoneState(ZONE)).toEqual(before);
    expectRefused(
      await update(key, [`update add www2.${ZONE} 300 TXT "x"`]),
      `updates[0]: no rule lets this key write TXT at www2.${ZONE}`,
    );
  });

  it('checks every prerequisite, and a whole-name delete needs every type', async () => {
    const before = await zoneState(ZONE);
    expectRefused(
      await update(key, [`prereq yxdomain www.${ZONE}`, `update add _acme-challenge.${ZONE} 300 TXT "t"`]),
      `prerequisites[0]: no rule lets this key read every type at www.${ZONE}`,
    );
    expectRefused(
      await update(key, [`update delete _acme-challenge.${ZONE}`]),
      `updates[0]: no rule lets this key write every type at _acme-challenge.${ZONE}`,
    );
    expect(await zoneState(ZONE)).toEqual(before);
    // a prerequisite on what the key may read is fine
    expect(
      (await update(key, [`prereq nxrrset _acme-challenge.p.${ZONE} TXT`, `update add _acme-challenge.p.${ZONE} 300 TXT "p"`])).code,
    ).toBe(0);
  });

  it('may not transfer the zone (a transfer reads every record)', async () => {
    const result = await axfr(key, ZONE);
    expect(result.stdout).toMatch(/Transfer failed|REFUSED/);
    expect(records(result).filter((r) => r.type === 'SOA')).toEqual([]);
  });
});

describe('hand-written TSIG rules and transfers', () => {
  it('writes what its rules allow, most specific first', async () => {
    const key = await tsigKey('dyn.lp-dns.zk.test', {
      policy: { rules: [{ zone: ZONE, owner: 'dyn.*', types: ['A', 'AAAA'], access: 'WRITE' }] },
    });
    expect((await update(key, [`update add dyn.host.${ZONE} 300 A 192.0.2.50`])).code).toBe(0);
    expectRefused(
      await update(key, [`update add dyn.host.${ZONE} 300 TXT "no"`]),
      `updates[0]: no rule lets this key write TXT at dyn.host.${ZONE}`,
    );
    expect((await zoneState(ZONE)).records).toContain('dyn.host A 192.0.2.50');
  });

  it('a ONE_ZONE key transfers its zone, not another user’s', async () => {
    const key = await tsigKey('xfr.lp-dns.zk.test', { preset: 'ONE_ZONE', zone: ZONE });
    const mine = await axfr(key, ZONE);
    expect(records(mine).filter((r) => r.type === 'SOA')).toHaveLength(2);
    const other = await axfr(key, OTHER);
    expect(records(other).filter((r) => r.type === 'SOA')).toEqual([]);
  });
});

describe('key limits over DNS', () => {
  const refusedBecause = async (key: KeyArg, reason: RegExp) => {
    const before = await zoneState(ZONE);
    const run = await update(key, [`update add _acme-challenge.limit.${ZONE} 300 TXT "x"`]);
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(/status: REFUSED/);
    expect(run.output).toMatch(reason);
    expect(await zoneState(ZONE)).toEqual(before);
  };

  it('refuses an expired key', async () => {
    const key = await tsigKey('expired.lp-dns.zk.test', {
      preset: 'ACME',
      policy: { expiresAt: new Date(Date.now() - 1000).toISOString() },
    });
    await refusedBecause(key, /EDE: 18 \(Prohibited\): \(key expired\.lp-dns\.zk\.test: this key expired at/);
  });

  it('refuses a key idle for longer than its idle days', async () => {
    const key = await tsigKey('idle.lp-dns.zk.test', { preset: 'ACME', policy: { idleDays: 2 } });
    await db.query(`update tsig_keys set created_at = now() - interval '5 days' where name = $1`, [key.name]);
    await refusedBecause(key, /not used for more than 2 days/);
  });

  it('refuses a key from outside its networks, and takes it from inside', async () => {
    const outside = await tsigKey('outside.lp-dns.zk.test', { preset: 'ACME', policy: { allowedNetworks: ['198.51.100.0/24'] } });
    await refusedBecause(outside, /may not be used from 127\.0\.0\.1 \(allowedNetworks\)/);
    const inside = await tsigKey('inside.lp-dns.zk.test', { preset: 'ACME', policy: { allowedNetworks: ['127.0.0.1/32'] } });
    expect((await update(inside, [`update add _acme-challenge.inside.${ZONE} 300 TXT "in"`])).code).toBe(0);
    // the use is written beside the answer, not before it (UsageClock): wait for it rather than read it at once
    await waitUntil('the used key written as used', async () => {
      const { rows } = await db.query('select last_used_at from tsig_keys where name = $1', [inside.name]);
      return rows[0].last_used_at !== null;
    });
  });
});
