import type { Command } from 'commander';
import { PlanZoneChangesDocument } from '../generated/change-plan';
import { gql, print } from '../shared';

/**
 * `--dry-run` of a command that writes records: the changes planned as a change set (applyZoneChanges with
 * dryRun), refused where the write would be, and the plan printed RRset by RRset (`--json`: whole); nothing is
 * written (docs/changes.md).
 */
export async function dryRunChanges(
  program: Command,
  zone: string,
  changes: unknown[],
  expectSerial?: number,
  // the record commands write one record, with no safety threshold (docs/changes.md): their plan is forced
  force = true,
): Promise<void> {
  // (a dry run's answer holds its rrsets, disabled records and warnings: the schema's nulls are a write's)
  const plan = (await gql(PlanZoneChangesDocument, { zone, changes, expectSerial, force })).applyZoneChanges;
  if (program.opts().json) return print(program, plan);
  const changesNothing =
    plan.serial === plan.serialBefore && !plan.disabledAdded?.length && !plan.disabledRemoved?.length && !plan.comments?.length;
  process.stdout.write(
    changesNothing
      ? `zone ${plan.zone}: dry run, nothing to change (serial ${plan.serialBefore})\n`
      : `zone ${plan.zone}: dry run, serial ${plan.serialBefore} → ${plan.serial}\n`,
  );
  for (const rrset of plan.rrsets ?? []) {
    process.stdout.write(`${rrset.owner} ${rrset.type}\n`);
    for (const r of rrset.before) process.stdout.write(`  before ${r.ttl} ${r.rdata}\n`);
    for (const r of rrset.after) process.stdout.write(`  after  ${r.ttl} ${r.rdata}\n`);
    if (!rrset.after.length) process.stdout.write('  after  (none: the RRset goes)\n');
  }
  for (const r of plan.disabledAdded ?? []) process.stdout.write(`disable ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
  for (const r of plan.disabledRemoved ?? []) process.stdout.write(`no longer disabled ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
  // a comment is no DNS data: its change steps no serial (docs/changes.md, «Comments»)
  for (const c of plan.comments ?? [])
    process.stdout.write(`comment of ${c.owner} ${c.type}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}\n`);
  for (const w of plan.warnings ?? []) process.stderr.write(`warning: ${w.message}\n`);
}
