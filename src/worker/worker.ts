/**
 * The worker (ROLES=worker, docs/decisions.md §4): its duties as a table (duties/, each in its own file) and the
 * one runner that keeps them (duties.ts). docs/architecture.md, «The duties», lists them.
 *
 * Propagation, in short: the outbox drain (duties/outbox-drain.ts) claims the journal rows committed, NOTIFYs
 * (notifier.ts) every secondary of the changed zones and catalogs, and sets their status rows pending; the status
 * checks (duties/status-checks.ts) ask each server's SOA serial until it serves the zone's.
 */
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import { PropagationRepository } from '../repositories/propagation';
import type { Services } from '../services';
import { Duty, DutyRunner, reportDutyFailure } from './duties';
import { adoptSecondariesDuty } from './duties/adopt-secondaries';
import { aliasRefreshDuties } from './duties/alias-refresh';
import { bootstrapSignalsDuty } from './duties/bootstrap-signals';
import { catalogAdmissionDuty } from './duties/catalog-admission';
import { scheduledChangesDuty } from './duties/change-requests';
import { departuresDuty } from './duties/departures';
import { ViewNotifies, viewNotifiesDuty } from './duties/view-notifies';
import { foreignKeysDuties } from './duties/foreign-keys';
import { forgetSecondariesDuty } from './duties/forget-secondaries';
import { keyRollsDuty } from './duties/key-rolls';
import { NameserverFleet, nameserverSetsDuty, nsFollowsDuty } from './duties/nameserver-sets';
import { FanoutAlong, OutboxDrain, outboxDrainDuty } from './duties/outbox-drain';
import { retentionDuty } from './duties/retention';
import { queryRollupsDuty } from './duties/query-rollups';
import { secondaryZonesDuties, SECONDARY_ZONE_CLAIMS } from './duties/secondary-zones';
import { signatureRefreshDuty } from './duties/signature-refresh';
import { STATUS_CHECKS, statusChecksDuty } from './duties/status-checks';
import { ruleViewsDuty, steeringDuties } from './duties/steering';
import { timedOutSessionsDuty } from './duties/timed-out-sessions';
import { WEBHOOK_DELIVERIES, webhookDeliveriesDuty } from './duties/webhook-deliveries';
import { ZONE_HEALTH, zoneHealthDuties } from './duties/zone-health';
import { HealthWorker } from './health';
import { Notifier } from './notifier';
import { SecondaryZonesWorker } from './secondary-zones';
import { SteeringProber } from './steering-checks';
import { WebhookDeliveries } from './webhook-delivery';
import { WebhookFanout } from './webhook-fanout';

/** what the worker's duties write with, made once per process with the services */
export type WorkerServices = Pick<
  Services,
  'writeEngine' | 'dnssecWriter' | 'health' | 'events' | 'changeRequests' | 'secondaryRequests' | 'nameserverSets'
>;

export class PropagationWorker {
  readonly notifier: Notifier;
  /** the nameserver sets as last read: whose servers get which NOTIFYs and status checks */
  readonly fleet: NameserverFleet;
  readonly drain: OutboxDrain;
  /** secondary zones' refresh from their primaries (secondary-zones.ts) */
  readonly secondaryZones: SecondaryZonesWorker;
  /** every zone's health, checked from where resolvers stand (health.ts) */
  readonly health: HealthWorker;
  /** steering's health checks, their answers published through the write engine (docs/steering.md) */
  readonly steering: SteeringProber;
  /** the duties, in the order they start (their LISTENs, then the first runs the start waits for) */
  readonly duties: readonly Duty[];
  private readonly runner: DutyRunner;
  private readonly repository: PropagationRepository;

