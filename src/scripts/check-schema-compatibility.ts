import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { refusedSchemaChanges } from './schema-compatibility';

/**
 * `npm run schema:compat` (CI): every step `schema.graphql` took since the schema was first held to this rule,
 * commit by commit, and the working tree's against the last commit, checked by `refusedSchemaChanges`: a
 * breaking change passes only when what it breaks was deprecated first and the changelog of the same commit
 * names it. The walk follows first parents: a branch merged in is checked by the merge's net effect, so a field
 * deprecated and removed within one branch was not deprecated first for anyone who had the schema before it.
 */

const ROOT = path.join(__dirname, '..', '..', '..');
const SCHEMA = 'schema.graphql';
const CHANGELOG = 'docs/schema-changelog.md';
/** the commit from which on the schema is held to this rule (the changelog's first entry says so) */
const HELD_SINCE = '53647f853e994d6b2c3e1923f9b2fb15fefed492';

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });

/** a file as a commit holds it ('' where it has none) */
function atCommit(commit: string, file: string): string {
  try {
    return git('show', `${commit}:${file}`);
  } catch {
    return '';
  }
}

async function main() {
  try {
    git('cat-file', '-e', `${HELD_SINCE}^{commit}`);
  } catch {
    process.stderr.write(
      `schema compatibility: the commit ${HELD_SINCE} is not in this clone (a shallow clone?); fetch the history to check\n`,
    );
    process.exit(2);
  }
  const steps: Array<{ name: string; before: string; after: string; changelog: string }> = [];
  const commits = git('rev-list', '--reverse', '--first-parent', `${HELD_SINCE}..HEAD`, '--', SCHEMA).split('\n').filter(Boolean);
  for (const commit of commits)
    steps.push({
      name: commit.slice(0, 12),
      before: atCommit(`${commit}^1`, SCHEMA),
      after: atCommit(commit, SCHEMA),
      changelog: atCommit(commit, CHANGELOG),
    });
  const tree = path.join(ROOT, SCHEMA);
  const committed = atCommit('HEAD', SCHEMA);
  if (existsSync(tree) && readFileSync(tree, 'utf8') !== committed)
    steps.push({
      name: 'the working tree',
      before: committed,
      after: readFileSync(tree, 'utf8'),
      changelog: existsSync(path.join(ROOT, CHANGELOG)) ? readFileSync(path.join(ROOT, CHANGELOG), 'utf8') : '',
    });

  let failed = false;
  for (const step of steps) {
    for (const change of await refusedSchemaChanges(step.before, step.after, step.changelog)) {
      failed = true;
      process.stderr.write(`${step.name}: ${change.message} (${change.path}): not ${change.missing.join(', nor ')}\n`);
    }
  }
  if (failed) {
    process.stderr.write(
      `schema.graphql broke clients generated from it: deprecate the field or value first (@deprecated), keep it for a release, then remove it and name it as \`Type.field\` in ${CHANGELOG}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`schema.graphql: ${steps.length} step(s) since ${HELD_SINCE.slice(0, 12)} checked, none breaks a client\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
