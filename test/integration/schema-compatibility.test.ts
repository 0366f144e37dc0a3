/**
 * `npm run schema:compat` over a git history of its own: the checker walks the commits since the rule began and
 * fails on one that breaks the schema without a deprecation and a changelog entry, naming the commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BEFORE = `
type Query { member(id: ID!): Member }
type Member { id: ID! role: String email: String }
enum MemberRole { OWNER ADMIN VIEWER }
`;
/**
 * git as it comes, whatever the machine's own configuration says (a signing key that asks for a passphrase, hooks,
 * an editor): the commits here are the test's, made without a question
 */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};
/** a child process that waits past this is stopped: a test run synchronously cannot be timed out by Jest */
const CHILD_TIMEOUT_MS = 60_000;
const SOURCES = path.join(__dirname, '../../src/scripts');

/** a repository whose first commit holds BEFORE, with the checker's source pointed at it and at that commit */
function repository() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'schema-compat-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, ...GIT_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: CHILD_TIMEOUT_MS,
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'schema.graphql'), BEFORE);
  git('add', '.');
  git('commit', '-q', '-m', 'the schema as held');
  const heldSince = git('rev-parse', 'HEAD').trim();
  const source = readFileSync(path.join(SOURCES, 'check-schema-compatibility.ts'), 'utf8')
    .replace(/const ROOT = .*;/, `const ROOT = ${JSON.stringify(dir)};`)
    .replace(/const HELD_SINCE = '[0-9a-f]+';/, `const HELD_SINCE = '${heldSince}';`)
    .replace("from './schema-compatibility'", `from ${JSON.stringify(path.join(SOURCES, 'schema-compatibility'))}`);
  expect(source).toContain(heldSince);
  writeFileSync(path.join(dir, 'check.ts'), source);
  /** runs the checker: its exit status and what it wrote */
  const check = () => {
    try {
      const stdout = execFileSync(process.execPath, ['-r', '@swc-node/register', path.join(dir, 'check.ts')], {
        cwd: path.join(__dirname, '../..'),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...GIT_ENV },
        timeout: CHILD_TIMEOUT_MS,
      });
      return { status: 0, output: stdout };
    } catch (error) {
      return { status: (error as { status: number }).status, output: String((error as { stderr: string }).stderr) };
    }
  };
  const commit = (schema: string, changelog: string, message: string) => {
    writeFileSync(path.join(dir, 'schema.graphql'), schema);
    execFileSync('mkdir', ['-p', path.join(dir, 'docs')]);
    writeFileSync(path.join(dir, 'docs/schema-changelog.md'), changelog);
    git('add', '.');
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD').trim();
  };
  return { dir, check, commit };
}

test('a commit that breaks the schema fails the check, naming the commit and the coordinate', () => {
  const repo = repository();
  try {
    const broke = repo.commit(BEFORE.replace('role: String', 'role: MemberRole'), '', 'a role becomes an enum at once');
    repo.commit(BEFORE.replace('role: String', 'role: MemberRole').replace('id: ID!', 'id: ID! name: String'), '', 'a later commit');
    const { status, output } = repo.check();
    expect(status).toBe(1);
    expect(output).toContain(`${broke.slice(0, 12)}: Field 'Member.role' changed type from 'String' to 'MemberRole' (Member.role)`);
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
});

test('deprecated in one commit, removed in a later one that names it in the changelog: the check passes', () => {
  const repo = repository();
  try {
    const deprecated = BEFORE.replace('email: String', 'email: String @deprecated(reason: "use emails")');
    repo.commit(deprecated, '', 'deprecate Member.email');
    repo.commit(BEFORE.replace(' email: String', ''), '- `Member.email` removed', 'remove Member.email');
    expect(repo.check()).toEqual({ status: 0, output: expect.stringContaining('2 step(s)') });
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
});
