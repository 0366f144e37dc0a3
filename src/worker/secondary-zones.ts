/**
 * Secondary zones' refresh (docs/transfers.md): the worker takes each secondary zone from its primaries as a
 * secondary server does (RFC 1035 §3.3.13, RFC 1996 §4, RFC 5936).
 *
 * - due zones (`secondary_zone_state.next_refresh_at` passed) are claimed with SKIP LOCKED and leased, so any
 *   number of workers share them; a NOTIFY from a primary (the primary's edge, noteNotify) makes the zone due
 *   now and wakes the workers on SECONDARY_CHANNEL; a poll every POLL_MS is the fallback
 * - the primaries are asked in their order: the SOA first; a zone never transferred is taken whole by AXFR
 *   (RFC 5936); a serial greater than ours (RFC 1982) by IXFR from our serial (RFC 1995: the differences
 *   applied, applyIncremental), or whole when the primary answers IXFR in AXFR form, refuses IXFR, or sends
 *   differences that do not fit our copy (then AXFR); either way written through the write engine as one change
 * - up to CLAIM_BATCH zones are refreshed at once per worker, each transfer bounded by DEFAULT_TRANSFER_LIMITS
 * - success: next refresh after the SOA's REFRESH (or its EXPIRE, if shorter), expiry after its EXPIRE; failure
 *   at every primary: again after its RETRY or at the expiry, whichever comes first, and past the expiry the
 *   zone is `expired` and no longer served: it leaves its catalog in the same transaction, so our fleet drops
 *   it too, and rejoins it with the refresh that serves it again (write-engine/catalog.ts)
 * - the expiry does not wait for a refresh to fail: every POLL_MS, apart from the refreshes (which can take
 *   minutes: several primaries, SOA then IXFR then AXFR, each transfer up to its timeout, after a wait for a
 *   transfer turn), any served zone whose EXPIRE has passed is made `expired` and leaves its catalog the same
 *   way, whatever its lease (`expireOverdue`); the refresh under way records its outcome after (one that works
 *   serves it again and it rejoins)
 */
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import { noteDatabaseFailure } from '../db/availability';
import { serialGreaterThan } from '../dns/serial';
import type { Logger } from '../logger';
import { claimDueSecondaries, DueSecondary, overdueSecondaries, SECONDARY_CHANNEL, zonePrimaries } from '../repositories/secondary-zones';
import { applyIncremental, applyTransfer, serverName } from '../services/secondary-zones.service';
import { expireOverdueSecondary, recordFailedRefresh, recordWorkingRefresh } from '../services/write-engine';
import { withSerial } from '../dns/zone-rules';
import { axfr, inTransferTurn, ixfr, primarySoa, TransferError, TransferSource, ZoneTooLarge } from './zone-transfer-in';

const POLL_MS = 1000;
const CLAIM_BATCH = 10;
/** zones past their EXPIRE read at once by `expireOverdue` (each then expires in a transaction of its own) */
const EXPIRE_BATCH = 100;
/** longer than a transfer may take (DEFAULT_TRANSFER_LIMITS.timeoutMs) */
const LEASE_SECONDS = 150;
/** the shortest wait between two refreshes, whatever the SOA says (a REFRESH or RETRY of 0 would loop) */
const MIN_TIMER_SECONDS = 1;

const atLeast = (seconds: number) => Math.max(MIN_TIMER_SECONDS, Number.isFinite(seconds) ? seconds : MIN_TIMER_SECONDS);

/** the SOA's timers (RDATA fields 4–6, RFC 1035 §3.3.13), held at MIN_TIMER_SECONDS or more */
function timersOf(soaRdata: string): { refresh: number; retry: number; expire: number } {
  const fields = soaRdata.trim().split(/\s+/).map(Number);
  return { refresh: atLeast(fields[3]), retry: atLeast(fields[4]), expire: atLeast(fields[5]) };
}

/** what a refresh took: the SOA (its timers set the next refresh) and whether records were taken (a transfer) */
interface Taken {
  soa: string;
  transferred: boolean;
}

