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
 * - up to CLAIM_BATCH zones are refreshed at once per worker, each transfer bounded by DEFAULT_TRANSFER_LIMITS, and
 *   claimed as slots free: whenever a refresh ends (or a NOTIFY wakes the worker, or the poll ticks) the worker
 *   claims as many due zones as it has free slots, so a primary that stalls holds one slot, not the worker; the
 *   leases of the refreshes under way are renewed every RENEW_MS, so no other worker claims a zone being
 *   refreshed however long it takes (a worker that dies stops renewing: its zones are claimed after the lease);
 *   a refresh stops at its next step past REFRESH_DEADLINE_MS and is recorded as failed
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
import {
  claimDueSecondaries,
  DueSecondary,
  overdueSecondaries,
  renewSecondaryLeases,
  zonePrimaries,
} from '../repositories/secondary-zones';
import { applyIncremental, applyTransfer, serverName } from '../services/transfers/secondary-zones.service';
import type { WriteEngine } from '../services/write-engine';
import { withSerial } from '../dns/zone-rules';
import { reportDutyFailure } from './duties';
import { axfr, inTransferTurn, ixfr, primarySoa, TransferError, TransferSource, ZoneTooLarge } from '../dns-client/zone-transfer-in';

export const POLL_MS = 1000;
/** the refreshes a worker has under way at most (each holding a slot from its claim to its outcome) */
const CLAIM_BATCH = 10;
/** zones past their EXPIRE read at once by `expireOverdue` (each then expires in a transaction of its own) */
const EXPIRE_BATCH = 100;
/**
 * a claimed zone's lease, renewed every RENEW_MS while its refresh is under way (a refresh can take longer: several
 * primaries, each an SOA query, an IXFR and an AXFR of up to DEFAULT_TRANSFER_LIMITS.timeoutMs, after a wait for a
 * transfer turn); what a worker that died holds is claimed again this long after its last renewal
 */
const LEASE_SECONDS = 150;
/**
 * how often the leases of the refreshes under way are renewed (one statement for them all): well inside
 * LEASE_SECONDS, so that renewals failing for a while (a database failover) do not let the leases lapse
 */
export const RENEW_MS = 10_000;
/**
 * A refresh's whole time: past it, it stops at its next step (before the next primary, SOA query or transfer, and
 * when a transfer turn comes), and is recorded as failed with what its primaries did so far. Without it, one
 * zone's refresh could hold its slot for most of an hour (up to 10 primaries, each 2 s for the SOA and 120 s for
 * the IXFR and for the AXFR, plus the waits for a transfer turn). The step under way is not cut (the transfers
 * have their own limits, DEFAULT_TRANSFER_LIMITS): the refresh ends at most one such step past it.
 */
const REFRESH_DEADLINE_MS = 10 * 60_000;
/** how a failed renewal of the leases is told (the duty's, duties/secondary-zones.ts, and at the stop) */
export const LEASE_RENEWAL = {
  name: 'secondary zone leases',
  where: 'secondary zones',
  failure: { level: 'error', message: 'secondary zones: renewing leases failed' },
} as const;
/** the shortest wait between two refreshes, whatever the SOA says (a REFRESH or RETRY of 0 would loop) */
const MIN_TIMER_SECONDS = 1;

const atLeast = (seconds: number) => Math.max(MIN_TIMER_SECONDS, Number.isFinite(seconds) ? seconds : MIN_TIMER_SECONDS);

/** the SOA's timers (RDATA fields 4–6, RFC 1035 §3.3.13), held at MIN_TIMER_SECONDS or more */
function timersOf(soaRdata: string): { refresh: number; retry: number; expire: number } {
  const fields = soaRdata.trim().split(/\s+/).map(Number);
  return { refresh: atLeast(fields[3]), retry: atLeast(fields[4]), expire: atLeast(fields[5]) };
}

/** a refresh past REFRESH_DEADLINE_MS: it stops at its next step */
class PastDeadline extends Error {}

/** what a refresh took: the SOA (its timers set the next refresh) and whether records were taken (a transfer) */
interface Taken {
  soa: string;
  transferred: boolean;
}

