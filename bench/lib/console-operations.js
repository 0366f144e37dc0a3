'use strict';
// The console's own GraphQL documents (console/src/operations.graphql), so that a benchmark sends what the
// console sends, word for word, rather than a query written for the benchmark.
const fs = require('node:fs');
const path = require('node:path');
const { parse, print, visit } = require('graphql');

const ROOT = path.resolve(__dirname, '..', '..');

/** one operation of the console's document, with the fragments it uses (and theirs) */
function consoleOperation(name) {
  const document = parse(fs.readFileSync(path.join(ROOT, 'console', 'src', 'operations.graphql'), 'utf8'));
  const fragments = new Map(document.definitions.filter((d) => d.kind === 'FragmentDefinition').map((d) => [d.name.value, d]));
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition' && d.name?.value === name);
  if (!operation) throw new Error(`console/src/operations.graphql has no operation ${name}`);
  const used = new Set();
  const walk = (node) =>
    visit(node, {
      FragmentSpread(spread) {
        if (used.has(spread.name.value)) return;
        used.add(spread.name.value);
        walk(fragments.get(spread.name.value));
      },
    });
  walk(operation);
  return [operation, ...[...used].map((n) => fragments.get(n))].map(print).join('\n');
}

module.exports = { consoleOperation };
