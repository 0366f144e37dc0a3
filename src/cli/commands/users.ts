import { Command } from 'commander';
import { CreateUserDocument, DeleteUserDocument, SetUserLimitsDocument, UserLimitsDocument, UsersDocument } from '../generated/users';
import { gql, print, listUpTo, limitOf, confirm, limitOptions, limitValues } from '../shared';

/** `zonekeeper user`: users, their rate limits and quotas */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('users, who own zones');
  user
    .command('add <email>')
    .description('create a user')
    .action(async (email: string) => {
      print(program, (await gql(CreateUserDocument, { email })).createUser);
    });
  user
    .command('list')
    .description('list users')
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (options: { limit: string }) => {
      const users = await listUpTo(UsersDocument, (d) => d.users, {}, limitOf(options.limit), 'users');
      print(program, users, ['id', 'email', 'createdAt']);
    });
  user
    .command('delete <userId>')
    .description('delete a user with all its zones and records')
    .option('--yes', 'do not ask')
    .action(async (userId: string, options: { yes?: boolean }) => {
      await confirm(options, `delete user ${userId} with all its zones and records`, userId);
      await gql(DeleteUserDocument, { id: userId });
      print(program, { id: userId, deleted: true });
    });

  const USER_LIMIT_FIELDS: [string, string][] = [
    ['rate-per-second', 'requests per second its rate bucket refills'],
    ['rate-burst', 'requests its rate bucket holds'],
    ['max-zones', 'zones the user may have'],
    ['max-records-per-zone', 'records one of its zones may hold'],
  ];
  limitOptions(
    user.command('limits <userId>').description("show a user's rate limit and quotas; with options, set them (admin key)"),
    USER_LIMIT_FIELDS,
  ).action(async (userId: string, options: Record<string, string | undefined>) => {
    const input = limitValues(options, USER_LIMIT_FIELDS);
    const limits = Object.keys(input).length
      ? (await gql(SetUserLimitsDocument, { id: userId, input })).setUserLimits
      : (await gql(UserLimitsDocument, { id: userId })).user.limits;
    print(program, { userId, ...limits });
  });
}
