import { Command } from 'commander';
import { ExtraSecondariesDocument, SetZoneSecondariesDocument } from '../generated/secondaries';
import { serverSpec, gql, print } from '../shared';

/** `zonekeeper secondaries`: a zone's extra secondaries */
export function registerSecondaryCommands(program: Command): void {
  const secondaries = program
    .command('secondaries')
    .description(
      "a zone's extra secondaries: a customer's own servers, NOTIFYed and allowed to transfer it with its TSIG key (docs/transfers.md)",
    );
  const SECONDARY_COLUMNS = ['address', 'port', 'tsigKeyName'];
  secondaries
    .command('list <zone>')
    .description("the zone's extra secondaries")
    .action(async (zone: string) => {
      const listed = await gql(ExtraSecondariesDocument, { zone });
      print(program, listed.domain.extraSecondaries, SECONDARY_COLUMNS);
    });
  secondaries
    .command('set <zone> [servers...]')
    .description('replace them: each server ADDRESS[#PORT]=TSIG_KEY_NAME (port 53 unless given); none given: remove them all')
    .action(async (zone: string, servers: string[]) => {
      const input = servers.map((server) => serverSpec(server, true));
      const set = await gql(SetZoneSecondariesDocument, { zone, secondaries: input });
      print(program, set.setZoneSecondaries, SECONDARY_COLUMNS);
    });
}
