#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerAuditCommands } from './commands/audit';
import { registerDnssecCommands } from './commands/dnssec';
import { registerKeyCommands } from './commands/keys';
import { registerLoginCommands } from './commands/login';
import { registerMemberCommands } from './commands/members';
import { registerNameserverSetCommands } from './commands/nameserver-sets';
import { registerViewCommands } from './commands/views';
import { registerOperatorCommands } from './commands/operators';
import { registerRecordCommands } from './commands/records';
import { registerSecondaryCommands } from './commands/secondaries';
import { registerStatusCommand } from './commands/status';
import { registerSteeringCommands } from './commands/steering';
import { registerHealthCommand } from './commands/health';
import { registerTemplateCommands } from './commands/templates';
import { registerTsigCommands } from './commands/tsig';
import { registerWebhookCommands } from './commands/webhooks';
import { registerUserCommands } from './commands/users';
import { registerZoneCommands } from './commands/zones';
import { ApiError, EXIT, ExitWith, UsageError } from './shared';

/**
 * `zonekeeper`: the operator's command line (as pdnsutil is for PowerDNS), a client of the running service's
 * GraphQL API: ZONEKEEPER_URL (default http://localhost:3000) and ZONEKEEPER_API_KEY, or a person's session, for what only a
 * person does (a change request's review): `zonekeeper login` (RFC 8628's device flow, kept in the config file)
 * or ZONEKEEPER_SESSION. Tables for people,
 * `--json` for scripts. Exit codes: 0 done, 1 the API refused or failed (its code and message on stderr),
 * 2 a usage mistake, 3 the service could not be reached, 4 `health`: the zone is critical (scripts and monitors),
 * 141 the reader of its output went away.
 */

export function buildProgram(): Command {
  const program = new Command('zonekeeper')
    .description('Manage Zonekeeper users, keys, zones and records (ZONEKEEPER_URL, ZONEKEEPER_API_KEY or ZONEKEEPER_SESSION)')
    .option('--json', 'print JSON for scripts instead of tables')
    .showHelpAfterError()
    .exitOverride();

  // the order here is the order `--help` lists the groups in
  registerLoginCommands(program);
  registerUserCommands(program);
  registerMemberCommands(program);
  registerOperatorCommands(program);
  registerKeyCommands(program);
  registerTsigCommands(program);
  registerWebhookCommands(program);
  registerSecondaryCommands(program);
  registerDnssecCommands(program);
  registerAuditCommands(program);
  registerTemplateCommands(program);
  registerNameserverSetCommands(program);
  registerViewCommands(program);
  registerZoneCommands(program);
  registerRecordCommands(program);
  registerStatusCommand(program);
  registerHealthCommand(program);
  registerSteeringCommands(program);
  return program;
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof ExitWith) return error.code;
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`error: ${error.code}: ${error.message}\n`);
      return EXIT.api;
    }
    if ((error as { unreachable?: boolean }).unreachable) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      return EXIT.unreachable;
    }
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/**
 * A reader that goes away before the output ends (`zonekeeper zone export big.example | head`) ends the command
 * quietly, as it ends a Unix tool: such a tool dies of SIGPIPE, which the shell reports as 128 + 13. Node ignores
 * SIGPIPE, so its write fails with EPIPE instead, which unhandled would end the command with a stack.
 */
export function endQuietlyWhenReaderGoes(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT.readerGone);
  });
}

if (require.main === module) {
  endQuietlyWhenReaderGoes(process.stdout);
  endQuietlyWhenReaderGoes(process.stderr);
  run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
