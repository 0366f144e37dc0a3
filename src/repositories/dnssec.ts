/**
 * DNSSEC's tables (docs/dnssec.md): a zone's signing policy (`dnssec_zones`), its keys (`dnssec_keys`, the
 * private part sealed) and the signer's records (`dnssec_records`, beside `records`). The signed-zone view
 * the incremental signer reads is here: each question one index look-up in the caller's connection.
 *
 * Under dnssec/: the policy and its refresh schedule (`policy.ts`), what a signed zone waits for of its parent
 * (`parent-ds.ts`), the keys (`keys.ts`), the signer's records as read (`signer-records.ts`), the signer's
 * questions answered in one statement and a zone head's signing state (`signer-answers.ts`), and the
 * statement parts that write the signer's records (`signer-writes.ts`).
 */

export {
  type DenialKind,
  type DnssecPolicy,
  DNSSEC_POLICY_JSON,
  policyFromJson,
  insertPolicy,
  signedDomainIds,
  setPolicyState,
  deleteSigning,
  setRefreshDue,
  claimZonesDueForRefresh,
  leaseZonesDueForRefresh,
} from './dnssec/policy';
export {
  type ParentDsRow,
  policyOf,
  setDsWithdrawn,
  dsWithdrawnOf,
  setDsSeen,
  scheduleDsCheck,
  setDisabling,
  leaseZonesDueForDsCheck,
  recordDsCheck,
  parentZoneOf,
  dsTtlAtParent,
  dsAtParent,
} from './dnssec/parent-ds';
export {
  type StoredDnssecKey,
  type PlannedEventReason,
  type KeyPlan,
  type SigningKeyRow,
  keysOfZone,
  insertKey,
  moveKey,
  planKey,
  zonesWithKeyWorkQuery,
  zonesWithKeyWork,
  maxTtlOfZone,
} from './dnssec/keys';
export {
  type SignerRow,
  type StoredSignerRecord,
  earliestExpiration,
  signaturesExpiringBefore,
  zoneRecordsAt,
  apexKeyRecords,
  signerRecordsAt,
  recordsBelow,
  chainNeighbour,
  allSignerRecords,
  allZoneRecords,
  userRecordsOfTypes,
  rrsetAt,
} from './dnssec/signer-records';
export {
  type SignerQuestions,
  type ChainNeighbours,
  type SignerAnswers,
  signerAnswersSql,
  type HeldSignerRow,
  type WholeSigner,
  wholeSignerSql,
  heldSignerRow,
  wholeSignerFromJson,
  type SignedProof,
  keysProofOf,
  signedProofSql,
  type AnswersJson,
  signerAnswersFromJson,
  signerAnswers,
} from './dnssec/signer-answers';
export { idRowsShape, idRows, signerWriteCtes } from './dnssec/signer-writes';
