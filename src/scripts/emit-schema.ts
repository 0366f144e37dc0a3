import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { getSchema, SCHEMA_FILE } from '../graphql/schema';

/**
 * Writes schema.graphql from the resolvers (`npm run schema:emit`), or with --check fails when the committed
 * file is stale (CI), so that schema-driven codegen always sees the schema the code serves.
 */
async function main() {
  const text = `# Generated from the type-graphql resolvers by \`npm run schema:emit\`; do not edit.\n\n${printSchema(lexicographicSortSchema(await getSchema()))}\n`;
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(SCHEMA_FILE, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (committed !== text) {
      process.stderr.write('schema.graphql is stale: run `npm run schema:emit` and commit the result\n');
      process.exit(1);
    }
    process.stdout.write('schema.graphql is up to date\n');
    return;
  }
  writeFileSync(SCHEMA_FILE, text);
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
