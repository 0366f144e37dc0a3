import { Command } from 'commander';
import { EXIT, ExitWith, gql, print } from '../shared';

const HEALTH = 'zone checkedAt state findings { code severity server message since }';
const CHECKER = 'healthChecker { rootReachable rootReason rootSince intervalSeconds }';

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
      const data = options.check
        ? await gql(`mutation($z: String!) { checkHealth(zone: $z) { ${HEALTH} } }`, { z: name })
        : await gql(`query($z: String!) { domain(name: $z) { health { ${HEALTH} } } }`, { z: name });
      const health = options.check ? data.checkHealth : data.domain.health;
      const { healthChecker: checker } = await gql(`{ ${CHECKER} }`);
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
