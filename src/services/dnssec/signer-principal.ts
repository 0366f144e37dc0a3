import { servicePrincipal } from '../../auth/principal';

/** the signer's own steps (key steps, a parent's DS, signalling records) name no author; this principal only passes the engine's scope checks */
export const SIGNER = servicePrincipal('dnssec signer');
