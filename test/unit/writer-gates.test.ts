import { gatesOf, noteOf, WRITER_GATES, type WriterGates, type WriterKind } from '../../src/services/write-engine/writers';

/**
 * The table of who writes a zone change (write-engine/writers.ts): a change that names no writer is a person's,
 * and a person's change meets every gate that refuses, so a caller that forgets its writer is held to more gates,
 * never fewer. The integration tests hold each gate's behaviour (review, guards, rates, secondary zones…).
 */

const KINDS = Object.keys(WRITER_GATES) as WriterKind[];
/** the gates that refuse or bind a change when true */
const REFUSING: (keyof WriterGates)[] = [
  'review',
  'protectedRrsets',
  'steeredRrsets',
  'derivedRows',
  'rate',
  'quota',
  'views',
  'unresolvableAlias',
];

test('a change that names no writer meets a person’s gates', () => {
  expect(gatesOf(undefined)).toBe(WRITER_GATES.person);
  expect(gatesOf({ kind: 'person' })).toBe(WRITER_GATES.person);
});

test('a person’s change meets every refusing gate, and no other writer meets one a person does not', () => {
  for (const gate of REFUSING) expect([gate, WRITER_GATES.person[gate]]).toEqual([gate, true]);
  expect(WRITER_GATES.person.secondary).toBe('refused');
  expect(WRITER_GATES.person.signalRecords).toBe(false);
});

test('a secondary zone takes a transfer whole and the flattened addresses of its ALIAS records, nothing else', () => {
  const taken = KINDS.filter((kind) => WRITER_GATES[kind].secondary !== 'refused');
  expect(taken.sort()).toEqual(['alias', 'transfer']);
  expect(WRITER_GATES.transfer.secondary).toBe('all');
  expect(WRITER_GATES.alias.secondary).toBe('flattened');
});

test('a writer whose history names a note carries one; the signer’s step names nobody and is journalled zone-signed', () => {
  expect(KINDS.filter((kind) => WRITER_GATES[kind].author === 'note').sort()).toEqual(['alias', 'bootstrap', 'service']);
  expect(noteOf({ kind: 'service', note: 'steering' })).toBe('steering');
  expect(noteOf({ kind: 'person' })).toBeUndefined();
  expect(KINDS.filter((kind) => WRITER_GATES[kind].journal === 'zone-signed')).toEqual(['signer']);
  expect(WRITER_GATES.signer.author).toBe('none');
});

test('a change of the zone’s rules passes review, takes no rate and runs alone in the zone queue', () => {
  expect(WRITER_GATES.rules).toMatchObject({ review: false, rate: false, batched: false });
  expect(KINDS.filter((kind) => !WRITER_GATES[kind].batched)).toEqual(['rules']);
});
