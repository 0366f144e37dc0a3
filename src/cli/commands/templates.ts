import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { CreateRecordTemplateDocument, DeleteRecordTemplateDocument, RecordTemplatesDocument } from '../generated/templates';
import { gql, print } from '../shared';

/** `zonekeeper template`: record templates */
export function registerTemplateCommands(program: Command): void {
  const template = program.command('template').description('record templates a new zone starts with (docs/templates-and-alias.md)');
  template
    .command('list')
    .description("the templates: the default (the settings'), the admin-wide ones and the user's")
    .option('--user <userId>', "with this user's own")
    .action(async (options: { user?: string }) => {
      const list = (await gql(RecordTemplatesDocument, { user: options.user ?? null })).recordTemplates;
      if (program.opts().json) return print(program, list);
      print(
        program,
        list.map((t) => ({ id: t.id ?? '-', userId: t.userId ?? '-', name: t.name, records: t.records.length })),
        ['id', 'userId', 'name', 'records'],
      );
    });
  template
    .command('add <name> <file>')
    .description('save a template from a JSON file: [{"owner": "@", "type": "SOA", "rdata": "…", "ttl": 3600}, …]')
    .option('--user <userId>', "the user's own template; without it admin-wide (admin key) or the key's user")
    .action(async (name: string, file: string, options: { user?: string }) => {
      const records = JSON.parse(readFileSync(file, 'utf8'));
      print(
        program,
        (await gql(CreateRecordTemplateDocument, { input: { userId: options.user ?? null, name, records } })).createRecordTemplate,
      );
    });
  template
    .command('delete <id>')
    .description('delete a template (zones made from it keep their records)')
    .action(async (id: string) => {
      await gql(DeleteRecordTemplateDocument, { id });
      print(program, { id, deleted: true });
    });
}
