import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser, createZone } from '../support/fixtures';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

/** The `zonekeeper member` and `zonekeeper invitation` commands (the built bin), end to end against the running service. */
let app: TestApp;

beforeAll(async () => {
  buildOnce();
  app = await startTestApp();
}, 120_000);
afterAll(async () => app?.close());

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(app.baseUrl, args, env);

const json = async (args: string[], env: Record<string, string | undefined> = {}) => {
  const run = await cli(['--json', ...args], env);
  expect({ args, code: run.code, err: run.err }).toEqual({ args, code: 0, err: '' });
  return JSON.parse(run.out);
};

test('invites (the link printed), lists members and invitations, changes a role, revokes, recovers and removes', async () => {
  const account = await createUser(app, 'cli-team@example.org');
  await createZone(app, account, 'cli-team.example');

  // an invitation: the link whole, with the service's address (no PUBLIC_ORIGIN: the API gives the path)
  const table = await cli([
    'invitation',
    'add',
    'cli-team@example.org',
    'Ed@Example.org',
    '--role',
    'Editor',
    '--zone',
    'cli-team.example',
  ]);
  expect(table.code).toBe(0);
  expect(table.out).toMatch(/^ID\s+EMAIL\s+ROLE\s+ZONES\s+EXPIRESAT\s+LINK$/m);
  expect(table.out).toContain(`${app.baseUrl}/console/#/invitation/zk_invite_`);
  expect(table.out).toMatch(/Ed@Example\.org\s+editor\s+\["cli-team\.example"\]/);
  // the first sign-in of the address takes it
  await signIn(app, 'ed@example.org');
  const members = await json(['member', 'list', account]);
  expect(members).toEqual([expect.objectContaining({ email: 'ed@example.org', role: 'editor', zones: ['cli-team.example'] })]);
  const personId = members[0].personId;

  // a role by e-mail or by person id, in any case; a role that is none: a usage mistake, nothing sent
  expect(await json(['member', 'role', account, 'ED@example.org', 'VIEWER'])).toMatchObject({
    email: 'ed@example.org',
    role: 'viewer',
    zones: null,
  });
  expect(await json(['member', 'role', account, personId, 'editor', '--zone', 'cli-team.example'])).toMatchObject({
    role: 'editor',
    zones: ['cli-team.example'],
  });
  const wrong = await cli(['member', 'role', account, personId, 'superuser']);
  expect([wrong.code, wrong.err]).toEqual([2, 'error: a role is one of owner, admin, editor, viewer (got "superuser")\n']);
  // an operator grant for someone who has not joined: who, and how they come to be known
  const unjoined = await cli(['operator', 'grant', 'newcomer@example.org']);
  expect([unjoined.code, unjoined.out]).toEqual([1, '']);
  expect(unjoined.err).toBe(
    'error: PERSON_NOT_FOUND: no person newcomer@example.org is known to the service: a person is known once they have signed in ' +
      '(OpenID Connect) or joined an account by an invitation. Invite them first (zonekeeper invitation add ACCOUNT newcomer@example.org ' +
      '--role viewer prints the link to pass on), then run this again once they have joined.\n',
  );
  const stranger = await cli(['member', 'role', account, 'nobody@example.org', 'viewer']);
  expect([stranger.code, stranger.err]).toEqual([1, 'error: MEMBER_NOT_FOUND: nobody@example.org is no member of the account\n']);
  // the API's refusal, its code on stderr: an owner role for a zone-limited editor
  const refused = await cli(['member', 'role', account, personId, 'owner', '--zone', 'cli-team.example']);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/^error: INVALID_INPUT: zones: only an editor/);

  // open invitations, listed and revoked
  const open = await json(['invitation', 'add', account, 'vi@example.org', '--role', 'viewer']);
  expect(open.link).toMatch(new RegExp(`^${app.baseUrl}/console/#/invitation/zk_invite_`));
  const listed = await json(['invitation', 'list', account]);
  expect(listed).toEqual([expect.objectContaining({ id: open.id, email: 'vi@example.org', role: 'viewer' })]);
  expect(await json(['invitation', 'revoke', open.id])).toMatchObject({ id: open.id, revoked: true });
  expect((await cli(['invitation', 'list', account])).out).toBe('(none)\n');
  const again = await cli(['invitation', 'revoke', open.id]);
  expect([again.code, again.err]).toEqual([1, expect.stringMatching(/^error: INVITATION_NOT_FOUND: /)]);

  // a recovery link: printed whole, stored hashed
  const recovery = await json(['member', 'recover', account, 'ed@example.org']);
  expect(recovery).toMatchObject({ personId, email: 'ed@example.org' });
  expect(recovery.link).toMatch(new RegExp(`^${app.baseUrl}/console/#/recovery/zk_recover_`));

  // a key that may not manage members is refused by its policy
  const readOnly = await json(['key', 'create', account, 'reader', '--preset', 'read-only']);
  const asReader = { ZONEKEEPER_API_KEY: readOnly.secret };
  const denied = await cli(['member', 'list', account], asReader);
  expect([denied.code, denied.err]).toEqual([1, expect.stringMatching(/^error: FORBIDDEN_BY_POLICY: /)]);
  expect((await cli(['member', 'recover', account, personId], asReader)).code).toBe(1);

  // removal asks, or takes --yes; a script without --yes stops with a usage error, nothing done
  const unasked = await cli(['member', 'remove', account, 'ed@example.org']);
  expect([unasked.code, unasked.err]).toEqual([2, expect.stringContaining('add --yes to confirm')]);
  expect(await json(['member', 'list', account])).toHaveLength(1);
  expect(await json(['member', 'remove', account, 'ed@example.org', '--yes'])).toMatchObject({ email: 'ed@example.org', removed: true });
  expect((await cli(['member', 'list', account])).out).toBe('(none)\n');
}, 60_000);
