import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { inTransaction } from '../../services/db-errors';
import { refreshRuleViews } from '../../services/steering/rules';
import type { Duty } from '../duties';
import { STEERING_RECONCILE_MS, STEERING_TICK_MS, SteeringProber } from '../steering-checks';

/** how often the views of steering's rules read their countries' networks again (and once at the start) */
const RULE_VIEWS_REFRESH_MS = 3_600_000;

/**
 * Steering's prober (docs/steering.md): its ticks claim and probe the due checks; its reconciliation decides
 * every steered zone again, at start and every minute, for a process that stored a status change and stopped
 * before it published it.
 */
export function steeringDuties(prober: SteeringProber): Duty[] {
  return [
    {
      name: 'steering checks',
      every: STEERING_TICK_MS,
      run: () => prober.run(),
      stop: () => prober.stop(),
      failure: { level: 'warn', message: 'steering: claiming due checks failed; the next tick claims them' },
    },
    {
      name: 'steering reconciliation',
      every: STEERING_RECONCILE_MS,
      firstAfter: 0,
      run: () => prober.reconcile(),
      where: 'steering checks',
      failure: { level: 'warn', message: 'steering: reading the steered zones failed; the next reconciliation reads them' },
    },
  ];
}

/**
 * The views of steering's rules by country read their networks again at start, then hourly: an upgrade of the
 * country database's package changes them (docs/steering.md, «Rules by network and country»).
 */
export function ruleViewsDuty(db: Database, log: Logger): Duty {
  return {
    name: 'steering rule views',
    every: RULE_VIEWS_REFRESH_MS,
    firstAfter: 0,
    run: async () => {
      const moved = await inTransaction(db, (sql) => refreshRuleViews(sql));
      // the networks are the secondaries' configuration: the operator prints it again (docs/steering.md)
      for (const view of moved)
        log.warn({ view }, `steering: view ${view}'s networks changed with the country database; configure its secondaries again`);
    },
    failure: { level: 'warn', message: 'steering: reading the rule views’ networks again failed; the next run reads them' },
  };
}
