/**
 * What a write of a signed zone costs the database (docs/dnssec.md, «Speed»): a record added to a zone the
 * process knows signed asks the signer's questions with the zone's read, so it is two statements, as in an
 * unsigned zone (the read, the write with the signer's records); a change whose owners are told only by its
 * decision (a delete by record id) asks them in one statement of its own. Counted at the Database, which
 * every statement of the process goes through (src/db/pool.ts).
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let userId: number;
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  app.service.database.db.observeStatements((text) => statements.push(text.replace(/\s+/g, ' ')));
  const user = await app.http.post('/api/user/add').set('x-api-key', ADMIN_KEY).send({ email: 'signed-writes@example.com' }).expect(201);
  userId = user.body.id;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

/** the statements of `work` about the zone: the journal's wake-up (pg_notify) and its readers are not the write's */
async function zoneStatements(work: () => Promise<unknown>): Promise<string[]> {
  statements.length = 0;
  await work();
  return statements.filter((text) => !/pg_notify|from changes/.test(text));
}

describe.each(['NSEC', 'NSEC3'])('%s', (denial) => {
  const zone = `${denial.toLowerCase()}.signed-writes.test`;

  beforeAll(async () => {
    await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: userId, zone }).expect(201);
    const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, denial } });
    expect(enabled.errors).toBeUndefined();
  });

  const add = (owner: string) =>
    app.http
      .post('/api/record/add')
      .set('x-api-key', ADMIN_KEY)
      .send({ zone, owner, rtype: 'A', ttl: '3600', rdata: '192.0.2.7' })
      .expect(201);

  it('adds a record, signed, in two statements: the read with the signer’s questions, and the write', async () => {
    const sql = await zoneStatements(() => add('host1'));
    expect(sql).toHaveLength(2);
    expect(sql[0]).toMatch(/^select d\.id, d\.name, d\.serial.* as signer from domains d/);
    expect(sql[1]).toMatch(/^with lim as .*insert into dnssec_records/);
    // deeper names too (NSEC3: their empty non-terminals join the chain)
    expect(await zoneStatements(() => add('a.b.deep'))).toHaveLength(2);
  });

  it('deletes a record by id in three: its owner is known after the read, so the signer asks once on its own', async () => {
    const { body } = await add('gone');
    const sql = await zoneStatements(() => app.http.delete(`/api/record/delete/${body.id}`).set('x-api-key', ADMIN_KEY).expect(204));
    expect(sql).toHaveLength(3);
    expect(sql[1]).toMatch(/^select \(with nb as/);
  });
});
