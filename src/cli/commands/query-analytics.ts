import { Command, Option } from 'commander';
import { ZoneQueriesDocument } from '../generated/query-analytics';
import { gql, print, UsageError } from '../shared';

/** `--since`: an ISO 8601 time, or a span back from now (90m, 24h, 7d) */
export function sinceOf(text: string, now = Date.now()): Date {
  const span = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (span) return new Date(now - Number(span[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 'm' | 'h' | 'd']);
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--since is an ISO 8601 time or a span back from now: 90m, 24h, 7d (got "${text}")`);
  return at;
}

/** `zonekeeper zone queries <zone>`: the zone's answers in buckets, a row each (docs/analytics.md) */
export function registerQueryCommands(program: Command, zone: Command): void {
  zone
    .command('queries <zone>')
    .description("the zone's answers as its secondaries counted them (dnstap), a row per bucket by RCODE; a gap is told, never a zero")
    .option('--since <when>', 'the window’s start: ISO 8601, or back from now (90m, 24h, 7d)', '24h')
    .option('--until <when>', 'the window’s end (default now)')
    .addOption(new Option('--step <step>', 'a bucket’s length').choices(['minute', 'hour', 'day']).default('hour'))
    .action(async (name: string, options: { since: string; until?: string; step: string }) => {
      const data = await gql(ZoneQueriesDocument, {
        zone: name,
        since: sinceOf(options.since).toISOString(),
        until: options.until ? sinceOf(options.until).toISOString() : undefined,
        step: options.step.toUpperCase(),
      });
      const stats = data.domain.queries;
      if (program.opts().json) return print(program, { ...stats });
      // the RCODEs met, most answered first: a column each
      const totals = new Map<string, number>();
      for (const bucket of stats.buckets)
        for (const c of bucket.counts) totals.set(c.rcode ?? '?', (totals.get(c.rcode ?? '?') ?? 0) + c.count);
      const rcodes = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([rcode]) => rcode);
      process.stdout.write(`zone ${name}: ${stats.since} … ${stats.until}, ${stats.step} s a bucket\n`);
      print(
        program,
        stats.buckets.map((bucket) => ({
          start: bucket.start,
          total: bucket.total === null ? 'gap' : bucket.total,
          ...Object.fromEntries(
            rcodes.map((rcode) => [
              rcode,
              bucket.total === null ? '' : (bucket.counts.find((c) => (c.rcode ?? '?') === rcode)?.count ?? 0),
            ]),
          ),
          coverage: `${Math.round(bucket.coverage * 100)} %`,
          missing: bucket.missing.join(' '),
        })),
        ['start', 'total', ...rcodes, 'coverage', 'missing'],
      );
    });
}
