#!/usr/bin/env node
/**
 * The house's rooms keep one direction (docs/architecture.md, «Rooms and floors»): no two folders side by side
 * import each other. Read from the code's relative imports; checked for src/'s top-level folders and for the
 * folders inside each of them, so that a room's own rooms stay in one direction too. Prints every pair that
 * imports both ways, with the imports that make it, and exits 1 if there is one.
 *
 *   node scripts/check-rooms.cjs            the check
 *   node scripts/check-rooms.cjs --list     also each room's arrows to its neighbours, one line each
 */
const fs = require('node:fs');
const path = require('node:path');

const SRC = path.resolve(__dirname, '..', 'src');
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** the folder directly inside `parent` that holds `file`, or undefined for a file of `parent` itself */
function roomOf(parent, file) {
  const rel = path.relative(parent, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0] : undefined;
}

const files = sourceFiles(SRC);
const imports = files.flatMap((file) =>
  [...fs.readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => ({ from: file, to: path.resolve(path.dirname(file), m[2]) })),
);

// every folder that holds folders: src/ and each folder below it
const parents = [SRC, ...files.map((f) => path.dirname(f))].filter((dir, i, all) => all.indexOf(dir) === i);
let pairs = 0;
for (const parent of parents.sort()) {
  const arrows = new Map();
  for (const { from, to } of imports) {
    const a = roomOf(parent, from);
    const b = roomOf(parent, to);
    if (!a || !b || a === b) continue;
    const key = `${a} -> ${b}`;
    if (!arrows.has(key)) arrows.set(key, []);
    arrows.get(key).push(`${path.relative(SRC, from)} -> ${path.relative(SRC, to)}`);
  }
  if (process.argv.includes('--list'))
    for (const [key, list] of arrows) console.log(`${path.relative(SRC, parent) || '.'}: ${key} (${list.length})`);
  for (const [key, list] of arrows) {
    const [a, b] = key.split(' -> ');
    const back = arrows.get(`${b} -> ${a}`);
    if (!back || a > b) continue;
    pairs++;
    console.log(`src/${path.relative(SRC, parent) ? `${path.relative(SRC, parent)}/` : ''}: ${a}/ and ${b}/ import each other`);
    for (const line of [...list, ...back]) console.log(`  ${line}`);
  }
}
if (pairs) {
  console.log(`${pairs} pair(s) of rooms import each other: move what both need below them (docs/architecture.md)`);
  process.exit(1);
}
console.log('no two rooms side by side import each other');
