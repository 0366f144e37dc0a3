import type { GraphQLResolveInfo } from 'graphql';
import { SerialScalar } from '../scalars/serial';
import {
  Arg,
  Args,
  ArgsType,
  Ctx,
  Field,
  FieldResolver,
  ID,
  Info,
  Mutation,
  ObjectType,
  registerEnumType,
  Resolver,
  Root,
} from 'type-graphql';
import type { HistoryRow } from '../../services/zones/history.service';
import type { GraphQLContext } from '../context';
import { Connection } from '../types/connection';
import { connection, type ConnectionValue } from '../pages';
import { DomainType } from '../types/domain.type';
import { RecordType } from '../types/record.type';
import { ChangedRecord, CheckSeverityEnum, RrsetCommentChange, ZoneChangesResult } from './zone-changes.resolver';
import { listComplexity, smallPage } from './paging';
import { SmallPageArgs } from '../inputs/page.args';
import { bindScope, cursorOf } from '../inputs/cursors';
import { forgetZone } from '../loaders';
import { ChangeAuthor } from '../types/history.type';

/** what a journal row did to its zone, as the journal names it (`changes.kind`) and GraphQL names it */
export enum ZoneChangeEntryKindEnum {
  ZONE_CREATED = 'zone-created',
  ZONE_CHANGED = 'zone-changed',
  ZONE_DELETED = 'zone-deleted',
  COMMENTS_CHANGED = 'comment-changed',
  ZONE_MOVED = 'zone-moved',
}
registerEnumType(ZoneChangeEntryKindEnum, {
  name: 'ZoneChangeEntryKind',
  description: 'What a committed change did to its zone.',
  valuesConfig: {
    ZONE_CREATED: { description: 'The zone was made (with its first records).' },
    ZONE_CHANGED: { description: 'Its records changed.' },
    ZONE_DELETED: { description: 'The zone was deleted.' },
    COMMENTS_CHANGED: {
      description: 'Only RRsets’ comments changed (`comments`): no DNS data, so no serial step (`serialBefore` = `serialAfter`).',
    },
    ZONE_MOVED: {
      description:
        'The zone moved to another account (`moveZone`, or an accepted transfer offer): no DNS data changed, so no serial step (`serialBefore` = `serialAfter`).',
    },
  },
});

@ObjectType('ZoneChangeFinding', {
  simpleResolvers: true,
  description:
    'A finding the change’s plan answered with it (docs/changes.md, «Checks on every plan»): a warning of the zone checks, kept with the change.',
})
class ZoneChangeFinding {
  @Field({ description: 'Stable code (TARGET_MISSING, SPF_MULTIPLE_RECORDS, APEX_NS_NOT_AT_PARENT, …).' })
  code!: string;

  @Field({
    description: 'warning (an error refuses the change, so none is kept; a zone with strictChecks refuses warnings too).',
    deprecationReason: 'Use `level`, the same as the CheckSeverity enum (since 2026-11-29).',
  })
  severity!: string;

  @Field(() => CheckSeverityEnum, { description: 'WARNING (an error refuses the change, so none is kept).' })
  level!: string;

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
  description: 'One committed change of a zone (one serial step; a change of RRsets’ comments alone steps none), from its journal.',
})
export class ZoneChangeEntry {
  @Field(() => ID)
  id!: number;

  @Field({
    description: 'zone-created, zone-changed, zone-deleted, comment-changed or zone-moved.',
    deprecationReason: 'Use `entryKind`, the same as the ZoneChangeEntryKind enum (since 2026-11-29).',
  })
  kind!: string;

  @Field(() => ZoneChangeEntryKindEnum, {
    description:
      'What the change did to the zone: made it, changed it, deleted it, changed only RRsets’ comments, or moved it to another account.',
  })
  entryKind!: string;

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

  @Field(() => [RrsetCommentChange], {
    description:
      'The RRsets’ comments the change changed (docs/changes.md, «Comments»), before and after; empty for most changes. A change of comments alone is an entry of its own (COMMENTS_CHANGED) that steps no serial.',
  })
  comments!: RrsetCommentChange[];

  @Field(() => [ID], {
    description:
      'The ids of the records the change deleted (`removed`, the SOA’s serial step and a record edited in place aside: those keep their ids and are in `records`); a client’s normalised cache evicts them. Empty for a change journalled before 2026-11-29.',
  })
  removedRecordIds!: number[];

  /** not exposed: the zone, for `records` */
  domainId!: number;
  zoneName!: string;
}

