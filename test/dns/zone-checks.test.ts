/**
 * Zone checks (src/dns/zone-checks.ts), each case held against BIND's named-checkzone where it checks the
 * same thing (MX/SRV to an alias, name servers and mail hosts without addresses, missing glue), and a clean
 * zone that neither named-checkzone nor Knot's kzonecheck complains about gives no warning.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkZoneRecords, ownersToCheck } from '../../src/dns/zone-checks';

const ZONE = 'z.test';
const BASE = [
  { owner: '@', type: 'SOA', rdata: 'ns1.example.net. h.example.net. 1 3600 1800 604800 86400' },
  { owner: '@', type: 'NS', rdata: 'ns1.example.net.' },
  { owner: 'host', type: 'A', rdata: '192.0.2.1' },
];
const rr = (owner: string, type: string, rdata: string) => ({ owner, type, rdata });

/** runs a checker on the records as a zone file; what it printed, or '' when it found nothing */
function check(tool: 'named-checkzone' | 'kzonecheck', records: { owner: string; type: string; rdata: string }[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-checks-'));
  try {
    const file = path.join(dir, 'zone');
    writeFileSync(file, `$ORIGIN ${ZONE}.\n$TTL 3600\n${records.map((r) => `${r.owner} ${r.type} ${r.rdata}`).join('\n')}\n`);
    // named-checkzone with every check on, its warnings as warnings; kzonecheck's semantic checks
    const args =
      tool === 'named-checkzone'
        ? ['-k', 'warn', '-n', 'warn', '-m', 'warn', '-M', 'warn', '-S', 'warn', '-i', 'full', ZONE, file]
        : ['-o', ZONE, file];
    try {
      const out = execFileSync(tool, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      // "(out of zone)" lines come from asking the internet's DNS for names outside the zone: no answer here
      return tool === 'named-checkzone'
        ? out
            .split('\n')
            .filter((l) => l.startsWith('zone ') && !l.includes('(out of zone)') && !l.includes('loaded serial'))
            .join('\n')
        : out.trim();
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      return `${failed.stdout ?? ''}${failed.stderr ?? ''}` || 'failed';
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const namedCheckzone = (records: { owner: string; type: string; rdata: string }[]) => check('named-checkzone', records);

/** [case, extra records, expected warnings (owner type code), what named-checkzone says (undefined: it does not check)] */
const CASES: [string, ReturnType<typeof rr>[], string[], RegExp | undefined][] = [
  [
    'MX to an alias',
    [rr('@', 'MX', '10 alias.z.test.'), rr('alias', 'CNAME', 'host.z.test.')],
    ['@ MX TARGET_IS_CNAME'],
    /MX 'alias\.z\.test' is a CNAME/,
  ],
  [
    'SRV to an alias',
    [rr('_sip._tcp', 'SRV', '0 0 5060 alias.z.test.'), rr('alias', 'CNAME', 'host.z.test.')],
    ['_sip._tcp SRV TARGET_IS_CNAME'],
    /SRV 'alias\.z\.test' is a CNAME/,
  ],
  [
    'an in-zone name server without address',
    [rr('@', 'NS', 'ns2.z.test.'), rr('ns2', 'TXT', '"x"')],
    ['@ NS NS_TARGET_NO_ADDRESS'],
    /NS 'ns2\.z\.test' has no address records/,
  ],
  [
    'a mail host without address',
    [rr('mx', 'MX', '10 noaddr.z.test.'), rr('noaddr', 'TXT', '"x"')],
    ['mx MX TARGET_NO_ADDRESS'],
    /MX 'noaddr\.z\.test' has no address records/,
  ],
  [
    'a mail host that does not exist',
    [rr('mx', 'MX', '10 nothere.z.test.')],
    ['mx MX TARGET_MISSING'],
    /MX 'nothere\.z\.test' has no address records/,
  ],
  ['a delegation without its glue', [rr('sub', 'NS', 'ns.sub.z.test.')], ['sub NS GLUE_MISSING'], /has no REQUIRED GLUE address records/],
  // a delegation's name server in the zone, not below it: BIND reports it and loads the zone (an apex NS it refuses)
  [
    'a delegation whose name server is in the zone, without address',
    [rr('sub', 'NS', 'ns3.z.test.'), rr('sub2', 'NS', 'ns4.z.test.'), rr('ns4', 'TXT', '"x"')],
    ['sub NS TARGET_MISSING', 'sub2 NS TARGET_NO_ADDRESS'],
    /sub\.z\.test\/NS 'ns3\.z\.test' has no address records[^]*sub2\.z\.test\/NS 'ns4\.z\.test' has no address records/,
  ],
  ['a CNAME to a name that is not there', [rr('cn', 'CNAME', 'nothere.z.test.')], ['cn CNAME TARGET_MISSING'], undefined],
  [
    'data beside and below a delegation',
    [rr('sub', 'NS', 'ns1.example.net.'), rr('sub', 'A', '192.0.2.9'), rr('x.sub', 'A', '192.0.2.10')],
    ['sub A OCCLUDED_DATA', 'x.sub A OCCLUDED_DATA'],
    undefined,
  ],
  // RFC 8659 §4.2: a CA ignores a property it does not know, so a misspelt `issue` restricts nothing
  [
    'a CAA with an unknown tag',
    [rr('@', 'CAA', '0 isue "ca.example.net"'), rr('@', 'CAA', '0 issue "ca.example.net"')],
    ['@ CAA CAA_UNKNOWN_TAG'],
    undefined,
  ],
  // RFC 7208 §3.2/§4.5: two "v=spf1" records at one name make every SPF check of it a permerror
  [
    'two SPF records at the apex',
    [rr('@', 'TXT', '"v=spf1 mx -all"'), rr('@', 'TXT', '"V=SPF1 " "include:example.net ~all"'), rr('@', 'TXT', '"v=spf10 not spf"')],
    ['@ TXT SPF_MULTIPLE_RECORDS', '@ TXT SPF_MULTIPLE_RECORDS'],
    undefined,
  ],
  ['one SPF record beside other TXT', [rr('@', 'TXT', '"v=spf1 -all"'), rr('@', 'TXT', '"google-site-verification=x"')], [], undefined],
];

test.each(CASES)('%s', (_name, extra, expected, named) => {
  const records = [...BASE, ...extra];
  expect(
    checkZoneRecords(ZONE, records)
      .map((w) => `${w.owner} ${w.type} ${w.code}`)
      .sort(),
  ).toEqual([...expected].sort());
  if (named) expect(namedCheckzone(records)).toMatch(named);
});

/**
 * What a change set's plan refuses (severity error), BIND refuses to load, run as a primary that also fails an
 * MX or SRV to an alias (check-mx-cname fail, check-srv-cname fail: its default only warns) — except a
 * delegation's missing glue, which it reports and loads, and occluded data, which it loads and never serves
 * (docs/changes.md, "Where we differ from named-checkzone")
 */
const ERRORS: [string, ReturnType<typeof rr>[], string[], 'fails' | 'reports' | 'silent', RegExp | undefined][] = [
  [
    'MX to an alias',
    [rr('@', 'MX', '10 alias.z.test.'), rr('alias', 'CNAME', 'host.z.test.')],
    ['@ MX TARGET_IS_CNAME'],
    'fails',
    /is a CNAME \(illegal\)/,
  ],
  [
    'SRV to an alias',
    [rr('_s._tcp', 'SRV', '0 0 1 alias.z.test.'), rr('alias', 'CNAME', 'host.z.test.')],
    ['_s._tcp SRV TARGET_IS_CNAME'],
    'fails',
    /is a CNAME \(illegal\)/,
  ],
  [
    'NS to an alias',
    [rr('@', 'NS', 'alias.z.test.'), rr('alias', 'CNAME', 'host.z.test.')],
    ['@ NS TARGET_IS_CNAME'],
    'fails',
    /NS 'alias\.z\.test' is a CNAME/,
  ],
  ['an in-zone NS without address', [rr('@', 'NS', 'ns2.z.test.')], ['@ NS NS_TARGET_NO_ADDRESS'], 'fails', /has no address records/],
  [
    "a delegation's in-zone NS without address: a warning",
    [rr('sub', 'NS', 'ns3.z.test.')],
    [],
    'reports',
    /sub\.z\.test\/NS 'ns3\.z\.test' has no address records/,
  ],
  ['a delegation without glue', [rr('sub', 'NS', 'ns.sub.z.test.')], ['sub NS GLUE_MISSING'], 'reports', /has no REQUIRED GLUE/],
  [
    'data below a delegation',
    [rr('sub', 'NS', 'ns1.example.net.'), rr('x.sub', 'TXT', '"a"')],
    ['x.sub TXT OCCLUDED_DATA'],
    'silent',
    undefined,
  ],
];

test.each(ERRORS)('an error, as BIND sees it: %s', (_name, extra, expected, bind, says) => {
  const records = [...BASE, ...extra];
  const errors = checkZoneRecords(ZONE, records).filter((f) => f.severity === 'error');
  expect(errors.map((f) => `${f.owner} ${f.type} ${f.code}`).sort()).toEqual([...expected].sort());
  for (const f of errors) expect(f.rfc).toMatch(/^RFC \d+ §/);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-checks-'));
  try {
    const file = path.join(dir, 'zone');
    writeFileSync(file, `$ORIGIN ${ZONE}.\n$TTL 3600\n${records.map((r) => `${r.owner} ${r.type} ${r.rdata}`).join('\n')}\n`);
    let out = '';
    let failed = false;
    try {
      out = execFileSync('named-checkzone', ['-M', 'fail', '-S', 'fail', '-i', 'full', ZONE, file], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      failed = true;
      out = `${(error as { stdout?: string }).stdout ?? ''}`;
    }
    expect(failed).toBe(bind === 'fails');
    if (says) expect(out).toMatch(says);
    else expect(out.split('\n').filter((l) => l.startsWith('zone ') && !l.includes('loaded serial'))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a clean zone (glue, a wildcard, an empty non-terminal, out-of-zone targets) gives no warning, as BIND and Knot agree', () => {
  const records = [
    ...BASE,
    rr('@', 'MX', '10 host.z.test.'),
    rr('www', 'CNAME', 'host.z.test.'),
    rr('ext', 'CNAME', 'www.example.org.'),
    rr('sub', 'NS', 'ns.sub.z.test.'),
    rr('sub', 'DS', '60485 13 2 2BB183AF5F22588179A53B0A98631FAD1A2921182BB183AF5F22588179A53B0A'),
    rr('ns.sub', 'A', '192.0.2.53'),
    rr('*.w', 'A', '192.0.2.2'),
    rr('mail', 'MX', '10 any.w.z.test.'),
    rr('a.b.c', 'A', '192.0.2.3'),
    rr('ent', 'CNAME', 'b.c.z.test.'),
    rr('_sip._tcp', 'SRV', '0 0 0 .'),
  ];
  expect(checkZoneRecords(ZONE, records)).toEqual([]);
  expect(namedCheckzone(records)).toBe('');
  expect(check('kzonecheck', records)).toBe('');
});

test("a write's check sees only the names it needs, and finds the same", () => {
  const zone = [...BASE, rr('alias', 'CNAME', 'host.z.test.'), rr('far.away', 'TXT', '"unrelated"')];
  const written = rr('mx', 'MX', '10 alias.z.test.');
  const needed = new Set(ownersToCheck(ZONE, [written]));
  expect([...needed].sort()).toEqual(['*', '@', 'alias', 'mx'].sort());
  const view = [...zone, written].filter((r) => needed.has(r.owner));
  expect(checkZoneRecords(ZONE, view, [written]).map((w) => w.code)).toEqual(['TARGET_IS_CNAME']);
});
