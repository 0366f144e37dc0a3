// A client project as a front end builds one (docs/graphql.md, «With Apollo Client»): graphql-codegen's client
// preset over the committed schema.graphql and the `graphql(...)` documents of operations.ts, into generated/.
// The documents are plucked as graphql-codegen's CLI plucks them (each template literal of a `graphql()` call,
// its text as written: the preset's `graphql()` finds a document by that text). Formatted with the tree's
// Prettier settings so the files are stable; `--check` writes nothing and fails when a committed file differs.
const { readFileSync, writeFileSync, mkdirSync } = require('node:fs');
const path = require('node:path');
const { buildSchema, parse } = require('graphql');
const { codegen } = require('@graphql-codegen/core');
const { preset } = require('@graphql-codegen/client-preset');

const root = path.join(__dirname, '..', '..');
const schemaText = readFileSync(path.join(root, 'schema.graphql'), 'utf8');
const operationsFile = path.join(__dirname, 'operations.ts');
const outDir = path.join(__dirname, 'generated') + '/';

function documents() {
  const text = readFileSync(operationsFile, 'utf8');
  return [...text.matchAll(/graphql\(\s*`([^`]*)`\s*\)/g)].map(([, rawSDL]) => ({
    location: operationsFile,
    document: parse(rawSDL),
    rawSDL,
  }));
}

async function generate() {
  const config = {
    strictScalars: true,
    scalars: { Serial: 'number', DateTimeISO: 'string', JSONObject: 'Record<string, unknown>' },
    enumsAsTypes: true,
  };
  const sections = await preset.buildGeneratesSection({
    baseOutputDir: outDir,
    schema: parse(schemaText),
    schemaAst: buildSchema(schemaText),
    documents: documents(),
    config,
    presetConfig: { fragmentMasking: false },
    plugins: [],
    pluginMap: {},
    pluginContext: {},
    documentTransforms: [],
  });
  const prettier = await import('prettier');
  const files = [];
  for (const section of sections) {
    const output = await codegen({ ...section, config: { ...config, ...section.config } });
    const options = (await prettier.resolveConfig(section.filename)) ?? {};
    files.push({ filename: section.filename, text: await prettier.format(output, { ...options, filepath: section.filename }) });
  }
  return files;
}

generate().then(
  (files) => {
    const check = process.argv.includes('--check');
    mkdirSync(outDir, { recursive: true });
    for (const { filename, text } of files) {
      if (!check) writeFileSync(filename, text);
      else {
        let committed = '';
        try {
          committed = readFileSync(filename, 'utf8');
        } catch {
          // missing: stale
        }
        if (committed !== text) {
          process.stderr.write(`${path.relative(root, filename)} is stale: run \`node test/client/codegen.cjs\` and commit it\n`);
          process.exit(1);
        }
      }
    }
  },
  (error) => {
    process.stderr.write(`codegen: ${error.stack || error.message}\n`);
    process.exit(1);
  },
);
