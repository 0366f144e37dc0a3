import { Command } from 'commander';
import { CreateWebhookDocument, DeleteWebhookDocument, WebhooksDocument } from '../generated/webhooks';
import { gql, print, confirm } from '../shared';

/** `zonekeeper webhook`: webhook subscriptions (docs/events.md) */
export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('webhooks: events delivered to your endpoints, signed (Standard Webhooks)');
  webhook
    .command('add <url>')
    .description('subscribe an endpoint (its whsec_ secret is shown once)')
    .option('--events <types>', 'event types, comma-separated (zone.changed,zone.deleted…); default: every type', '*')
    .option('--zones <zones>', 'only events of these zones, comma-separated; default: every zone the key may read')
    .action(async (url: string, options: { events: string; zones?: string }) => {
      const split = (text: string) =>
        text
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
      const created = (
        await gql(CreateWebhookDocument, {
          url,
          events: split(options.events),
          zones: options.zones === undefined ? null : split(options.zones),
        })
      ).createWebhook;
      print(program, { ...created.webhook, secret: created.secret });
    });
  webhook
    .command('list')
    .description('list webhook subscriptions')
    .action(async () => {
      print(program, (await gql(WebhooksDocument, {})).webhooks, ['id', 'url', 'eventTypes', 'zones', 'enabled']);
    });
  webhook
    .command('delete <id>')
    .description('delete a webhook subscription and its deliveries')
    .option('--yes', 'do not ask')
    .action(async (id: string, options: { yes?: boolean }) => {
      await confirm(options, `delete webhook ${id}`, id);
      await gql(DeleteWebhookDocument, { id });
      print(program, { id, deleted: true });
    });
}