@ObjectType('ZoneChangeConnection', { simpleResolvers: true })
class ZoneChangeConnection extends Connection(ZoneChangeEntry, 'ZoneChangeEdge') {}

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
class ChangesArgs extends SmallPageArgs {}

/** the ids of the rows a change deleted, in its journal's order */
function deletedIds(removed: HistoryRow['removed']): number[] {
  const ids: number[] = [];
  for (const record of removed) if (record.id !== undefined) ids.push(record.id);
  return ids;
}

/**
 * A journal row as an entry, its fields named one by one: an object spread followed by a field the object does not
 * have takes V8's slow path (half a microsecond an object in Node 20, against a hundredth for the fields named), and
 * a history page makes one for every change and finding.
 */
export const toEntry = (row: HistoryRow, zone: { id: number; name: string }): ZoneChangeEntry => ({
  id: row.id,
  entryKind: row.kind,
  domainId: zone.id,
  zoneName: zone.name,
  kind: row.kind,
  serialBefore: row.serialBefore,
  serialAfter: row.serialAfter,
  createdAt: row.createdAt,
  added: row.added,
  removed: row.removed,
  removedRecordIds: deletedIds(row.removed),
  comments: row.comments,
  findings: row.findings.map((f) => ({
    code: f.code,
    severity: f.severity,
    level: f.severity,
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

/** What a change wrote, as records a client's cache merges by id (docs/graphql.md, «Writes and events»). */
@Resolver(() => ZoneChangeEntry)
export class ZoneChangeEntryResolver {
  @FieldResolver(() => [RecordType], {
    description:
      'The records the change wrote (`added`: each added or edited, the SOA’s serial step included) with their ids, as the zone holds them now: one removed or changed since is left out. With `removedRecordIds` and the zone’s `serial` and `recordCount`, what a client’s cache needs to follow the change without reading the zone again.',
  })
  records(@Root() entry: ZoneChangeEntry, @Ctx() ctx: GraphQLContext) {
    return ctx.services.records.written(ctx, { id: entry.domainId, name: entry.zoneName }, entry.added);
  }
}

/**
 * What a change set's write answers of what it touched, by the same rule as the zoneChanged event: its entry of
 * the history (`change`: its records with ids, the ids it deleted) and the zone as it left it (`domain`).
 * `revertZone` answers the same type.
 */
@Resolver(() => ZoneChangesResult)
export class ZoneChangesResultResolver {
  @FieldResolver(() => DomainType, {
    nullable: true,
    description:
      'The zone as the set left it (its serial, its recordCount; a dry run or a change request: as it is); null if it was deleted since.',
  })
  async domain(@Root() result: ZoneChangesResult, @Ctx() ctx: GraphQLContext): Promise<DomainType | null> {
    const zone = await ctx.services.domains.find(ctx, { name: result.zone });
    // the zone's facts (recordCount) as the write left them, not as this operation read them before
    if (zone) forgetZone(ctx.loaders, zone.id);
    return zone;
  }

  @FieldResolver(() => ZoneChangeEntry, {
    nullable: true,
    description:
      'The change the set wrote, as the history and the zoneChanged event show it: its `records` with their ids, its `removedRecordIds`, its author, findings and comments. Null for a dry run, a set that changed nothing and a change request.',
  })
  async change(@Root() result: ZoneChangesResult, @Ctx() ctx: GraphQLContext): Promise<ZoneChangeEntry | null> {
    // a set of comments alone steps no serial, and is kept in the history all the same (a row of its own)
    const commentsAlone = result.serial === result.serialBefore && !!result.comments?.length;
    if (result.dryRun || result.changeRequest || (result.serial === result.serialBefore && !commentsAlone)) return null;
    const zone = await ctx.services.domains.find(ctx, { name: result.zone });
    const row = zone && (await ctx.services.history.changeAt(ctx, zone, result.serial, commentsAlone));
    return row ? toEntry(row, zone) : null;
  }
}

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
    // a zone's history is a list of its own: its cursors page no other zone's
    const scope = bindScope({ list: 'Domain.changes', order: 'newest', filter: { zone: domain.id } });
    const page = await connection(
      smallPage(args, scope),
      (request) => ctx.services.history.list(ctx, domain, request),
      () => ctx.services.history.count(ctx, domain),
      info,
      scope,
    );
    return { ...page, nodes: page.nodes.map((row) => toEntry(row, domain)), cursorOf: (entry) => cursorOf(scope, entry.id) };
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
