import { Command } from 'commander';
import { CheckHealthDocument, HealthCheckerDocument, ZoneHealthDocument } from '../generated/health';
import { EXIT, ExitWith, gql, print } from '../shared';

/**
 * `zonekeeper health <zone> [--check]`: the zone as resolvers meet it (docs/health.md). Exits 4 when the zone is
 * critical, so that a script or a monitor needs no parsing; says so when the checker itself cannot reach the root
 * (the zone's state is then its last check's, or unknown).
 */
export function registerHealthCommand(program: Command): void {
  program
    .command('health <zone>')
    .description("zone health: the last check's state and findings (delegation, DS, nameservers, signatures); exits 4 when critical")
    .option('--check', 'check the zone now, then show what was found')
    .action(async (name: string, options: { check?: boolean }) => {
      const health = options.check
        ? (await gql(CheckHealthDocument, { zone: name })).checkHealth
        : (await gql(ZoneHealthDocument, { zone: name })).domain.health;
      const { healthChecker: checker } = await gql(HealthCheckerDocument, {});
      if (program.opts().json) print(program, { ...health, checker });
      else {
        if (checker.rootReachable === false)
          process.stdout.write(
            `the health checker reaches no root server (since ${checker.rootSince}: ${checker.rootReason}): zones are not checked from the root\n`,
          );
        process.stdout.write(
          `zone ${health.zone}: ${health.state}${health.checkedAt ? ` (checked ${health.checkedAt})` : ' (not checked yet)'}\n`,
        );
        if (health.findings.length) print(program, health.findings, ['severity', 'code', 'server', 'message', 'since']);
      }
      if (health.state === 'critical') throw new ExitWith(EXIT.critical);
    });
}
