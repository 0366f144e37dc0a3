import { Command, Option } from 'commander';
import {
  ClearViewOverlayDocument,
  CreateViewDocument,
  DeleteViewDocument,
  HideInViewDocument,
  ReplaceInViewDocument,
  UpdateViewDocument,
  ViewBindConfigDocument,
  ViewHistoryDocument,
  ViewOverlaysDocument,
  ViewsDocument,
  ViewSecondaryConfigDocument,
  ViewZoneDocument,
  type CliViewFragment,
} from '../generated/views';
import { authorLabel, gql, print } from '../shared';

const repeat = (value: string, all: string[] = []) => [...all, value];

/** `zonekeeper view`: views, a zone's overlays, and the configuration of a view's secondary (docs/views.md) */
export function registerViewCommands(program: Command): void {
  const view = program
    .command('view')
    .description("views: split horizon as overlays on the zones, one TSIG key per view (operator's key; docs/views.md)");
  const COLUMNS = ['id', 'name', 'precedence', 'networks', 'tsigKeyName', 'notify'];
  const row = (v: CliViewFragment) =>
    program.opts().json ? v : { ...v, networks: v.networks.join(',') || '-', notify: v.notify.join(',') || '-' };
  view
    .command('list')
    .description('every view, lower precedence first')
    .action(async () => {
      print(program, (await gql(ViewsDocument, {})).views.map(row), COLUMNS);
    });
  view
    .command('add <name> <tsigKeyId>')
    .description("create a view matched by an operator's TSIG key: --network CIDR, --notify ADDRESS[:PORT] (repeat each), --precedence N")
    .option('--network <cidr>', 'a client network of the view; repeat for more', repeat)
    .option('--notify <server>', 'a secondary of the view to NOTIFY; repeat for more', repeat)
    .option('--precedence <n>', 'lower first (default 0)')
    .action(async (name: string, tsigKeyId: string, options: { network?: string[]; notify?: string[]; precedence?: string }) => {
      const made = await gql(CreateViewDocument, {
        input: {
          name,
          tsigKeyId,
          networks: options.network ?? [],
          notify: options.notify ?? [],
          precedence: options.precedence === undefined ? undefined : Number(options.precedence),
        },
      });
      print(program, row(made.createView), COLUMNS);
    });
  view
    .command('update <id>')
    .description('change a view: the options given replace those fields (--network, --notify repeat)')
    .option('--name <name>')
    .option('--tsig-key <id>')
    .option('--network <cidr>', 'a client network; repeat for more', repeat)
    .option('--notify <server>', 'a secondary to NOTIFY; repeat for more', repeat)
    .option('--precedence <n>')
    .action(
      async (id: string, options: { name?: string; tsigKey?: string; network?: string[]; notify?: string[]; precedence?: string }) => {
        const updated = await gql(UpdateViewDocument, {
          id,
          input: {
            name: options.name,
            tsigKeyId: options.tsigKey,
            networks: options.network,
            notify: options.notify,
            precedence: options.precedence === undefined ? undefined : Number(options.precedence),
          },
        });
        print(program, row(updated.updateView), COLUMNS);
      },
    );
  view
    .command('delete <id>')
    .description('delete a view and its overlays')
    .action(async (id: string) => {
      await gql(DeleteViewDocument, { id });
      print(program, { id, deleted: true });
    });
  view
    .command('overlays <zone>')
    .description("a zone's overlays (--view NAME: one view's)")
    .option('--view <name>')
    .action(async (zone: string, options: { view?: string }) => {
      const rows = (await gql(ViewOverlaysDocument, { zone, view: options.view })).viewOverlays;
      print(
        program,
        program.opts().json ? rows : rows.map((r) => ({ ...r, records: r.records.map((x) => `${x.ttl} ${x.rdata}`).join(' | ') || '-' })),
        ['view', 'owner', 'type', 'action', 'records'],
      );
    });
  view
    .command('replace <zone> <view> <owner> <type> <rdata...>')
    .description("the view's own records for an owner and type, in place of the base's (--ttl, default 3600)")
    .option('--ttl <seconds>')
    .action(async (zone: string, viewName: string, owner: string, type: string, rdata: string[], options: { ttl?: string }) => {
      const serial = await gql(ReplaceInViewDocument, {
        zone,
        view: viewName,
        owner,
        type,
        records: rdata.map((d) => ({ rdata: d, ttl: options.ttl ? Number(options.ttl) : undefined })),
      });
      print(program, { zone, view: viewName, owner, type, action: 'replace', serial: serial.setViewOverlay });
    });
  view
    .command('hide <zone> <view> <owner> <type>')
    .description('the owner and type absent in the view')
    .action(async (zone: string, viewName: string, owner: string, type: string) => {
      const serial = await gql(HideInViewDocument, { zone, view: viewName, owner, type });
      print(program, { zone, view: viewName, owner, type, action: 'hide', serial: serial.setViewOverlay });
    });
  view
    .command('clear <zone> <view> <owner> <type>')
    .description("the view serves the base's records for that owner and type again")
    .action(async (zone: string, viewName: string, owner: string, type: string) => {
      const serial = await gql(ClearViewOverlayDocument, { zone, view: viewName, owner, type });
      print(program, { zone, view: viewName, owner, type, action: 'cleared', serial: serial.clearViewOverlay });
    });
  view
    .command('records <zone> <view>')
    .description("a zone's records as the view serves them, each marked base, replace or hide")
    .action(async (zone: string, viewName: string) => {
      const read = (await gql(ViewZoneDocument, { zone, view: viewName })).viewZone;
      print(program, program.opts().json ? read : read.records, ['owner', 'type', 'ttl', 'rdata', 'overlay']);
    });
  view
    .command('history <zone> <view>')
    .description("the view's overlay changes in a zone, newest first: when, who, the RRset, the action and the view's serial")
    .option('--first <n>', 'how many (1 to 100)', '20')
    .action(async (zone: string, viewName: string, options: { first: string }) => {
      const rows = (await gql(ViewHistoryDocument, { zone, view: viewName, first: Number(options.first) })).viewHistory;
      if (program.opts().json) return print(program, rows);
      print(
        program,
        rows.map((r) => ({
          serial: r.serial,
          at: r.createdAt,
          by: authorLabel(r.author, '-'),
          owner: r.owner,
          type: r.type,
          action: r.action.toLowerCase(),
          records: r.records.map((x) => `${x.ttl} ${x.rdata}`).join(' | ') || '-',
        })),
        ['serial', 'at', 'by', 'owner', 'type', 'action', 'records'],
      );
    });
  view
    .command('bind-config <view> <primary>')
    .description('print a BIND `view` block for a secondary of the view: the primary as ADDRESS[:PORT] the secondary reaches')
    .action(async (viewName: string, primary: string) => {
      const text = (await gql(ViewBindConfigDocument, { view: viewName, primary })).viewBindConfig;
      process.stdout.write(text);
    });
  view
    .command('secondary-config <view> <primary>')
    .description(
      "print a secondary's configuration for the view: the primary as ADDRESS[:PORT] the secondary reaches; BIND holds every view, Knot, NSD and PowerDNS run one instance per view",
    )
    .addOption(new Option('--software <name>', 'the secondary').choices(['bind', 'knot', 'nsd', 'powerdns']).default('bind'))
    .action(async (viewName: string, primary: string, options: { software: string }) => {
      const text = (await gql(ViewSecondaryConfigDocument, { view: viewName, primary, software: options.software.toUpperCase() }))
        .viewSecondaryConfig;
      process.stdout.write(text);
    });
}
