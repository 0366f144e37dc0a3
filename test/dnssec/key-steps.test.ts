/**
 * What a key step re-signs (docs/dnssec.md, «Key rollovers»; RFC 7583): in a zone of 1,000 names, the steps
 * that leave the zone's data signed by the same keys (a ZSK published or removed, §3.2.1; every step of a KSK
 * double-DS roll, §3.3.2; the DS-delete pair of a zone being unsigned) change only a handful of signer records:
 * the apex DNSKEY, CDS and CDNSKEY RRsets, their RRSIGs and the SOA's, and the apex's NSEC/NSEC3 when the CDS
 * and CDNSKEY come or go. The steps that change those keys (a ZSK activated, a CSK swapped) still re-sign every
 * RRset. The journal row of each step (what an IXFR carries) is counted, and after each step the zone as the
 * primary serves it (records ∪ signer records) passes dnssec-verify, ldns-verify-zone and kzonecheck.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as PgClient } from 'pg';
import { renderZoneFile } from '../../src/dns/zone-file';
import { advanceKeyRolls } from '../../src/services/dnssec/key-rollover';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);
const NAMES = 1000;

let app: TestApp;
let db: PgClient;
let userId: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-key-steps-'));
  // no worker: the test takes each step itself, once due (TTLs of 1 s, a propagation delay of 1 s)
  app = await startTestApp({ ROLES: 'api', ALLOWED_TTLS: 'any', DNSSEC_PROPAGATION_DELAY: '1' });
  userId = await createUser(app, 'steps@example.org');
  db = new PgClient({ connectionString: app.settings.databaseUrl });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function gqlOk(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await app.gql(query, variables);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data;
}

async function keys(zone: string): Promise<{ keyTag: number; role: string; state: string }[]> {
  return (await gqlOk(`query($z: String) { domain(name: $z) { dnssec { keys { keyTag role state } } } }`, { z: zone })).domain.dnssec.keys;
}

/** the newest journal row of the zone: its kind and how many signer records it removes and adds */
async function lastStep(zone: string): Promise<{ serial: number; kind: string; signer: number; types: string[] }> {
  const { rows } = await db.query(
    `select serial_after, kind, signer_removed, signer_added from changes where zone = $1 order by id desc limit 1`,
    [zone],
  );
  const records: { type: string }[] = [...(rows[0].signer_removed ?? []), ...(rows[0].signer_added ?? [])];
  return {
    serial: Number(rows[0].serial_after),
    kind: rows[0].kind,
    signer: records.length,
    types: [...new Set(records.map((r) => r.type))].sort(),
  };
}

/** the zone as the primary serves it (records ∪ signer records), through the three verifiers */
async function verify(zone: string, label: string, csk = false): Promise<void> {
  const { rows } = await db.query(
    `select owner, type, ttl, rdata from records where domain_id = (select id from domains where name = $1)
     union all
     select owner, type, ttl, rdata from dnssec_records where domain_id = (select id from domains where name = $1)`,
    [zone],
  );
  const file = join(dir, `${zone}-${label}.zone`);
  writeFileSync(file, renderZoneFile(zone, rows));
  const tool = async (name: string, args: string[]) =>
    run(name, args, { maxBuffer: 64 * 1024 * 1024 }).catch((error) => {
      throw new Error(`${label}: ${name}: ${error.stdout}${error.stderr}`);
    });
  // the three read the same file on their own: side by side. -z: a CSK (KSK flag) signs the data too
  const [, ldns] = await Promise.all([
    tool('dnssec-verify', [...(csk ? ['-z'] : []), '-o', zone, file]),
    tool('ldns-verify-zone', [file]),
    tool('kzonecheck', ['--dnssec', 'on', '-o', zone, file]),
  ]);
  expect(ldns.stdout + ldns.stderr).toMatch(/Zone is verified and complete/);
}

/** what the worker's key steps write with: the app's write engine and key vault */
const dnssecWriter = () => app.service.services.dnssecWriter;

/** the next key step of the zone, taken once due: its journal row, verified */
async function nextStep(zone: string, label: string, csk: boolean): Promise<{ signer: number; types: string[] }> {
  const before = (await lastStep(zone)).serial;
  await waitFor(
    `${label} of ${zone}`,
    async () => ((await advanceKeyRolls(dnssecWriter(), app.service.database.db, app.settings)) > 0 ? true : undefined),
    30_000,
    200,
  );
  const step = await lastStep(zone);
  expect(step.serial).not.toBe(before);
  expect(step.kind).toBe('zone-signed');
  await verify(zone, label, csk);
  return step;
}

/** a step started through the API: its journal row, verified */
async function apiStep(zone: string, label: string, csk: boolean, mutation: string): Promise<{ signer: number; types: string[] }> {
  await gqlOk(mutation, { z: zone });
  const step = await lastStep(zone);
  expect(step.kind).toBe('zone-signed');
  await verify(zone, label, csk);
  return step;
}

