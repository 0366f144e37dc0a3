import type { Duty } from '../duties';
import type { HealthWorker } from '../health';

export const ZONE_HEALTH = 'zone health';

/**
 * Zone health (health.ts, docs/health.md): every zone checked from where resolvers stand every
 * HEALTH_CHECK_INTERVAL (0: no duty). A tick adopts new zones and claims the due ones as slots free; checks ending
 * ask for a tick too. At stop, the checks under way end and those done are stored.
 */
export function zoneHealthDuties(health: HealthWorker, interval: number): Duty[] {
  if (!interval) return [];
  return [
    {
      name: ZONE_HEALTH,
      every: health.tickMs,
      firstAfter: 0,
      run: (signal) => health.tick(signal),
      stop: () => health.stop(),
      where: 'health checks',
      failure: { level: 'error', message: 'health: claiming due zones failed; it runs again at the next tick' },
    },
  ];
}
