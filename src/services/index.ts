import type { Settings } from '../config/settings';
import { ApiKeysService } from './api-keys.service';
import { DomainsService } from './domains.service';
import { RecordsService } from './records.service';
import { UsersService } from './users.service';
import { ZoneFilesService } from './zone-files.service';
import { ZoneChangesService } from './zone-changes.service';
import { HistoryService } from './history.service';
import { LiveUpdates } from './live-updates';
import { TsigKeysService } from './tsig-keys.service';
import { DnsUpdatesService } from './dns-updates.service';
import { PropagationStatusService } from './propagation-status.service';
import { DnssecService } from './dnssec/dnssec.service';
import { AuditLogService } from './audit-log';
import { RateLimits } from './rate-limits';
import { ZoneReadsService } from './zone-reads.service';

/** The composition root of the services: every edge (GraphQL, REST through GraphQL, workers) gets these. */
export interface Services {
  settings: Settings;
  users: UsersService;
  domains: DomainsService;
  records: RecordsService;
  /** the nested reads GraphQL's loaders batch (User.domains, Domain.records, …) */
  zoneReads: ZoneReadsService;
  apiKeys: ApiKeysService;
  zoneFiles: ZoneFilesService;
  zoneChanges: ZoneChangesService;
  history: HistoryService;
  liveUpdates: LiveUpdates;
  tsigKeys: TsigKeysService;
  dnsUpdates: DnsUpdatesService;
  propagation: PropagationStatusService;
  dnssec: DnssecService;
  audit: AuditLogService;
  rateLimits: RateLimits;
}

export function createServices(settings: Settings): Services {
  const audit = new AuditLogService();
  const rateLimits = new RateLimits(settings);
  const apiKeys = new ApiKeysService(audit, () => rateLimits.forget());
  const zoneChanges = new ZoneChangesService(settings);
  const domains = new DomainsService(settings);
  const tsigKeys = new TsigKeysService(settings, audit.keyLimits);
  return {
    settings,
    users: new UsersService(settings, domains, apiKeys, tsigKeys, rateLimits),
    domains,
    records: new RecordsService(settings),
    zoneReads: new ZoneReadsService(),
    apiKeys,
    zoneFiles: new ZoneFilesService(settings),
    zoneChanges,
    history: new HistoryService(zoneChanges),
    liveUpdates: new LiveUpdates(domains),
    tsigKeys,
    dnsUpdates: new DnsUpdatesService(zoneChanges, settings.allowedTtls),
    propagation: new PropagationStatusService(settings),
    dnssec: new DnssecService(settings, domains),
    audit,
    rateLimits,
  };
}
