import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi } from '../rest/openapi';
import { ROUTES } from '../rest/routes';
import { OpenApiDocument, refusedOpenApiChanges } from './openapi-compatibility';

/**
 * `npm run openapi:compat` (CI), as `schema:compat` holds schema.graphql: the REST layer's OpenAPI document is
 * committed as `openapi.json` (what `npm run openapi:emit` writes, the document the service serves at
 * /api/openapi.json with REST_ENVELOPE=none), and every step it took is checked by `refusedOpenApiChanges`:
 * commit by commit along the first parents since it was first committed (that first document is the
 * baseline), the working tree's against the last commit, and the document the code emits against the working
 * tree's. A breaking step passes only when docs/openapi-changelog.md, as of the same commit, names it. The code's
 * document must also be the committed one: a change of the REST layer commits its document, so that the next
 * step is checked against it.
 */

const ROOT = path.join(__dirname, '..', '..', '..');
const DOCUMENT = 'openapi.json';
const CHANGELOG = 'docs/openapi-changelog.md';

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });

/** a file as a commit holds it ('' where it has none) */
function atCommit(commit: string, file: string): string {
  try {
    return git('show', `${commit}:${file}`);
  } catch {
    return '';
  }
}

const inTree = (file: string) => (existsSync(path.join(ROOT, file)) ? readFileSync(path.join(ROOT, file), 'utf8') : '');

function main() {
  if (git('rev-parse', '--is-shallow-repository').trim() === 'true') {
    process.stderr.write(`OpenAPI compatibility: this clone is shallow; fetch the history of ${DOCUMENT} to check it\n`);
    process.exit(2);
  }
  const steps: Array<{ name: string; before: string; after: string; changelog: string }> = [];
  const commits = git('rev-list', '--reverse', '--first-parent', 'HEAD', '--', DOCUMENT).split('\n').filter(Boolean);
  for (const commit of commits)
    steps.push({
      name: commit.slice(0, 12),
      before: atCommit(`${commit}^1`, DOCUMENT),
      after: atCommit(commit, DOCUMENT),
      changelog: atCommit(commit, CHANGELOG),
    });
  const committed = atCommit('HEAD', DOCUMENT);
  const tree = inTree(DOCUMENT);
  if (tree !== committed) steps.push({ name: 'the working tree', before: committed, after: tree, changelog: inTree(CHANGELOG) });
  const emitted = `${JSON.stringify(buildOpenApi(ROUTES), null, 2)}\n`;
  const stale = emitted !== tree;
  if (stale) steps.push({ name: 'the code', before: tree, after: emitted, changelog: inTree(CHANGELOG) });

  let failed = false;
  let checked = 0;
  for (const step of steps) {
    // the document's first version is the baseline; a step that removes the file is a path removed, each
    if (!step.before) continue;
    checked++;
    const after = (step.after ? JSON.parse(step.after) : {}) as OpenApiDocument;
    for (const change of refusedOpenApiChanges(JSON.parse(step.before) as OpenApiDocument, after, step.changelog)) {
      failed = true;
      process.stderr.write(`${step.name}: \`${change.coordinate}\`: ${change.message}, and not in ${CHANGELOG}\n`);
    }
  }
  if (failed)
    process.stderr.write(
      `the OpenAPI document broke clients generated from it: keep the old shape beside the new (a new path, an optional input, a 202 only for a client that asks), or name each change above, as code, in ${CHANGELOG}\n`,
    );
  if (stale) {
    failed = true;
    process.stderr.write(`${DOCUMENT} is not the document the code emits: run \`npm run openapi:emit\` and commit it\n`);
  }
  if (failed) process.exit(1);
  process.stdout.write(`${DOCUMENT}: ${checked} step(s) checked, none breaks a client\n`);
}

main();
