import Ajv2020 from 'ajv/dist/2020';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { sessionHeaders, signIn } from '../../support/people';

/**
 * Every documented operation is called with good inputs and with bad ones, and the real
 * status and body are validated against /api/openapi.json (JSON Schema 2020-12, as OpenAPI 3.1 uses), in both
 * envelope modes. An operation that this table does not call fails the test: a new route needs a line here.
 */
/** `person`: made by the fixture's person signed in (a review is a person's), not with the admin key */
type Call = {
  method: string;
  path: string;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  person?: true;
};
interface Fixture {
  userId: string;
  zone: string;
  /** a zone of the user that requires an approval: a write to it is a change request (202) */
  reviewZone: string;
  zoneId: number;
  recordId: number;
  spareRecordId: number;
}

/**
 * a good call and a failing one for every operationId; `accepted`: a write to a zone under review, answered 202
 * (a documented path's only when it prefers respond-async, RFC 7240); `refused`: a documented path's write to it
 * without that preference, answered 409 ZONE_UNDER_REVIEW as its document says
 */
/** another signer's KSK (multi-signer, RFC 8901): any 64 octets pass as an ECDSA P-256 DNSKEY here */
const FOREIGN_DNSKEY = `257 3 13 ${Buffer.alloc(64, 7).toString('base64')}`;

const RESPOND_ASYNC = { Prefer: 'respond-async' };

