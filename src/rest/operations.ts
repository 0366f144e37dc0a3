/**
 * The GraphQL operations the REST layer runs. REST owns no rule: each path is one of these documents on the
 * same schema, so REST and GraphQL cannot drift apart; or, for a write whose operation only hands its input to
 * one service method (record create), that method called with the operation's own checks (`Runner.call`).
 */
const RECORD = 'id zone owner type rdata ttl';
/** a record with its RRset's comment (docs/changes.md, «Comments»): what a record's own path answers */
const RECORD_WITH_COMMENT = `${RECORD} comment`;
const COMMENT_CHANGES = 'comments { owner type before after }';
const USER = 'id email createdAt';
const TSIG_KEY =
  'id userId name algorithm createdAt revokedAt lastUsedAt policy { restricted preset rules { zone owner types access } mayCreateZones mayDeleteZones mayManageKeys expiresAt idleDays allowedNetworks }';
const DNSSEC = `zone enabled state denial nsec3Iterations nsec3OptOut ds dnskeys disableAt dsWithdrawnAt
  keys { id keyTag role algorithm state dnskey createdAt publishedAt readyAt activeAt retiredAt removedAt nextEvent nextEventAt }
  parentDs { inZonekeeper waitingFor seenAt checkedAt nextCheckAt
    lastCheck { at want expected confirmed servers { server ok ds ttl transport error } } }
  algorithmRoll { from to step nextStepAt }
  foreignKeys { id role keyTag algorithm dnskey ds source fetchedFrom createdAt }`;
const USER_LIMITS =
  'ratePerSecond rateBurst maxZones maxRecordsPerZone zoneCount effective { ratePerSecond rateBurst maxZones maxRecordsPerZone }';
const HEALTH = 'zone checkedAt state findings { code severity server message since }';
const DOMAIN = `id name user { id email } records { ${RECORD} }`;

const STEERING_CHECK =
  'id name protocol address port host path statusMin statusMax bodyContains verifyTls intervalSeconds status condition since heldSince pinned lastOk lastError latencyMs checkedAt leaseUntil';
const STEERING_DEFAULTS = 'protocol port host path statusMin statusMax bodyContains verifyTls intervalSeconds';
const STEERING_POOLS = `pools { minHealthy members { value checkId admin weight healthy condition check { id name status since heldSince lastError latencyMs leaseUntil } } }`;
const STEERED_RRSET = `id zone owner type ttl maxAnswers backup allDown served ${STEERING_POOLS}
  rules { subnets geos view ${STEERING_POOLS} }`;
const CHANGED = 'owner type rdata ttl';
const CHANGE_REQUEST = `id zone status author plannedSerial appliedSerial requiredApprovals approvals scheduledAt createdAt closedAt
  conflicts { owner type } reason
  plan { serialBefore serial rrsets { owner type before { ${CHANGED} } after { ${CHANGED} } } warnings { field code message severity owner type rfc } }
  reviews { reviewer verdict comment createdAt }`;
const WEBHOOK = 'id userId url eventTypes zones enabled disabledReason previousSecretUntil previousSecrets { retiredAt until } createdAt';

