import { Command, InvalidArgumentError, Option } from 'commander';
import { DNSSEC_ALGORITHM_CHOICES, parseDnssecAlgorithm } from '../../dns/dnssec/algorithms';
import {
  AddForeignDnskeysDocument,
  ConfirmDnssecDsPublishedDocument,
  ConfirmDnssecDsRemovedDocument,
  DisableDnssecDocument,
  DnssecEventsDocument,
  DnssecStatusDocument,
  EnableDnssecDocument,
  ForeignDnskeysDocument,
  RemoveForeignDnskeyDocument,
  RestoreDnssecDsDocument,
  RollDnssecAlgorithmDocument,
  RollDnssecKeyDocument,
  WithdrawDnssecDsDocument,
  type CliDnssecFragment,
  type CliForeignDnskeysFragment,
} from '../generated/dnssec';
import { gql, print, listUpTo, limitOf, confirm } from '../shared';

/**
 * `--algorithm`: any spelling the model reads (`ECDSAP256SHA256`, `ecdsap256sha256`, `13`), as the PowerDNS API
 * and REST take it, sent as the GraphQL enum's value; anything else is a usage mistake naming the choices
 */
function algorithmOption(written: string): string {
  const algorithm = parseDnssecAlgorithm(written);
  if (!algorithm) throw new InvalidArgumentError(`one of ${DNSSEC_ALGORITHM_CHOICES}, by name in any case or by number`);
  return algorithm.name;
}

