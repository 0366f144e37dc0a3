import type { GraphQLResolveInfo } from 'graphql';
import { SerialScalar } from '../scalars/serial';
import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, ID, Info, Int, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import { Max, Min } from 'class-validator';
import type { HistoryRow } from '../../services/zones/history.service';
import type { GraphQLContext } from '../context';
import { connection, Connection, ConnectionValue } from '../types/connection';
import { DomainType } from '../types/domain.type';
import { parseOptionalId } from '../inputs/ids';
import { ChangedRecord, ZoneChangesResult } from './zone-changes.resolver';
import { listComplexity } from './paging';

@ObjectType('ChangeAuthor', {
  simpleResolvers: true,
  description: 'Who made a change: the API key or, for a DNS UPDATE, the TSIG key, and its user (none for an admin key).',
})
export class ChangeAuthor {
  @Field(() => ID, { nullable: true, description: 'The API key; null for a DNS UPDATE.' })
  keyId!: number | null;

  @Field(() => ID, { nullable: true, description: 'The TSIG key of a DNS UPDATE (RFC 2136); null for an API change.' })
  tsigKeyId!: number | null;

  @Field(() => String, { nullable: true, description: 'The key’s name when the change was made.' })
  keyName!: string | null;

  @Field(() => ID, { nullable: true })
  userId!: number | null;

  @Field({ description: 'Made with an admin key.' })
  admin!: boolean;

  @Field(() => String, { nullable: true, description: 'The person who made it, signed in (docs/people.md), by e-mail.' })
  email!: string | null;
}

@ObjectType('ZoneChangeFinding', {
  simpleResolvers: true,
  description:
    'A finding the change’s plan answered with it (docs/changes.md, «Checks on every plan»): a warning of the zone checks, kept with the change.',
})
class ZoneChangeFinding {
  @Field({ description: 'Stable code (TARGET_MISSING, SPF_MULTIPLE_RECORDS, APEX_NS_NOT_AT_PARENT, …).' })
  code!: string;

  @Field({ description: 'warning (an error refuses the change, so none is kept; a zone with strictChecks refuses warnings too).' })
  severity!: string;

  @Field({ description: "The owner of the RRset it is about, relative to the zone ('@' = apex)." })
  owner!: string;

  @Field({ description: 'The type of the RRset it is about.' })
  type!: string;

  @Field(() => String, { nullable: true, description: 'The RFC (and section) that says why.' })
  rfc!: string | null;

  @Field()
  message!: string;
}

@ObjectType('ZoneChangeEntry', {
  simpleResolvers: true,
  description: 'One committed change of a zone (one serial step), from its journal.',
})
export class ZoneChangeEntry {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'zone-created, zone-changed or zone-deleted.' })
  kind!: string;

  @Field(() => SerialScalar, { nullable: true })
  serialBefore!: number | null;

  @Field(() => SerialScalar)
  serialAfter!: number;

  @Field()
  createdAt!: Date;

  @Field(() => ChangeAuthor, { nullable: true, description: 'None for the service’s own changes (zone creation, catalog).' })
  author!: ChangeAuthor | null;

  @Field(() => String, {
    nullable: true,
    description: 'What the service did, for a change of its own that it describes (an ALIAS refresh).',
  })
  serviceNote!: string | null;

  @Field(() => [ChangedRecord])
  added!: ChangedRecord[];

  @Field(() => [ChangedRecord])
  removed!: ChangedRecord[];

  @Field(() => [ZoneChangeFinding], {
    description:
      'The warnings its plan answered (code, RRset, severity, RFC), kept with the change; empty for a change without any, and for the writes that are neither a change set nor a person’s single-record write (an import, the service’s own).',
  })
  findings!: ZoneChangeFinding[];
}

@ObjectType('ZoneChangeConnection', { simpleResolvers: true })
class ZoneChangeConnection extends Connection(ZoneChangeEntry) {}

@ObjectType('ZoneDiff', { simpleResolvers: true, description: 'The records removed and added between two serials (the SOA aside).' })
class ZoneDiff {
  @Field(() => SerialScalar)
  fromSerial!: number;

