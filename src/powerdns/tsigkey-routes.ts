import { parseBase64 } from '../dns/presentation';
import { presentTsigKey } from './presenters';
import { PowerDnsInputs, PowerDnsRoute, refuse, objectBody, SERVER } from './route-kit';

/** a TSIG key's name as TSIG compares it: any letter case, with or without the final dot */
const sameKeyName = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** the active TSIG key named by the path's id (its name, as PowerDNS's ids), among the caller's keys, or 404 */
async function tsigKeyOfPath({ services, ctx, params }: PowerDnsInputs) {
  const key = (await services.tsigKeys.list(ctx)).find((k) => !k.revokedAt && sameKeyName(k.name, params.id));
  if (!key) throw refuse(`TSIG key with name '${params.id}' not found`, 404);
  return key;
}

/**
 * A TSIG secret as PowerDNS takes it, in base64 (RFC 4648 §4, padded as every tool writes it). The secret is not
 * echoed in the refusal: errors may be logged.
 */
function tsigSecretOf(text: string): { value: Buffer; field: string } {
  const value = parseBase64(text, 'the secret', []);
  if (!value) throw refuse('key: the secret is not base64 (RFC 4648 §4, with its padding)');
  return { value, field: 'key' };
}

/** the TSIG keys: listed, made or moved in with their secret, read back, given a new secret, deleted */
export const TSIGKEY_ROUTES: PowerDnsRoute[] = [
  {
    method: 'get',
    path: `${SERVER}/tsigkeys`,
    async handle({ services, ctx }) {
      const keys = await services.tsigKeys.list(ctx);
      return { status: 200, body: keys.filter((key) => !key.revokedAt).map((key) => presentTsigKey(key)) };
    },
  },
  {
    // the key with its secret, as PowerDNS answers it, to whoever may manage the key (TsigKeysService.secret)
    method: 'get',
    path: `${SERVER}/tsigkeys/:id`,
    // each read is in the audit log
    readsPrimary: true,
    async handle(inputs) {
      const { tsigKey, secret } = await inputs.services.tsigKeys.secret(inputs.ctx, (await tsigKeyOfPath(inputs)).id);
      return { status: 200, body: presentTsigKey(tsigKey, secret) };
    },
  },
  {
    // a key of the caller's user (the admin key: a server-wide key, as PowerDNS's are), able to do what the caller
    // can; its secret is the one given (`pdnsutil import-tsig-key`, a key moved from PowerDNS or BIND: the
    // secondaries that hold it keep working), else made here
    method: 'post',
    path: `${SERVER}/tsigkeys`,
    async handle({ services, ctx, body }) {
      const fields = objectBody(body);
      if (typeof fields.name !== 'string' || fields.name === '') throw refuse('name: is not specified or not a string');
      const userId = ctx.principal.kind === 'user' ? ctx.principal.userId : null;
      const created = await services.tsigKeys.create(ctx, {
        userId,
        name: fields.name,
        algorithm: typeof fields.algorithm === 'string' ? fields.algorithm : undefined,
        // PowerDNS makes a secret when `key` is absent, empty or not text, and so does this edge
        secret: typeof fields.key === 'string' && fields.key !== '' ? tsigSecretOf(fields.key) : undefined,
        // PowerDNS's keys carry no policy: the new key can do what the caller can (an admin's, an ONE_ZONE key's)
        asCreator: true,
      });
      return { status: 201, body: presentTsigKey(created.tsigKey, created.secret) };
    },
  },
  {
    method: 'delete',
    path: `${SERVER}/tsigkeys/:id`,
    async handle(inputs) {
      await inputs.services.tsigKeys.revoke(inputs.ctx, (await tsigKeyOfPath(inputs)).id);
      return { status: 204 };
    },
  },
  {
    // a new secret or algorithm (a secret rotated on the secondaries first); the name stays: it is how clients
    // name the key on the wire (RFC 8945 §4.2), so a new name is a new key
    method: 'put',
    path: `${SERVER}/tsigkeys/:id`,
    async handle(inputs) {
      const key = await tsigKeyOfPath(inputs);
      const fields = objectBody(inputs.body);
      if (fields.name !== undefined && (typeof fields.name !== 'string' || !sameKeyName(fields.name, key.name)))
        throw refuse('name: a TSIG key keeps its name (the name signs on the wire): make a new key and delete the old');
      if (fields.algorithm !== undefined && typeof fields.algorithm !== 'string') throw refuse('algorithm: not a string');
      if (fields.key !== undefined && (typeof fields.key !== 'string' || fields.key === ''))
        throw refuse('key: give the new secret in base64 (RFC 4648 §4)');
      const { tsigKey, secret } = await inputs.services.tsigKeys.rekey(inputs.ctx, key.id, {
        algorithm: typeof fields.algorithm === 'string' ? fields.algorithm : undefined,
        secret: typeof fields.key === 'string' ? tsigSecretOf(fields.key) : undefined,
      });
      return { status: 200, body: presentTsigKey(tsigKey, secret) };
    },
  },
];
