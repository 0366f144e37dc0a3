import type { Settings } from '../../config/settings';
import type { DnssecPolicy } from '../../repositories/dnssec';
import { ZoneSigningStep } from '../dnssec/zone-signing';
import type { SigningMode, ZoneChange } from './staging';

/**
 * The signing steps (DNSSEC, RFC 4033–4035).
 *
 * A signed zone must never be served with a change that lacks its signatures: the RRSIGs over the RRsets a
 * change touched, and the NSEC/NSEC3 chain around the owners it added or emptied (RFC 4035 §2.2, §2.3), belong
 * in the same serial step as the change, so an IXFR (RFC 1995) never hands a secondary half of it. So a step
 * runs inside `ZoneChange.commit`, after `decide` staged the change and the new serial and SOA are known
 * (the SOA's own RRSIG covers the new serial), before the write: it stages the signer's records with
 * `change.stageSigner`, which are written to `dnssec_records` and journalled with the rest.
 *
 * Steps of the signer's own (a refresh, a key step) are changes of kind `zone-signed`
 * (`ZoneChangeRequest.signatureOnly`): they name no author and the history skips them.
 */
export interface SigningStep {
  /** what the step refuses in the change as staged, before anything is signed (a dry run asks this alone) */
  refuse?(change: ZoneChange): void;
  afterDecide(change: ZoneChange): Promise<void>;
}

/** the signing steps of a change: one when it is signed (services/dnssec/zone-signing.ts), none otherwise */
export function signingStepsFor(plan: { mode: SigningMode; policy: DnssecPolicy } | undefined, settings: Settings): readonly SigningStep[] {
  return plan ? [new ZoneSigningStep(settings)] : NO_STEPS;
}

const NO_STEPS: readonly SigningStep[] = Object.freeze([]);
