import { parentPort } from 'node:worker_threads';
import { DNSSEC_ALGORITHMS } from './algorithms';
import { canonicalRdata } from './canonical-rdata';
import { ANSWER_SEPARATOR, type SigningChunk } from './signing-pool';
import { signatures, SigningKey } from './zone-signer';

/**
 * A thread of SigningPool: signs one chunk of RRsets per message with the in-thread signer and answers, with
 * the same id, the RRSIG RDATA in the chunk's order.
 */
parentPort!.on('message', ({ id, chunk }: { id: number; chunk: SigningChunk }) => {
  try {
    const keys: SigningKey[] = chunk.keys.map((key) => ({ ...key, algorithm: DNSSEC_ALGORITHMS[key.algorithm] }));
    const rdata: string[] = [];
    for (const r of chunk.rrsets) {
      const rrset = {
        owner: r.owner,
        type: r.type,
        code: r.code,
        ttl: r.ttl,
        records: r.rdata.map((text) => ({ owner: r.owner, type: r.type, ttl: r.ttl, rdata: text })),
      };
      const window = { inception: chunk.inception, expiration: () => r.expiration };
      for (const signature of signatures(chunk.zone, rrset, keys, window, canonicalRdata)) rdata.push(signature.rdata);
    }
    parentPort!.postMessage({ id, rdata: rdata.join(ANSWER_SEPARATOR) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