export const OPERATIONS = {
  listEvents: `query ListEvents($after: String, $limit: Int, $types: [String!]) { events(after: $after, limit: $limit, types: $types) { events { id type timestamp zone data } next } }`,
  listWebhooks: `query ListWebhooks { webhooks { ${WEBHOOK} } }`,
  webhookDeliveries: `query WebhookDeliveries($id: ID!, $first: Int, $before: ID) {
    webhookDeliveries(id: $id, first: $first, before: $before) { id eventId type zone status attempts responseCode lastError nextAttemptAt deliveredAt createdAt } }`,
  createWebhook: `mutation CreateWebhook($url: String!, $events: [String!], $zones: [String!]) {
    createWebhook(url: $url, events: $events, zones: $zones) { webhook { ${WEBHOOK} } secret } }`,
  deleteWebhook: `mutation DeleteWebhook($id: ID!) { deleteWebhook(id: $id) }`,
  rotateWebhookSecret: `mutation RotateWebhookSecret($id: ID!, $secret: String) { rotateWebhookSecret(id: $id, secret: $secret) { webhook { ${WEBHOOK} } secret } }`,
  redeliverWebhook: `mutation RedeliverWebhook($id: ID!, $events: [ID!]) { redeliverWebhook(id: $id, events: $events) }`,

  getRecord: `query GetRecord($id: ID!) { record(id: $id) { ${RECORD_WITH_COMMENT} } }`,
  updateRecord: `mutation UpdateRecord($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { ${RECORD_WITH_COMMENT} } }`,
  deleteRecord: `mutation DeleteRecord($id: ID!) { deleteRecord(id: $id) }`,

  listUsers: `query ListUsers($first: Int!, $after: String) {
    users(first: $first, after: $after) { nodes { ${USER} } pageInfo { hasNextPage endCursor } } }`,
  getUser: `query GetUser($id: ID, $email: String) { user(id: $id, email: $email) { ${USER} } }`,
  createUser: `mutation CreateUser($input: UserInput!) { createUser(input: $input) { ${USER} } }`,
  updateUser: `mutation UpdateUser($id: ID!, $input: UserInput!) { updateUser(id: $id, input: $input) { ${USER} } }`,
  deleteUser: `mutation DeleteUser($id: ID!) { deleteUser(id: $id) }`,
  getUserLimits: `query GetUserLimits($id: ID!) { user(id: $id) { limits { ${USER_LIMITS} } } }`,
  setUserLimits: `mutation SetUserLimits($id: ID!, $input: UserLimitsInput!) { setUserLimits(id: $id, input: $input) { ${USER_LIMITS} } }`,
  setApiKeyRate: `mutation SetApiKeyRate($id: ID!, $input: ApiKeyRateInput!) { setApiKeyRate(id: $id, input: $input) { ratePerSecond rateBurst } }`,

  listTsigKeys: `query ListTsigKeys($userId: ID) { tsigKeys(userId: $userId) { ${TSIG_KEY} } }`,
  createTsigKey: `mutation CreateTsigKey($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { tsigKey { ${TSIG_KEY} } secret } }`,
  revokeTsigKey: `mutation RevokeTsigKey($id: ID!) { revokeTsigKey(id: $id) { ${TSIG_KEY} } }`,
  updateTsigKey: `mutation UpdateTsigKey($id: ID!, $input: UpdateTsigKeyInput!) { updateTsigKey(id: $id, input: $input) { ${TSIG_KEY} } }`,

  listAuditEvents: `query ListAuditEvents($first: Int!, $after: String, $kind: String, $since: DateTimeISO) {
    auditEvents(first: $first, after: $after, kind: $kind, since: $since) {
      nodes { id at kind actorKeyType actorKeyId actorKeyName actorUserId actorAdmin subject detail sourceAddress count }
      pageInfo { hasNextPage endCursor } } }`,

  listDomains: `query ListDomains($first: Int!, $after: String, $userId: ID, $nameStartsWith: String) {
    domains(first: $first, after: $after, userId: $userId, nameStartsWith: $nameStartsWith) { nodes { ${DOMAIN} } pageInfo { hasNextPage endCursor } } }`,
  getDomain: `query GetDomain($id: ID, $name: String) { domain(id: $id, name: $name) { ${DOMAIN} } }`,
  getUserForDomains: `query GetUserForDomains($id: ID!) { user(id: $id) { id } }`,
  zoneExists: `query ZoneExists($id: ID, $name: String) { domain(id: $id, name: $name) { id } }`,
  recordExists: `query RecordExists($id: ID!) { record(id: $id) { id } }`,
  createDomain: `mutation CreateDomain($input: CreateDomainInput!) { createDomain(input: $input) { id name } }`,
  createDomains: `mutation CreateDomains($input: [CreateDomainInput!]!) { createDomains(input: $input) { id name } }`,
  deleteDomain: `mutation DeleteDomain($zone: String!) { deleteDomain(zone: $zone) }`,
  applyZoneChanges: `mutation ApplyZoneChanges($zone: String!, $changes: [ZoneChangeInput!]!, $expectSerial: Serial, $force: Boolean) {
    applyZoneChanges(zone: $zone, changes: $changes, expectSerial: $expectSerial, force: $force) {
      zone serialBefore serial added { owner type rdata ttl } removed { owner type rdata ttl } ${COMMENT_CHANGES}
      changeRequest { id status requiredApprovals } } }`,
  planZoneChanges: `mutation PlanZoneChanges($zone: String!, $changes: [ZoneChangeInput!]!, $expectSerial: Serial, $force: Boolean) {
    applyZoneChanges(zone: $zone, changes: $changes, expectSerial: $expectSerial, dryRun: true, force: $force) {
      zone serialBefore serial dryRun added { owner type rdata ttl } removed { owner type rdata ttl }
      rrsets { owner type before { owner type rdata ttl } after { owner type rdata ttl } }
      disabledAdded { owner type rdata ttl } disabledRemoved { owner type rdata ttl } warnings { field code message severity owner type rfc }
      ${COMMENT_CHANGES} } }`,
  zoneChanges: `query ZoneChanges($zone: String!, $first: Int!, $after: String) {
    domain(name: $zone) { changes(first: $first, after: $after) {
      nodes { id kind serialBefore serialAfter createdAt author { keyId tsigKeyId keyName userId admin }
        added { owner type rdata ttl } removed { owner type rdata ttl } findings { code severity owner type rfc message } ${COMMENT_CHANGES} }
      pageInfo { hasNextPage endCursor } } } }`,
  importZone: `mutation ImportZone($zone: String!, $text: String!, $mode: ZoneImportMode!, $dryRun: Boolean!, $ttlPolicy: ZoneImportTtlPolicy!) {
    importZone(zone: $zone, text: $text, mode: $mode, dryRun: $dryRun, ttlPolicy: $ttlPolicy) {
      zone added removed serial dryRun dropped { type count } commentsKept warnings { line field code message } addedRecords removedRecords
      changeRequest { id status requiredApprovals } } }`,
  proposeZoneChange: `mutation ProposeZoneChange($zone: String!, $changes: [ZoneChangeInput!]!) {
    proposeZoneChange(zone: $zone, changes: $changes) { zone id status requiredApprovals } }`,
  changeRequests: `query ChangeRequests($zone: String!, $status: [ChangeRequestStatus!], $first: Int) {
    changeRequests(zone: $zone, status: $status, first: $first) { ${CHANGE_REQUEST} } }`,
  changeRequest: `query ChangeRequest($id: ID!) { changeRequest(id: $id) { ${CHANGE_REQUEST} } }`,
  approveChangeRequest: `mutation ApproveChangeRequest($id: ID!, $comment: String) { approveChangeRequest(id: $id, comment: $comment) { ${CHANGE_REQUEST} } }`,
  rejectChangeRequest: `mutation RejectChangeRequest($id: ID!, $comment: String) { rejectChangeRequest(id: $id, comment: $comment) { ${CHANGE_REQUEST} } }`,
  cancelChangeRequest: `mutation CancelChangeRequest($id: ID!) { cancelChangeRequest(id: $id) { ${CHANGE_REQUEST} } }`,
  getDnssec: `query GetDnssec($name: String) { domain(name: $name) { dnssec { ${DNSSEC} } } }`,
  enableDnssec: `mutation EnableDnssec($input: EnableDnssecInput!) { enableDnssec(input: $input) { ${DNSSEC} } }`,
  disableDnssec: `mutation DisableDnssec($zone: String!, $force: Boolean!) { disableDnssec(zone: $zone, force: $force) { ${DNSSEC} } }`,
  rollDnssecKey: `mutation RollDnssecKey($zone: String!, $role: DnssecRollRole!) { rollDnssecKey(zone: $zone, role: $role) { ${DNSSEC} } }`,
  rollDnssecAlgorithm: `mutation RollDnssecAlgorithm($zone: String!, $algorithm: DnssecAlgorithm!) { rollDnssecAlgorithm(zone: $zone, algorithm: $algorithm) { ${DNSSEC} } }`,
  addForeignDnskeys: `mutation AddForeignDnskeys($input: AddForeignDnskeysInput!) { addForeignDnskeys(input: $input) { ${DNSSEC} } }`,
  removeForeignDnskey: `mutation RemoveForeignDnskey($zone: String!, $id: ID!) { removeForeignDnskey(zone: $zone, id: $id) { ${DNSSEC} } }`,
  withdrawDnssecDs: `mutation WithdrawDnssecDs($zone: String!) { withdrawDnssecDs(zone: $zone) { ${DNSSEC} } }`,
  restoreDnssecDs: `mutation RestoreDnssecDs($zone: String!) { restoreDnssecDs(zone: $zone) { ${DNSSEC} } }`,
  confirmDnssecDsPublished: `mutation ConfirmDnssecDsPublished($zone: String!) { confirmDnssecDsPublished(zone: $zone) { ${DNSSEC} } }`,
  confirmDnssecDsRemoved: `mutation ConfirmDnssecDsRemoved($zone: String!) { confirmDnssecDsRemoved(zone: $zone) { ${DNSSEC} } }`,
  dnssecEvents: `query DnssecEvents($zone: String!, $first: Int!, $after: String) {
    domain(name: $zone) { dnssecEvents(first: $first, after: $after) {
      nodes { id keyId keyTag role algorithm fromState toState reason at } } } }`,
  checkZone: `query CheckZone($zone: String!) { checkZone(zone: $zone) { zone serial warnings { owner type code message } } }`,
  domainHealth: `query DomainHealth($name: String) { domain(name: $name) { health { ${HEALTH} } } }`,
  checkHealth: `mutation CheckHealth($zone: String!) { checkHealth(zone: $zone) { ${HEALTH} } }`,
  domainStatus: `query DomainStatus($id: ID, $name: String) {
    domain(id: $id, name: $name) { id name propagation { serial state message servers { server servedSerial state error updatedAt } } } }`,
  steeringVantages: `query SteeringVantages { steeringVantages { name seenAt isolated isolatedReason isolatedSince panic } }`,
  steering: `query Steering($name: String) {
    domain(name: $name) { name steeringChecks { ${STEERING_CHECK} } steeredRrsets { ${STEERED_RRSET} } steeringDefaults { ${STEERING_DEFAULTS} } } }`,
  createSteeredRrset: `mutation CreateSteeredRrset($zone: String!, $input: SteeredRrsetInput!) {
    createSteeredRrset(zone: $zone, input: $input) { ${STEERED_RRSET} } }`,
  updateSteeredRrset: `mutation UpdateSteeredRrset($id: ID!, $input: SteeredRrsetInput!) {
    updateSteeredRrset(id: $id, input: $input) { ${STEERED_RRSET} } }`,
  deleteSteeredRrset: `mutation DeleteSteeredRrset($id: ID!) { deleteSteeredRrset(id: $id) }`,
  setSteeringMemberAdmin: `mutation SetSteeringMemberAdmin($id: ID!, $value: String!, $admin: String!) {
    setSteeringMemberAdmin(id: $id, value: $value, admin: $admin) { ${STEERED_RRSET} } }`,
  reportSteeringStatus: `mutation ReportSteeringStatus($id: ID!, $up: Boolean!, $leaseSeconds: Int, $message: String) {
    reportSteeringStatus(id: $id, up: $up, leaseSeconds: $leaseSeconds, message: $message) { ${STEERING_CHECK} } }`,
  setSteeringDefaults: `mutation SetSteeringDefaults($zone: String!, $input: SteeringDefaultsInput!) {
    setSteeringDefaults(zone: $zone, input: $input) { ${STEERING_DEFAULTS} } }`,
  zoneViews: `query ZoneViews($zone: String!) {
    views { id name networks precedence tsigKeyName notify serial(zone: $zone) }
    viewOverlays(zone: $zone) { view owner type action records { ttl rdata } } }`,
  viewZone: `query ViewZone($zone: String!, $view: String!) { viewZone(zone: $zone, view: $view) { zone view serial records { owner type ttl rdata overlay } } }`,
  setViewOverlay: `mutation SetViewOverlay($zone: String!, $view: String!, $owner: String!, $type: String!, $action: OverlayAction!, $records: [OverlayRecordInput!]) {
    setViewOverlay(zone: $zone, view: $view, owner: $owner, type: $type, action: $action, records: $records) }`,
  clearViewOverlay: `mutation ClearViewOverlay($zone: String!, $view: String!, $owner: String!, $type: String!) {
    clearViewOverlay(zone: $zone, view: $view, owner: $owner, type: $type) }`,
} as const;

export type OperationName = keyof typeof OPERATIONS;
