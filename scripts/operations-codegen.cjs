// The typed operations of the service's own GraphQL clients: the REST layer's documents (src/rest/operations/)
// and the CLI's (src/cli/operations/). graphql-codegen (typescript-operations + typed-document-node, as the
// console's console/codegen.cjs) from the committed schema.graphql, so that an answer's type is what the schema
// says of the fields the document asks, never written by hand.
//
// Each .graphql file of a client becomes a module of its own in the client's generated/ folder, and the schema's
// input and enum types that the client's documents use are written once, in generated/schema-types.ts, which the
// modules import: every generated file stays small (the house keeps files in src/ under 800 lines), where one
// module of every document was some 5,900 lines. A document is the `gql` tag of src/graphql/typed-document.ts
// over its text and the fragments it uses, typed as a `TypedDocument` of its answer and variables; a fragment's
// text is generated once, in the module of the file that defines it, and imported where another file spreads it
// (a fragment's type is named, not repeated, in the answers that spread it).
//
// Formatted with the tree's Prettier settings so that the files are stable. `--check` writes nothing and fails
// when a committed file differs, is missing, or is left over from a .graphql file that is gone (CI).
const { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync } = require('node:fs');
const path = require('node:path');
const { parse, visit, Kind } = require('graphql');
const { codegen } = require('@graphql-codegen/core');
const typescriptOperations = require('@graphql-codegen/typescript-operations');
const typedDocumentNode = require('@graphql-codegen/typed-document-node');

const root = path.join(__dirname, '..');
const TARGETS = [
  { documents: 'src/rest/operations', out: 'src/rest/generated' },
  { documents: 'src/cli/operations', out: 'src/cli/generated' },
];
/** the module of the documents' tag and type */
const TYPED_DOCUMENT = path.join(root, 'src/graphql/typed-document.ts');
const SCHEMA_TYPES = 'schema-types.ts';

const schema = parse(readFileSync(path.join(root, 'schema.graphql'), 'utf8'));
const CONFIG = {
  strictScalars: true,
  scalars: { Serial: 'number', DateTimeISO: 'string', JSONObject: 'Record<string, unknown>' },
  enumsAsTypes: true,
  useTypeImports: true,
};

/** an import path from one file of the tree to another, as TypeScript writes it (no extension) */
const importPath = (from, to) => {
  const relative = path.relative(path.dirname(from), to).replace(/\.ts$/, '');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

/** the fragments a definition spreads (`nested`: and those they spread, to the end) */
function spreadsOf(definition, fragments, nested) {
  const names = new Set();
  const walk = (node) =>
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        if (names.has(name)) return;
        names.add(name);
        if (nested && fragments.has(name)) walk(fragments.get(name).node);
      },
    });
  walk(definition);
  return names;
}

async function format(outFile, header, output) {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(outFile)) ?? {};
  return prettier.format(`${header}${output}`, { ...options, filepath: outFile });
}

