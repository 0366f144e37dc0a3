/**
 * A GitOps pipeline proposes through the PowerDNS API (docs/powerdns-api.md, «Zones under review»): on a zone that
 * requires an approval, a PATCH from a key with the scope PROPOSE_CHANGES becomes a change request, answered 202
 * with it, nothing written; a key without the scope is refused 422, the message naming the policy and how to
 * propose. Both through octoDNS as released (octodns 1.22.0, octodns-powerdns 1.2.0): the refusal is in what it
 * prints, and the proposing key's sync ends with the change pending.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createUserKey } from '../support/fixtures';
import { octodnsSync, octodnsVenv, powerDnsProvider } from '../support/octodns';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'review.test.';

let app: TestApp;
let work: string;
let plainKey: string;
let proposingKey: string;
let userId: string;

const patch = (key: string, rrsets: unknown[]) =>
  fetch(`${app.baseUrl}/api/v1/servers/localhost/zones/${ZONE}`, {
    method: 'PATCH',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ rrsets }),
  });

const replaceA = (name: string, address: string) => ({
  name: `${name}.${ZONE}`,
  type: 'A',
  ttl: 300,
  changetype: 'REPLACE',
  records: [{ content: address, disabled: false }],
});

/** the zone's A records, as the PowerDNS API reads them back */
async function addresses(): Promise<string[]> {
  const res = await fetch(`${app.baseUrl}/api/v1/servers/localhost/zones/${ZONE}`, { headers: { 'X-API-Key': plainKey } });
  const zone = (await res.json()) as { rrsets: { name: string; type: string; records: { content: string }[] }[] };
  return zone.rrsets.filter((set) => set.type === 'A').flatMap((set) => set.records.map((r) => `${set.name} ${r.content}`));
}

beforeAll(async () => {
  [app] = await Promise.all([startTestApp(), octodnsVenv()]);
  userId = await createUser(app, 'pipeline@review.test');
  plainKey = await createUserKey(app, userId);
  const created = await app.gql(
    `mutation($u: ID!) { createApiKey(input: {userId: $u, name: "pipeline", scopes: [PROPOSE_CHANGES]}) { secret apiKey { scopes } } }`,
    { u: userId },
  );
  expect(created.errors).toBeUndefined();
  expect(created.data.createApiKey.apiKey.scopes).toEqual(['PROPOSE_CHANGES']);
  proposingKey = created.data.createApiKey.secret;
  const zone = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "review.test"}) { id } }`, { u: userId });
  expect(zone.errors).toBeUndefined();
  const set = await app.gql(`mutation { setZoneRequiredApprovals(zone: "review.test", approvals: 1) }`);
  expect(set.errors).toBeUndefined();
  work = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-octodns-review-'));
  mkdirSync(path.join(work, 'zones'));
  writeFileSync(path.join(work, 'zones', `${ZONE}yaml`), `---\napi: {type: A, value: 192.0.2.90}\n`);
  writeFileSync(
    path.join(work, 'config.yaml'),
    `providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: ${path.join(work, 'zones')}\n    enforce_order: false\n` +
      `  zonekeeper:\n${powerDnsProvider(app.baseUrl, 'ZONEKEEPER_KEY')}` +
      `zones:\n  ${ZONE}:\n    sources: [config]\n    targets: [zonekeeper]\n`,
  );
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a key without the scope: 422 naming the policy and how to propose, nothing written', async () => {
  const res = await patch(plainKey, [replaceA('www2', '192.0.2.91')]);
  expect(res.status).toBe(422);
  const { error } = (await res.json()) as { error: string };
  expect(error).toMatch(/^zone review\.test requires 1 approval of each change: propose it as a change request/);
  expect(error).toContain('a PATCH from a key with the scope PROPOSE_CHANGES');
  expect(await addresses()).not.toContain(`www2.${ZONE} 192.0.2.91`);
});

test('a key with the scope: 202 with the change request, nothing written until a person approves', async () => {
  const res = await patch(proposingKey, [replaceA('www2', '192.0.2.91')]);
  expect(res.status).toBe(202);
  const body = (await res.json()) as { zone: string; change_request: { id: number; status: string; required_approvals: number } };
  expect(body).toEqual({ zone: 'review.test', change_request: { id: expect.any(Number), status: 'pending', required_approvals: 1 } });
  expect(await addresses()).not.toContain(`www2.${ZONE} 192.0.2.91`);
  const request = await app.gql(
    `query($id: ID!) { changeRequest(id: $id) { status author plan { rrsets { owner type after { rdata ttl } } } } }`,
    {
      id: String(body.change_request.id),
    },
  );
  expect(request.data.changeRequest).toEqual({
    status: 'PENDING',
    author: 'pipeline',
    plan: { rrsets: [{ owner: 'www2', type: 'A', after: [{ rdata: '192.0.2.91', ttl: 300 }] }] },
  });
  // comments are not proposed: refused whole
  const withComment = await patch(proposingKey, [
    { ...replaceA('www3', '192.0.2.92'), comments: [{ content: 'why', account: 'ci', modified_at: 1 }] },
  ]);
  expect(withComment.status).toBe(422);
});

test('a key gives no scope it has not: a key without PROPOSE_CHANGES makes none with it, a key with it may', async () => {
  const create = (key: string, name: string) =>
    app.gql(
      `mutation($u: ID!, $n: String!) { createApiKey(input: {userId: $u, name: $n, scopes: [PROPOSE_CHANGES]}) { apiKey { scopes } } }`,
      { u: userId, n: name },
      key,
    );
  const refused = await create(plainKey, 'more');
  expect(refused.errors?.[0]).toMatchObject({
    message: 'scopes: the new key may not get the scope PROPOSE_CHANGES: this key does not have it',
    extensions: { code: 'FORBIDDEN_BY_POLICY' },
  });
  expect((await create(proposingKey, 'same')).data.createApiKey.apiKey.scopes).toEqual(['PROPOSE_CHANGES']);
});

test('octoDNS: the refusal is what it prints; the proposing key’s sync ends with the change pending', async () => {
  const refused = await octodnsSync(path.join(work, 'config.yaml'), true, { ZONEKEEPER_KEY: plainKey }).then(
    () => '',
    (error: Error) => error.message,
  );
  expect(refused).toMatch(/_apply: {3}status=422, text=\{"error":"zone review\.test requires 1 approval/);
  expect(refused).toContain('PROPOSE_CHANGES');

  const proposed = await octodnsSync(path.join(work, 'config.yaml'), true, { ZONEKEEPER_KEY: proposingKey });
  expect(proposed).toMatch(/Summary: Creates=1, Updates=0, Deletes=1/);
  expect(await addresses()).not.toContain(`api.${ZONE} 192.0.2.90`);
  const pending = await app.gql(`query { changeRequests(zone: "review.test") { author plan { rrsets { owner } } } }`);
  expect(pending.data.changeRequests).toContainEqual({
    author: 'pipeline',
    plan: { rrsets: expect.arrayContaining([{ owner: 'api' }, { owner: 'www' }]) },
  });
}, 120_000);
