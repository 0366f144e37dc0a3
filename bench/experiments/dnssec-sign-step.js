'use strict';
// Experiment (not the service; no `npm run` script runs it): the CPU of the signer's part of a signed
// single-record write, in-process and without PostgreSQL, so that a change to it shows on a busy machine where
// the end-to-end CPU per write (dnssec-write-cpu.js) moves by ±25 % from one run to the next:
//   node bench/experiments/dnssec-sign-step.js [<checkout> …]    (after `npm run build` in each)
// For each checkout's build in turn, alternating, 6 rounds: a zone of 1,000 A records signed whole (ECDSA
// P-256 KSK and ZSK, NSEC), then 2,000 writes of a new owner's A record as the write engine signs them: the
// questions told for the zone's read (`questionsAbout`) and for the decided change (`questionsOf`),
// `signChange` over a view held in memory, and the rows staged (`signerRows`). Prints µs of CPU per write,
// with and without the four signatures (their share measured apart).
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROUNDS = 6;
const WRITES = 2000;

function child(root) {
  const d = (p) => require(path.join(root, 'dist', 'src', p));
  const { DNSSEC_ALGORITHMS } = d('dns/dnssec/algorithms');
  const { canonicalRdata } = d('dns/dnssec/canonical-rdata');
  const { questionsAbout, questionsOf, signChange } = d('dns/dnssec/incremental');
  const { dnskeyOf, dnskeyTag } = d('dns/dnssec/keys');
  const { signZone } = d('dns/dnssec/zone-signer');
  const { chainKeyOf } = d('dns/dnssec/signer-records');
  const zoneSigning = d('services/dnssec/zone-signing');
  const ZONE = 'step.example';
  const algorithm = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
  const keys = ['KSK', 'ZSK'].map((role) => {
    const privateKey = algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, role === 'KSK');
    return { role, algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
  });
  const now = Math.floor(Date.now() / 1000);
  const window = { inception: now - 3600, expiration: () => now + 14 * 86400 - Math.floor(Math.random() * 86400) };
  const denial = { kind: 'nsec' };
  const soa = (serial) => ({
    owner: '@',
    type: 'SOA',
    ttl: 3600,
    rdata: `ns1.step.example. hostmaster.step.example. ${serial} 7200 3600 1209600 300`,
  });
  const records = [soa(1), { owner: '@', type: 'NS', ttl: 3600, rdata: 'ns1.step.example.' }];
  for (let i = 0; i < 1000; i++) records.push({ owner: `pre${i}`, type: 'A', ttl: 3600, rdata: `10.${(i >> 8) & 255}.${i & 255}.1` });
  const signer = signZone(ZONE, records, keys, denial, window, canonicalRdata).map((r, id) => ({ ...r, id: id + 1 }));
  const byOwner = (list) => {
    const map = new Map();
    for (const r of list) map.set(r.owner, [...(map.get(r.owner) ?? []), r]);
    return map;
  };
  const stored = byOwner([...records, ...signer.filter((r) => r.type === 'DNSKEY')]);
  const signerAt = byOwner(signer.filter((r) => r.type !== 'DNSKEY'));
  const members = signer
    .filter((r) => r.type === 'NSEC')
    .map((r) => ({ owner: r.owner, key: Buffer.from(chainKeyOf(ZONE, r)) }))
    .sort((a, b) => Buffer.compare(a.key, b.key));
  const around = (key, step) => {
    let lo = 0;
    let hi = members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Buffer.compare(members[mid].key, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (step === 1) {
      const at = lo < members.length && members[lo].key.equals(key) ? lo + 1 : lo;
      return members[at % members.length];
    }
    return members[(lo - 1 + members.length) % members.length];
  };
  const removals = zoneSigning.signerRemovals ?? ((rs) => zoneSigning.signerRows(ZONE, rs));
  let serial = 1;
  const write = (i, sign) => {
    const owner = `w${i}x${serial}`;
    const oldSoa = soa(serial);
    const change = { removed: [oldSoa], added: [soa(++serial), { owner, type: 'A', ttl: 3600, rdata: `192.0.2.${i % 250}` }] };
    questionsAbout(ZONE, [owner, '@'], denial);
    questionsOf(ZONE, change, denial);
    const view = {
      recordsAt: async (o) => {
        const kept = (stored.get(o) ?? []).filter((r) => !(o === '@' && r.type === 'SOA'));
        return [...kept, ...change.added.filter((r) => r.owner === o)];
      },
      hasDescendants: async () => false,
      signerRecordsAt: async (o) => signerAt.get(o) ?? [],
      chainPredecessor: async (key) => around(key, -1),
      chainSuccessor: async (key) => around(key, 1),
    };
    const signingKeys = sign ? keys : keys.map((k) => ({ ...k, algorithm: { ...k.algorithm, sign: () => Buffer.alloc(64, 1) } }));
    return signChange(ZONE, change, view, signingKeys, denial, window, canonicalRdata).then((diff) => {
      removals(diff.removed);
      zoneSigning.signerRows(ZONE, diff.added);
    });
  };
  return (async () => {
    for (let i = 0; i < 500; i++) await write(i, true);
    const out = {};
    for (const sign of [true, false]) {
      const t = process.cpuUsage();
      for (let i = 0; i < WRITES; i++) await write(i, sign);
      const u = process.cpuUsage(t);
      out[sign ? 'signed' : 'noCrypto'] = (u.user + u.system) / WRITES;
    }
    process.stdout.write(JSON.stringify(out));
  })();
}

if (process.argv[2] === '--child') {
  child(process.argv[3]).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  const roots = process.argv.length > 2 ? process.argv.slice(2) : [path.resolve(__dirname, '..', '..')];
  const results = new Map(roots.map((r) => [r, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const root of round % 2 ? [...roots].reverse() : roots) {
      const r = JSON.parse(execFileSync(process.execPath, [__filename, '--child', root], { encoding: 'utf8' }));
      results.get(root).push(r);
      console.log(`${root}: ${r.signed.toFixed(1)} µs per write, ${r.noCrypto.toFixed(1)} µs without the signatures`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [root, rs] of results)
    console.log(
      `median ${root}: ${median(rs.map((r) => r.signed)).toFixed(1)} µs per write, ${median(rs.map((r) => r.noCrypto)).toFixed(1)} µs without the signatures`,
    );
}
