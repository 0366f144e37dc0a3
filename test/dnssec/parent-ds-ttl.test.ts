/**
 * A KSK roll under a Zonekeeper parent (double-DS, RFC 7583 §3.3.2): the new key may sign the DNSKEY RRset once
 * no resolver holds the parent's DS RRset from before the new DS, so the swap waits the DS TTL at the parent,
 * not the child's SOA TTL. Here the parent's SOA TTL, which a DS written there takes, is an hour and the child's
 * a second (docs/dnssec.md, «Rollovers»). No worker runs: the plan is read as the roll made it.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';

const PARENT = 'ttl-parent.zk-keys.test';
const CHILD = `child.${PARENT}`;
const PARENT_TTL = 3600;
const DELAY = 1;

let app: TestApp;

const zoneFile = (zone: string, ttl: number, extra: string) =>
  `$ORIGIN ${zone}.\n@ ${ttl} IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 ${ttl}\n` +
  `@ ${ttl} IN NS ns1.${zone}.\nns1 ${ttl} IN A 192.0.2.1\n${extra}`;

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api', ALLOWED_TTLS: 'any', DNSSEC_PROPAGATION_DELAY: String(DELAY) });
  const userId = await createUser(app, 'ds-ttl@example.org');
  for (const [zone, text] of [
    [PARENT, zoneFile(PARENT, PARENT_TTL, `child ${PARENT_TTL} IN NS ns1.${CHILD}.\nns1.child ${PARENT_TTL} IN A 192.0.2.3\n`)],
    [CHILD, zoneFile(CHILD, 1, '')],
  ]) {
    await createZone(app, userId, zone);
    const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
      z: zone,
      t: text,
    });
    expect(imported.errors).toBeUndefined();
  }
  const enabled = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: CHILD });
  expect(enabled.errors).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test("a KSK roll's swap waits the DS TTL at the parent (its SOA TTL for a new DS), not the child's SOA TTL", async () => {
  const parentDs = async () =>
    (await app.gql(`query($z: String) { domain(name: $z) { records(owner: "child", type: "DS") { ttl } } }`, { z: PARENT })).data.domain
      .records;
  // the child's DS went to the parent with the parent's SOA TTL
  expect((await parentDs()).map((r: { ttl: number }) => r.ttl)).toEqual([PARENT_TTL]);

  const rolledAt = Date.now();
  const rolled = await app.gql(
    `mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { keys { keyTag role state nextEvent nextEventAt } } }`,
    { z: CHILD },
  );
  expect(rolled.errors).toBeUndefined();
  const generated = rolled.data.rollDnssecKey.keys.find((k: { state: string }) => k.state === 'generated');
  expect(generated.nextEvent).toBe('swap');
  const waitSeconds = (Date.parse(generated.nextEventAt) - rolledAt) / 1000;
  // the parent's DS TTL plus the delay (a few seconds of slack for the request itself), where the child's SOA
  // TTL would have given 2 s
  expect(waitSeconds).toBeGreaterThanOrEqual(PARENT_TTL + DELAY - 5);
  expect(waitSeconds).toBeLessThanOrEqual(PARENT_TTL + DELAY + 60);
  // both DS at the parent, each with the TTL of the RRset already there
  expect((await parentDs()).map((r: { ttl: number }) => r.ttl)).toEqual([PARENT_TTL, PARENT_TTL]);
});
