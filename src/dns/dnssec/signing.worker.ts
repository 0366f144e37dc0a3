import { parentPort, workerData } from 'node:worker_threads';
import { DNSSEC_ALGORITHMS } from './algorithms';
import type { SigningChunk } from './signing-pool';

/**
 * A thread of SigningPool: takes a chunk offered to every thread unless another took it first, signs each
 * signing input in it (signing-pool.ts writes them whole, the key's Algorithm and Key Tag aside) with each of
 * its keys, and answers, with the same id, the signatures in the chunk's order, each as its length (2 octets)
 * and its octets, in one buffer handed over to the calling thread.
 */
const { number } = workerData as { number: number };

parentPort!.on('message', (chunk: SigningChunk) => {
  if (Atomics.compareExchange(chunk.claim, 0, 0, number) !== 0) return;
  try {
    const keys = chunk.keys.map((key) => ({ algorithm: DNSSEC_ALGORITHMS[key.algorithm], privateKey: key.privateKey, tag: key.tag }));
    const data = Buffer.from(chunk.data);
    const made: Buffer[] = [];
    let size = 0;
    for (let at = 0; at < data.length;) {
      const count = data[at++];
      const keysAt = at;
      at += count;
      const length = data.readUInt32BE(at);
      at += 4;
      const input = data.subarray(at, at + length);
      at += length;
      for (let k = 0; k < count; k++) {
        const key = keys[data[keysAt + k]];
        // RFC 4034 §3.1.2, §3.1.6: the key's Algorithm and Key Tag in the RRSIG RDATA the signature covers
        input[2] = key.algorithm.number;
        input.writeUInt16BE(key.tag, 16);
        const signature = key.algorithm.sign(input, key.privateKey);
        made.push(signature);
        size += 2 + signature.length;
      }
    }
    const answer = Buffer.from(new ArrayBuffer(size));
    let at = 0;
    for (const signature of made) {
      at = answer.writeUInt16BE(signature.length, at);
      at += signature.copy(answer, at);
    }
    parentPort!.postMessage({ id: chunk.id, signatures: answer.buffer }, [answer.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id: chunk.id, error: error instanceof Error ? error.message : String(error) });
  }
});
