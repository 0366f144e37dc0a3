import { Command } from 'commander';
import { AuditEventsDocument } from '../generated/audit';
import { print, listUpTo, limitOf } from '../shared';

/** `zonekeeper audit`: the audit log */
export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the audit log (admin key only; docs/audit-log.md)');
  audit
    .command('list')
    .description('list audit events, newest first')
    .option('--kind <kind>', 'only events of this kind (api-key-created, authentication-failed, …)')
    .option('--since <time>', 'only events at or after this time (ISO 8601, e.g. 2026-11-24T09:00:00Z)')
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (options: { kind?: string; since?: string; limit: string }) => {
      const events = await listUpTo(
        AuditEventsDocument,
        (d) => d.auditEvents,
        { kind: options.kind, since: options.since },
        limitOf(options.limit),
        'events',
      );
      print(program, program.opts().json ? events : events.map((e) => ({ ...e, actor: e.actorKeyName ?? '' })), [
        'id',
        'at',
        'kind',
        'actor',
        'subject',
        'sourceAddress',
        'count',
        'detail',
      ]);
    });
}