/** what a step that re-signs every RRset changes at least: an RRSIG of every name removed and one added */
const WHOLE = 2 * NAMES;
/** what a step of the keys alone changes at most: DNSKEY, CDS, CDNSKEY and their RRSIGs, the SOA's, the apex NSEC/NSEC3 and its RRSIG */
const KEYS_ONLY = 20;

describe.each([
  ['NSEC', { denial: 'NSEC' }],
  ['NSEC3', { denial: 'NSEC3' }],
  ['CSK with NSEC', { keyLayout: 'CSK' }],
])('key steps of a zone of %s', (label, options) => {
  const zone = `${label.replace(/\W+/g, '-').toLowerCase()}.zk-key-steps.test`;
  const csk = 'keyLayout' in options;

  it('re-sign the apex alone unless the keys that sign the data change', async () => {
    await createZone(app, userId, zone);
    const names = Array.from({ length: NAMES }, (_, i) => `h${i} 1 IN A 10.0.${i >> 8}.${i & 255}\n`).join('');
    await gqlOk(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
      z: zone,
      t: `$ORIGIN ${zone}.\n@ 1 IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 1\n@ 1 IN NS ns1.${zone}.\nns1 1 IN A 192.0.2.1\n${names}`,
    });
    await gqlOk(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, ...options } });
    await verify(zone, 'enabled', csk);
    const sizes: Record<string, number> = {};

    if (!csk) {
      // ZSK pre-publication (RFC 7583 §3.2.1): publish and remove touch the DNSKEY RRset; activation re-signs all
      const publish = await apiStep(zone, 'zsk-published', csk, `mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { state } }`);
      sizes['ZSK published'] = publish.signer;
      expect(publish.signer).toBeLessThanOrEqual(KEYS_ONLY);
      expect(publish.types).toEqual(['DNSKEY', 'RRSIG']);
      const activate = await nextStep(zone, 'zsk-active', csk);
      sizes['ZSK active'] = activate.signer;
      expect(activate.signer).toBeGreaterThan(WHOLE);
      const remove = await nextStep(zone, 'zsk-removed', csk);
      sizes['old ZSK removed'] = remove.signer;
      expect(remove.signer).toBeLessThanOrEqual(KEYS_ONLY);
      expect(remove.types).toEqual(['DNSKEY', 'RRSIG']);
      expect((await keys(zone)).filter((k) => k.role === 'ZSK' && k.state !== 'removed').map((k) => k.state)).toEqual(['active']);
    }

    // KSK (or CSK) double-DS (RFC 7583 §3.3.2), the parent elsewhere: generated (the CDS/CDNSKEY leave, so the
    // apex's NSEC/NSEC3 changes), the swap on the operator's word, the old DS withdrawn (the CDS/CDNSKEY return)
    const denialType = 'denial' in options && options.denial === 'NSEC3' ? 'NSEC3' : 'NSEC';
    const generated = await apiStep(zone, 'ksk-generated', csk, `mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { state } }`);
    sizes['KSK generated'] = generated.signer;
    expect(generated.signer).toBeLessThanOrEqual(KEYS_ONLY);
    expect(generated.types).toEqual(['CDNSKEY', 'CDS', denialType, 'RRSIG']);
    await gqlOk(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { zone } }`, { z: zone });
    const swap = await nextStep(zone, 'ksk-swapped', csk);
    sizes[csk ? 'CSK swapped' : 'KSK swapped'] = swap.signer;
    if (csk) expect(swap.signer).toBeGreaterThan(WHOLE);
    else {
      expect(swap.signer).toBeLessThanOrEqual(KEYS_ONLY);
      expect(swap.types).toEqual(['DNSKEY', 'RRSIG']);
    }
    // the retired KSK left the DNSKEY RRset at the swap: only its DS goes now, and the CDS/CDNSKEY name the new key
    const withdrawn = await nextStep(zone, 'ds-withdrawn', csk);
    sizes['old DS withdrawn'] = withdrawn.signer;
    expect(withdrawn.signer).toBeLessThanOrEqual(KEYS_ONLY);
    expect(withdrawn.types).toEqual(['CDNSKEY', 'CDS', denialType, 'RRSIG']);

    // unsigning (RFC 8078 §4): the CDS/CDNSKEY become the DS-delete pair, the rest stays signed as it was
    const disabling = await apiStep(zone, 'disabling', csk, `mutation($z: String!) { disableDnssec(zone: $z) { state } }`);
    sizes['disabling'] = disabling.signer;
    expect(disabling.signer).toBeLessThanOrEqual(KEYS_ONLY);
    expect(disabling.types).toEqual(['CDNSKEY', 'CDS', 'RRSIG']);
    // the sizes, for docs/dnssec.md
    process.stdout.write(`${label}: signer records per step: ${JSON.stringify(sizes)}\n`);
  }, 180_000);
});
