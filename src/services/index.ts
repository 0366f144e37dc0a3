import { ProtectedRrsetsService } from './zones/protected-rrsets.service';
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import { ApiKeysService } from './people/api-keys.service';
import { DomainsService } from './zones/domains.service';
import { ChangeRequestsService } from './zones/change-requests.service';
import { RecordsService } from './zones/records.service';
import { RecordWritesService } from './zones/record-writes.service';
import { UsersService } from './people/users.service';
import { ZoneFilesService } from './zones/zone-files.service';
import { ZoneChangesService } from './zones/zone-changes.service';
import { RrsetCommentsService } from './zones/rrset-comments.service';
import { DisabledRecordsService } from './zones/disabled-records.service';
import { HistoryService } from './zones/history.service';
import { LiveUpdates } from './operations/live-updates';
import { TsigKeysService } from './people/tsig-keys.service';
import { DnsUpdatesService } from './transfers/dns-updates.service';
import { PropagationStatusService } from './transfers/propagation-status.service';
import { AliasStatusService } from './zones/alias-status.service';
import { SteeringService } from './steering/steering.service';
import { DnssecService } from './dnssec/dnssec.service';
import { DnssecZoneSigner } from './dnssec/zone-signing';
import { SettingsKeyVault } from './dnssec/settings-key-vault';
import { CdsNotifications } from './dnssec/cds-notify';
import { ViewsService } from './views/views.service';
import type { DnssecWriter } from './dnssec/dnssec-writer';
import { WriteEngine } from './write-engine';
import { AuditLogService } from './audit-log';
import { RateLimits } from './rate-limits';
import { ZoneReadsService } from './zones/zone-reads.service';
import { ZoneSecondariesService } from './transfers/zone-secondaries.service';
import { SecondaryZonesService } from './transfers/secondary-zones.service';
import { PeopleService } from './people/people.service';
import { OperatorsService } from './people/operators.service';
import { ZoneTransfersService } from './people/zone-transfers.service';
import { SessionsService } from './people/sessions.service';
import { OidcSignInService } from './people/oidc-sign-in.service';
import { DeviceSignInService } from './people/device-sign-in.service';
import { PasskeysService } from './people/passkeys.service';
import { RecordTemplatesService } from './zones/record-templates.service';
import { SecondaryRequests } from './transfers/secondary-requests';
import { NameserverSetsService } from './transfers/nameserver-sets.service';
import { PermissionsService } from './people/permissions.service';
import { EventsService } from './events/events.service';
import { HealthService } from './operations/health.service';
import { QueryAnalyticsService } from './operations/query-analytics.service';
import { AttentionService } from './operations/attention.service';
import { RecordSearchService } from './zones/record-search.service';

/** The composition root of the services: every edge (GraphQL, REST through GraphQL, workers) gets these. */
export interface Services {
  settings: Settings;
  /** the write engine of the process's database: every change of a zone goes through it (its queues, heads, catalog admissions) */
  writeEngine: WriteEngine;
  /** the key vault the zones' private keys and the webhooks' secrets are sealed in, opened at its first use */
  keyVault: SettingsKeyVault;
  /** what DNSSEC's steps write with (the engine, the vault, the parents' NOTIFY(CDS)), the worker's duties' too */
  dnssecWriter: DnssecWriter;
  /** what the secondaries ask this process's DNS primary for: the notifier paces NOTIFYs by it (worker/notify-pacing.ts) */
  secondaryRequests: SecondaryRequests;
  users: UsersService;
  domains: DomainsService;
  records: RecordsService;
  /** a person's write of one record: written, or on a zone under review proposed as a change request */
  recordWrites: RecordWritesService;
  /** the nested reads GraphQL's loaders batch (User.domains, Domain.records, …) */
  zoneReads: ZoneReadsService;
  apiKeys: ApiKeysService;
  zoneFiles: ZoneFilesService;
  zoneChanges: ZoneChangesService;
  /** change requests: review and scheduled changes (docs/changes.md) */
  changeRequests: ChangeRequestsService;
  rrsetComments: RrsetCommentsService;
  disabledRecords: DisabledRecordsService;
  history: HistoryService;
  liveUpdates: LiveUpdates;
  tsigKeys: TsigKeysService;
  dnsUpdates: DnsUpdatesService;
  propagation: PropagationStatusService;
  dnssec: DnssecService;
  audit: AuditLogService;
  rateLimits: RateLimits;
  /** a zone's extra secondaries: a customer's own servers (docs/transfers.md) */
  zoneSecondaries: ZoneSecondariesService;
  /** secondary zones' status and promotion, imports by AXFR (docs/transfers.md) */
  secondaryZones: SecondaryZonesService;
  /** people, their memberships and invitations, and their sessions (docs/people.md) */
  people: PeopleService;
  /** the operator persons: who besides the admin key administers every account (docs/people.md, «The operator») */
  operators: OperatorsService;
  sessions: SessionsService;
  oidc: OidcSignInService;
  deviceSignIn: DeviceSignInService;
  passkeys: PasskeysService;
  /** record templates a new zone starts with (docs/templates-and-alias.md) */
  recordTemplates: RecordTemplatesService;
  /** ALIAS/ANAME flattening's status and derived records (docs/templates-and-alias.md) */
  aliases: AliasStatusService;
  /** steering: health checks and steered RRsets (docs/steering.md) */
  steering: SteeringService;
  /** locked RRsets and a zone's strictChecks (docs/changes.md) */
  protectedRrsets: ProtectedRrsetsService;
  /** zones moved between accounts: offers, acceptance, the admin's move (docs/people.md) */
  zoneTransfers: ZoneTransfersService;
  /** nameserver sets: fleets of secondaries with their NS names and catalogs, a zone's moves (docs/transfers.md) */
  nameserverSets: NameserverSetsService;
  /** what the caller may do, asked before a screen offers it (the policy engine's answers) */
  permissions: PermissionsService;
  /** events out: the pull feed and webhook subscriptions (docs/events.md) */
  events: EventsService;
  /** zone health: findings of the checks from where resolvers stand (docs/health.md) */
  health: HealthService;
  /** query analytics: the secondaries' answers counted from their dnstap (docs/analytics.md) */
  queryAnalytics: QueryAnalyticsService;
  /** what needs attention across the zones the caller may read: the console's home (docs/console.md) */
  attention: AttentionService;
  /** the search across zones: records by a part of their name or content (docs/search.md) */
  search: RecordSearchService;
  /** views: split horizon as overlays on one zone (docs/views.md) */
  views: ViewsService;
}

