import { Command, Option } from 'commander';
import {
  CreateNameserverSetDocument,
  DeleteNameserverSetDocument,
  MoveZoneToNameserverSetDocument,
  NameserverSetsDocument,
  NameserverSetSecondaryConfigDocument,
  UpdateNameserverSetDocument,
  type CliNameserverSetFragment,
} from '../generated/nameserver-sets';
import { gql, print } from '../shared';

/** `zonekeeper nameserver-set`: nameserver sets */
export function registerNameserverSetCommands(program: Command): void {
  const nsSet = program
    .command('nameserver-set')
    .description('nameserver sets: fleets of secondaries with their NS names and catalog zone (admin key; docs/transfers.md)');
  const nsSetRow = (set: CliNameserverSetFragment) =>
    program.opts().json ? set : { ...set, secondaries: set.secondaries.join(',') || '-', nsNames: set.nsNames.join(',') };
  const NS_SET_COLUMNS = ['name', 'secondaries', 'nsNames', 'catalogZone', 'zoneCount'];
  nsSet
    .command('list')
    .description('every set, `default` (the settings) first')
    .action(async () => {
      const sets = (await gql(NameserverSetsDocument, {})).nameserverSets;
      print(program, sets.map(nsSetRow), NS_SET_COLUMNS);
    });
  nsSet
    .command('add <name> <catalogZone>')
    .description('create a set: its catalog zone, --secondary ADDRESS[:PORT] and --ns NAME (repeat each)')
    .option('--secondary <server>', 'a secondary, ADDRESS[:PORT]; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .option('--ns <name>', 'an NS name of its zones; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .action(async (name: string, catalogZone: string, options: { secondary?: string[]; ns?: string[] }) => {
      const made = await gql(CreateNameserverSetDocument, {
        input: { name, catalogZone, secondaries: options.secondary ?? [], nsNames: options.ns ?? [] },
      });
      print(program, nsSetRow(made.createNameserverSet), NS_SET_COLUMNS);
    });
  nsSet
    .command('update <name>')
    .description("replace a set's secondaries and NS names (--secondary, --ns; repeat each)")
    .option('--secondary <server>', 'a secondary, ADDRESS[:PORT]; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .option('--ns <name>', 'an NS name of its zones; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .option('--zones-follow', "the zones whose NS are the set's old names take the new ones (in the background)")
    .action(async (name: string, options: { secondary?: string[]; ns?: string[]; zonesFollow?: boolean }) => {
      const updated = await gql(UpdateNameserverSetDocument, {
        name,
        input: { secondaries: options.secondary ?? [], nsNames: options.ns ?? [], zonesFollow: options.zonesFollow ?? false },
      });
      print(program, nsSetRow(updated.updateNameserverSet), NS_SET_COLUMNS);
    });
  nsSet
    .command('delete <name>')
    .description('delete a set no zone is in')
    .action(async (name: string) => {
      await gql(DeleteNameserverSetDocument, { name });
      print(program, { name, deleted: true });
    });
  nsSet
    .command('secondary-config <name> <primary>')
    .description(
      "print a secondary's configuration for the set (`default`: the settings'): the primary as ADDRESS[:PORT] the secondary reaches, the set's catalog, limits sized for its zones",
    )
    .addOption(new Option('--software <name>', 'the secondary').choices(['bind', 'knot', 'nsd', 'powerdns']).default('bind'))
    .action(async (name: string, primary: string, options: { software: string }) => {
      const text = (await gql(NameserverSetSecondaryConfigDocument, { name, primary, software: options.software.toUpperCase() }))
        .nameserverSetSecondaryConfig;
      process.stdout.write(text);
    });
  nsSet
    .command('move <zone> <name>')
    .description("move a zone to a set: its NS follow when they were the old set's; it leaves the old catalog once the new set serves it")
    .action(async (zoneName: string, name: string) => {
      const moved = await gql(MoveZoneToNameserverSetDocument, { zone: zoneName, nameserverSet: name });
      const zone = moved.moveZoneToNameserverSet;
      print(program, { zone: zone.name, serial: zone.serial, nameserverSet: zone.nameserverSet.name });
    });
}
