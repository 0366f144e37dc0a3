import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('Event', {
  simpleResolvers: true,
  description:
    'One event (docs/events.md): a zone created, changed, deleted or propagated, a transfer failed, a key step, a health finding.',
})
export class EventType {
  @Field(() => ID, { description: 'The event id; a webhook sends it as webhook-id `evt_<id>`.' })
  id!: number;

  @Field({
    description:
      "zone.created, zone.changed, zone.comments_changed, zone.rules_changed, zone.deleted, zone.moved, zone.propagated, zone.transfer_failed, zone.expired, dnssec.* (dnssec.key_step for every key step without another meaning), health.changed, steering.changed, steering.panic, steering.vantage, view.changed (the operator's), change.* (proposed, approved, rejected, applied, refused, cancelled), webhook.disabled.",
  })
  type!: string;

  @Field({ description: 'When the transaction that wrote it ran (ISO 8601).' })
  timestamp!: string;

  @Field(() => String, { nullable: true, description: 'The zone it is about; null for an event of no zone.' })
  zone!: string | null;

  @Field(() => GraphQLJSONObject, { description: "The event's data, as a webhook's body carries it (docs/events.md)." })
  data!: Record<string, unknown>;
}

@ObjectType('EventPage', { simpleResolvers: true, description: 'A page of the event feed, in order, and the cursor to read on from.' })
export class EventPageType {
  @Field(() => [EventType])
  events!: EventType[];

  @Field({ description: 'Give it as `after` to read what comes next (the same cursor when nothing new was there).' })
  next!: string;
}

@ObjectType('WebhookPreviousSecret', {
  simpleResolvers: true,
  description: 'A secret a rotation retired, still signing until its overlap ends.',
})
export class WebhookPreviousSecretType {
  @Field({ description: 'The rotation that retired it.' })
  retiredAt!: Date;

  @Field({ description: 'When it stops signing: the rotation plus WEBHOOK_SECRET_OVERLAP_HOURS.' })
  until!: Date;
}

@ObjectType('Webhook', { simpleResolvers: true, description: 'A webhook subscription (docs/events.md). Its secret is never shown again.' })
export class WebhookType {
  @Field(() => ID)
  id!: number;

  @Field(() => ID, { nullable: true, description: "Its user; null: the operator's (the admin key's)." })
  userId!: number | null;

  @Field()
  url!: string;

  @Field(() => [String], { nullable: true, description: 'The event types it receives; null: every type.' })
  eventTypes!: string[] | null;

  @Field(() => [String], { nullable: true, description: 'The zones it receives events of; null: every zone its creator may read.' })
  zones!: string[] | null;

  @Field({ description: 'false: disabled after failing for WEBHOOK_DISABLE_AFTER_DAYS (redeliver enables it again).' })
  enabled!: boolean;

  @Field(() => String, { nullable: true })
  disabledReason!: string | null;

  @Field(() => [WebhookPreviousSecretType], {
    description: 'The previous secrets still signing too, each until its own overlap ends (the first to end first).',
  })
  previousSecrets!: WebhookPreviousSecretType[];

  @Field(() => Date, {
    nullable: true,
    description: 'Until when a previous secret still signs too (the last of `previousSecrets` to end).',
  })
  previousSecretUntil!: Date | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('CreatedWebhook', { simpleResolvers: true })
export class CreatedWebhookType {
  @Field(() => WebhookType)
  webhook!: WebhookType;

  @Field({ description: 'The signing secret (`whsec_…`, Standard Webhooks), shown this once.' })
  secret!: string;
}

@ObjectType('WebhookDelivery', { simpleResolvers: true })
export class WebhookDeliveryType {
  @Field(() => ID)
  id!: number;

  @Field(() => ID)
  eventId!: number;

  @Field()
  type!: string;

  @Field(() => String, { nullable: true })
  zone!: string | null;

  @Field({ description: 'pending, delivered or failed' })
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => Int, { nullable: true, description: "The endpoint's last HTTP status; null when none came." })
  responseCode!: number | null;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => Date, { nullable: true })
  nextAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true })
  deliveredAt!: Date | null;

  @Field()
  createdAt!: Date;
}
