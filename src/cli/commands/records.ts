import { Command } from 'commander';
import {
  CreateRecordOrProposeDocument,
  RecordsDocument,
  RecordTtlDocument,
  RecordZoneDocument,
  RemoveRecordOrProposeDocument,
  UpdateRecordOrProposeDocument,
  type CliRecordFragment,
} from '../generated/records';
import { gql, print, listUpTo, requireZone, ttlOf, limitOf, confirm, printOutcome } from '../shared';
import { dryRunChanges } from './change-plan';

/** the table's columns: COMMENT where a record shown has one (a zone without comments lists as it always did) */
const recordColumns = (records: CliRecordFragment[]) =>
  records.some((r) => r.comment) ? ['id', 'owner', 'ttl', 'type', 'rdata', 'comment'] : ['id', 'owner', 'ttl', 'type', 'rdata'];
/** a record written, as the CLI printed it before comments: its COMMENT only where it has one */
const writtenColumns = (record: CliRecordFragment) =>
  record.comment ? ['id', 'owner', 'type', 'rdata', 'ttl', 'comment'] : ['id', 'owner', 'type', 'rdata', 'ttl'];
const COMMENT_HELP = "the comment of the record's RRset ('' removes it; without it, the comment stays as it is)";

/** the comment an option gives (absent: none, the RRset's stays) */
const commentOf = (options: { comment?: string }) => (options.comment === undefined ? {} : { comment: options.comment });

/** `zonekeeper record`: records of a zone */
export function registerRecordCommands(program: Command): void {
  const record = program.command('record').description('records of a zone');
  record
    .command('add <zone> <owner> <type> <rdata>')
    .description('add a record')
    .option('--ttl <ttl>', 'TTL: seconds or units (300, 30m, 1h, 1h30m, 1d, 1w)', '3600')
    .option('--comment <text>', COMMENT_HELP)
    .option('--dry-run', 'show the plan (the RRset before and after, the serial it would make) and write nothing')
    .action(
      async (
        zoneName: string,
        owner: string,
        type: string,
        rdata: string,
        options: { ttl: string; comment?: string; dryRun?: boolean },
      ) => {
        const ttl = ttlOf(options.ttl);
        const comment = commentOf(options);
        if (options.dryRun) return dryRunChanges(program, zoneName, [{ kind: 'ADD', owner, type, rdata, ttl, ...comment }]);
        // a zone that requires approvals: the record proposed as an ADD, said so (docs/changes.md, «Review»)
        const { createRecordOrPropose } = await gql(CreateRecordOrProposeDocument, {
          input: { zone: zoneName, owner, type, rdata, ttl, ...comment },
        });
        printOutcome(program, createRecordOrPropose, ({ record: written }) => print(program, written!, writtenColumns(written!)));
      },
    );
  record
    .command('edit <id> <zone> <owner> <type> <rdata>')
    .description('replace a record (an SOA edit must raise the serial)')
    .option('--ttl <ttl>', "TTL: seconds or units (300, 30m, 1h, 1h30m, 1d, 1w); without it, the record's own")
    .option('--comment <text>', COMMENT_HELP)
    .option('--dry-run', 'show the plan (the RRset before and after, the serial it would make) and write nothing')
    .action(
      async (
        id: string,
        zoneName: string,
        owner: string,
        type: string,
        rdata: string,
        options: { ttl?: string; comment?: string; dryRun?: boolean },
      ) => {
        const comment = commentOf(options);
        // an edit replaces the record whole: without --ttl it keeps the TTL it has (read first), not a default
        const ttl = options.ttl !== undefined ? ttlOf(options.ttl) : (await gql(RecordTtlDocument, { id })).record.ttl;
        if (options.dryRun) return dryRunChanges(program, zoneName, [{ kind: 'REPLACE', id, owner, type, rdata, ttl, ...comment }]);
        // a zone that requires approvals: the record replaced by id, proposed as a REPLACE
        const { updateRecordOrPropose } = await gql(UpdateRecordOrProposeDocument, {
          id,
          input: { zone: zoneName, owner, type, rdata, ttl, ...comment },
        });
        printOutcome(program, updateRecordOrPropose, ({ record: written }) => print(program, written!, writtenColumns(written!)));
      },
    );
  record
    .command('list <zone>')
    .description("list a zone's records")
    .option('--limit <n>', 'at most this many', '10000')
    .action(async (zoneName: string, options: { limit: string }) => {
      await requireZone(zoneName);
      const records = await listUpTo(RecordsDocument, (d) => d.records, { zone: zoneName }, limitOf(options.limit), 'records');
      print(program, records, recordColumns(records));
    });
  record
    .command('delete <id>')
    .description('delete a record')
    .option('--yes', 'do not ask')
    .option('--dry-run', 'show the plan (the RRset before and after, the serial it would make) and write nothing')
    .action(async (id: string, options: { yes?: boolean; dryRun?: boolean }) => {
      if (options.dryRun) {
        // a dry run asks nothing: it writes nothing; the record's zone names the set
        const { record: found } = await gql(RecordZoneDocument, { id });
        return dryRunChanges(program, found.zone, [{ kind: 'REMOVE', id }]);
      }
      await confirm(options, `delete record ${id}`, id);
      // a zone that requires approvals: the record's removal by id, proposed as a REMOVE
      const { removeRecordOrPropose } = await gql(RemoveRecordOrProposeDocument, { id });
      printOutcome(program, removeRecordOrPropose, () => print(program, { id, deleted: true }));
    });
}
