import { Migration } from '@mikro-orm/migrations';

/**
 * An algorithm rollover (RFC 6781 §4.1.4, RFC 7583 §3.4, the conservative approach; docs/dnssec.md
 * «Algorithm rollover») gives keys two states of their own, and its key events a reason:
 *
 * - `signing`: a key of the new algorithm that signs the zone before its DNSKEY is published, so every
 *   resolver holds signatures of both algorithms by the time the DNSKEY RRset names the new one;
 * - `withdrawn`: a key of the old algorithm whose DNSKEY has left the RRset and that still signs, until no
 *   resolver holds the DNSKEY RRset that named it;
 * - `algorithm-roll`: the reason of the new keys' first step.
 *
 * A KSK in the existing state `published` is, in such a roll, in the DNSKEY RRset and signing with no DS at
 * the parent (the new KSK before its DS, the old one after its DS was replaced).
 */
const STATES_BEFORE = `'generated', 'published', 'ready', 'active', 'retired', 'removed'`;
const STATES = `${STATES_BEFORE}, 'signing', 'withdrawn'`;
const REASONS_BEFORE = `'enabled', 'rolled-by-hand', 'lifetime', 'scheduled', 'ds-seen', 'ds-confirmed', 'disabled'`;
const REASONS = `${REASONS_BEFORE}, 'algorithm-roll'`;

export class Migration20261202000000_dnssec_algorithm_roll extends Migration {
  override async up(): Promise<void> {
    this.constraints(STATES, REASONS);
  }

  override async down(): Promise<void> {
    this.constraints(STATES_BEFORE, REASONS_BEFORE);
  }

  private constraints(states: string, reasons: string): void {
    this.addSql(`alter table "dnssec_keys" drop constraint "dnssec_keys_state_check",
      add constraint "dnssec_keys_state_check" check ("state" in (${states}));`);
    this.addSql(`alter table "dnssec_key_events" drop constraint "dnssec_key_events_from_state_check",
      add constraint "dnssec_key_events_from_state_check" check ("from_state" in (${states})),
      drop constraint "dnssec_key_events_to_state_check",
      add constraint "dnssec_key_events_to_state_check" check ("to_state" in (${states})),
      drop constraint "dnssec_key_events_reason_check",
      add constraint "dnssec_key_events_reason_check" check ("reason" in (${reasons}));`);
  }
}
