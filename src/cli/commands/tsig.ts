import { Command } from 'commander';
import { CreateTsigKeyDocument, RevokeTsigKeyDocument, TsigKeysDocument } from '../generated/tsig';
import { gql, print, userIdOf, confirm, PolicyOptions, withPolicyOptions, policyInputFrom } from '../shared';

/** `zonekeeper tsig`: TSIG keys for DNS UPDATE */
export function registerTsigCommands(program: Command): void {
  const tsig = program.command('tsig').description('TSIG keys for DNS UPDATE (RFC 2136): nsupdate, certbot, external-dns');
  withPolicyOptions(
    tsig
      .command('add <name>')
      .description('create a TSIG key (its base64 secret is shown once); with --preset or --rule a least-privilege key')
      .option('--user <user>', 'the user (id or e-mail) whose zones it updates; without it an admin key (any zone)')
      .option('--algorithm <algorithm>', 'hmac-sha256, hmac-sha384 or hmac-sha512', 'hmac-sha256'),
  ).action(async (name: string, options: { user?: string; algorithm: string } & PolicyOptions) => {
    const input = {
      name,
      userId: options.user === undefined ? null : await userIdOf(options.user),
      algorithm: options.algorithm,
      ...policyInputFrom(options),
    };
    const created = (await gql(CreateTsigKeyDocument, { input })).createTsigKey;
    print(program, { ...created.tsigKey, secret: created.secret });
  });
  tsig
    .command('list')
    .description('list TSIG keys')
    .option('--user <userId>', 'only this user’s')
    .action(async (options: { user?: string }) => {
      print(program, (await gql(TsigKeysDocument, { user: options.user })).tsigKeys, ['id', 'userId', 'name', 'algorithm', 'revokedAt']);
    });
  tsig
    .command('revoke <id>')
    .description('revoke a TSIG key')
    .option('--yes', 'do not ask')
    .action(async (id: string, options: { yes?: boolean }) => {
      await confirm(options, `revoke TSIG key ${id}`, id);
      print(program, (await gql(RevokeTsigKeyDocument, { id })).revokeTsigKey);
    });
}
