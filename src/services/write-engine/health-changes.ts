import type { Sql } from '../../db/pool';
import { logger } from '../../logger';
import { appendEvents } from '../../repositories/events';
import { forgetServers, healthOfZones, type CheckOutcome, type DueZone, type NewFinding } from '../../repositories/health';

/*
 * How a zone's health changes, apart from the checks that find it (health.service.ts): the event every change
 * of it gives, and the change a write makes when the zone stops naming a nameserver. The write engine calls the
 * latter in its transaction, so it lives below the services the write engine serves.
 */

/**
 * A zone's apex NS set changed (the write engine, in the change's transaction): the findings about nameservers
 * it no longer names (`removed`) are dropped and its state follows what is left (a health.changed event says
 * so); what the last check found of the others stays until the zone's next check.
 */
export async function nameserversChanged(sql: Sql, zone: { id: number; name: string; serial: number }, removed: readonly string[]) {
  const outcome = await forgetServers(
    sql,
    zone.id,
    removed.map((host) => host.toLowerCase().replace(/\.$/, '')),
  );
  if (!outcome) return;
  const left = (await healthOfZones(sql, [zone.id])).get(zone.id)!.findings;
  await appendEvents(sql, [healthChanged(zone, outcome, left)]);
}

export type HealthEvent = Parameters<typeof appendEvents>[1][number];

/**
 * The one place a zone's health changes (its state, or a finding raised or cleared): the health.changed event,
 * appended in the transaction that stores the check, so that it commits with the findings it tells of
 * (docs/events.md).
 */
export function healthChanged(zone: DueZone, outcome: CheckOutcome, findings: readonly NewFinding[]): HealthEvent {
  if (outcome.before !== outcome.after) {
    const log = outcome.after === 'critical' ? logger.warn.bind(logger) : logger.info.bind(logger);
    log(
      {
        zone: zone.name,
        before: outcome.before,
        after: outcome.after,
        findings: findings.map((f) => ({ code: f.code, server: f.server })),
      },
      `health: ${zone.name} went from ${outcome.before} to ${outcome.after}`,
    );
  }
  return {
    type: 'health.changed',
    domainId: zone.id,
    data: {
      zone: zone.name,
      state: outcome.after,
      previous_state: outcome.before,
      raised: outcome.raised,
      cleared: outcome.cleared,
      findings: findings.map((f) => ({ code: f.code, severity: f.severity, server: f.server, message: f.message })),
    },
  };
}
