import { servicePrincipal } from '../../auth/principal';
import type { Writer } from '../write-engine';

/** the signer's own steps (key steps, a parent's DS, signalling records) name no author; this principal only passes the engine's scope checks */
export const SIGNER = servicePrincipal('dnssec signer');

/**
 * The writer of the signer's steps on a zone (a refresh of its RRSIGs, a key step, DNSSEC enabled or disabled):
 * journalled `zone-signed`, no one's change (write-engine/writers.ts, the `signer` row).
 */
export const SIGNER_STEP: Writer = { kind: 'signer' };
