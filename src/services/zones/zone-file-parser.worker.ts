import { parentPort } from 'node:worker_threads';
import { ZoneFileReader, zoneFileReader } from '../../dns/zone-file';
import type { ParserMessage } from './zone-file-parser';

/**
 * The worker thread of ZoneFileParser: reads each file piece by piece as the parser sends them, and answers each
 * message with the same id: whether to send more after a piece, the result after the end.
 */
const readers = new Map<number, ZoneFileReader>();
parentPort!.on('message', (message: ParserMessage) => {
  const { id } = message;
  try {
    if (message.kind === 'start') {
      readers.set(id, zoneFileReader(...message.args));
      parentPort!.postMessage({ id, more: true });
    } else if (message.kind === 'piece') {
      parentPort!.postMessage({ id, more: readers.get(id)!.read(message.text) });
    } else {
      const reader = readers.get(id)!;
      readers.delete(id);
      parentPort!.postMessage({ id, result: reader.end() });
    }
  } catch (error) {
    readers.delete(id);
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
