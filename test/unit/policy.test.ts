import {
  buildPolicy,
  decide,
  exceedsCreator,
  KeyPolicy,
  presetRules,
  readsRecord,
  seesZone,
  unusableReason,
  writesSomewhere,
} from '../../src/auth/policy';

const policyOf = (rules: KeyPolicy['rules'], extra: Partial<KeyPolicy> = {}): KeyPolicy => ({
  ...buildPolicy({ policy: { rules: [] } }),
  rules,
  ...extra,
});

describe('the policy engine', () => {
  const acme = policyOf(presetRules('ACME').rules);

  it('ACME: TXT at _acme-challenge at any depth, nothing else', () => {
    expect(decide(acme, { zone: 'example.com', owner: '_acme-challenge', type: 'TXT', access: 'write' }).allowed).toBe(true);
    expect(decide(acme, { zone: 'example.com', owner: '_acme-challenge.www.sub', type: 'TXT', access: 'write' }).allowed).toBe(true);
    expect(decide(acme, { zone: 'example.com', owner: 'www', type: 'A', access: 'write' })).toEqual({
      allowed: false,
      missing: 'no rule lets this key write A at www.example.com',
    });
    expect(decide(acme, { zone: 'example.com', owner: 'x._acme-challenge', type: 'TXT', access: 'read' }).allowed).toBe(false);
    expect(decide(acme, { zone: 'example.com', owner: '_acme-challenge', type: 'A', access: 'read' }).allowed).toBe(false);
    // a whole zone (a transfer) or a whole name (DNS UPDATE "delete a name") is more than the preset
    expect(decide(acme, { zone: 'example.com', access: 'read' }).allowed).toBe(false);
    expect(decide(acme, { zone: 'example.com', owner: '_acme-challenge', access: 'write' }).allowed).toBe(false);
  });

  it('writesSomewhere: some point of the zone may be written (what a screen asks before it offers to add records)', () => {
    expect(writesSomewhere(undefined, 'example.com')).toBe(true);
    expect(writesSomewhere(acme, 'example.com')).toBe(true);
    expect(writesSomewhere(policyOf(presetRules('READ_ONLY').rules), 'example.com')).toBe(false);
    expect(writesSomewhere(policyOf(presetRules('ONE_ZONE', 'example.com').rules), 'example.com')).toBe(true);
    expect(writesSomewhere(policyOf(presetRules('ONE_ZONE', 'example.com').rules), 'example.org')).toBe(false);
    // a write rule every more specific read rule covers writes nothing there: the most specific rule decides
    const shadowed = policyOf([
      { zone: 'example.com', owner: null, types: null, access: 'read' },
      { zone: null, owner: null, types: null, access: 'write' },
    ]);
    expect(writesSomewhere(shadowed, 'example.com')).toBe(false);
    expect(writesSomewhere(shadowed, 'example.org')).toBe(true);
    // one writable owner under a zone read otherwise is somewhere
    const oneOwner = policyOf([
      { zone: 'example.com', owner: null, types: null, access: 'read' },
      { zone: 'example.com', owner: 'dyn', types: ['A'], access: 'write' },
    ]);
    expect(writesSomewhere(oneOwner, 'example.com')).toBe(true);
  });

  it('the most specific rule wins: zone, then owner (exact > wildcard > any), then types', () => {
    const policy = policyOf([
      { zone: null, owner: null, types: null, access: 'write' },
      { zone: 'example.com', owner: null, types: null, access: 'read' },
      { zone: 'example.com', owner: 'dyn.*', types: null, access: 'write' },
      { zone: 'example.com', owner: 'dyn.fixed', types: null, access: 'read' },
      { zone: 'example.com', owner: 'dyn.fixed', types: ['TXT'], access: 'write' },
    ]);
    const may = (zone: string, owner: string, type: string) => decide(policy, { zone, owner, type, access: 'write' }).allowed;
    expect(may('other.org', 'www', 'A')).toBe(true);
    expect(may('example.com', 'www', 'A')).toBe(false);
    expect(may('example.com', 'dyn.host', 'A')).toBe(true);
    expect(may('example.com', 'dyn.fixed', 'A')).toBe(false);
    expect(may('example.com', 'dyn.fixed', 'TXT')).toBe(true);
    expect(seesZone(policy, 'anything.net')).toBe(true);
    expect(decide(policy, { zone: 'example.com', access: 'read' }).allowed).toBe(true);
    expect(decide(policy, { zone: 'example.com', access: 'write' }).allowed).toBe(false);
  });

  it('a restricted key without a matching rule may do nothing; an unrestricted one everything', () => {
    const oneZone = policyOf(presetRules('ONE_ZONE', 'example.com').rules);
    expect(seesZone(oneZone, 'other.com')).toBe(false);
    expect(readsRecord(oneZone, 'other.com', '@', 'SOA')).toBe(false);
    expect(decide(oneZone, { zone: 'example.com', access: 'write' }).allowed).toBe(true);
    expect(decide(undefined, { zone: 'x.org', access: 'write' }).allowed).toBe(true);
    expect(decide(buildPolicy({}), { zone: 'x.org', access: 'write' }).allowed).toBe(true);
    expect(buildPolicy({ policy: { mayCreateZones: true } }).rules).toEqual([]);
  });

  it('a key never gets more than its creator', () => {
    const creator = policyOf(presetRules('ONE_ZONE', 'example.com').rules, { mayManageKeys: true });
    expect(exceedsCreator(buildPolicy({ preset: 'ACME', zone: 'example.com' }), creator)).toBeUndefined();
    expect(exceedsCreator(buildPolicy({ preset: 'ACME' }), creator)).toMatch(/more than this key may do/);
    expect(exceedsCreator(buildPolicy({}), creator)).toMatch(/only make restricted keys/);
    expect(exceedsCreator(buildPolicy({ preset: 'READ_ONLY', zone: 'example.com', policy: { mayCreateZones: true } }), creator)).toMatch(
      /mayCreateZones/,
    );
    const acmeCreator = policyOf(presetRules('ACME', 'example.com').rules, { mayManageKeys: true });
    expect(exceedsCreator(buildPolicy({ preset: 'ACME', zone: 'example.com' }), acmeCreator)).toBeUndefined();
    expect(
      exceedsCreator(
        buildPolicy({ policy: { rules: [{ zone: 'example.com', owner: '_acme-challenge.www', types: ['TXT'], access: 'write' }] } }),
        acmeCreator,
      ),
    ).toBeUndefined();
    expect(
      exceedsCreator(
        buildPolicy({ policy: { rules: [{ zone: 'example.com', owner: '_acme-challenge.*', types: ['TXT', 'A'], access: 'read' }] } }),
        acmeCreator,
      ),
    ).toMatch(/more than/);
    const dated = policyOf(null, { expiresAt: new Date('2030-01-01T00:00:00Z'), allowedNetworks: ['10.0.0.0/8'] });
    expect(exceedsCreator(buildPolicy({ policy: { expiresAt: '2031-01-01T00:00:00Z', allowedNetworks: ['10.1.0.0/16'] } }), dated)).toMatch(
      /expire/,
    );
    expect(
      exceedsCreator(buildPolicy({ policy: { expiresAt: '2029-01-01T00:00:00Z', allowedNetworks: ['10.1.0.0/16'] } }), dated),
    ).toBeUndefined();
    expect(
      exceedsCreator(buildPolicy({ policy: { expiresAt: '2029-01-01T00:00:00Z', allowedNetworks: ['192.0.2.0/24'] } }), dated),
    ).toMatch(/may not be used from 192.0.2.0\/24/);
  });

  it('expiry, idleness and networks', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const policy = buildPolicy({
      policy: { expiresAt: '2026-12-01T00:00:00Z', idleDays: 2, allowedNetworks: ['127.0.0.0/8', '2001:db8::/32'] },
    });
    expect(unusableReason(policy, { address: '::ffff:127.0.0.1', lastUsedAt: now, now })).toBeUndefined();
    expect(unusableReason(policy, { address: '2001:db8::5', lastUsedAt: now, now })).toBeUndefined();
    expect(unusableReason(policy, { address: '192.0.2.1', lastUsedAt: now, now })).toMatch(/may not be used from 192.0.2.1/);
    expect(unusableReason(policy, { address: '127.0.0.1', lastUsedAt: new Date('2026-11-20T00:00:00Z'), now })).toMatch(
      /not used for more than 2 days/,
    );
    expect(unusableReason(policy, { address: '127.0.0.1', lastUsedAt: now, now: new Date('2026-12-02T00:00:00Z') })).toMatch(/expired/);
  });

  it('refuses malformed rules with the field named', () => {
    expect(() => buildPolicy({ policy: { rules: [{ zone: 'example.com', access: 'admin' }] } })).toThrow(/policy.rules\[0\].access/);
    expect(() => buildPolicy({ policy: { rules: [{ types: ['NOPE'], access: 'read' }] } })).toThrow(/types\[0\]/);
    expect(() => buildPolicy({ policy: { allowedNetworks: ['10.0.0.0/33'] } })).toThrow(/allowedNetworks\[0\]/);
    expect(() => buildPolicy({ preset: 'ONE_ZONE' })).toThrow(/needs the zone/);
    expect(buildPolicy({ policy: { rules: [{ zone: 'Example.COM.', owner: 'WWW.example.com.', access: 'read' }] } }).rules).toEqual([
      { zone: 'example.com', owner: 'www', types: null, access: 'read' },
    ]);
    // an absolute owner is made relative to the rule's zone: its apex is '@'; a name that merely ends with the
    // zone's letters, or one with no zone to be relative to, is not an owner of it
    expect(buildPolicy({ policy: { rules: [{ zone: 'example.com', owner: 'Example.COM.', access: 'read' }] } }).rules?.[0].owner).toBe('@');
    expect(() => buildPolicy({ policy: { rules: [{ zone: 'example.com', owner: 'www.notexample.com.', access: 'read' }] } })).toThrow(
      /policy.rules\[0\].owner: give the owner relative/,
    );
    expect(() => buildPolicy({ policy: { rules: [{ owner: 'www.example.com.', access: 'read' }] } })).toThrow(/give the owner relative/);
  });
});
