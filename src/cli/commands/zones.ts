import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { dryRunChanges } from './change-plan';
import {
  ApplyZoneChangesDocument,
  CheckZoneDocument,
  CreateZoneDocument,
  CreateZoneForImportDocument,
  CreateZonesDocument,
  DeleteZoneDocument,
  ExportZoneDocument,
  ImportZoneByTransferDocument,
  ImportZoneDocument,
  NewZoneAccountDocument,
  PromoteZoneDocument,
  ProposeScheduledZoneChangeDocument,
  RevertZoneDocument,
  ZoneChangesDocument,
  ZoneDiffDocument,
  ZonesDocument,
  ZoneTransfersDocument,
} from '../generated/zones';
import {
  ApiError,
  UsageError,
  serverSpec,
  gql,
  print,
  listUpTo,
  userIdOf,
  limitOf,
  confirm,
  zoneExists,
  askYesNo,
  printProposed,
  authorLabel,
} from '../shared';
import { registerReviewCommands } from './change-requests';
import { registerQueryCommands } from './query-analytics';

/** `zonekeeper zone`: zones, their transfers, imports, changes and checks */
export function registerZoneCommands(program: Command): void {
  const zone = program.command('zone').description('zones (domains)');
  zone
    .command('add <user> <zone>')
    .description(
      'create a zone for a user given by id or e-mail: its default records, those of a template, or with --primary a SECONDARY zone taken from those servers',
    )
    .option('--template <name>', "the record template it starts with (the user's, else an admin-wide one); default: the settings'")
    .option('--nameserver-set <name>', 'the nameserver set that serves it (admin key); default: `default`')
    .option(
      '--primary <server>',
      'a primary of a SECONDARY zone, ADDRESS[#PORT][=TSIG_KEY_NAME]; repeat for more (tried in order)',
      (value: string, all: string[] = []) => [...all, value],
    )
    .action(async (user: string, name: string, options: { primary?: string[]; template?: string; nameserverSet?: string }) => {
      const primaries = options.primary?.map((spec) => serverSpec(spec, false));
      const userId = await userIdOf(user);
      print(
        program,
        (
          await gql(CreateZoneDocument, {
            user: userId,
            zone: name,
            kind: primaries ? 'SECONDARY' : 'PRIMARY',
            primaries: primaries ?? null,
            template: options.template ?? null,
            nameserverSet: options.nameserverSet ?? null,
          })
        ).createDomain,
      );
    });
  zone
    .command('create <user>')
    .description(
      'create many zones for a user given by id or e-mail in one call, all or none (docs/scale.md): the names in --from-file, one a line',
    )
    .requiredOption(
      '--from-file <file>',
      'the zone names, one a line (blank lines and lines starting with # are skipped); - reads standard input',
    )
    .option('--template <name>', "the record template each starts with (the user's, else an admin-wide one); default: the settings'")
    .option('--nameserver-set <name>', 'the nameserver set that serves them (admin key); default: `default`')
    .action(async (user: string, options: { fromFile: string; template?: string; nameserverSet?: string }) => {
      const names = zoneNamesIn(readFileSync(options.fromFile === '-' ? 0 : options.fromFile, 'utf8'));
      if (!names.length) throw new UsageError(`${options.fromFile} names no zone`);
      const userId = await userIdOf(user);
      const { createDomains } = await gql(CreateZonesDocument, {
        input: names.map((zone) => ({ userId, zone, template: options.template ?? null, nameserverSet: options.nameserverSet ?? null })),
      });
      print(program, createDomains);
    });
  zone
    .command('transfers <zone>')
    .description("a SECONDARY zone's transfers from its primaries: state, last error, timers, warnings (docs/transfers.md)")
    .action(async (name: string) => {
      const found = await gql(ZoneTransfersDocument, { zone: name });
      const { secondary, ...domain } = found.domain;
      print(program, { ...domain, ...(secondary ?? {}) });
    });
  zone
    .command('promote <zone>')
    .description('turn a SECONDARY zone into a PRIMARY zone written here (the way off another provider)')
    .action(async (name: string) => {
      print(program, (await gql(PromoteZoneDocument, { zone: name })).promoteZone);
    });
  zone
    .command('import-axfr <zone> <server>')
    .description("replace a zone's records (the SOA aside) with one AXFR from ADDRESS[#PORT][=TSIG_KEY_NAME]")
    .action(async (name: string, server: string) => {
      const imported = await gql(ImportZoneByTransferDocument, { zone: name, from: serverSpec(server, false) });
      print(program, { ...imported.importZoneByTransfer.zone, records: imported.importZoneByTransfer.records });
    });
  zone
    .command('list')
    .description('list zones')
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (options: { limit: string }) => {
      const zones = await listUpTo(ZonesDocument, (d) => d.domains, {}, limitOf(options.limit), 'zones');
      print(program, zones, ['id', 'name', 'serial']);
    });
  zone
    .command('delete <zone>')
    .description('delete a zone and all its records')
    .option('--yes', 'do not ask')
    .action(async (name: string, options: { yes?: boolean }) => {
      await confirm(options, `delete zone ${name} and all its records`, name);
      await gql(DeleteZoneDocument, { zone: name });
      print(program, { zone: name, deleted: true });
    });
  zone
    .command('export <zone>')
    .description('print the zone as an RFC 1035 master file')
    .action(async (name: string) => {
      const text = (await gql(ExportZoneDocument, { zone: name })).exportZone;
      if (program.opts().json) print(program, { zone: name, text });
      else process.stdout.write(text);
    });
  zone
    .command('import <zone> <file>')
    .description('import a master file, all or nothing; into a zone that does not exist with --create (asked at a terminal)')
    .option('--merge', 'add the file to the zone instead of replacing the zone with it')
    .option('--dry-run', 'show what would change and write nothing')
    .option(
      '--clamp-ttls',
      'give a TTL outside the TTL policy (ALLOWED_TTLS_BEYOND_REST) the nearest allowed one (with a warning) instead of refusing the file',
    )
    .option('--create', 'create the zone first when it does not exist (its default records, then the file)')
    .option('--user <user>', "with --create: the account (id or e-mail) the new zone is for; default: the key's own account")
    .action(
      async (
        name: string,
        file: string,
        options: { merge?: boolean; dryRun?: boolean; clampTtls?: boolean; create?: boolean; user?: string },
      ) => {
        const text = readFileSync(file, 'utf8');
        const created = !(await zoneExists(name)) && (await createForImport(name, file, options));
        const importing = gql(ImportZoneDocument, {
          zone: name,
          text,
          mode: options.merge ? 'MERGE' : 'REPLACE',
          dryRun: options.dryRun ?? false,
          ttlPolicy: options.clampTtls ? 'CLAMP' : 'REFUSE',
        });
        const result = (created ? await leavingNothingIfRefused(name, importing) : await importing).importZone;
        if (program.opts().json) return print(program, result);
        for (const w of result.warnings) process.stderr.write(`warning: ${w.message}\n`);
        // a zone that requires approvals: the RRsets the file changes wait as a change request
        if (result.changeRequest) return printProposed(program, result.zone, result.changeRequest);
        print(program, {
          zone: result.zone,
          added: result.added,
          removed: result.removed,
          serial: result.serial,
          dryRun: result.dryRun,
          commentsKept: result.commentsKept,
        });
        for (const r of result.addedRecords ?? []) process.stdout.write(`+ ${r}\n`);
        for (const r of result.removedRecords ?? []) process.stdout.write(`- ${r}\n`);
      },
    );
  zone
    .command('apply <zone> <file>')
    .description(
      'apply a change set from a JSON file: an array of {kind, id, owner, type, rdata, rdatas, ttl} (kind ADD, REMOVE, REPLACE, REPLACE_RRSET), all or nothing',
    )
    .option('--expect-serial <serial>', 'apply only if the zone is still at this serial (else SERIAL_MISMATCH)')
    .option('--dry-run', 'show the plan (each RRset before and after, the serial it would make, the warnings) and write nothing')
    .option('--force', 'apply a set that deletes or replaces more than 30 % of the zone, or changes its apex NS (else CHANGE_NEEDS_FORCE)')
    .option('--at <time>', 'propose it as a change request applied at this time (ISO 8601), after its approvals if the zone requires any')
    .action(async (name: string, file: string, options: { expectSerial?: string; dryRun?: boolean; force?: boolean; at?: string }) => {
      let changes: unknown;
      try {
        changes = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
        throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
      }
      if (changes && !Array.isArray(changes) && Array.isArray((changes as { changes?: unknown }).changes))
        changes = (changes as { changes: unknown[] }).changes;
      if (!Array.isArray(changes)) throw new UsageError(`${file} must hold a JSON array of changes (or {"changes": [...]})`);
      const expect = options.expectSerial === undefined ? undefined : Number(options.expectSerial);
      if (options.dryRun) return dryRunChanges(program, name, changes, expect, options.force ?? false);
      if (options.at !== undefined) {
        const at = new Date(options.at);
        if (Number.isNaN(at.getTime())) throw new UsageError(`--at ${options.at} is not a time (ISO 8601: 2026-12-01T02:00:00Z)`);
        const request = (await gql(ProposeScheduledZoneChangeDocument, { zone: name, changes, at: at.toISOString() })).proposeZoneChange;
        if (program.opts().json) return print(program, request);
        process.stdout.write(`zone ${name}: change request ${request.id} (${request.status.toLowerCase()}), at ${request.scheduledAt}\n`);
        return;
      }
      const result = (await gql(ApplyZoneChangesDocument, { zone: name, changes, expectSerial: expect, force: options.force ?? false }))
        .applyZoneChanges;
      if (program.opts().json) return print(program, result);
      // a zone that requires approvals: nothing written; the set waits as a change request (docs/changes.md)
      if (result.changeRequest) return printProposed(program, result.zone, result.changeRequest);
      process.stdout.write(`zone ${result.zone}: serial ${result.serialBefore} → ${result.serial}\n`);
      for (const r of result.removed) process.stdout.write(`- ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
      for (const r of result.added) process.stdout.write(`+ ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
    });
  zone
    .command('diff <zone> <fromSerial> [toSerial]')
    .description('the records removed and added between two serials (default: to the current one)')
    .action(async (name: string, from: string, to: string | undefined) => {
      const diff = (
        await gql(ZoneDiffDocument, { zone: name, fromSerial: Number(from), toSerial: to === undefined ? undefined : Number(to) })
      ).domain.diff;
      if (program.opts().json) return print(program, diff);
      process.stdout.write(`zone ${name}: ${diff.fromSerial} → ${diff.toSerial}\n`);
      for (const r of diff.removed) process.stdout.write(`- ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
      for (const r of diff.added) process.stdout.write(`+ ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
    });
  zone
    .command('revert <zone> <toSerial>')
    .description('bring the zone back to the records it had at a serial, as a new change (the serial rises)')
    .option('--yes', 'do not ask')
    .action(async (name: string, toSerial: string, options: { yes?: boolean }) => {
      await confirm(options, `revert zone ${name} to the records of serial ${toSerial}`, name);
      const result = (await gql(RevertZoneDocument, { zone: name, toSerial: Number(toSerial) })).revertZone;
      if (program.opts().json) return print(program, result);
      // a zone that requires approvals: the revert waits as a change request
      if (result.changeRequest) return printProposed(program, result.zone, result.changeRequest);
      process.stdout.write(`zone ${result.zone}: serial ${result.serialBefore} → ${result.serial}\n`);
      for (const r of result.removed) process.stdout.write(`- ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
      for (const r of result.added) process.stdout.write(`+ ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
    });
  zone
    .command('check <zone>')
    .description("the zone checks (as named-checkzone's): warnings about the whole zone; exit 0 either way")
    .action(async (name: string) => {
      const result = (await gql(CheckZoneDocument, { zone: name })).checkZone;
      if (program.opts().json) return print(program, result);
      process.stdout.write(
        `zone ${result.zone} serial ${result.serial}: ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}\n`,
      );
      if (result.warnings.length) print(program, result.warnings, ['owner', 'type', 'code', 'message']);
    });
  zone
    .command('changes <zone>')
    .description("the zone's committed changes, newest first")
    .option('--first <n>', 'how many', '20')
    .action(async (name: string, options: { first: string }) => {
      const data = await gql(ZoneChangesDocument, { zone: name, first: Number(options.first) });
      const nodes = data.domain.changes.nodes;
      if (program.opts().json) return print(program, nodes);
      // the RRsets whose comment a change changed (a change of comments alone steps no serial): a column where one did
      const commented = nodes.some((n) => n.comments.length);
      print(
        program,
        nodes.map((n) => ({
          serial: n.serialAfter,
          at: n.createdAt,
          by: authorLabel(n.author, 'service'),
          added: n.added.filter((r) => r.type !== 'SOA').length,
          removed: n.removed.filter((r) => r.type !== 'SOA').length,
          ...(commented ? { comments: n.comments.map((c) => `${c.owner} ${c.type}`).join(', ') } : {}),
        })),
      );
    });
  // review: a zone's change requests, and their approval, rejection and cancelling
  registerReviewCommands(program, zone);
  // the zone's traffic as its secondaries counted it
  registerQueryCommands(program, zone);
}

/**
 * `zone import` into a zone that does not exist: created with --create, or when the person at the terminal says
 * yes; a script without --create is told how and stops (exit 1, nothing written). A dry run writes nothing, so it
 * creates nothing either. The zone is created as `zone add` creates it (createDomain: the settings' default
 * records), for --user or the one account the key acts for.
 */
async function createForImport(
  name: string,
  file: string,
  options: { dryRun?: boolean; create?: boolean; user?: string },
): Promise<boolean> {
  const missing = `no zone ${name} (it does not exist, or this key cannot see it)`;
  // the admin key acts for every account: it names the new zone's
  const how = `--create creates it and imports ${file} into it (with the admin key, --user USER names its account)`;
  if (options.dryRun) throw new ApiError('ZONE_NOT_FOUND', `${missing}; a dry run creates nothing: without --dry-run, ${how}`);
  if (!options.create && !process.stdin.isTTY) throw new ApiError('ZONE_NOT_FOUND', `${missing}: ${how}`);
  const userId = await newZoneAccount(options.user);
  if (!options.create) {
    if (!(await askYesNo(`There is no zone ${name}. Create it (account ${userId.label}) and import ${file} into it?`)))
      throw new UsageError(`no zone ${name}; nothing was done (zonekeeper zone import ${name} ${file} --create creates it)`);
  }
  const { createDomain } = await gql(CreateZoneForImportDocument, { user: userId.id, zone: name });
  process.stderr.write(`created zone ${createDomain.name} (account ${userId.label}); importing ${file}\n`);
  return true;
}

/**
 * The import into a zone made for it: a file the service refuses (all or nothing, so none of it is written) takes
 * the zone with it, deleted again, so that a refused `zone import --create` leaves no zone behind. The refusal is
 * what the command answers; a zone that could not be deleted is said on stderr.
 */
async function leavingNothingIfRefused<T>(name: string, importing: Promise<T>): Promise<T> {
  try {
    return await importing;
  } catch (refused) {
    try {
      await gql(DeleteZoneDocument, { zone: name });
      process.stderr.write(`the file was refused: zone ${name}, created for it, is deleted again\n`);
    } catch (error) {
      process.stderr.write(`the file was refused, and zone ${name}, created for it, is still there: ${(error as Error).message}\n`);
    }
    throw refused;
  }
}

/** the account a zone created for an import is for: --user, or the only account the key sees (the admin key sees all: it names one) */
async function newZoneAccount(user: string | undefined): Promise<{ id: string; label: string }> {
  if (user) return { id: await userIdOf(user), label: user };
  const { viewer, users } = await gql(NewZoneAccountDocument, {});
  if (viewer.can.administer || users.totalCount !== 1)
    throw new UsageError("the zone does not exist and this key acts for no single account: name the new zone's account with --user USER");
  return { id: users.nodes[0].id, label: users.nodes[0].email };
}

/** the zone names of a `zone create --from-file` file: one a line, blank lines and `#` comments skipped */
export function zoneNamesIn(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
