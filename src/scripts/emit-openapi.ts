import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from '../rest/openapi';
import { ROUTES } from '../rest/routes';

/**
 * Writes the REST layer's OpenAPI document, as the service serves it at /api/openapi.json, to a file
 * (`npm run lint:openapi` lints what this writes): `emit-openapi <file> [--envelope restknot]`.
 */
const [file] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (!file) {
  process.stderr.write('usage: emit-openapi <file> [--envelope restknot]\n');
  process.exit(2);
}
const envelope = process.argv.includes('restknot') ? 'restknot' : 'none';
writeFileSync(file, `${JSON.stringify(buildOpenApi(ROUTES, { envelope }), null, 2)}\n`);
process.stdout.write(`wrote ${file} (REST_ENVELOPE=${envelope})\n`);
