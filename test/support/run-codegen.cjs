// Test support: graphql-codegen (typescript, typescript-operations, typed-document-node) as a client project
// would run it, from a schema file and an operations file to a TypeScript file. A plain node process: the
// plugins load ESM-only dependencies that jest's module system cannot.
// Usage: node run-codegen.cjs <schema.graphql> <operations.graphql> <out.ts> <plugin,plugin,...>
// (typescript-operations 6 writes the enums and inputs an operation uses itself: with the typescript plugin in
// the same file they would be declared twice, so the schema's types and the operations' go to two files)
const { readFileSync, writeFileSync } = require('node:fs');
const { parse } = require('graphql');
const { codegen } = require('@graphql-codegen/core');
const typescript = require('@graphql-codegen/typescript');
const typescriptOperations = require('@graphql-codegen/typescript-operations');
const typedDocumentNode = require('@graphql-codegen/typed-document-node');

const [schemaFile, operationsFile, outFile, pluginList] = process.argv.slice(2);
const pluginMap = { typescript, typescriptOperations, typedDocumentNode };
codegen({
  filename: outFile,
  schema: parse(readFileSync(schemaFile, 'utf8')),
  documents: [{ location: operationsFile, document: parse(readFileSync(operationsFile, 'utf8')) }],
  plugins: pluginList.split(',').map((name) => ({ [name]: {} })),
  pluginMap,
  config: {
    strictScalars: true,
    scalars: { Serial: 'number', DateTimeISO: 'string', JSONObject: '{ [key: string]: unknown }' },
    enumsAsTypes: true,
  },
}).then(
  (output) => writeFileSync(outFile, output),
  (error) => {
    process.stderr.write(`codegen: ${error.stack || error.message}\n`);
    process.exit(1);
  },
);
