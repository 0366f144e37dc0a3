/**
 * What a key's step means to the world outside (docs/events.md): the events out (repositories/events.ts) a step of
 * a key's RFC 7583 life gives, decided here and written by the repository with the step's key event, in the same
 * statement (repositories/dnssec-key-events.ts). The key-moving services call `makeKey`, `stepKey` and
 * `removeAllKeys`, never the repository's functions, so that no step goes out without its meaning.
 */
import type { Sql } from '../../db/pool';
import { deleteSigning, insertKey, KeyPlan, keysOfZone, moveKey, StoredDnssecKey } from '../../repositories/dnssec';
import type { KeyEventReason, KeyState, KeyStepEventType, StoredKeyRole } from '../../repositories/dnssec-key-events';

export interface KeyStep {
  role: StoredKeyRole;
  /** null: the key is made by this step */
  from: KeyState | null;
  to: KeyState;
}

/**
 * The event out a key step gives, or null: a KSK or CSK that enters the zone needs its DS at the parent
 * (`dnssec.ds_required`), one that leaves lets its DS go (`dnssec.ds_removable`), and a key that becomes active
 * after a wait of its own is a roll (`dnssec.key_rolled`; the keys a zone is signed with at first are active at
 * once, and are no roll).
 */
export function keyStepEvent({ role, from, to }: KeyStep): KeyStepEventType | null {
  const ksk = role === 'KSK' || role === 'CSK';
  if (ksk) {
    // made: signing at once (enable) or its DS first (a KSK roll's double-DS, RFC 7583 §3.3.2); an algorithm
    // roll's KSK is made `signing` (its DNSKEY not yet published) and needs its DS only when it goes from
    // `published` to `active` (RFC 6781 §4.1.4)
    if (from === null) return to === 'signing' ? null : 'dnssec.ds_required';
    if (from === 'published' && to === 'active') return 'dnssec.ds_required';
    // leaving: the old KSK of an algorithm roll, its DS replaced by the new one's; a key removed whose DS was
    // wanted (one `signing`, `published` by an algorithm roll or `withdrawn` had its DS let go before, or never)
    if (from === 'active' && to === 'published') return 'dnssec.ds_removable';
    if (to === 'removed' && from !== 'signing' && from !== 'published' && from !== 'withdrawn') return 'dnssec.ds_removable';
  }
  if (to === 'active' && from !== null) return 'dnssec.key_rolled';
  return null;
}

/** a new key stored, with its first key event and the event out it means */
export function makeKey(sql: Sql, key: Parameters<typeof insertKey>[1]): Promise<StoredDnssecKey> {
  return insertKey(sql, key, keyStepEvent({ role: key.role, from: null, to: key.state }));
}

/** a key moved to `state` (with its next plan), with its key event and the event out the step means */
export function stepKey(sql: Sql, key: StoredDnssecKey, state: KeyState, at: Date, reason: KeyEventReason, next?: KeyPlan): Promise<void> {
  return moveKey(sql, key, state, at, reason, keyStepEvent({ role: key.role, from: key.state, to: state }), next);
}

/** a zone unsigned: every key not removed yet is, with what its removal means, and the signing goes (deleteSigning) */
export async function removeAllKeys(sql: Sql, domainId: number, at: Date): Promise<void> {
  const events = new Map<number, KeyStepEventType | null>();
  for (const key of await keysOfZone(sql, domainId))
    if (key.state !== 'removed') events.set(key.id, keyStepEvent({ role: key.role, from: key.state, to: 'removed' }));
  await deleteSigning(sql, domainId, at, events);
}
