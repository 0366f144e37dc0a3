import { Command } from 'commander';
import { ApiKeysDocument, CreateApiKeyDocument, RevokeApiKeyDocument, SetApiKeyRateDocument } from '../generated/keys';
import {
  UsageError,
  gql,
  print,
  userIdOf,
  confirm,
  limitOptions,
  limitValues,
  PolicyOptions,
  withPolicyOptions,
  policyInputFrom,
} from '../shared';

/** `zonekeeper key`: API keys of a user */
export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('API keys of a user');
  withPolicyOptions(
    key
      .command('create <user> <name>')
      .description('create an API key (its secret is shown once); with --preset or --rule a least-privilege key (docs/least-privilege.md)')
      .option('--may-propose', 'its PowerDNS-API writes to a zone under review become change requests (the scope PROPOSE_CHANGES)'),
  ).action(async (user: string, name: string, options: PolicyOptions & { mayPropose?: boolean }) => {
    const userId = await userIdOf(user);
    const { mayPropose, ...policy } = options;
    const created = (
      await gql(CreateApiKeyDocument, {
        input: { userId, name, ...policyInputFrom(policy), ...(mayPropose ? { scopes: ['PROPOSE_CHANGES'] } : {}) },
      })
    ).createApiKey;
    print(program, {
      id: created.apiKey.id,
      name: created.apiKey.name,
      restricted: created.apiKey.policy.restricted,
      preset: created.apiKey.policy.preset,
      secret: created.secret,
    });
  });
  key
    .command('list')
    .description('list API keys (no secrets)')
    .option('--user <userId>', 'only this user’s')
    .action(async (options: { user?: string }) => {
      print(program, (await gql(ApiKeysDocument, { user: options.user })).apiKeys, ['id', 'userId', 'name', 'createdAt', 'revokedAt']);
    });
  key
    .command('revoke <keyId>')
    .description('revoke an API key')
    .option('--yes', 'do not ask')
    .action(async (keyId: string, options: { yes?: boolean }) => {
      await confirm(options, `revoke API key ${keyId}`, keyId);
      print(program, (await gql(RevokeApiKeyDocument, { id: keyId })).revokeApiKey);
    });

  const KEY_RATE_FIELDS: [string, string][] = [
    ['rate-per-second', 'requests per second the key’s own bucket refills'],
    ['rate-burst', 'requests the key’s own bucket holds'],
  ];
  limitOptions(
    key.command('rate <keyId>').description('set an API key’s own rate limit, besides its user’s (admin key)'),
    KEY_RATE_FIELDS,
  ).action(async (keyId: string, options: Record<string, string | undefined>) => {
    const input = limitValues(options, KEY_RATE_FIELDS);
    if (!Object.keys(input).length) throw new UsageError('give --rate-per-second and/or --rate-burst');
    const rate = (await gql(SetApiKeyRateDocument, { id: keyId, input })).setApiKeyRate;
    print(program, { keyId, ...rate });
  });
}