const CALLS: Record<string, (f: Fixture) => { good: Call; bad: Call; accepted?: Call; refused?: Call }> = {
  listRecords: () => ({ good: { method: 'get', path: '/api/record/list' }, bad: { method: 'get', path: '/api/record/list', query: {} } }),
  getRecord: (f) => ({
    good: { method: 'get', path: `/api/record/list/${f.recordId}` },
    bad: { method: 'get', path: '/api/record/list/999999' },
  }),
  addRecord: (f) => ({
    // with its RRset's comment (docs/changes.md, «Comments»): answered in the record
    good: {
      method: 'post',
      path: '/api/record/add',
      body: { zone: f.zone, owner: 'added', rtype: 'A', rdata: '192.0.2.10', ttl: 3600, comment: 'added here' },
    },
    bad: { method: 'post', path: '/api/record/add', body: { zone: f.zone, owner: 'added', rtype: 'A', rdata: '300.0.0.1', ttl: 3600 } },
    accepted: {
      method: 'post',
      path: '/api/record/add',
      body: { zone: f.reviewZone, owner: 'proposed', rtype: 'A', rdata: '192.0.2.12', ttl: 3600 },
      headers: RESPOND_ASYNC,
    },
    refused: {
      method: 'post',
      path: '/api/record/add',
      body: { zone: f.reviewZone, owner: 'refused', rtype: 'A', rdata: '192.0.2.13', ttl: 3600 },
    },
  }),
  editRecord: (f) => ({
    good: {
      method: 'put',
      path: `/api/record/edit/${f.recordId}`,
      body: { zone: f.zone, owner: 'www2', rtype: 'A', rdata: '192.0.2.11', ttl: 3600, comment: 'edited here' },
    },
    bad: {
      method: 'put',
      path: `/api/record/edit/${f.recordId}`,
      body: { zone: f.zone, owner: 'www2', rtype: 'A', rdata: '192.0.2.11', ttl: 5 },
    },
  }),
  deleteRecord: (f) => ({
    good: { method: 'delete', path: `/api/record/delete/${f.spareRecordId}` },
    bad: { method: 'delete', path: '/api/record/delete/999999' },
  }),
  listUsers: () => ({
    good: { method: 'get', path: '/api/user/list' },
    bad: { method: 'get', path: '/api/user/list', query: { email: 'nobody@example.org' } },
  }),
  getUser: (f) => ({ good: { method: 'get', path: `/api/user/list/${f.userId}` }, bad: { method: 'get', path: '/api/user/list/999999' } }),
  addUser: () => ({
    good: { method: 'post', path: '/api/user/add', body: { email: `new${Date.now()}@example.org` } },
    bad: { method: 'post', path: '/api/user/add', body: {} },
  }),
  editUser: (f) => ({
    good: { method: 'put', path: `/api/user/edit/${f.userId}`, body: { email: `edited${Date.now()}@example.org` } },
    bad: { method: 'put', path: '/api/user/edit/999999', body: { email: 'x@example.org' } },
  }),
  deleteUser: () => ({
    good: { method: 'delete', path: '/api/user/delete/LATER' },
    bad: { method: 'delete', path: '/api/user/delete/999999' },
  }),
  listDomains: () => ({ good: { method: 'get', path: '/api/domain/list' }, bad: { method: 'get', path: '/api/domain/list' } }),
  getDomainByZoneId: (f) => ({
    good: { method: 'get', path: `/api/domain/list/zone/${f.zoneId}` },
    bad: { method: 'get', path: '/api/domain/list/zone/999999' },
  }),
  getDomain: (f) => ({
    good: { method: 'get', path: '/api/domain/list/zone', query: { name: f.zone } },
    bad: { method: 'get', path: '/api/domain/list/zone', query: { name: 'missing.example' } },
  }),
  listUserDomains: (f) => ({
    good: { method: 'get', path: `/api/domain/list/user/${f.userId}` },
    bad: { method: 'get', path: '/api/domain/list/user/999999' },
  }),
  addDomain: (f) => ({
    good: { method: 'post', path: '/api/domain/add', body: { user_id: Number(f.userId), zone: `added${Date.now()}.example` } },
    bad: { method: 'post', path: '/api/domain/add', body: { user_id: Number(f.userId), zone: f.zone } },
  }),
  addDomains: (f) => ({
    good: { method: 'post', path: '/api/domain/add-many', body: { user_id: Number(f.userId), zones: [`many${Date.now()}.example`] } },
    bad: { method: 'post', path: '/api/domain/add-many', body: { user_id: Number(f.userId), zones: [f.zone] } },
  }),
  deleteDomain: () => ({
    good: { method: 'delete', path: '/api/domain/delete', query: { zone: 'LATER' } },
    bad: { method: 'delete', path: '/api/domain/delete', query: { zone: 'missing.example' } },
  }),
  applyZoneChanges: (f) => ({
    good: {
      method: 'post',
      path: `/api/domain/changes/${f.zone}`,
      body: {
        changes: [
          { kind: 'ADD', owner: 'set', type: 'TXT', rdata: '"in a set"', ttl: 3600 },
          { kind: 'COMMENT', owner: 'set', type: 'TXT', comment: 'commented in a set' },
        ],
      },
    },
    bad: {
      method: 'post',
      path: `/api/domain/changes/${f.zone}`,
      body: { changes: [{ kind: 'ADD', owner: 'set', type: 'A', rdata: '300.1.1.1', ttl: 3600 }] },
    },
    accepted: {
      method: 'post',
      path: `/api/domain/changes/${f.reviewZone}`,
      body: { changes: [{ kind: 'ADD', owner: 'set', type: 'TXT', rdata: '"in a set"', ttl: 3600 }] },
    },
  }),
  listZoneChanges: (f) => ({
    good: { method: 'get', path: `/api/domain/changes/${f.zone}`, query: { first: '5' } },
    bad: { method: 'get', path: '/api/domain/changes/missing.example' },
  }),
  importDomain: (f) => ({
    good: {
      method: 'post',
      path: `/api/domain/import/${f.zone}`,
      // the MX's target is not in the zone: a zone check's warning, which has no line (null)
      body: {
        text: 'imported 3600 IN TXT "from a file" ; its comment\nimported 3600 IN MX 10 missing\n',
        mode: 'MERGE',
        dry_run: 'true',
      },
    },
    bad: { method: 'post', path: `/api/domain/import/${f.zone}`, body: { text: 'broken 3600 IN A 300.0.0.1\n', mode: 'MERGE' } },
    accepted: {
      method: 'post',
      path: `/api/domain/import/${f.reviewZone}`,
      body: { text: 'imported 3600 IN TXT "from a file"\n', mode: 'MERGE' },
    },
  }),
  exportDomain: (f) => ({
    good: { method: 'get', path: `/api/domain/export/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/export/missing.example' },
  }),
  listAuditEvents: () => ({
    // every event, a person's sign-in and joining among them (the fixture's reviewer)
    good: { method: 'get', path: '/api/audit' },
    bad: { method: 'get', path: '/api/audit', query: { kind: 'no-such-kind' } },
  }),
  listTsigKeys: (f) => ({
    good: { method: 'get', path: '/api/tsigkey/list', query: { user_id: f.userId } },
    bad: { method: 'get', path: '/api/tsigkey/list', query: { user_id: 'x' } },
  }),
  addTsigKey: (f) => ({
    good: { method: 'post', path: '/api/tsigkey/add', body: { name: `key-${Date.now()}.example`, user_id: Number(f.userId) } },
    bad: { method: 'post', path: '/api/tsigkey/add', body: { name: 'bad key', user_id: Number(f.userId), algorithm: 'hmac-md5' } },
  }),
  editTsigKey: () => ({
    good: { method: 'put', path: '/api/tsigkey/edit/LATER', body: { preset: 'READ_ONLY', policy: { idle_days: 30 } } },
    bad: { method: 'put', path: '/api/tsigkey/edit/LATER', body: { preset: 'READ_ONLY', policy: { idle_days: 0 } } },
  }),
  revokeTsigKey: () => ({
    good: { method: 'post', path: '/api/tsigkey/revoke/LATER' },
    bad: { method: 'post', path: '/api/tsigkey/revoke/999999' },
  }),
  getUserLimits: (f) => ({
    good: { method: 'get', path: `/api/user/limits/${f.userId}` },
    bad: { method: 'get', path: '/api/user/limits/999999' },
  }),
  setUserLimits: (f) => ({
    good: { method: 'put', path: `/api/user/limits/${f.userId}`, body: { max_zones: 50, rate_burst: null } },
    bad: { method: 'put', path: `/api/user/limits/${f.userId}`, body: { rate_burst: 0 } },
  }),
  // the admin key, the first key the service made (id 1): its own rate, which the admin key is not held to
  setApiKeyRate: () => ({
    good: { method: 'put', path: '/api/apikey/rate/1', body: { rate_per_second: 100 } },
    bad: { method: 'put', path: '/api/apikey/rate/999999', body: { rate_per_second: 100 } },
  }),
  getDomainQueries: (f) => ({
    good: {
      method: 'get',
      path: `/api/domain/queries/${f.zone}`,
      query: { since: new Date(Date.now() - 86_400_000).toISOString(), by: 'RCODE,TYPE' },
    },
    bad: { method: 'get', path: `/api/domain/queries/${f.zone}`, query: { since: 'yesterday' } },
  }),
  getUserQueries: (f) => ({
    good: {
      method: 'get',
      path: `/api/user/queries/${f.userId}`,
      query: { since: new Date(Date.now() - 86_400_000).toISOString(), by: 'RCODE,ZONE' },
    },
    bad: { method: 'get', path: `/api/user/queries/${f.userId}`, query: { since: new Date().toISOString(), by: 'OWNER' } },
  }),
  getDomainTopNames: (f) => ({
    good: { method: 'get', path: `/api/domain/top-names/${f.zone}`, query: { since: new Date(Date.now() - 86_400_000).toISOString() } },
    bad: { method: 'get', path: `/api/domain/top-names/${f.zone}`, query: { since: new Date().toISOString(), first: '0' } },
  }),
  getDomainStatus: (f) => ({
    good: { method: 'get', path: `/api/domain/status/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/status/missing.example' },
  }),
  checkDomain: (f) => ({
    good: { method: 'get', path: `/api/domain/check/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/check/missing.example' },
  }),
  getDnssec: (f) => ({
    good: { method: 'get', path: `/api/domain/dnssec/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/dnssec/missing.example' },
  }),
  listDnssecEvents: (f) => ({
    good: { method: 'get', path: `/api/domain/dnssec/${f.zone}/events` },
    bad: { method: 'get', path: '/api/domain/dnssec/missing.example/events' },
  }),
  enableDnssec: (f) => ({
    good: { method: 'post', path: `/api/domain/dnssec/${f.zone}`, body: { algorithm: 'ED25519' } },
    bad: { method: 'post', path: `/api/domain/dnssec/${f.zone}`, body: { algorithm: 'DSA' } },
  }),
  // the good calls run on zones of their own, signed (and disabling) just before: see the loop
  confirmDnssecDsPublished: () => ({
    good: { method: 'post', path: 'LATER' },
    bad: { method: 'post', path: '/api/domain/dnssec/missing.example/ds-published' },
  }),
  confirmDnssecDsRemoved: () => ({
    good: { method: 'post', path: 'LATER' },
    bad: { method: 'post', path: '/api/domain/dnssec/missing.example/ds-removed' },
  }),
  rollDnssecKey: () => ({
    good: { method: 'post', path: 'LATER', body: { role: 'ZSK' } },
    bad: { method: 'post', path: '/api/domain/dnssec/missing.example/roll', body: { role: 'ZSK' } },
  }),
  rollDnssecAlgorithm: () => ({
    good: { method: 'post', path: 'LATER', body: { algorithm: 'ED25519' } },
    bad: { method: 'post', path: '/api/domain/dnssec/missing.example/algorithm-roll', body: { algorithm: 'ED25519' } },
  }),
  addForeignDnskeys: () => ({
    good: { method: 'post', path: 'LATER', body: { dnskeys: [FOREIGN_DNSKEY] } },
    bad: { method: 'post', path: '/api/domain/dnssec/missing.example/foreign-keys', body: { dnskeys: [FOREIGN_DNSKEY] } },
  }),
  removeForeignDnskey: () => ({
    good: { method: 'delete', path: 'LATER' },
    bad: { method: 'delete', path: '/api/domain/dnssec/missing.example/foreign-keys/1' },
  }),
  withdrawDnssecDs: () => ({
    good: { method: 'post', path: 'LATER' },
    bad: { method: 'post', path: '/api/domain/dnssec/missing.example/ds-withdrawn' },
  }),
  restoreDnssecDs: () => ({
    good: { method: 'delete', path: 'LATER' },
    bad: { method: 'delete', path: '/api/domain/dnssec/missing.example/ds-withdrawn' },
  }),
  disableDnssec: (f) => ({
    good: { method: 'delete', path: `/api/domain/dnssec/${f.zone}` },
    bad: { method: 'delete', path: '/api/domain/dnssec/missing.example' },
  }),
  listEvents: () => ({
    good: { method: 'get', path: '/api/events', query: { limit: '10' } },
    bad: { method: 'get', path: '/api/events', query: { after: 'not-a-cursor' } },
  }),
  createWebhook: () => ({
    good: { method: 'post', path: '/api/webhook/add', body: { url: 'https://93.184.216.34/conformance', events: '*' } },
    bad: { method: 'post', path: '/api/webhook/add', body: { url: 'http://169.254.169.254/latest', events: '*' } },
  }),
  // the list takes no input: its "bad" call is the same list, asked with an empty query
  listWebhooks: () => ({
    good: { method: 'get', path: '/api/webhook/list' },
    bad: { method: 'get', path: '/api/webhook/list', query: {} },
  }),
  // the good calls run on a webhook made just before: see the loop
  webhookDeliveries: () => ({ good: { method: 'get', path: 'LATER' }, bad: { method: 'get', path: '/api/webhook/deliveries/999999' } }),
  rotateWebhookSecret: () => ({ good: { method: 'post', path: 'LATER' }, bad: { method: 'post', path: '/api/webhook/rotate/999999' } }),
  redeliverWebhook: () => ({ good: { method: 'post', path: 'LATER' }, bad: { method: 'post', path: '/api/webhook/redeliver/999999' } }),
  deleteWebhook: () => ({ good: { method: 'delete', path: 'LATER' }, bad: { method: 'delete', path: '/api/webhook/delete/999999' } }),
  getDomainHealth: (f) => ({
    good: { method: 'get', path: `/api/domain/health/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/health/missing.example' },
  }),
  checkDomainHealth: (f) => ({
    good: { method: 'post', path: `/api/domain/health/${f.zone}` },
    bad: { method: 'post', path: '/api/domain/health/missing.example' },
  }),
  // review: the good calls of one request run on a request of the review zone made just before (see the loop)
  listChangeRequests: (f) => ({
    good: { method: 'get', path: `/api/domain/changes/${f.reviewZone}/requests`, query: { status: 'all' } },
    bad: { method: 'get', path: `/api/domain/changes/${f.reviewZone}/requests`, query: { status: 'sideways' } },
  }),
  getChangeRequest: () => ({
    good: { method: 'get', path: 'LATER' },
    bad: { method: 'get', path: '/api/domain/change-requests/999999' },
  }),
  approveChangeRequest: () => ({
    good: { method: 'post', path: 'LATER', body: { comment: 'looks right' }, person: true },
    // a key approves nothing (NOT_SIGNED_IN)
    bad: { method: 'post', path: 'LATER', body: { comment: 'looks right' } },
  }),
  rejectChangeRequest: () => ({
    good: { method: 'post', path: 'LATER', body: { comment: 'not now' }, person: true },
    bad: { method: 'post', path: '/api/domain/change-requests/999999/reject', body: { comment: 'not now' }, person: true },
  }),
  cancelChangeRequest: () => ({
    good: { method: 'post', path: 'LATER' },
    bad: { method: 'post', path: '/api/domain/change-requests/999999/cancel' },
  }),
  // steering: the steered RRset and the external check the good calls need are made just before (see the loop)
  getSteeringVantages: () => ({
    good: { method: 'get', path: '/api/steering/vantages' },
    bad: { method: 'get', path: '/api/steering/vantages', headers: { 'X-API-Key': 'zk_admin_not-a-key' } },
  }),
  getSteering: (f) => ({
    good: { method: 'get', path: `/api/domain/steering/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/steering/missing.example' },
  }),
  putSteeredRrset: (f) => ({
    good: {
      method: 'put',
      path: `/api/domain/steering/${f.zone}/rrset/steered/A`,
      body: { pools: [{ members: [{ value: '192.0.2.20' }] }] },
    },
    bad: {
      method: 'put',
      path: `/api/domain/steering/${f.zone}/rrset/steered/A`,
      body: { pools: [{ members: [{ value: '300.0.0.1' }] }] },
    },
  }),
  setSteeringMemberAdmin: (f) => ({
    good: { method: 'post', path: `/api/domain/steering/${f.zone}/rrset/steered/A/admin`, body: { value: '192.0.2.20', admin: 'down' } },
    bad: { method: 'post', path: `/api/domain/steering/${f.zone}/rrset/steered/A/admin`, body: { value: '192.0.2.20', admin: 'sideways' } },
  }),
  deleteSteeredRrset: (f) => ({
    good: { method: 'delete', path: `/api/domain/steering/${f.zone}/rrset/steered/A` },
    bad: { method: 'delete', path: `/api/domain/steering/${f.zone}/rrset/unsteered/A` },
  }),
  reportSteeringStatus: (f) => ({
    good: { method: 'post', path: `/api/domain/steering/${f.zone}/check/conformance-external/status`, body: { up: 'true' } },
    bad: { method: 'post', path: `/api/domain/steering/${f.zone}/check/missing/status`, body: { up: 'true' } },
  }),
  putSteeringDefaults: (f) => ({
    good: { method: 'put', path: `/api/domain/steering/${f.zone}/defaults`, body: { path: '/healthz', status_min: 200, status_max: 299 } },
    bad: { method: 'put', path: `/api/domain/steering/${f.zone}/defaults`, body: { protocol: 'tcp' } },
  }),
  // views: the view `conformance` is made with the fixture
  getZoneViews: (f) => ({
    good: { method: 'get', path: `/api/domain/views/${f.zone}` },
    bad: { method: 'get', path: '/api/domain/views/missing.example' },
  }),
  getViewZone: (f) => ({
    good: { method: 'get', path: `/api/domain/views/${f.zone}/conformance` },
    bad: { method: 'get', path: `/api/domain/views/${f.zone}/missing` },
  }),
  putViewOverlay: (f) => ({
    good: {
      method: 'put',
      path: `/api/domain/views/${f.zone}/conformance/inside/A`,
      body: { action: 'replace', records: [{ rdata: '10.0.0.1' }] },
    },
    bad: { method: 'put', path: `/api/domain/views/${f.zone}/conformance/inside/A`, body: { action: 'sideways' } },
  }),
  deleteViewOverlay: (f) => ({
    good: { method: 'delete', path: `/api/domain/views/${f.zone}/conformance/inside/A` },
    bad: { method: 'delete', path: `/api/domain/views/${f.zone}/missing/inside/A` },
  }),
};

describe.each(['none', 'restknot'])('REST_ENVELOPE=%s: answers match the document', (envelope) => {
  let app: TestApp;
  let document: any;
  let fixture: Fixture;
  /** a person of the user's account (an admin there) signed in: the reviewer */
  let person: string;
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  beforeAll(async () => {
    // the health check's root server: a loopback port where nothing answers, each question given up quickly
    app = await startTestApp({ REST_ENVELOPE: envelope, HEALTH_ROOT_HINTS: '127.0.0.1:9', HEALTH_QUERY_TIMEOUT_MS: '100' });
    document = (await app.http.get('/api/openapi.json').set('X-API-Key', ADMIN_KEY)).body;
    ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
    const unwrap = (body: any) => (envelope === 'restknot' && body?.data !== undefined ? body.data : body);
    const user = unwrap(
      (
        await app.http
          .post('/api/user/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ email: `conformance-${envelope}@example.org` })
      ).body,
    );
    const zone = `conformance-${envelope}.example`;
    const domain = unwrap(
      (
        await app.http
          .post('/api/domain/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ user_id: Number(user.id), zone })
      ).body,
    );
    const add = async (owner: string) =>
      unwrap(
        (
          await app.http
            .post('/api/record/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ zone, owner, rtype: 'A', rdata: '192.0.2.1', ttl: 3600 })
        ).body,
      ).id;
    const reviewZone = `review-${envelope}.example`;
    await app.http
      .post('/api/domain/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ user_id: Number(user.id), zone: reviewZone });
    await app.gql(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 1) }`, { z: reviewZone });
    const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
      i: { userId: user.id, email: `reviewer-${envelope}@example.org`, role: 'ADMIN' },
    });
    expect(invited.errors).toBeUndefined();
    person = await signIn(app, `reviewer-${envelope}@example.org`);
    const viewKey = await app.gql(`mutation { createTsigKey(input: { name: "conformance-view" }) { tsigKey { id } } }`);
    expect(viewKey.errors).toBeUndefined();
    const view = await app.gql(`mutation($k: ID!) { createView(input: { name: "conformance", tsigKeyId: $k }) { id } }`, {
      k: viewKey.data.createTsigKey.tsigKey.id,
    });
    expect(view.errors).toBeUndefined();
    fixture = {
      userId: user.id,
      zone,
      reviewZone,
      zoneId: domain.id,
      recordId: await add('www2'),
      spareRecordId: await add('spare'),
    };
  });
  afterAll(async () => app?.close());

  /** a schema of the document, with component references resolved through it */
  const compiled = (schema: object) =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')));

  /**
   * the response schema for a status, with component references resolved through the document; a 202 that a
   * request preferring respond-async asked of a documented path is what its Prefer parameter names
   */
  function validatorFor(operation: any, status: number, contentType: string, preferred = false) {
    const prefers = (operation.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'Prefer');
    if (status === 202 && preferred && prefers && !operation.responses['202']) {
      const accepted = compiled({ $ref: '#/components/schemas/ChangeRequestAccepted' });
      return (body: any) => accepted(envelope === 'restknot' ? body?.data : body);
    }
    const response = operation.responses[String(status)];
    if (!response) return undefined;
    const schema = response.content?.[contentType]?.schema;
    if (!schema) return () => true;
    return compiled(schema);
  }

  test('every documented operation has a good call and a bad call here', () => {
    const ids = Object.values(document.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.operationId));
    expect(ids.length).toBeGreaterThanOrEqual(21);
    expect(ids.filter((id) => !CALLS[id])).toEqual([]);
  });

  test('each answer has a documented status, and its body the documented schema', async () => {
    const mismatches: string[] = [];
    const operations = Object.entries(document.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops).map(([method, op]: [string, any]) => ({ path, method, op })),
    );
    // deletions last, of things made for them
    const order = (id: string) => (id.startsWith('delete') ? 1 : 0);
    operations.sort((a, b) => order(a.op.operationId) - order(b.op.operationId));
    for (const { op } of operations) {
      const calls = CALLS[op.operationId](fixture);
      for (const [kind, call] of Object.entries(calls)) {
        if (op.operationId === 'deleteUser' && kind === 'good') {
          const created = await app.http
            .post('/api/user/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ email: `doomed2-${envelope}@example.org` });
          call.path = `/api/user/delete/${envelope === 'restknot' ? created.body.data.id : created.body.id}`;
        }
        if (op.operationId === 'revokeTsigKey' && kind === 'good') {
          const created = await app.http
            .post('/api/tsigkey/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ name: `revoked-${envelope}.example`, user_id: Number(fixture.userId) });
          call.path = `/api/tsigkey/revoke/${envelope === 'restknot' ? created.body.data.id : created.body.id}`;
        }
        if (op.operationId === 'editTsigKey') {
          const created = await app.http
            .post('/api/tsigkey/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ name: `edited-${kind}-${envelope}.example`, user_id: Number(fixture.userId) });
          call.path = `/api/tsigkey/edit/${envelope === 'restknot' ? created.body.data.id : created.body.id}`;
        }
        if (
          [
            'confirmDnssecDsPublished',
            'confirmDnssecDsRemoved',
            'rollDnssecKey',
            'rollDnssecAlgorithm',
            'addForeignDnskeys',
            'removeForeignDnskey',
            'withdrawDnssecDs',
            'restoreDnssecDs',
          ].includes(op.operationId) &&
          kind === 'good'
        ) {
          // a zone signed under a parent outside Zonekeeper waits for its DS; disabled (without force), for its
          // removal; a roll needs a zone signed (the fixture's zone is disabled by then)
          const zone = `${op.operationId.toLowerCase()}-${envelope}.example`;
          await app.http
            .post('/api/domain/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ user_id: Number(fixture.userId), zone });
          await app.http.post(`/api/domain/dnssec/${zone}`).set('X-API-Key', ADMIN_KEY).send({});
          if (op.operationId === 'confirmDnssecDsRemoved') {
            // the DS said published first: a zone whose DS never was is unsigned at once, with nothing to confirm
            await app.http.post(`/api/domain/dnssec/${zone}/ds-published`).set('X-API-Key', ADMIN_KEY);
            await app.http.delete(`/api/domain/dnssec/${zone}`).set('X-API-Key', ADMIN_KEY);
          }
          const action = {
            confirmDnssecDsRemoved: 'ds-removed',
            confirmDnssecDsPublished: 'ds-published',
            rollDnssecKey: 'roll',
            rollDnssecAlgorithm: 'algorithm-roll',
            addForeignDnskeys: 'foreign-keys',
            removeForeignDnskey: 'foreign-keys',
            withdrawDnssecDs: 'ds-withdrawn',
            restoreDnssecDs: 'ds-withdrawn',
          }[op.operationId as string];
          if (op.operationId === 'withdrawDnssecDs' || op.operationId === 'restoreDnssecDs') {
            // the other signer's KSK first: without one the DS may not be withdrawn (DNSSEC_NO_FOREIGN_KSK)
            await app.http
              .post(`/api/domain/dnssec/${zone}/foreign-keys`)
              .set('X-API-Key', ADMIN_KEY)
              .send({ dnskeys: [FOREIGN_DNSKEY] });
            if (op.operationId === 'restoreDnssecDs')
              await app.http.post(`/api/domain/dnssec/${zone}/ds-withdrawn`).set('X-API-Key', ADMIN_KEY).send({});
          }
          call.path = `/api/domain/dnssec/${zone}/${action}`;
          if (op.operationId === 'removeForeignDnskey') {
            // a foreign key to remove: added first, its id read back
            const added = await app.http
              .post(`/api/domain/dnssec/${zone}/foreign-keys`)
              .set('X-API-Key', ADMIN_KEY)
              .send({ dnskeys: [FOREIGN_DNSKEY] });
            const body = envelope === 'restknot' ? added.body.data : added.body;
            call.path = `/api/domain/dnssec/${zone}/foreign-keys/${body.foreign_keys[0].foreign_key_id}`;
          }
        }
        if (['setSteeringMemberAdmin', 'deleteSteeredRrset'].includes(op.operationId) && kind === 'good')
          await app.http
            .put(`/api/domain/steering/${fixture.zone}/rrset/steered/A`)
            .set('X-API-Key', ADMIN_KEY)
            .send({ pools: [{ members: [{ value: '192.0.2.20' }] }] });
        if (op.operationId === 'reportSteeringStatus' && kind === 'good') {
          const checks = await app.gql(`query($z: String!) { domain(name: $z) { steeringChecks { name } } }`, { z: fixture.zone });
          if (!checks.data.domain.steeringChecks.some((c: { name: string }) => c.name === 'conformance-external'))
            await app.gql(
              `mutation($z: String!) { createSteeringCheck(zone: $z, input: { name: "conformance-external", protocol: "external" }) { id } }`,
              {
                z: fixture.zone,
              },
            );
        }
        if (['webhookDeliveries', 'rotateWebhookSecret', 'redeliverWebhook', 'deleteWebhook'].includes(op.operationId) && kind === 'good') {
          const created = await app.http
            .post('/api/webhook/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ url: 'https://93.184.216.34/conformance', events: '*' });
          const id = envelope === 'restknot' ? created.body.data.id : created.body.id;
          const action = {
            webhookDeliveries: 'deliveries',
            rotateWebhookSecret: 'rotate',
            redeliverWebhook: 'redeliver',
            deleteWebhook: 'delete',
          }[op.operationId as string];
          call.path = `/api/webhook/${action}/${id}`;
        }
        if (
          ['getChangeRequest', 'approveChangeRequest', 'rejectChangeRequest', 'cancelChangeRequest'].includes(op.operationId) &&
          call.path === 'LATER'
        ) {
          // a request of the review zone, proposed by the admin key (so never the reviewer's own)
          const proposed = await app.gql(
            `mutation($z: String!, $c: [ZoneChangeInput!]!) { proposeZoneChange(zone: $z, changes: $c) { id } }`,
            {
              z: fixture.reviewZone,
              c: [{ kind: 'ADD', owner: `${op.operationId.toLowerCase()}-${kind}`, type: 'TXT', rdata: '"x"', ttl: 3600 }],
            },
          );
          const action = {
            getChangeRequest: '',
            approveChangeRequest: '/approve',
            rejectChangeRequest: '/reject',
            cancelChangeRequest: '/cancel',
          }[op.operationId as string];
          call.path = `/api/domain/change-requests/${proposed.data.proposeZoneChange.id}${action}`;
        }
        if (op.operationId === 'deleteDomain' && kind === 'good') {
          const zone = `doomed-${envelope}.example`;
          await app.http
            .post('/api/domain/add')
            .set('X-API-Key', ADMIN_KEY)
            .send({ user_id: Number(fixture.userId), zone });
          call.query = { zone };
        }
        let req = (app.http as any)[call.method](call.path).set(call.person ? sessionHeaders(person) : { 'X-API-Key': ADMIN_KEY });
        if (call.headers) req = req.set(call.headers);
        if (call.query) req = req.query(call.query);
        if (call.body) req = req.send(call.body);
        const res = await req;
        const label = `${op.operationId} (${kind}) ${call.method.toUpperCase()} ${call.path} → ${res.status}`;
        const contentType = String(res.headers['content-type'] ?? '').split(';')[0] || 'application/json';
        const validate = validatorFor(op, res.status, contentType, call.headers?.Prefer === 'respond-async');
        if (!validate) {
          mismatches.push(`${label}: status not documented`);
          continue;
        }
        const body = contentType === 'application/json' && res.text ? JSON.parse(res.text) : res.text;
        if (res.status !== 204 && !validate(body))
          mismatches.push(`${label}: ${ajv.errorsText((validate as any).errors)} in ${res.text.slice(0, 200)}`);
        if (kind === 'good' && res.status >= 300) mismatches.push(`${label}: the good call failed: ${res.text.slice(0, 200)}`);
        if (kind === 'accepted' && res.status !== 202)
          mismatches.push(`${label}: not accepted as a change request: ${res.text.slice(0, 200)}`);
        if (
          kind === 'refused' &&
          (res.status !== 409 || body.error !== 'ZONE_UNDER_REVIEW' || !body.message.includes('Prefer: respond-async'))
        )
          mismatches.push(`${label}: not refused ZONE_UNDER_REVIEW naming the preference: ${res.text.slice(0, 200)}`);
        // the lists that take no input have no bad call: theirs is the same list again
        if (kind === 'bad' && res.status < 400 && !['listRecords', 'listDomains', 'listWebhooks'].includes(op.operationId))
          mismatches.push(`${label}: the bad call succeeded`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 60_000);

  test('the audit log once a person signed in: their session acts, their joining names no session 0, and each event is as documented', async () => {
    const res = await app.http.get('/api/audit').set('X-API-Key', ADMIN_KEY);
    expect(res.status).toBe(200);
    const validate = validatorFor(document.paths['/api/audit'].get, 200, 'application/json')!;
    expect(validate(res.body) ? [] : (validate as any).errors).toEqual([]);
    const events: any[] = envelope === 'restknot' ? res.body.data : res.body;
    const byPerson = events.filter((event) => event.actor_key_name === `reviewer-${envelope}@example.org`);
    const signedIn = byPerson.find((event) => event.kind === 'signed-in');
    expect(signedIn).toMatchObject({ actor_key_type: 'session', actor_key_id: expect.any(Number), actor_user_id: Number(fixture.userId) });
    expect(signedIn.actor_key_id).toBeGreaterThan(0);
    // joined by the sign-in that began the session, before it: the person by address, with no session 0
    expect(byPerson.find((event) => event.kind === 'member-joined')).toMatchObject({
      actor_key_type: 'session',
      actor_key_id: null,
      actor_user_id: null,
      subject: `user:${fixture.userId}`,
    });
  });
});