  /**
   * `webhooks`: the process's webhook deliveries (docs/events.md) are among its duties, their fan-out taken along
   * by the outbox drain, in its claim's commit (duties/outbox-drain.ts, claimBatch).
   */
  constructor(
    private readonly settings: Settings,
    db: Database,
    private readonly log: Logger,
    /** the process's write engine, DNSSEC writer, health notes and webhook secrets (services/index.ts) */
    services: WorkerServices,
    { webhooks = true }: { webhooks?: boolean } = {},
  ) {
    const engine = services.writeEngine;
    const runner = new DutyRunner(log);
    this.runner = runner;
    this.repository = new PropagationRepository(db);
    this.notifier = new Notifier(settings, this.repository, log, services.secondaryRequests);
    this.fleet = new NameserverFleet(settings, db, this.notifier);
    const checkIn = (ms: number) => runner.wake(STATUS_CHECKS, ms);
    let deliveries: WebhookDeliveries | undefined;
    let along: FanoutAlong | undefined;
    if (webhooks) {
      const fanout = new WebhookFanout(db);
      const sending = new WebhookDeliveries(settings, db, log, fanout, () => runner.wake(WEBHOOK_DELIVERIES), services.events.secrets);
      deliveries = sending;
      along = { fanout, wakeDeliveries: (fanOutToo) => sending.wake(fanOutToo) };
    }
    this.drain = new OutboxDrain(settings, db, log, this.notifier, this.fleet, checkIn, along);
    const views = new ViewNotifies(db, this.notifier);
    this.drain.views = views;
    this.secondaryZones = new SecondaryZonesWorker(settings, db, log, () => runner.wake(SECONDARY_ZONE_CLAIMS), engine);
    this.health = new HealthWorker(settings, db, log, () => runner.wake(ZONE_HEALTH), services.health.rootNotes);
    this.steering = new SteeringProber(settings, db, log, engine);
    this.duties = [
      outboxDrainDuty(this.drain, db),
      nameserverSetsDuty(this.fleet),
      nsFollowsDuty(services.nameserverSets, db),
      catalogAdmissionDuty(settings, db, engine),
      forgetSecondariesDuty(settings, db, log),
      adoptSecondariesDuty(settings, db, this.fleet, checkIn),
      statusChecksDuty(db, this.notifier, this.fleet, checkIn, services.secondaryRequests),
      departuresDuty(settings, db, log, engine),
      viewNotifiesDuty(views),
      retentionDuty(settings, db, log),
      queryRollupsDuty(settings, db, log),
      timedOutSessionsDuty(settings, db, log),
      scheduledChangesDuty(services.changeRequests, db),
      keyRollsDuty(settings, db, log, services.dnssecWriter),
      signatureRefreshDuty(settings, db, log, services.dnssecWriter),
      bootstrapSignalsDuty(settings, db, log, services.dnssecWriter),
      ...foreignKeysDuties(settings, db, log, services.dnssecWriter),
      ...aliasRefreshDuties(settings, db, log, engine),
      ...secondaryZonesDuties(this.secondaryZones, db),
      ...zoneHealthDuties(this.health, settings.health.interval),
      ...steeringDuties(this.steering),
      ruleViewsDuty(db, log),
      ...(deliveries ? [webhookDeliveriesDuty(deliveries, db)] : []),
    ];
  }

  /**
   * Reads the nameserver sets; after a restart, NOTIFYs the catalogs (they may have changed while no worker ran)
   * and the zones still pending; then starts the duties.
   */
  async start(): Promise<void> {
    await this.fleet.read().catch((error: unknown) => reportDutyFailure(this.log, nameserverSetsDuty(this.fleet), error));
    for (const set of this.fleet.sets) this.notifier.notifyAll(set.catalogZone, set.servers);
    for (const row of await this.repository.unsyncedZoneServers()) {
      const server = this.fleet.servers.get(row.server);
      if (server) this.notifier.request(row.zone, server);
    }
    await this.runner.start(this.duties);
  }

  /** starts no run after this; resolves once the runs on their way and the work the duties had under way have ended */
  async stop(): Promise<void> {
    this.notifier.stop();
    await this.runner.stop();
  }
}

/** Starts the worker role on the process's Database (its one pool and its LISTEN connection). */
/**
 * The steering prober alone (ROLES=prober, docs/steering.md «Vantages and the quorum»): its two duties in a runner
 * of their own, for a vantage in another place than the primary, which needs only the database and its own network
 */
export async function startProber(
  settings: Settings,
  db: Database,
  log: Logger,
  services: WorkerServices,
): Promise<{ stop(): Promise<void> }> {
  const runner = new DutyRunner(log);
  await runner.start(steeringDuties(new SteeringProber(settings, db, log, services.writeEngine)));
  return { stop: () => runner.stop() };
}

export async function startWorker(
  settings: Settings,
  db: Database,
  log: Logger,
  services: WorkerServices,
): Promise<{ worker: PropagationWorker; stop(): Promise<void> }> {
  const worker = new PropagationWorker(settings, db, log, services);
  await worker.start();
  return { worker, stop: () => worker.stop() };
}