  @Field(() => SerialScalar)
  toSerial!: number;

  @Field(() => [ChangedRecord])
  added!: ChangedRecord[];

  @Field(() => [ChangedRecord])
  removed!: ChangedRecord[];
}

@ArgsType()
class ChangesArgs {
  @Field(() => Int, { defaultValue: 20, description: 'Page size.' })
  @Min(1)
  @Max(1000)
  first!: number;

  @Field(() => String, { nullable: true, description: 'A previous page’s endCursor.' })
  after?: string | null;
}

/**
 * A journal row as an entry, its fields named one by one: an object spread followed by a field the object does not
 * have takes V8's slow path (half a microsecond an object in Node 20, against a hundredth for the fields named), and
 * a history page makes one for every change and finding.
 */
export const toEntry = (row: HistoryRow): ZoneChangeEntry => ({
  id: row.id,
  kind: row.kind,
  serialBefore: row.serialBefore,
  serialAfter: row.serialAfter,
  createdAt: row.createdAt,
  added: row.added,
  removed: row.removed,
  findings: row.findings.map((f) => ({
    code: f.code,
    severity: f.severity,
    owner: f.owner,
    type: f.type,
    rfc: f.rfc ?? null,
    message: f.message,
  })),
  serviceNote: row.authorKeyId === null && row.authorTsigKeyId === null ? row.authorKeyName : null,
  author:
    row.authorKeyId === null && row.authorTsigKeyId === null && row.authorEmail === null
      ? null
      : {
          keyId: row.authorKeyId,
          tsigKeyId: row.authorTsigKeyId,
          keyName: row.authorKeyName,
          userId: row.authorUserId,
          admin: row.authorUserId === null,
          email: row.authorEmail,
        },
});

/** The change history of a zone: `Domain.changes`, `Domain.diff` and `revertZone` (HistoryService). */
@Resolver(() => DomainType)
export class HistoryResolver {
  @FieldResolver(() => ZoneChangeConnection, { description: 'The zone’s committed changes, newest first.', complexity: listComplexity })
  async changes(
    @Root() domain: DomainType,
    @Args() args: ChangesArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ConnectionValue<ZoneChangeEntry>> {
    const beforeId = parseOptionalId(args.after, 'after');
    const page = await connection(
      args.first,
      (limit) => ctx.services.history.list(ctx, domain, { first: limit, beforeId }),
      () => ctx.services.history.count(ctx, domain),
      info,
    );
    return { ...page, nodes: page.nodes.map(toEntry) };
  }

  @FieldResolver(() => ZoneDiff, {
    description: 'The records removed and added between two serials of the zone (either order).',
    complexity: 20,
  })
  diff(
    @Root() domain: DomainType,
    @Arg('fromSerial', () => SerialScalar) fromSerial: number,
    @Arg('toSerial', () => SerialScalar, { nullable: true, description: 'Default: the current serial.' })
    toSerial: number | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.history.diff(ctx, domain, fromSerial, toSerial ?? domain.serial);
  }

  @Mutation(() => ZoneChangesResult, {
    description:
      'Brings a zone back to the records it had at toSerial, as a new change set (all or nothing, rules checked, the serial rises). expectSerial defaults to the serial read now. A serial older than the kept history: HISTORY_EXPIRED. On a zone that requires approvals the revert becomes a change request (changeRequest), nothing written.',
  })
  async revertZone(
    @Arg('zone') zone: string,
    @Arg('toSerial', () => SerialScalar) toSerial: number,
    @Arg('expectSerial', () => SerialScalar, { nullable: true }) expectSerial: number | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    const domain = await ctx.services.domains.get(ctx, { name: zone });
    // a zone under review: the revert is proposed as a change request (docs/changes.md, «Review»)
    return ctx.services.changeRequests.applyOrPropose(
      ctx,
      await ctx.services.history.revertChanges(ctx, domain, toSerial, expectSerial ?? undefined),
    );
  }
}
