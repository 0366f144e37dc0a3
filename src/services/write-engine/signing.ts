import type { Settings } from '../../config/settings';
import type { LockedZone } from '../../repositories/zone-writes';
import type { ZoneChange } from './staging';

/**
 * The seam for the signing steps to come (DNSSEC, RFC 4033–4035). Nothing signs yet; this is where it will.
 *
 * A signed zone must never be served with a change that lacks its signatures: the RRSIGs over the RRsets a
 * change touched, and the NSEC/NSEC3 chain around the owners it added or emptied (RFC 4035 §2.2, §2.3), belong
 * in the same serial step as the change, so an IXFR (RFC 1995) never hands a secondary half of it. So a step
 * runs inside `ZoneChange.commit`, after `decide` staged the change and the new serial and SOA are known
 * (the SOA's own RRSIG covers the new serial), before the write: it may stage more rows with `change.insert`
 * and `change.remove`, which are written and journalled with the rest.
 *
 * The second half of the seam is `ZoneChangeRequest.signatureOnly`: a change the signer makes on its own
 * (re-signing RRSIGs that near their expiry, a key roll) goes through the same entry and queue, but names no
 * author and does not run these steps on its own output.
 */
export interface SigningStep {
  afterDecide(change: ZoneChange): Promise<void>;
}

/** the signing steps of a zone: none until DNSSEC lands (then: the zone's keys and policy decide) */
export function signingStepsFor(_zone: LockedZone, _settings: Settings): readonly SigningStep[] {
  return NO_STEPS;
}

const NO_STEPS: readonly SigningStep[] = Object.freeze([]);
