import { loadSettings, SettingsError } from '../../src/config/settings';
import { isOperator, personPrincipal, requireAdmin } from '../../src/auth/principal';
import { claimGrantsOperator, rolePolicy } from '../../src/auth/roles';

/** The operator as a person (docs/people.md, «The operator»): the policy engine's decisions, and the settings. */
const OIDC = { OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'zonekeeper' };
const mapping = { claim: 'groups', values: ['zonekeeper-operators', 'dns admins'] };

describe('claimGrantsOperator', () => {
  it('takes a string claim or an array of strings holding one of the values exactly', () => {
    expect(claimGrantsOperator({ groups: 'dns admins' }, mapping)).toBe(true);
    expect(claimGrantsOperator({ groups: ['staff', 'zonekeeper-operators'] }, mapping)).toBe(true);
    for (const groups of ['DNS Admins', 'dns', ['Zonekeeper-Operators'], [], 'zonekeeper-operators,staff', 7, { 'dns admins': true }, null])
      expect({ groups, granted: claimGrantsOperator({ groups }, mapping) }).toEqual({ groups, granted: false });
    expect(claimGrantsOperator({ roles: ['dns admins'] }, mapping)).toBe(false);
    expect(claimGrantsOperator(undefined, mapping)).toBe(false);
  });
});

describe('an operator person’s principal', () => {
  const person = { id: 7, email: 'ops@example.org' };
  it('is the admin’s, with the person and the account acted in kept; anyone else is refused FORBIDDEN', () => {
    const operator = personPrincipal(person, {
      sessionId: 3,
      accountId: 12,
      role: 'viewer',
      policy: rolePolicy('viewer', null),
      operator: true,
    });
    expect(operator).toEqual({
      kind: 'admin',
      via: 'session',
      keyId: 3,
      keyName: 'ops@example.org',
      person: { id: 7, email: 'ops@example.org', role: 'viewer', accountId: 12, operator: true },
    });
    expect(isOperator(operator)).toBe(true);
    expect(() => requireAdmin(operator)).not.toThrow();
    const member = personPrincipal(person, { sessionId: 3, accountId: 12, role: 'owner', policy: rolePolicy('owner', null) });
    expect(member.kind).toBe('user');
    expect(isOperator(member)).toBe(false);
    expect(() => requireAdmin(member)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });
});

describe('the OIDC operator settings', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadSettings(env);
    } catch (error) {
      if (error instanceof SettingsError) return error.problems;
      throw error;
    }
    return [];
  };
  it('reads the claim and its comma-separated values (spaces kept inside a value), and extra scopes', () => {
    const settings = loadSettings({
      ...OIDC,
      OIDC_OPERATOR_CLAIM: 'groups',
      OIDC_OPERATOR_VALUES: ' zonekeeper-operators , dns admins,',
      OIDC_SCOPES: 'groups profile openid',
    });
    expect(settings.oidc).toMatchObject({ operator: mapping, scopes: ['groups', 'profile'] });
    expect(loadSettings(OIDC).oidc).toMatchObject({ operator: undefined, scopes: [] });
  });
  it('wants both or neither', () => {
    const problem = 'OIDC_OPERATOR_CLAIM (a claim name) and OIDC_OPERATOR_VALUES (comma-separated values) are set together';
    expect(problemsOf({ ...OIDC, OIDC_OPERATOR_CLAIM: 'groups' })).toEqual([problem]);
    expect(problemsOf({ ...OIDC, OIDC_OPERATOR_VALUES: 'ops' })).toEqual([problem]);
  });
});