export class SecondaryZonesWorker {
  /** the refreshes under way (each holding a slot until it ends), with their zones' ids */
  private readonly inFlight = new Map<Promise<void>, number>();
  private stopped = false;
  /** counters, for tests: transfers that took something (not a refresh that found the zone current), failed refreshes, expiries */
  readonly stats = { transfers: 0, failures: 0, expiries: 0 };

  /** `wakeClaims`: asks the claims' duty for a run (duties/secondary-zones.ts), when a refresh frees its slot */
  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    private readonly wakeClaims: () => void,
    /** the write engine of the process's database (services/index.ts): the transfers and the catalogs go through it */
    private readonly engine: WriteEngine,
  ) {}

  /**
   * The served zones whose EXPIRE has passed stop being served now (RFC 1035 §3.3.13), each leaving its catalog
   * in its own transaction (`expireOverdueSecondary`), whatever their lease: not after the refresh under way, which
   * can take minutes, nor after the one this process has not started yet. Runs apart from the refreshes, every
   * POLL_MS: a zone stops being served within a poll of its expiry.
   */
  async expireOverdue(signal?: AbortSignal): Promise<void> {
    for (let found = EXPIRE_BATCH; found === EXPIRE_BATCH && !this.stopped && !signal?.aborted;) {
      const overdue = await overdueSecondaries(this.db, EXPIRE_BATCH);
      found = overdue.length;
      for (const zone of overdue) {
        if (!(await this.db.transaction((sql) => this.engine.expireOverdueSecondary(sql, this.settings, zone)))) continue;
        this.stats.expiries++;
        this.log.warn({ zone: zone.name }, 'secondary zone: EXPIRE passed before a refresh worked: expired, no longer served');
      }
    }
  }

  /**
   * Claims as many due zones as there are free slots (CLAIM_BATCH less the refreshes under way) and starts their
   * refreshes, without waiting for them: each frees its slot when it ends and claims again (a wake-up while
   * claiming claims once more: the duty's runner runs it again after).
   */
  async claim(signal?: AbortSignal): Promise<void> {
    const stopping = () => this.stopped || signal?.aborted === true;
    for (let free = CLAIM_BATCH - this.inFlight.size; free > 0 && !stopping(); free = CLAIM_BATCH - this.inFlight.size) {
      const due = await claimDueSecondaries(this.db, free, LEASE_SECONDS);
      for (const zone of due) this.begin(zone);
      if (due.length < free) break;
    }
  }

  /** the zone's refresh, in a slot of its own until it ends; then the worker claims again */
  private begin(zone: DueSecondary): void {
    const refresh: Promise<void> = this.refresh(zone)
      .catch((error: unknown) => {
        // its lease stays, unrenewed: the zone is claimed again when it lapses, as a dead worker's
        if (!noteDatabaseFailure(error, 'secondary zones'))
          this.log.error({ err: error, zone: zone.name }, 'secondary zone: refresh failed');
      })
      .finally(() => {
        this.inFlight.delete(refresh);
        this.wakeClaims();
      });
    this.inFlight.set(refresh, zone.id);
  }

  /** renews the leases of the refreshes under way, in one statement (renewSecondaryLeases) */
  async renewLeases(): Promise<void> {
    if (this.inFlight.size) await renewSecondaryLeases(this.db, [...this.inFlight.values()], LEASE_SECONDS);
  }

  /** one zone: its primaries in order until one answers, or REFRESH_DEADLINE_MS passes; the outcome recorded */
  private async refresh(zone: DueSecondary): Promise<void> {
    const deadline = Date.now() + REFRESH_DEADLINE_MS;
    const inTime = (step: string) => {
      if (Date.now() > deadline)
        throw new PastDeadline(`the refresh took longer than ${REFRESH_DEADLINE_MS / 60_000} minutes (stopped before ${step})`);
    };
    const problems: string[] = [];
    for (const primary of await zonePrimaries(this.db, zone.id)) {
      const source = { host: primary.address, port: primary.port, key: primary.key };
      const from = serverName(source);
      if (primary.keyRevoked) {
        problems.push(`${from}: its TSIG key ${primary.tsigKeyName} is revoked`);
        continue;
      }
      try {
        inTime(`the SOA query to ${from}`);
        const soa = await primarySoa(source, zone.name);
        if (zone.loaded && !serialGreaterThan(soa.serial, zone.serial)) {
          await this.recordWorking(zone, { refresh: atLeast(soa.refresh), expire: atLeast(soa.expire) }, false);
          return;
        }
        // the transfers check the deadline when their turn comes (the wait for it is the step that can be long)
        const taken =
          (zone.loaded && (await this.incremental(zone, source, from, inTime))) || (await this.whole(zone, source, from, inTime));
        // an IXFR that found us current took nothing: not a transfer
        await this.recordWorking(zone, timersOf(taken.soa), taken.transferred);
        if (taken.transferred) this.stats.transfers++;
        return;
      } catch (error) {
        if (noteDatabaseFailure(error, 'secondary zones')) throw error;
        problems.push((error as Error).message);
        if (error instanceof PastDeadline) break;
      }
    }
    this.stats.failures++;
    const reason = problems.join('; ') || 'the zone has no primaries';
    // an expired zone leaves its catalog in the same transaction: the fleet stops serving it with us
    const state = await this.db.transaction((sql) =>
      this.engine.recordFailedRefresh(sql, this.settings, zone, reason, timersOf(zone.soa).retry),
    );
    this.log.warn({ zone: zone.name, state, reason }, 'secondary zone: refresh failed at every primary');
  }

  /** a refresh that worked; an expired zone, served again, rejoins its catalog in the same transaction */
  private recordWorking(zone: DueSecondary, timers: { refresh: number; expire: number }, transferred: boolean): Promise<void> {
    return this.db.transaction((sql) => this.engine.recordWorkingRefresh(sql, this.settings, zone, timers, transferred));
  }

  /**
   * IXFR from our serial (RFC 1995): the differences applied, or the whole zone when the primary answers in AXFR
   * form; undefined when it cannot be done incrementally (the primary refuses IXFR, the differences do not fit our
   * copy): the caller then takes the zone whole. Returns the SOA taken, and whether anything was (not when the
   * primary answered that we are current).
   */
  private async incremental(
    zone: DueSecondary,
    source: TransferSource,
    from: string,
    inTime: (step: string) => void,
  ): Promise<Taken | undefined> {
    try {
      // the transfer and its write in one of the process's turns: what they hold is bounded (zone-transfer-in.ts)
      return await inTransferTurn(async () => {
        // the turn may come past the deadline: then passed on at once
        inTime(`the IXFR from ${from}`);
        const result = await ixfr(source, zone.name, { rdata: withSerial(zone.soa, zone.serial), ttl: zone.soaTtl });
        if (result.kind === 'up-to-date') return { soa: result.soa.rdata, transferred: false };
        if (result.kind === 'whole') await applyTransfer(this.engine, this.db, this.settings, zone, `${from} (IXFR, whole)`, result);
        else await applyIncremental(this.engine, this.db, this.settings, zone, `${from} (IXFR)`, result);
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
  private async whole(zone: DueSecondary, source: TransferSource, from: string, inTime: (step: string) => void): Promise<Taken> {
    const transferred = await inTransferTurn(async () => {
      inTime(`the AXFR from ${from}`);
      const taken = await axfr(source, zone.name);
      await applyTransfer(this.engine, this.db, this.settings, zone, `${from} (AXFR)`, taken);
      return taken;
    });
    this.log.info(
      { zone: zone.name, from, serial: transferred.soa.value.serial, records: transferred.records.length },
      'secondary zone transferred (AXFR)',
    );
    return { soa: transferred.soa.rdata, transferred: true };
  }

  /**
   * Once the duties' runs have ended: claims no more, and waits for the refreshes under way, their leases renewed
   * every RENEW_MS meanwhile (the renewal's duty has stopped with the others).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (let renewedAt = Date.now(); this.inFlight.size;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (Date.now() - renewedAt < RENEW_MS) continue;
      renewedAt = Date.now();
      await this.renewLeases().catch((error: unknown) => reportDutyFailure(this.log, LEASE_RENEWAL, error));
    }
  }
}
