import { parentPort } from 'node:worker_threads';
import { parseZoneFile } from '../dns/zone-file';
import type { ParseArguments } from './zone-file-parser';

/** The worker thread of ZoneFileParser: parses one file per message and answers with the same id. */
parentPort!.on('message', ({ id, args }: { id: number; args: ParseArguments }) => {
  try {
    parentPort!.postMessage({ id, result: parseZoneFile(...args) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
