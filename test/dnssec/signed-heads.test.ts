/**
 * A signed zone's head (write-engine/zone-heads.ts, signed-heads.ts): after a change of the zone decided on a
 * read, the process reads the zone whole, and its next changes are decided and signed on that head, one statement
 * each, the write proving the signing state they assumed. When something else changed the zone (another process
 * of the service, or a direct change of its chain or keys in the database), the write on the head does not apply
 * and the change is decided again on a read: the serial rises once, and the zone served still verifies
 * (dnssec-verify, ldns-verify-zone).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { renderZoneFile } from '../../src/dns/zone-file';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
let app: TestApp;
let other: RunningService;
let userId: number;
let dir: string;
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ SERIAL_POLICY: 'increment' });
  // a second process of the service on the same database: its own pool, so its own zone heads
  other = await startService(app.settings);
  app.service.database.db.observeStatements((text) => statements.push(text.replace(/\s+/g, ' ')));
  const user = await app.http.post('/api/user/add').set('x-api-key', ADMIN_KEY).send({ email: 'signed-heads@example.com' }).expect(201);
  userId = user.body.id;
  dir = mkdtempSync(join(tmpdir(), 'signed-heads-'));
}, 60_000);

afterAll(async () => {
  await other?.stop();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** the statements of `work` about the zone: the journal's wake-up (pg_notify) and its readers are not the write's */
async function zoneStatements(work: () => Promise<unknown>): Promise<string[]> {
  statements.length = 0;
  await work();
  // the key's lookup is the request's authentication, read again when its cache lapses (a slow run): not the zone's
  return statements.filter((text) => !/pg_notify|from changes|api_keys/.test(text));
}

const query = (text: string, params: unknown[] = []) => app.service.database.db.rows(text, params);
const WRITE_ON_HEAD = /^with lim as .*and exists \(select 1 from dnssec_zones z .*insert into dnssec_records/;
const READ = /^select d\.id, d\.name, d\.serial/;
const WRITE = /^with lim as .*insert into dnssec_records/;
const READ_WHOLE = /as whole_signer from domains d/;

describe.each(['NSEC', 'NSEC3'])('%s', (denial) => {
  const zone = `${denial.toLowerCase()}.signed-heads.test`;
  let domainId: number;

  const add = (owner: string, via: ReturnType<typeof request> = app.http) =>
    via.post('/api/record/add').set('x-api-key', ADMIN_KEY).send({ zone, owner, rtype: 'A', ttl: '3600', rdata: '192.0.2.7' }).expect(201);
  const serialOf = async () => Number((await query('select serial from domains where id = $1', [domainId]))[0].serial);
  const journalled = async () => Number((await query('select count(*) as n from changes where domain_id = $1', [domainId]))[0].n);

  /** the zone as stored (what AXFR serves), through dnssec-verify and ldns-verify-zone */
  async function verifies(): Promise<void> {
    const rows = await query(
      `select owner, type, ttl, rdata from records where domain_id = $1 and type not in ('ALIAS', 'ANAME')
       union all select owner, type, ttl, rdata from dnssec_records where domain_id = $1`,
      [domainId],
    );
    const file = join(dir, `${zone}.zone`);
    writeFileSync(
      file,
      renderZoneFile(
        zone,
        rows.map((r: any) => ({ owner: r.owner, type: r.type, ttl: Number(r.ttl), rdata: r.rdata })),
      ),
    );
    await run('dnssec-verify', ['-o', zone, file]);
    expect((await run('ldns-verify-zone', [file])).stdout).toMatch(/Zone is verified and complete/);
  }

  /** a change decided on the head whose write did not apply, then decided again on a read: the serial once up */
  async function decidedAgain(owner: string): Promise<void> {
    const [serial, changes] = [await serialOf(), await journalled()];
    const sql = await zoneStatements(() => add(owner));
    expect(sql).toHaveLength(4);
    expect(sql[0]).toMatch(WRITE_ON_HEAD);
    expect(sql[1]).toMatch(READ);
    expect(sql[1]).not.toMatch(READ_WHOLE);
    expect(sql[2]).toMatch(WRITE);
    expect(sql[3]).toMatch(READ_WHOLE);
    expect(await serialOf()).toBe(serial + 1);
    expect(await journalled()).toBe(changes + 1);
    expect(await query(`select type from records where domain_id = $1 and owner = $2`, [domainId, owner])).toEqual([{ type: 'A' }]);
  }

  beforeAll(async () => {
    const created = await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: userId, zone }).expect(201);
    domainId = Number(created.body.id);
    for (const owner of ['host', 'a.b.deep']) await add(owner);
    const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, denial } });
    expect(enabled.errors).toBeUndefined();
  });

  it('decides and signs a change on the head in one statement once the zone was read whole, and the zone verifies', async () => {
    const first = await zoneStatements(() => add('first'));
    expect(first).toHaveLength(3);
    expect(first[0]).toMatch(READ);
    expect(first[0]).not.toMatch(READ_WHOLE);
    expect(first[1]).toMatch(WRITE);
    expect(first[2]).toMatch(READ_WHOLE);
    for (const owner of ['h1', 'h2', 'x.b.deep', 'zzz']) {
      const serial = await serialOf();
      const sql = await zoneStatements(() => add(owner));
      expect(sql).toHaveLength(1);
      expect(sql[0]).toMatch(WRITE_ON_HEAD);
      expect(await serialOf()).toBe(serial + 1);
    }
    await verifies();
  });

  it('another process changed the zone: the write on the head does not apply, the change is decided again, the zone verifies', async () => {
    await add('before-other');
    await add('from-other', request(`http://127.0.0.1:${other.httpPort}`));
    await decidedAgain('after-other');
    // the head read whole again: the next change is one statement
    expect(await zoneStatements(() => add('after-other-2'))).toHaveLength(1);
    await verifies();
  });

  it('the chain changed in the database without a serial step: the write on the head does not apply, and the zone verifies', async () => {
    await add('before-chain');
    // the signer's records written again as they are, with new row ids (a restore, a tool's rewrite)
    await query(
      `with old as (delete from dnssec_records where domain_id = $1 returning domain_id, owner, type, rdata, ttl, chain_key, expires_at)
       insert into dnssec_records (domain_id, owner, type, rdata, ttl, chain_key, expires_at) select * from old`,
      [domainId],
    );
    await decidedAgain('after-chain');
    await verifies();
  });

  it('the keys changed in the database without a serial step: the write on the head does not apply, and the zone verifies', async () => {
    await add('before-keys');
    // a key generated behind the process (not published, not signing: the zone's signatures stay right)
    const [{ id }] = await query(
      `insert into dnssec_keys (domain_id, role, algorithm, key_tag, dnskey, sealed_private_key, state)
       select domain_id, role, algorithm, key_tag, dnskey, sealed_private_key, 'generated' from dnssec_keys
        where domain_id = $1 and role = 'ZSK' and state = 'active' limit 1 returning id`,
      [domainId],
    );
    await decidedAgain('after-keys');
    await query('delete from dnssec_keys where id = $1', [id]);
    await verifies();
  });
});