export class SecondaryZonesWorker {
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;
  private running = false;
  private again = false;
  private expiring = false;
  private stopped = false;
  /** counters, for tests: transfers that took something (not a refresh that found the zone current), failed refreshes, expiries */
  readonly stats = { transfers: 0, failures: 0, expiries: 0 };

  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.notifications.subscribe(SECONDARY_CHANNEL, () => void this.run());
    this.timer = setInterval(() => {
      void this.run();
      void this.expireOverdue();
    }, POLL_MS);
    void this.run();
    void this.expireOverdue();
  }

  /**
   * The served zones whose EXPIRE has passed stop being served now (RFC 1035 §3.3.13), each leaving its catalog
   * in its own transaction (`expireOverdueSecondary`), whatever their lease: not after the refresh under way, which
   * can take minutes, nor after the one this process has not started yet. Runs apart from `run` (which waits for
   * the refreshes), every POLL_MS: a zone stops being served within a poll of its expiry.
   */
  async expireOverdue(): Promise<void> {
    if (this.stopped || this.expiring) return;
    this.expiring = true;
    try {
      for (let found = EXPIRE_BATCH; found === EXPIRE_BATCH && !this.stopped;) {
        const overdue = await overdueSecondaries(this.db, EXPIRE_BATCH);
        found = overdue.length;
        for (const zone of overdue) {
          if (!(await this.db.transaction((sql) => expireOverdueSecondary(sql, this.settings, zone)))) continue;
          this.stats.expiries++;
          this.log.warn({ zone: zone.name }, 'secondary zone: EXPIRE passed before a refresh worked: expired, no longer served');
        }
      }
    } catch (error) {
      if (!noteDatabaseFailure(error, 'secondary zones')) this.log.error({ err: error }, 'secondary zones: expiring zones failed');
    } finally {
      this.expiring = false;
    }
  }

  /** refreshes the due zones, batch after batch; a wake-up meanwhile runs it once more */
  async run(): Promise<void> {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        for (let claimed = CLAIM_BATCH; claimed === CLAIM_BATCH && !this.stopped;) {
          const due = await claimDueSecondaries(this.db, CLAIM_BATCH, LEASE_SECONDS);
          claimed = due.length;
          await Promise.all(due.map((zone) => this.refresh(zone)));
        }
      } while (this.again && !this.stopped);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'secondary zones')) this.log.error({ err: error }, 'secondary zones: refresh round failed');
    } finally {
      this.running = false;
    }
  }

  /** one zone: its primaries in order until one answers; the outcome recorded */
  private async refresh(zone: DueSecondary): Promise<void> {
    const problems: string[] = [];
    for (const primary of await zonePrimaries(this.db, zone.id)) {
      const source = { host: primary.address, port: primary.port, key: primary.key };
      const from = serverName(source);
      if (primary.keyRevoked) {
        problems.push(`${from}: its TSIG key ${primary.tsigKeyName} is revoked`);
        continue;
      }
      try {
        const soa = await primarySoa(source, zone.name);
        if (zone.loaded && !serialGreaterThan(soa.serial, zone.serial)) {
          await this.recordWorking(zone, { refresh: atLeast(soa.refresh), expire: atLeast(soa.expire) }, false);
          return;
        }
        const taken = (zone.loaded && (await this.incremental(zone, source, from))) || (await this.whole(zone, source, from));
        // an IXFR that found us current took nothing: not a transfer
        await this.recordWorking(zone, timersOf(taken.soa), taken.transferred);
        if (taken.transferred) this.stats.transfers++;
        return;
      } catch (error) {
        if (noteDatabaseFailure(error, 'secondary zones')) throw error;
        problems.push((error as Error).message);
      }
    }
    this.stats.failures++;
    const reason = problems.join('; ') || 'the zone has no primaries';
    // an expired zone leaves its catalog in the same transaction: the fleet stops serving it with us
    const state = await this.db.transaction((sql) => recordFailedRefresh(sql, this.settings, zone, reason, timersOf(zone.soa).retry));
    this.log.warn({ zone: zone.name, state, reason }, 'secondary zone: refresh failed at every primary');
  }

  /** a refresh that worked; an expired zone, served again, rejoins its catalog in the same transaction */
  private recordWorking(zone: DueSecondary, timers: { refresh: number; expire: number }, transferred: boolean): Promise<void> {
    return this.db.transaction((sql) => recordWorkingRefresh(sql, this.settings, zone, timers, transferred));
  }

  /**
   * IXFR from our serial (RFC 1995): the differences applied, or the whole zone when the primary answers in AXFR
   * form; undefined when it cannot be done incrementally (the primary refuses IXFR, the differences do not fit our
   * copy): the caller then takes the zone whole. Returns the SOA taken, and whether anything was (not when the
   * primary answered that we are current).
   */
  private async incremental(zone: DueSecondary, source: TransferSource, from: string): Promise<Taken | undefined> {
    try {
      // the transfer and its write in one of the process's turns: what they hold is bounded (zone-transfer-in.ts)
      return await inTransferTurn(async () => {
        const result = await ixfr(source, zone.name, { rdata: withSerial(zone.soa, zone.serial), ttl: zone.soaTtl });
        if (result.kind === 'up-to-date') return { soa: result.soa.rdata, transferred: false };
        if (result.kind === 'whole') await applyTransfer(this.db, this.settings, zone, `${from} (IXFR, whole)`, result);
        else await applyIncremental(this.db, this.settings, zone, `${from} (IXFR)`, result);
        this.log.info({ zone: zone.name, from, serial: result.soa.value.serial, kind: result.kind }, 'secondary zone transferred (IXFR)');
        return { soa: result.soa.rdata, transferred: true };
      });
    } catch (error) {
      // a zone the IXFR sent whole and past the bounds would stop the same way by AXFR: not asked again
      if (!(error instanceof TransferError) || error instanceof ZoneTooLarge) throw error;
      this.log.info({ zone: zone.name, from, reason: error.message }, 'secondary zone: IXFR not taken, transferring whole (AXFR)');
      return undefined;
    }
  }

  /** AXFR (RFC 5936): the whole zone; returns the SOA taken */
  private async whole(zone: DueSecondary, source: TransferSource, from: string): Promise<Taken> {
    const transferred = await inTransferTurn(async () => {
      const taken = await axfr(source, zone.name);
      await applyTransfer(this.db, this.settings, zone, `${from} (AXFR)`, taken);
      return taken;
    });
    this.log.info(
      { zone: zone.name, from, serial: transferred.soa.value.serial, records: transferred.records.length },
      'secondary zone transferred (AXFR)',
    );
    return { soa: transferred.soa.rdata, transferred: true };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unlisten?.();
    while (this.running || this.expiring) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
