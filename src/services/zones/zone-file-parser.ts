import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseZoneFile, splitPieces, zoneFileReader } from '../../dns/zone-file';
import { DomainError } from '../../errors/catalogue';

export type ParseArguments = Parameters<typeof parseZoneFile>;
export type ParseResult = ReturnType<typeof parseZoneFile>;
/** what the parser sends its worker: a file's start (all but its text), each piece of the text, its end */
export type ParserMessage =
  | { id: number; kind: 'start'; args: Parameters<typeof zoneFileReader> }
  | { id: number; kind: 'piece'; text: string }
  | { id: number; kind: 'end' };
/** what the worker answers each message with */
interface WorkerAnswer {
  id: number;
  more?: boolean;
  result?: ParseResult;
  error?: string;
}

/**
 * The size of the pieces a file is sent to the worker in, one after the other: the worker never holds the whole
 * text (nor the message that would copy it there), and a file refused part way through is sent no further.
 */
export const PIECE_CHARS = 1024 * 1024;

/**
 * Below this size a file parses on the event loop: the parse takes about a millisecond, less than the round
 * trip to the worker. Above it, parsing holds the event loop long enough to be seen: 20,000 records take
 * 70–120 ms, during which /health and every other request wait (bench/RESULTS-import.md).
 */
export const PARSE_INLINE_BELOW_CHARS = 64 * 1024;

/**
 * After a file of this size the worker is ended once idle (started again for the next large file, some 50 ms):
 * a 31 MB file left the worker's heap some 100 MB larger until the next import reused it.
 */
export const RELEASE_AFTER_CHARS = 4 * 1024 * 1024;

/** records a MiB of the parser's heap holds, with room (ZoneFileParser.maxRecords) */
const RECORDS_PER_HEAP_MB = 1_000;

interface Waiting {
  resolve(answer: WorkerAnswer): void;
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

  /**
   * The most records a file may hold in this parser's heap, counted while it is read as a quota is: a record
   * takes some 400 bytes of the heap while the file is parsed (100,000 records, 40 MiB), so a thousand records a
   * MiB leaves room for long ones. Past it, ZONE_FILE_TOO_LARGE at once, where letting the heap fill took the
   * worker a minute of garbage collection before it ran out.
   */
  get maxRecords(): number {
    return this.heapMb * RECORDS_PER_HEAP_MB;
  }

  /** the refusal of a file the parser cannot hold: at its record `line` when the count passed, naming the setting */
  tooLarge(line?: number): DomainError {
    const where = line === undefined ? '' : `line ${line}: `;
    const why =
      line === undefined
        ? `the file's records pass the parser's heap, IMPORT_PARSER_HEAP_MB (${this.heapMb} MiB)`
        : `the file holds more than ${this.maxRecords} records, what the parser's heap holds (IMPORT_PARSER_HEAP_MB, ${this.heapMb} MiB, a thousand records a MiB)`;
    return new DomainError(
      'ZONE_FILE_TOO_LARGE',
      `${where}The zone file holds more records than the parser can hold in IMPORT_PARSER_HEAP_MB (${this.heapMb} MiB): import it in parts (MERGE), or the operator raises IMPORT_PARSER_HEAP_MB`,
      [
        {
          field: 'text',
          code: 'ZONE_FILE_TOO_LARGE',
          message: `${where}${why}`,
          limit: this.heapMb,
          ...(line === undefined ? {} : { line }),
        },
      ],
    );
  }

  async parse(...args: ParseArguments): Promise<ParseResult> {
    if (args[1].length < PARSE_INLINE_BELOW_CHARS) return parseZoneFile(...args);
    const [zone, text, allowedTtls, options] = args;
    const current = this.current ?? this.start();
    const id = ++this.lastId;
    const ask = (message: ParserMessage) =>
      new Promise<WorkerAnswer>((resolve, reject) => {
        current.waiting.set(id, { resolve, reject });
        current.worker.postMessage(message);
      });
    await ask({ id, kind: 'start', args: [zone, allowedTtls, options] });
    for (const piece of splitPieces(text, PIECE_CHARS)) if (!(await ask({ id, kind: 'piece', text: piece })).more) break;
    const { result } = await ask({ id, kind: 'end' });
    // the worker's heap keeps the pages a large file took (its copy of the text, the records) for as long as the
    // worker lives: ended once idle, it gives them back, and the next large file starts a new one
    if (args[1].length >= RELEASE_AFTER_CHARS && current.waiting.size === 0 && this.current === current) {
      this.current = undefined;
      void current.worker.terminate();
    }
    return result!;
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
    worker.on('message', (answer: WorkerAnswer) => {
      const parse = waiting.get(answer.id);
      waiting.delete(answer.id);
      if (answer.error !== undefined) parse?.reject(new Error(`zone-file parser: ${answer.error}`));
      else parse?.resolve(answer);
    });
    const fail = (error: Error) => {
      if (this.current === current) this.current = undefined;
      for (const parse of waiting.values()) parse.reject(error);
      waiting.clear();
    };
    worker.on('error', (error: Error & { code?: string }) => fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? this.tooLarge() : error));
    worker.on('exit', (code) => fail(new Error(`zone-file parser stopped (exit code ${code})`)));
    this.current = current;
    return current;
  }
}
