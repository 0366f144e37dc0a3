import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import type { JournalRecord } from '../../entities/change.entity';
import type { DnssecPolicy, SignerQuestions, SignerRow } from '../../repositories/dnssec';
import type { LockedZone, LockRequest } from '../../repositories/zone-writes';
import type { ViewStep } from '../../repositories/views';
import type { WriterGates } from './writers';

/**
 * The signing of a signed zone's changes (DNSSEC, RFC 4033–4035), as the write engine asks for it: a port the
 * engine defines and DNSSEC implements (services/dnssec/zone-signing.ts), handed to the engine where the
 * services are made (services/index.ts, `new WriteEngine`), so that the engine knows what a change needs of a signer and nothing of how it signs.
 *
 * A signed zone must never be served with a change that lacks its signatures: the RRSIGs over the RRsets a
 * change touched, and the NSEC/NSEC3 chain around the owners it added or emptied (RFC 4035 §2.2, §2.3), belong
 * in the same serial step as the change, so an IXFR (RFC 1995) never hands a secondary half of it. So `sign`
 * runs inside `ZoneChange.commit`, after `decide` staged the change and the new serial and SOA are known
 * (the SOA's own RRSIG covers the new serial), before the write: it stages the signer's records with
 * `change.stageSigner`, which are written to `dnssec_records` and journalled with the rest.
 *
 * Steps of the signer's own (a refresh, a key step) are changes of kind `zone-signed` (the `signer` writer,
 * writers.ts): they name no author and the history skips them.
 */
export interface ZoneSigner {
  /**
   * The signer's questions of a change, told before its zone is read so that the read asks them too (the
   * answers come back as `LockedZone.signer`); undefined: none to ask early. A guess the signer may ignore.
   */
  forecast(request: Pick<LockRequest, 'zone' | 'owner' | 'touching'>): SignerQuestions | undefined;
  /** what a read of a zone told of its signing (signed or not, and how), for the next `forecast` */
  zoneRead(zone: Pick<LockedZone, 'id' | 'name' | 'dnssec'>): void;
  /** what the signer refuses in a signed change as staged, before anything is signed (a dry run asks this alone) */
  refuse(change: ChangeToSign, settings: Settings): void;
  /** signs a signed change: stages its signer records (`change.stageSigner`) in its serial step */
  sign(change: ChangeToSign, settings: Settings): Promise<void>;
  /**
   * Signs views' zones of a signed zone again (docs/views.md, «DNSSEC»), after a step of their serials (`views`)
   * in the transaction `sql` holds with the zone row locked: a step of the base (after its write, so over the
   * base as it now is) or a view's overlay change. Each view's zone is the base's signed zone with the view's
   * own signer records, and the base's it leaves out, written for its new serial.
   */
  signViews(
    sql: Sql,
    zone: { id: number; name: string },
    policy: DnssecPolicy,
    views: readonly ViewStep[],
    settings: Settings,
  ): Promise<void>;
}

/** how a signed zone's change is signed: incremental (a record change), whole (DNSSEC enabled), keys (a key step) */
export type SigningMode = 'incremental' | 'whole' | 'keys';

/** What the signer sees of a change (staging.ts's `ZoneChange`): the zone as read, the change as staged. */
export interface ChangeToSign {
  readonly zone: LockedZone;
  readonly removed: readonly JournalRecord[];
  readonly added: readonly JournalRecord[];
  /** the policy the change is signed under, and how; undefined: not signed */
  readonly signingPlan: { mode: SigningMode; policy: DnssecPolicy } | undefined;
  /** the connection the change reads and writes on (the signer reads the signed zone through it) */
  readonly connection: Sql;
  /** the gates of the change's writer (writers.ts): `signalRecords`, the signer's RFC 9615 signalling records */
  readonly gates: Readonly<Pick<WriterGates, 'signalRecords'>>;
  stageSigner(removed: readonly SignerRow[], added: readonly SignerRow[]): void;
}
