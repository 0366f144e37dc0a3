#!/usr/bin/env node
/**
 * No file in src/ over 800 lines (the house's rule): a file that grows past it holds more than one thing, and is
 * split by what it holds. Generated files too: graphql-codegen's output is a module per .graphql file
 * (scripts/operations-codegen.cjs), so that none needs an exception. Prints every file over the limit and exits 1
 * if there is one.
 *
 *   node scripts/check-file-sizes.cjs
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');
const LIMIT = 800;

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(tsx?|graphql)$/.test(entry.name) ? [full] : [];
  });
}

const over = sourceFiles(SRC)
  .map((file) => ({ file, lines: fs.readFileSync(file, 'utf8').split('\n').length - 1 }))
  .filter(({ lines }) => lines > LIMIT)
  .sort((a, b) => b.lines - a.lines);
for (const { file, lines } of over) console.log(`${path.relative(ROOT, file)}: ${lines} lines`);
if (over.length) {
  console.log(`${over.length} file(s) in src/ over ${LIMIT} lines: split each by what it holds`);
  process.exit(1);
}
console.log(`no file in src/ over ${LIMIT} lines`);
