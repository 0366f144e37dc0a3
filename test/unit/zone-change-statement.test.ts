import type { Sql } from '../../src/db/pool';
import type { ZoneWrite } from '../../src/repositories/zone-writes';

/**
 * `writeZoneChange` keeps one statement text per shape of an unsigned change (repositories/zone-writes.ts): every
 * change, whatever came before it, must send the text and parameters a build of its own would send.
 */

type Sent = { text: string; params: unknown[] };

/** a connection that records what it is sent and answers as a written change */
function recording(sent: Sent[]): Sql {
  return {
    rows: async (text: string, params?: unknown[]) => {
      sent.push({ text, params: params ?? [] });
      return [{ written: true, inserted: [], signer_inserted: [], quota: null }] as never[];
    },
    affected: async () => 0,
    journalWritten: () => undefined,
  };
}

type Module = typeof import('../../src/repositories/zone-writes');
const fresh = (): Module => {
  let loaded: Module | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<Module>('../../src/repositories/zone-writes');
  });
  return loaded!;
};

const a = (owner: string, rdata: string, ttl = 3600) => ({ owner, type: 'A', ttl, rdata });
const base = (over: Partial<ZoneWrite>): ZoneWrite => ({
  domainId: 7,
  zone: 'example.test',
  serialBefore: 10,
  serialAfter: 11,
  rulesVersion: 0,
  inserts: [],
  deleteIds: [],
  removed: [],
  added: [],
  soa: { id: 1, rdata: 'ns1.example.test. h.example.test. 11 3600 600 86400 300', ttl: 3600 },
  ...over,
});

// changes of every part the statement has, each shape met twice with other records in between
const writes: ZoneWrite[] = [
  base({ inserts: [a('www', '192.0.2.1')], added: [a('www', '192.0.2.1')] }),
  base({ inserts: [a('x', '192.0.2.9')], added: [a('x', '192.0.2.9')], expect: { userId: 3, unknownOwners: ['x', '@'] } }),
  base({ inserts: [a('y', '192.0.2.8')], added: [a('y', '192.0.2.8')], expect: { userId: 3, unknownOwners: [] } }),
  base({ inserts: [a('www', '192.0.2.2')], added: [{ ...a('www', '192.0.2.2'), toggled: true }] }),
  base({ deleteIds: [5], removed: [a('old', '192.0.2.5')] }),
  base({ deleteIds: [5, 6, 8], removed: [a('old', '192.0.2.5'), a('old', '192.0.2.6'), a('old', '192.0.2.8')] }),
  base({ deleteIds: Array.from({ length: 40 }, (_, i) => 100 + i), removed: [] }),
  base({ deleteIds: [5], inserts: [a('new', '192.0.2.7')], removed: [a('old', '192.0.2.5')], added: [a('new', '192.0.2.7')] }),
  base({ update: { id: 9, ...a('www', '192.0.2.3') }, removed: [a('www', '192.0.2.1')], added: [a('www', '192.0.2.3')] }),
  base({ update: { id: 9, owner: 'www', type: 'ALIAS', ttl: 300, rdata: 'target.example.' } }),
  base({ inserts: [{ owner: 'www', type: 'ALIAS', ttl: 300, rdata: 'target.example.' }], added: [] }),
  base({ soa: undefined, update: { id: 1, owner: '@', type: 'SOA', ttl: 3600, rdata: 'ns1. h. 12 3600 600 86400 300' } }),
  base({ inserts: [a('www', '192.0.2.1')], added: [a('www', '192.0.2.1')], kind: 'zone-signed' }),
  base({ inserts: [a('www', '192.0.2.1')], added: [a('www', '192.0.2.1')], defaultMaxRecords: 100, author: { keyId: 1, keyName: 'k' } }),
  // a REPLACE that removes and adds one identity: two statements (the deletes first)
  base({ deleteIds: [5], inserts: [a('www', '192.0.2.1', 60)], removed: [a('www', '192.0.2.1')], added: [a('www', '192.0.2.1', 60)] }),
];

test('every change sends the statement a build of its own sends, whichever shapes came before', async () => {
  const shared = fresh();
  const sentShared: Sent[] = [];
  // twice over, each second one of a shape with other values
  for (const round of [0, 1])
    for (const write of writes) {
      const own: Sent[] = [];
      const varied = round ? { ...write, domainId: 8, serialBefore: 20, serialAfter: 21, zone: 'other.test' } : write;
      sentShared.length = 0;
      await shared.writeZoneChange(recording(sentShared), varied);
      await fresh().writeZoneChange(recording(own), varied);
      expect(sentShared).toEqual(own);
    }
});