/** the generated files of one client: { outFile, text } each */
async function generateTarget({ documents, out }) {
  const documentsDir = path.join(root, documents);
  const outDir = path.join(root, out);
  const sources = readdirSync(documentsDir)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => {
      const location = path.join(documentsDir, name);
      return {
        name,
        location,
        document: parse(readFileSync(location, 'utf8')),
        outFile: path.join(outDir, name.replace(/\.graphql$/, '.ts')),
      };
    });
  /** every fragment of the client, with the generated module that holds it */
  const fragments = new Map();
  for (const source of sources)
    for (const definition of source.document.definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        const name = definition.name.value;
        if (fragments.has(name)) throw new Error(`fragment ${name} is defined in ${fragments.get(name).source.name} and ${source.name}`);
        fragments.set(name, { node: definition, name, onType: definition.typeCondition.name.value, source });
      }

  const schemaTypesFile = path.join(outDir, SCHEMA_TYPES);
  // the schema's input and enum types, once, without their descriptions (schema.graphql holds them; the record
  // types' inputs alone had some 300 lines of them): the clients hand variables by name, their values checked by
  // the operation's own coercion, so no caller builds an input from these types; they name the variables' types
  const files = [
    {
      outFile: schemaTypesFile,
      text: await format(
        schemaTypesFile,
        `// Generated by \`npm run operations:codegen\` from schema.graphql: the input and enum types of ${documents}/*.graphql; do not edit.\n`,
        await codegen({
          filename: schemaTypesFile,
          schema,
          documents: sources.map(({ location, document }) => ({ location, document })),
          plugins: [{ typescriptOperations: {} }],
          pluginMap: { typescriptOperations },
          config: { ...CONFIG, generateOperationTypes: false, disableDescriptions: true },
        }),
      ),
    },
  ];
  for (const source of sources) {
    const external = [...fragments.values()].filter((fragment) => fragment.source !== source);
    // the other files' fragments this file uses: their types where it spreads them, their texts where an
    // operation of its own needs them (the fragments of the fragments too)
    const typeNames = new Set();
    const documentNames = new Set();
    for (const definition of source.document.definitions) {
      for (const name of spreadsOf(definition, fragments, false)) typeNames.add(name);
      if (definition.kind === Kind.OPERATION_DEFINITION) for (const name of spreadsOf(definition, fragments, true)) documentNames.add(name);
    }
    const fragmentImports = external
      .filter((fragment) => typeNames.has(fragment.name) || documentNames.has(fragment.name))
      .map((fragment) => ({
        baseDir: root,
        baseOutputDir: '',
        outputPath: source.outFile,
        typesImport: true,
        importSource: {
          path: fragment.source.outFile,
          identifiers: [
            ...(typeNames.has(fragment.name) ? [{ name: `${fragment.name}Fragment`, kind: 'type' }] : []),
            ...(documentNames.has(fragment.name) ? [{ name: `${fragment.name}FragmentDoc`, kind: 'document' }] : []),
          ],
        },
      }));
    const output = await codegen({
      filename: source.outFile,
      schema,
      documents: [{ location: source.location, document: source.document }],
      plugins: [{ typescriptOperations: {} }, { typedDocumentNode: {} }],
      pluginMap: { typescriptOperations, typedDocumentNode },
      config: {
        ...CONFIG,
        importSchemaTypesFrom: schemaTypesFile,
        namespacedImportName: 'Types',
        inlineFragmentTypes: 'combine',
        documentMode: 'graphQLTag',
        gqlImport: `${importPath(source.outFile, TYPED_DOCUMENT)}#gql`,
        documentNodeImport: `${importPath(source.outFile, TYPED_DOCUMENT)}#TypedDocument`,
        externalFragments: external.map(({ node, name, onType }) => ({ node, name, onType, isExternal: true })),
        fragmentImports,
      },
    });
    files.push({
      outFile: source.outFile,
      text: await format(
        source.outFile,
        `// Generated by \`npm run operations:codegen\` from schema.graphql and ${documents}/${source.name}; do not edit.\n`,
        output,
      ),
    });
  }
  // what the folder holds besides: modules of .graphql files that are gone
  const leftOver = (existsSync(outDir) ? readdirSync(outDir, { withFileTypes: true }) : [])
    .filter((entry) => entry.isFile() && !files.some((file) => file.outFile === path.join(outDir, entry.name)))
    .map((entry) => path.join(outDir, entry.name));
  return { files, leftOver };
}

Promise.all(TARGETS.map(generateTarget)).then(
  (targets) => {
    const check = process.argv.includes('--check');
    let stale = false;
    for (const { files, leftOver } of targets) {
      for (const { outFile, text } of files) {
        const out = path.relative(root, outFile);
        if (check) {
          let committed = '';
          try {
            committed = readFileSync(outFile, 'utf8');
          } catch {
            // missing: stale
          }
          if (committed !== text) {
            process.stderr.write(`${out} is stale: run \`npm run operations:codegen\` and commit it\n`);
            stale = true;
          }
        } else {
          mkdirSync(path.dirname(outFile), { recursive: true });
          writeFileSync(outFile, text);
        }
      }
      for (const file of leftOver) {
        if (check) {
          process.stderr.write(
            `${path.relative(root, file)} has no .graphql file: run \`npm run operations:codegen\` and commit its removal\n`,
          );
          stale = true;
        } else rmSync(file);
      }
    }
    if (stale) process.exit(1);
  },
  (error) => {
    process.stderr.write(`codegen: ${error.stack || error.message}\n`);
    process.exit(1);
  },
);
