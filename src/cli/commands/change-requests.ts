import { Command } from 'commander';
import {
  ApproveChangeRequestDocument,
  CancelChangeRequestDocument,
  ChangeRequestsDocument,
  RejectChangeRequestDocument,
  type CliChangeRequestFragment,
} from '../generated/change-requests';
import { ApiError, gql, print, UsageError } from '../shared';

const STATUSES = ['pending', 'approved', 'applied', 'rejected', 'refused', 'cancelled', 'all'];

/** one request as a person reads it: who, where it stands, each RRset before and after, its warnings and reviews */
function describe(request: CliChangeRequestFragment): string {
  const lines = [
    `change request ${request.id} (${request.zone}): ${request.status.toLowerCase()}, ${request.approvals} of ${request.requiredApprovals} approvals; by ${request.author}, planned on serial ${request.plannedSerial}` +
      (request.appliedSerial !== null ? `, applied as serial ${request.appliedSerial}` : '') +
      (request.scheduledAt ? `, at ${request.scheduledAt}` : ''),
  ];
  for (const rrset of request.plan.rrsets ?? []) {
    lines.push(`  ${rrset.owner} ${rrset.type}`);
    for (const r of rrset.before) lines.push(`    - ${r.ttl} ${r.rdata}`);
    for (const r of rrset.after) lines.push(`    + ${r.ttl} ${r.rdata}`);
  }
  for (const w of request.plan.warnings ?? []) lines.push(`  warning ${w.code}: ${w.message}`);
  for (const r of request.reviews) lines.push(`  ${r.verdict.toLowerCase()}d by ${r.reviewer}${r.comment ? `: ${r.comment}` : ''}`);
  if (request.reason) lines.push(`  refused: ${request.reason}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `zonekeeper zone requests|approve|reject|cancel`: review (docs/changes.md, «Review»). A review is a person's
 * word: a key is refused NOT_SIGNED_IN, so approve and reject run as a person: ZONEKEEPER_SESSION, or the session
 * `zonekeeper login` stored (taken before ZONEKEEPER_API_KEY here).
 */
export function registerReviewCommands(program: Command, zone: Command): void {
  zone
    .command('requests <zone>')
    .description("a zone's change requests, newest first (the pending ones unless --status says otherwise), each with its plan")
    .option('--status <status>', `${STATUSES.join(', ')}`, 'pending')
    .action(async (name: string, options: { status: string }) => {
      const status = options.status.toLowerCase();
      if (!STATUSES.includes(status)) throw new UsageError(`--status takes ${STATUSES.join(', ')} (got "${options.status}")`);
      const { changeRequests } = await gql(ChangeRequestsDocument, {
        zone: name,
        status: status === 'all' ? null : [status.toUpperCase()],
      });
      if (program.opts().json) return print(program, changeRequests);
      if (!changeRequests.length) process.stdout.write(`zone ${name}: no ${status === 'all' ? '' : `${status} `}change requests\n`);
      for (const request of changeRequests) process.stdout.write(describe(request));
    });
  for (const verdict of ['approve', 'reject'] as const) {
    zone
      .command(`${verdict} <id>`)
      .description(
        verdict === 'approve'
          ? 'approve a change request (a person: `zonekeeper login` or ZONEKEEPER_SESSION); the last approval applies it'
          : 'reject a change request (a person: `zonekeeper login` or ZONEKEEPER_SESSION); it is closed, nothing written',
      )
      .option('--comment <text>', 'why, kept with the review')
      .action(async (id: string, options: { comment?: string }) => {
        const variables = { id, comment: options.comment ?? null };
        const request = await (
          verdict === 'approve'
            ? gql(ApproveChangeRequestDocument, variables, 'person').then((data) => data.approveChangeRequest)
            : gql(RejectChangeRequestDocument, variables, 'person').then((data) => data.rejectChangeRequest)
        ).catch((error: unknown) => {
          // a key reviews nothing: say how a person does it from here
          if (error instanceof ApiError && error.code === 'NOT_SIGNED_IN')
            throw new ApiError(
              error.code,
              `${error.message}: sign in as a person with \`zonekeeper login\` (or set ZONEKEEPER_SESSION to your session)`,
            );
          throw error;
        });
        if (program.opts().json) return print(program, request);
        process.stdout.write(describe(request));
      });
  }
  zone
    .command('cancel <id>')
    .description('cancel a change request not applied yet (its author, a reviewer, or the operator)')
    .action(async (id: string) => {
      const { cancelChangeRequest } = await gql(CancelChangeRequestDocument, { id });
      if (program.opts().json) return print(program, cancelChangeRequest);
      process.stdout.write(describe(cancelChangeRequest));
    });
}
