import { keyStepEvent, KeyStep } from '../../src/services/dnssec/key-step-events';

/**
 * What each key step means outside (docs/events.md): the table of key-step-events.ts, step by step of each life a
 * key has here (enable, a ZSK roll, a KSK or CSK double-DS roll, an algorithm roll, disabling).
 */
const table: [string, KeyStep, string | null][] = [
  // enable: the first keys are active at once; a KSK's DS is wanted, and the first keys are no roll
  ['enable: the KSK', { role: 'KSK', from: null, to: 'active' }, 'dnssec.ds_required'],
  ['enable: the CSK', { role: 'CSK', from: null, to: 'active' }, 'dnssec.ds_required'],
  ['enable: the ZSK', { role: 'ZSK', from: null, to: 'active' }, null],
  // a ZSK roll (pre-publication)
  ['ZSK roll: the new key published', { role: 'ZSK', from: null, to: 'published' }, null],
  ['ZSK roll: the new key active', { role: 'ZSK', from: 'published', to: 'active' }, 'dnssec.key_rolled'],
  ['ZSK roll: the old key retired', { role: 'ZSK', from: 'active', to: 'retired' }, null],
  ['ZSK roll: the old key removed', { role: 'ZSK', from: 'retired', to: 'removed' }, null],
  // a KSK (or CSK) roll, double-DS: the new DS first, the swap, then the old DS withdrawn
  ['KSK roll: the new key generated', { role: 'KSK', from: null, to: 'generated' }, 'dnssec.ds_required'],
  ['KSK roll: the swap, the new key', { role: 'KSK', from: 'generated', to: 'active' }, 'dnssec.key_rolled'],
  ['KSK roll: the swap, the old key', { role: 'KSK', from: 'active', to: 'retired' }, null],
  ['KSK roll: the old DS withdrawn', { role: 'KSK', from: 'retired', to: 'removed' }, 'dnssec.ds_removable'],
  ['CSK roll: the old DS withdrawn', { role: 'CSK', from: 'retired', to: 'removed' }, 'dnssec.ds_removable'],
  // an algorithm roll: made signing (no DS yet), published, the DS moving, the old keys withdrawn then removed
  ['algorithm roll: the new KSK made', { role: 'KSK', from: null, to: 'signing' }, null],
  ['algorithm roll: the new ZSK made', { role: 'ZSK', from: null, to: 'signing' }, null],
  ['algorithm roll: the new ZSK active', { role: 'ZSK', from: 'signing', to: 'active' }, 'dnssec.key_rolled'],
  ['algorithm roll: the new KSK published', { role: 'KSK', from: 'signing', to: 'published' }, null],
  ['algorithm roll: the new KSK active', { role: 'KSK', from: 'published', to: 'active' }, 'dnssec.ds_required'],
  ['algorithm roll: the new CSK active', { role: 'CSK', from: 'published', to: 'active' }, 'dnssec.ds_required'],
  ['algorithm roll: the old KSK leaves active', { role: 'KSK', from: 'active', to: 'published' }, 'dnssec.ds_removable'],
  ['algorithm roll: the old KSK withdrawn', { role: 'KSK', from: 'published', to: 'withdrawn' }, null],
  ['algorithm roll: the old ZSK withdrawn', { role: 'ZSK', from: 'active', to: 'withdrawn' }, null],
  ['algorithm roll: the old KSK removed', { role: 'KSK', from: 'withdrawn', to: 'removed' }, null],
  // disabling: a key whose DS was wanted lets it go; one whose DS never was, or was let go before, does not
  ['disable: an active KSK', { role: 'KSK', from: 'active', to: 'removed' }, 'dnssec.ds_removable'],
  ['disable: a KSK roll’s generated KSK', { role: 'KSK', from: 'generated', to: 'removed' }, 'dnssec.ds_removable'],
  ['disable: an algorithm roll’s signing KSK', { role: 'KSK', from: 'signing', to: 'removed' }, null],
  ['disable: an algorithm roll’s published KSK', { role: 'KSK', from: 'published', to: 'removed' }, null],
  ['disable: an active ZSK', { role: 'ZSK', from: 'active', to: 'removed' }, null],
];

it.each(table)('%s: %j gives %s', (_what, step, event) => {
  expect(keyStepEvent(step)).toBe(event);
});
