import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseZoneFile } from '../dns/zone-file';
import { DomainError } from '../errors/catalogue';

export type ParseArguments = Parameters<typeof parseZoneFile>;
export type ParseResult = ReturnType<typeof parseZoneFile>;

/**
 * Below this size a file parses on the event loop: the parse takes about a millisecond, less than the round
 * trip to the worker. Above it, parsing holds the event loop long enough to be seen: 20,000 records take
 * 70–120 ms, during which /health and every other request wait (bench/RESULTS-import.md).
 */
export const PARSE_INLINE_BELOW_CHARS = 64 * 1024;

interface Waiting {
  resolve(result: ParseResult): void;
  reject(error: Error): void;
}

/**
 * Parses zone files (src/dns/zone-file.ts) on a worker thread, so that a large import does not hold the event
 * loop. One worker per process, started on the first large file and kept: files are parsed one after another,
 * which also bounds the memory that concurrent imports of large files can take. The worker's old generation is
 * held to `heapMb` (IMPORT_PARSER_HEAP_MB): a file whose records it cannot hold (the admin's, which no record
 * quota stops while it is read) ends the worker, not the process, and is refused as ZONE_FILE_TOO_LARGE, naming
 * the setting. A worker that dies fails the parses it held and is started again for the next one.
 */
export class ZoneFileParser {
  private current?: { worker: Worker; waiting: Map<number, Waiting> };
  private lastId = 0;

  constructor(private readonly heapMb: number) {}

  async parse(...args: ParseArguments): Promise<ParseResult> {
    if (args[1].length < PARSE_INLINE_BELOW_CHARS) return parseZoneFile(...args);
    const { worker, waiting } = this.current ?? this.start();
    const id = ++this.lastId;
    return new Promise<ParseResult>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, args });
    });
  }

  /** stops the worker; parses still waiting fail */
  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (current) await current.worker.terminate();
  }

  private start(): { worker: Worker; waiting: Map<number, Waiting> } {
    const extension = path.extname(__filename);
    const worker = new Worker(path.join(__dirname, `zone-file-parser.worker${extension}`), {
      // under the tests the sources run as TypeScript (jest's swc transform); the worker loads them through
      // swc's require hook, the same compiler
      execArgv: extension === '.ts' ? ['--require', '@swc-node/register'] : [],
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
    worker.unref(); // an idle parser never keeps the process alive
    // the parses this worker holds: when it dies, they fail, and the next parse starts a new worker
    const waiting = new Map<number, Waiting>();
    const current = { worker, waiting };
    worker.on('message', ({ id, result, error }: { id: number; result?: ParseResult; error?: string }) => {
      const parse = waiting.get(id);
      waiting.delete(id);
      if (error !== undefined) parse?.reject(new Error(`zone-file parser: ${error}`));
      else parse?.resolve(result!);
    });
    const fail = (error: Error) => {
      if (this.current === current) this.current = undefined;
      for (const parse of waiting.values()) parse.reject(error);
      waiting.clear();
    };
    worker.on('error', (error: Error & { code?: string }) =>
      fail(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new DomainError(
              'ZONE_FILE_TOO_LARGE',
              `The zone file holds more records than the parser can hold in IMPORT_PARSER_HEAP_MB (${this.heapMb} MiB): import it in parts (MERGE), or the operator raises IMPORT_PARSER_HEAP_MB`,
              [
                {
                  field: 'text',
                  code: 'ZONE_FILE_TOO_LARGE',
                  message: `the file's records pass the parser's heap, IMPORT_PARSER_HEAP_MB (${this.heapMb} MiB)`,
                  limit: this.heapMb,
                },
              ],
            )
          : error,
      ),
    );
    worker.on('exit', (code) => fail(new Error(`zone-file parser stopped (exit code ${code})`)));
    this.current = current;
    return current;
  }
}
