import type { Duty } from '../duties';
import { STEERING_RECONCILE_MS, STEERING_TICK_MS, SteeringProber } from '../steering-checks';

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