/** `zonekeeper dnssec`: signing zones */
export function registerDnssecCommands(program: Command): void {
  const printDnssec = (status: CliDnssecFragment) => {
    if (program.opts().json) return print(program, status);
    process.stdout.write(`zone ${status.zone}: ${status.state}${status.denial ? ` (${status.denial})` : ''}\n`);
    if (status.disableAt) process.stdout.write(`unsigned at ${status.disableAt}\n`);
    const roll = status.algorithmRoll;
    if (roll)
      process.stdout.write(
        `algorithm roll ${roll.from} -> ${roll.to}: ${roll.step}${roll.nextStepAt ? `, next step at ${roll.nextStepAt}` : ", waiting for the parent's DS"}\n`,
      );
    // a key waiting for the parent's DS has no time planned: what it waits for is said instead
    const keys = status.keys.map((key) => (key.nextEvent === 'await-ds' ? { ...key, nextEventAt: 'once the parent serves its DS' } : key));
    if (keys.length) print(program, keys, ['keyTag', 'role', 'algorithm', 'state', 'activeAt', 'nextEvent', 'nextEventAt']);
    for (const ds of status.ds) process.stdout.write(`DS ${ds}\n`);
    const parent = status.parentDs;
    if (parent && parent.waitingFor !== 'NOTHING')
      process.stdout.write(
        `waiting for the parent: ${parent.waitingFor === 'DS_REMOVAL' ? 'the DS to be removed' : 'the DS to be published'}\n`,
      );
    for (const answer of parent?.lastCheck?.servers ?? [])
      process.stdout.write(
        `checked ${parent!.lastCheck!.at} at ${answer.server}: ${answer.ok ? (answer.ds.length ? answer.ds.join(', ') : 'no DS') : answer.error}\n`,
      );
  };
  const dnssec = program.command('dnssec').description('signing zones (DNSSEC): keys, and the DS to give the parent');
  dnssec
    .command('status <zone>')
    .description("the zone's DNSSEC state, keys and DS records")
    .action(async (name: string) => {
      printDnssec((await gql(DnssecStatusDocument, { zone: name })).domain.dnssec);
    });
  dnssec
    .command('enable <zone>')
    .description('sign the zone; then give its parent one of the DS records printed')
    .option('--algorithm <name>', `${DNSSEC_ALGORITHM_CHOICES}, by name or number`, algorithmOption, 'ECDSAP256SHA256')
    .option('--nsec3', 'NSEC3 (no salt, no extra iterations: RFC 9276) instead of NSEC')
    .option('--opt-out', 'NSEC3 opt-out: insecure delegations left out of the chain')
    .option('--csk', 'one combined signing key instead of a KSK and a ZSK')
    .action(async (name: string, options: { algorithm: string; nsec3?: boolean; optOut?: boolean; csk?: boolean }) => {
      const input = {
        zone: name,
        algorithm: options.algorithm,
        denial: options.nsec3 || options.optOut ? 'NSEC3' : 'NSEC',
        nsec3OptOut: !!options.optOut,
        keyLayout: options.csk ? 'CSK' : 'KSK_ZSK',
      };
      printDnssec((await gql(EnableDnssecDocument, { input })).enableDnssec);
    });
  dnssec
    .command('disable <zone>')
    .description(
      "stop signing the zone (RFC 8078): DS-delete CDS/CDNSKEY published, signed until the parent's DS is gone, then unsigned and its keys destroyed",
    )
    .option('--force', "unsign now, without waiting for the parent's DS to go (a DS left there makes the zone bogus)")
    .option('--yes', 'do not ask')
    .action(async (name: string, options: { yes?: boolean; force?: boolean }) => {
      await confirm(options, options.force ? `stop signing ${name} now and destroy its keys` : `start unsigning ${name}`, name);
      printDnssec((await gql(DisableDnssecDocument, { zone: name, force: !!options.force })).disableDnssec);
    });
  dnssec
    .command('roll <zone>')
    .description('start a roll of a key now (RFC 7583); the worker runs its steps as the TTLs allow')
    .addOption(
      new Option('--role <role>', 'zsk (pre-publication) or ksk (double-DS; the CSK of a zone signed with --csk)')
        .choices(['zsk', 'ksk'])
        .makeOptionMandatory(),
    )
    .action(async (name: string, options: { role: 'zsk' | 'ksk' }) => {
      printDnssec((await gql(RollDnssecKeyDocument, { zone: name, role: options.role.toUpperCase() })).rollDnssecKey);
    });
  dnssec
    .command('roll-algorithm <zone>')
    .description(
      'start a roll to another algorithm now (RFC 6781 §4.1.4): new signatures, new DNSKEYs, the new DS, the old DNSKEYs gone, then the old signatures',
    )
    .addOption(
      new Option(
        '--algorithm <name>',
        `the algorithm to sign with from the end of the roll: ${DNSSEC_ALGORITHM_CHOICES}, by name or number`,
      )
        .argParser(algorithmOption)
        .makeOptionMandatory(),
    )
    .action(async (name: string, options: { algorithm: string }) => {
      printDnssec((await gql(RollDnssecAlgorithmDocument, { zone: name, algorithm: options.algorithm })).rollDnssecAlgorithm);
    });
  dnssec
    .command('confirm-ds <zone>')
    .description("say that the parent serves the zone's DS (after enable, or a KSK roll's new DS)")
    .action(async (name: string) => {
      printDnssec((await gql(ConfirmDnssecDsPublishedDocument, { zone: name })).confirmDnssecDsPublished);
    });
  dnssec
    .command('confirm-ds-removed <zone>')
    .description('say that the parent no longer serves the DS of a zone being unsigned')
    .action(async (name: string) => {
      printDnssec((await gql(ConfirmDnssecDsRemovedDocument, { zone: name })).confirmDnssecDsRemoved);
    });
  // multi-signer (RFC 8901 model 2): the other signer's DNSKEYs, to move a signed zone in or out (docs/dnssec.md)
  const printForeign = (status: CliForeignDnskeysFragment) => {
    if (program.opts().json) return print(program, status);
    process.stdout.write(`ours (publish these at the other signer):\n`);
    for (const dnskey of status.dnskeys) process.stdout.write(`${status.zone}. IN DNSKEY ${dnskey}\n`);
    for (const ds of status.ds) process.stdout.write(`DS ${ds}\n`);
    if (status.dsWithdrawnAt) process.stdout.write(`our DS withdrawn from the parent since ${status.dsWithdrawnAt}\n`);
    process.stdout.write(`theirs (published here):\n`);
    if (status.foreignKeys.length) print(program, status.foreignKeys, ['id', 'keyTag', 'role', 'algorithm', 'source', 'dnskey']);
    for (const ds of status.foreignKeys.flatMap((k) => k.ds)) process.stdout.write(`DS ${ds}\n`);
  };
  const foreign = dnssec
    .command('foreign-keys')
    .description("multi-signer (RFC 8901): the other signer's DNSKEYs, published in the zone's DNSKEY RRset beside its own");
  foreign
    .command('list <zone>')
    .description("the zone's own DNSKEYs (for the other signer) and the other signer's, with the DS of each KSK")
    .action(async (name: string) => {
      printForeign((await gql(ForeignDnskeysDocument, { zone: name })).domain.dnssec);
    });
  foreign
    .command('add <zone> [dnskeys...]')
    .description("publish the other signer's DNSKEYs (each quoted: '257 3 13 base64…'), or those its server answers (--from)")
    .option('--from <address>', "the other signer's server (IP address, port 53 unless given) to ask for its DNSKEY RRset")
    .action(async (name: string, dnskeys: string[], options: { from?: string }) => {
      const input = { zone: name, ...(options.from ? { fetchFrom: options.from } : { dnskeys }) };
      printForeign((await gql(AddForeignDnskeysDocument, { input })).addForeignDnskeys);
    });
  foreign
    .command('remove <zone> <id>')
    .description("take one of the other signer's DNSKEYs (its id in `list`) out of the zone's DNSKEY RRset and CDS")
    .action(async (name: string, id: string) => {
      printForeign((await gql(RemoveForeignDnskeyDocument, { zone: name, id })).removeForeignDnskey);
    });
  dnssec
    .command('withdraw-ds <zone>')
    .description(
      "moving a multi-signer zone out: withdraw the zone's own DS from the parent while it still signs (its CDS names the other signer's KSKs alone; a parent held here follows at once)",
    )
    .action(async (name: string) => {
      printForeign((await gql(WithdrawDnssecDsDocument, { zone: name })).withdrawDnssecDs);
    });
  dnssec
    .command('restore-ds <zone>')
    .description("the reverse of withdraw-ds: the zone's DS is wanted at the parent again, beside the other signer's")
    .action(async (name: string) => {
      printForeign((await gql(RestoreDnssecDsDocument, { zone: name })).restoreDnssecDs);
    });
  dnssec
    .command('events <zone>')
    .description("the zone's key events, newest first: each step of each key (made, published, active, retired, removed) and why")
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (name: string, options: { limit: string }) => {
      const events = await listUpTo(DnssecEventsDocument, (d) => d.domain.dnssecEvents, { zone: name }, limitOf(options.limit), 'events');
      print(program, events, ['id', 'at', 'keyTag', 'role', 'algorithm', 'fromState', 'toState', 'reason']);
    });
}
