/**
 * octoDNS's dynamic records as the octodns-powerdns provider writes them through the PowerDNS API
 * (docs/steering.md): one `LUA` record whose content is the served type and a quoted Lua script, the script's
 * first line the marker `;-- octodns-dynamic:v1:` and the record's `dynamic` section (`pools` and `rules`) as
 * base64url JSON. The script below the marker (`pickwhashed` over every value of the pool's fallback chain) is
 * PowerDNS's business and is not run here: the marker's JSON is the definition, and the content is kept as
 * written so that the provider reads the same record back.
 */
import { DomainError } from '../../errors/catalogue';
import { STEERED_TYPES, SteeredType } from '../../repositories/steering';

const MARKER = /^;-- octodns-dynamic:v1:([A-Za-z0-9_\-=]+)$/m;
/** `<type> "<script>"`: the provider quotes the script as it is, newlines included */
const CONTENT = /^(\S+) "([\s\S]*)"$/;

export interface OctodnsPoolValue {
  value: string;
  weight: number;
  /** octoDNS's value status: `up`, `down` or `obey` (steering's admin status) */
  status: 'up' | 'down' | 'obey';
}

export interface OctodnsDynamic {
  type: SteeredType;
  /** the catch-all rule's pool, then its `fallback` chain: steering's pools in fallback order */
  chain: OctodnsPoolValue[][];
  /**
   * the rules by subnet or geography, in order (the catch-all aside: its pools are `chain`), each with its pool and
   * that pool's fallback chain: compiled into views (rules.ts)
   */
  rules: { subnets: string[]; geos: string[]; chain: OctodnsPoolValue[][] }[];
}

/** what is refused: a LUA record that is not an octoDNS dynamic record, with what is taken instead */
export function luaNotSupported(detail: string): DomainError {
  const message = `LUA: ${detail}; only octoDNS dynamic records are taken (one A, AAAA or CNAME LUA record whose script begins with the ;-- octodns-dynamic:v1: marker, as octodns-powerdns writes it with enable_dynamic), decided by Zonekeeper's steering (docs/steering.md); other Lua is not run`;
  return new DomainError('LUA_NOT_SUPPORTED', message, [{ field: 'content', code: 'LUA_NOT_SUPPORTED', message }]);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** the definition a LUA record's content carries; anything else is LUA_NOT_SUPPORTED */
export function decodeOctodnsDynamic(content: string): OctodnsDynamic {
  const parts = CONTENT.exec(content);
  if (!parts) throw luaNotSupported('the content is not a type and a quoted script');
  const type = parts[1].toUpperCase() as SteeredType;
  if (!(STEERED_TYPES as readonly string[]).includes(type)) throw luaNotSupported(`a ${parts[1]} LUA record is not steered`);
  const marker = MARKER.exec(parts[2]);
  if (!marker) throw luaNotSupported('the script carries no octodns-dynamic:v1 marker');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(marker[1], 'base64url').toString('utf8'));
  } catch {
    throw luaNotSupported('the octodns-dynamic marker is not base64url JSON');
  }
  if (!isObject(parsed) || !isObject(parsed.pools) || !Array.isArray(parsed.rules))
    throw luaNotSupported('the octodns-dynamic marker has no pools and rules');
  const pools = parsed.pools;
  const rules = parsed.rules.map((rule) => (isObject(rule) ? rule : {}));
  const catchAll = rules.find((rule) => texts(rule.geos).length === 0 && texts(rule.subnets).length === 0);
  if (!catchAll || typeof catchAll.pool !== 'string' || !isObject(pools[catchAll.pool]))
    throw luaNotSupported('the octodns-dynamic marker has no catch-all rule naming one of its pools');
  // a pool and its fallback chain, in order (a pool named twice ends the chain: octoDNS refuses loops)
  const chainOf = (first: string): OctodnsPoolValue[][] => {
    const chain: OctodnsPoolValue[][] = [];
    const seen = new Set<string>();
    for (let name: unknown = first; typeof name === 'string' && !seen.has(name);) {
      seen.add(name);
      const pool = pools[name];
      if (!isObject(pool)) throw luaNotSupported(`the pool ${name} is named as a fallback but not defined`);
      const values = Array.isArray(pool.values) ? pool.values : [];
      chain.push(
        values.map((entry, i) => {
          if (!isObject(entry) || typeof entry.value !== 'string') throw luaNotSupported(`pools.${name}.values[${i}] has no value`);
          const status = entry.status === undefined ? 'obey' : entry.status;
          if (status !== 'up' && status !== 'down' && status !== 'obey')
            throw luaNotSupported(`pools.${name}.values[${i}].status is none of up, down, obey`);
          const weight = entry.weight === undefined ? 1 : entry.weight;
          return { value: entry.value, weight: typeof weight === 'number' ? weight : NaN, status };
        }),
      );
      name = pool.fallback;
    }
    return chain;
  };
  const chain = chainOf(catchAll.pool);
  const targeted = rules.filter((rule) => rule !== catchAll);
  for (const [i, rule] of targeted.entries())
    if (typeof rule.pool !== 'string' || !isObject(pools[rule.pool]))
      throw luaNotSupported(`the octodns-dynamic marker's rule ${i + 1} names no pool of its own`);
  return {
    type,
    chain,
    rules: targeted.map((rule) => ({ subnets: texts(rule.subnets), geos: texts(rule.geos), chain: chainOf(rule.pool as string) })),
  };
}
