import type { Settings } from '../../config/settings';

/**
 * The tick of the signed zones' duties (key rolls, signatures refreshed before they expire, RFC 9615's signalling
 * records): a quarter of the shortest wait they involve, 1 s to 1 min.
 */
export function dnssecTickMs(settings: Settings): number {
  const shortest = Math.min(settings.dnssecSignatureRefresh, Math.max(1, settings.dnssecPropagationDelay));
  return Math.min(60_000, Math.max(1000, (shortest * 1000) / 4));
}