/**
 * The services of one database, made once per process (and once per database a test serves): what they
 * remember between requests is theirs, none of it in a module's variables, so two of them never share a
 * zone's queue, head or rate.
 */
export function createServices(settings: Settings, db: Database): Services {
  // one vault: DNSSEC's keys and the webhooks' secrets are sealed under the same key-encryption key
  const keyVault = new SettingsKeyVault(settings);
  // the write engine signs a signed zone's changes through its port; DNSSEC is what signs them
  const writeEngine = new WriteEngine({ db, settings, signer: new DnssecZoneSigner(keyVault) });
  const dnssecWriter: DnssecWriter = { engine: writeEngine, keys: keyVault, cdsNotifications: new CdsNotifications() };
  const audit = new AuditLogService();
  const rateLimits = new RateLimits(settings);
  const apiKeys = new ApiKeysService(audit, () => rateLimits.forget());
  const zoneChanges = new ZoneChangesService(settings, writeEngine);
  const zoneFiles = new ZoneFilesService(settings, writeEngine);
  const recordTemplates = new RecordTemplatesService(settings);
  const domains = new DomainsService(settings, writeEngine, recordTemplates);
  const tsigKeys = new TsigKeysService(settings, audit.keyLimits);
  const people = new PeopleService(settings);
  const sessions = new SessionsService(settings, people);
  const oidc = new OidcSignInService(settings, sessions);
  const records = new RecordsService(settings, zoneChanges);
  const changeRequests = new ChangeRequestsService(domains, zoneChanges, zoneFiles);
  return {
    settings,
    writeEngine,
    keyVault,
    dnssecWriter,
    users: new UsersService(settings, domains, apiKeys, tsigKeys, rateLimits),
    domains,
    records,
    recordWrites: new RecordWritesService(records, changeRequests),
    zoneReads: new ZoneReadsService(),
    apiKeys,
    zoneFiles,
    zoneChanges,
    changeRequests,
    rrsetComments: new RrsetCommentsService(settings),
    disabledRecords: new DisabledRecordsService(),
    history: new HistoryService(zoneChanges),
    liveUpdates: new LiveUpdates(domains),
    tsigKeys,
    dnsUpdates: new DnsUpdatesService(zoneChanges, settings),
    propagation: new PropagationStatusService(settings),
    dnssec: new DnssecService(settings, domains, dnssecWriter),
    audit,
    rateLimits,
    zoneSecondaries: new ZoneSecondariesService(settings, domains),
    secondaryZones: new SecondaryZonesService(settings, domains, writeEngine),
    people,
    operators: new OperatorsService(),
    sessions,
    oidc,
    deviceSignIn: new DeviceSignInService(oidc, sessions),
    passkeys: new PasskeysService(sessions, people),
    recordTemplates,
    aliases: new AliasStatusService(settings),
    steering: new SteeringService(settings, writeEngine),
    protectedRrsets: new ProtectedRrsetsService(settings, writeEngine),
    zoneTransfers: new ZoneTransfersService(settings, domains, people),
    nameserverSets: new NameserverSetsService(settings, domains, zoneChanges, writeEngine),
    secondaryRequests: new SecondaryRequests(),
    permissions: new PermissionsService(people),
    events: new EventsService(settings, keyVault),
    health: new HealthService(settings, domains),
    queryAnalytics: new QueryAnalyticsService(),
    attention: new AttentionService(settings, domains),
    search: new RecordSearchService(),
    views: new ViewsService(settings, writeEngine),
  };
}
