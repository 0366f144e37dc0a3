import { Command } from 'commander';
import { gql, print } from '../shared';

const HEALTH = 'zone checkedAt state findings { code severity server message since }';

/** `zonekeeper health <zone> [--check]`: the zone as resolvers meet it (docs/health.md) */
export function registerHealthCommand(program: Command): void {
  program
    .command('health <zone>')
    .description("zone health: the last check's state and findings (delegation, DS, nameservers, signatures)")
    .option('--check', 'check the zone now, then show what was found')
    .action(async (name: string, options: { check?: boolean }) => {
      const health = options.check
        ? (await gql(`mutation($z: String!) { checkHealth(zone: $z) { ${HEALTH} } }`, { z: name })).checkHealth
        : (await gql(`query($z: String!) { domain(name: $z) { health { ${HEALTH} } } }`, { z: name })).domain.health;
      if (program.opts().json) return print(program, health);
      process.stdout.write(
        `zone ${health.zone}: ${health.state}${health.checkedAt ? ` (checked ${health.checkedAt})` : ' (not checked yet)'}\n`,
      );
      if (health.findings.length) print(program, health.findings, ['severity', 'code', 'server', 'message', 'since']);
    });
}
