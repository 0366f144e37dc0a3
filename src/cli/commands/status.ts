import { Command } from 'commander';
import { PropagationDocument } from '../generated/status';
import { ApiError, UsageError, gql, print, sleep } from '../shared';

/** `zonekeeper status`: propagation to the secondaries */
export function registerStatusCommand(program: Command): void {
  program
    .command('status <zone>')
    .description('propagation: which secondary serves which serial')
    .option('--wait', 'wait until every secondary serves the current serial')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 1)', '120')
    .action(async (name: string, options: { wait?: boolean; timeout: string }) => {
      const seconds = Number(options.timeout);
      if (!/^\d+(\.\d+)?$/.test(options.timeout) || !(seconds > 0))
        throw new UsageError(`--timeout takes a number of seconds above 0 (got "${options.timeout}")`);
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const status = (await gql(PropagationDocument, { zone: name })).domain;
        const servers = status.propagation.servers;
        // with no secondaries configured there is nothing to wait for
        const done = status.propagation.state === 'in_sync' || status.propagation.state === 'no_secondaries';
        // progress rewrites one line on a terminal; a log or a pipe gets a line per update
        const inPlace = process.stderr.isTTY === true;
        if (!options.wait || done) {
          if (options.wait && inPlace && !program.opts().json) process.stderr.write('\n');
          if (program.opts().json) return print(program, status);
          process.stdout.write(
            `zone ${name} serial ${status.serial}: ${status.propagation.state}${status.propagation.message ? `: ${status.propagation.message}` : ''}\n`,
          );
          return print(program, servers, ['server', 'state', 'servedSerial', 'error']);
        }
        if (Date.now() > deadline) {
          if (inPlace && !program.opts().json) process.stderr.write('\n');
          throw new ApiError('TIMEOUT', `not every secondary serves serial ${status.serial} after ${options.timeout} s`);
        }
        const synced = servers.filter((s) => s.state === 'in_sync').length;
        const progress = `serial ${status.serial}: ${synced}/${servers.length} secondaries in sync…`;
        if (!program.opts().json) process.stderr.write(inPlace ? `\r${progress}` : `${progress}\n`);
        await sleep(500);
      }
    });
}
