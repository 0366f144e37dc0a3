import { SerialScalar } from '../scalars/serial';
import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, registerEnumType, Resolver, Root } from 'type-graphql';
import type { ZoneChangeSpec } from '../../services/zones/zone-changes.service';
import type { GraphQLContext } from '../context';
import { parseOptionalId } from '../inputs/ids';

enum ZoneChangeKindEnum {
  ADD = 'ADD',
  REMOVE = 'REMOVE',
  REPLACE = 'REPLACE',
  REPLACE_RRSET = 'REPLACE_RRSET',
  EXTEND_RRSET = 'EXTEND_RRSET',
  PRUNE_RRSET = 'PRUNE_RRSET',
  DISABLE = 'DISABLE',
  ENABLE = 'ENABLE',
  COMMENT = 'COMMENT',
}
registerEnumType(ZoneChangeKindEnum, {
  name: 'ZoneChangeKind',
  valuesConfig: {
    ADD: { description: 'Add a record: owner, type, rdata, ttl.' },
    REMOVE: { description: 'Remove a record: by id, or by owner, type and rdata.' },
    REPLACE: { description: 'Replace the record `id` with owner, type, rdata, ttl.' },
    REPLACE_RRSET: { description: 'Every record of owner and type becomes one of `rdatas` with `ttl` (an empty list removes the RRset).' },
    EXTEND_RRSET: {
      description: 'Those of `rdatas` (with `ttl`) the RRset of owner and type lacks are added; the rest stays (PowerDNS EXTEND).',
    },
    PRUNE_RRSET: {
      description: 'Those of `rdatas` the RRset of owner and type holds, served or disabled, are removed; the rest stays (PowerDNS PRUNE).',
    },
    DISABLE: {
      description:
        'Disable a served record (by id, or by owner, type and rdata): it is no longer served and is kept (Domain.disabledRecords); the history shows it toggled.',
    },
    ENABLE: { description: 'Enable a disabled record (by owner, type and rdata): it is served again with its TTL.' },
    COMMENT: {
      description:
        'The comment of the RRset of owner and type becomes `comment` ("" removes it); its records stay. A comment is no DNS data: a set of comments alone steps no serial, and the history keeps it (COMMENTS_CHANGED).',
    },
  },
});

/** how much a zone check's finding matters, as the DNS model names it (lower case) and GraphQL names it */
export enum CheckSeverityEnum {
  ERROR = 'error',
  WARNING = 'warning',
}
registerEnumType(CheckSeverityEnum, {
  name: 'CheckSeverity',
  description: 'How much a zone check’s finding matters (docs/changes.md, «Checks on every plan»).',
  valuesConfig: {
    ERROR: { description: 'The plan is refused.' },
    WARNING: { description: 'The plan is taken and the finding answered beside it (refused too on a zone with strictChecks).' },
  },
});

/** One change of a set; which fields it needs depends on its kind (the service names what is missing). */
@InputType()
export class ZoneChangeInput {
  @Field(() => ZoneChangeKindEnum)
  kind!: ZoneChangeKindEnum;

  @Field(() => ID, { nullable: true, description: 'The record, for REMOVE by id and REPLACE.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: "Owner, relative to the zone ('@' = apex) or absolute inside it." })
  owner?: string | null;

  @Field(() => String, { nullable: true, description: 'Record type (case-insensitive).' })
  type?: string | null;

  @Field(() => String, { nullable: true, description: 'RDATA in presentation form (ADD, REPLACE, REMOVE by content).' })
  rdata?: string | null;

  @Field(() => Int, { nullable: true, description: 'TTL (ADD, REPLACE, REPLACE_RRSET, EXTEND_RRSET).' })
  ttl?: number | null;

  @Field(() => [String], { nullable: true, description: 'The RRset’s RDATA (REPLACE_RRSET, EXTEND_RRSET, PRUNE_RRSET).' })
  rdatas?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'ADD, EXTEND_RRSET: the records come disabled (kept, not served).' })
  disabled?: boolean | null;

  @Field(() => [String], {
    nullable: true,
    description: 'REPLACE_RRSET: the RRset’s disabled records become these (with `ttl`); without it, they stay as they are.',
  })
  disabledRdatas?: string[] | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The comment of the RRset the change names by owner and type becomes this ("" removes it; absent, it stays), at most MAX_COMMENT_LENGTH characters (serverSettings.maxCommentLength); needs owner and type (a change by id alone names no RRset: COMMENT_NEEDS_RRSET). COMMENT: the comment alone.',
  })
  comment?: string | null;
}

/** a change set's input as the service reads it */
export function changeSpecs(changes: readonly ZoneChangeInput[]): ZoneChangeSpec[] {
  return changes.map((change, index) => ({
    kind: change.kind,
    id: parseOptionalId(change.id, `changes[${index}].id`),
    owner: change.owner ?? undefined,
    type: change.type ?? undefined,
    rdata: change.rdata ?? undefined,
    ttl: change.ttl ?? undefined,
    rdatas: change.rdatas ?? undefined,
    disabled: change.disabled ?? undefined,
    disabledRdatas: change.disabledRdatas ?? undefined,
    comment: change.comment ?? undefined,
  }));
}

/**
 * An RRset's comment a change changed (docs/changes.md, «Comments»), as the history keeps it: its text before and
 * after, as `Record.comment` reads it.
 */
@ObjectType('RrsetCommentChange', {
  simpleResolvers: true,
  description: 'An RRset’s comment a change changed: its text before and after (null: none), as `Record.comment` reads it.',
})
export class RrsetCommentChange {
  @Field({ description: "Owner, relative to the zone ('@' = apex)." })
  owner!: string;

  @Field()
  type!: string;

  @Field(() => String, { nullable: true })
  before!: string | null;

  @Field(() => String, { nullable: true })
  after!: string | null;
}

// plain fields read as graphql-jit reads a property (simpleResolvers): type-graphql's wrapper per field made a
// resolver call and its resolve info for each of 4 fields of 1,000 records in a set's answer, a quarter of its
// allocation over REST (no middleware or auth check runs on these fields to keep)
@ObjectType('ChangedRecord', { simpleResolvers: true, description: 'A record a change added or removed, in presentation form.' })
export class ChangedRecord {
  @Field()
  owner!: string;

  @Field()
  type!: string;

  @Field()
  rdata!: string;

  @Field(() => Int)
  ttl!: number;
}

@ObjectType('ZoneChangeRrset', {
  simpleResolvers: true,
  description: 'An RRset a change set changes (owner and type), its served records before and after the set.',
})
export class ZoneChangeRrset {
  @Field({ description: "Owner, relative to the zone ('@' = apex)." })
  owner!: string;

  @Field()
  type!: string;

  @Field(() => [ChangedRecord], { description: 'Its served records before the set.' })
  before!: ChangedRecord[];

  @Field(() => [ChangedRecord], { description: 'Its served records after the set (none: the RRset goes).' })
  after!: ChangedRecord[];
}

@ObjectType('ZoneChangeWarning', {
  simpleResolvers: true,
  description: 'Something a change set would do that is worth a look (a warning, never a refusal).',
})
export class ZoneChangeWarning {
  @Field({ description: 'What it is about: changes[i].rdata, owner, rdata.' })
  field!: string;

  @Field({ description: 'Stable code (the zone checks: TARGET_MISSING, OCCLUDED_DATA, …; the reading: NAME_NOT_HOSTNAME, …).' })
  code!: string;

  @Field()
  message!: string;

  @Field(() => String, {
    nullable: true,
    description: "A zone check's finding: error or warning (a plan with an error is refused).",
    deprecationReason: 'Use `level`, the same as the CheckSeverity enum (since 2026-11-29).',
  })
  severity?: string;

  @Field(() => String, { nullable: true, description: 'The owner of the RRset the finding is about.' })
  owner?: string;

  @Field(() => String, { nullable: true, description: 'The type of the RRset the finding is about.' })
  type?: string;

  @Field(() => String, { nullable: true, description: 'The RFC (and section) that says why.' })
  rfc?: string;
}

@ObjectType('ProposedZoneChange', {
  simpleResolvers: true,
  description: 'The change request a write to a zone that requires approvals became (the whole of it: Query.changeRequest).',
})
export class ProposedZoneChange {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'pending (its approvals), or approved (needing none, waiting for its time).' })
  status!: string;

  @Field(() => Int)
  requiredApprovals!: number;
}

@ObjectType('ZoneChangesResult', { simpleResolvers: true })
export class ZoneChangesResult {
  @Field()
  zone!: string;

  @Field(() => SerialScalar, { description: 'The serial the set was applied to.' })
  serialBefore!: number;

  @Field(() => SerialScalar, {
    description: 'The zone’s serial after the set: it rose once, or stayed where the set changed nothing (nothing added or removed).',
  })
  serial!: number;

  @Field(() => [ChangedRecord], { description: 'Records added (the SOA aside).' })
  added!: ChangedRecord[];

  @Field(() => [ChangedRecord], { description: 'Records removed (the SOA aside).' })
  removed!: ChangedRecord[];

  @Field(() => Boolean, {
    description:
      'A dry run: the set was planned and nothing written; `serial` is the one it would make (the same where it changes nothing).',
  })
  dryRun!: boolean;

  @Field(() => [ZoneChangeRrset], { nullable: true, description: 'A dry run: each RRset the set changes, before and after.' })
  rrsets?: ZoneChangeRrset[];

  @Field(() => [ChangedRecord], { nullable: true, description: 'A dry run: the records the set would keep disabled.' })
  disabledAdded?: ChangedRecord[];

  @Field(() => [ChangedRecord], { nullable: true, description: 'A dry run: the disabled records the set would no longer keep.' })
  disabledRemoved?: ChangedRecord[];

  @Field(() => [ZoneChangeWarning], {
    nullable: true,
    description: 'A dry run: the warnings the set would get (a write answers them in `extensions.warnings`).',
  })
  warnings?: ZoneChangeWarning[];

  @Field(() => ProposedZoneChange, {
    nullable: true,
    description:
      'The zone requires approvals: the set became this change request, and nothing was written (`serial` = `serialBefore`; docs/changes.md, «Review»).',
  })
  changeRequest?: ProposedZoneChange;

  @Field(() => [RrsetCommentChange], {
    nullable: true,
    description:
      'The RRsets’ comments the set changed (a dry run: would change), before and after; null when it changed none. Comments alone step no serial (`serial` = `serialBefore`) and are kept in the history all the same (`change`).',
  })
  comments?: RrsetCommentChange[];
}

/** A warning's severity as an enum, beside the string it was first answered as. */
@Resolver(() => ZoneChangeWarning)
export class ZoneChangeWarningResolver {
  @FieldResolver(() => CheckSeverityEnum, {
    nullable: true,
    description: 'A zone check’s finding: how much it matters (null: a warning of the reading, which is no zone check).',
  })
  level(@Root() warning: ZoneChangeWarning): string | null {
    return warning.severity ?? null;
  }
}

/** Change sets: many changes of one zone, all or nothing, one serial step (ZoneChangesService). */
@Resolver()
export class ZoneChangesResolver {
  @Mutation(() => ZoneChangesResult, {
    description:
      'Applies a set of changes to one zone, all or nothing: the zone rules and checks hold after the whole set (an error refuses it; a protected RRset is RRSET_PROTECTED, a steered one RRSET_STEERED), the serial rises once, secondaries take one IXFR; a set that changes nothing writes nothing (no serial step, history entry or event). With dryRun, the plan and nothing written. With expectSerial, only if the zone is still at that serial (else SERIAL_MISMATCH). Every problem comes back at once, naming its change (changes[i]).',
  })
  async applyZoneChanges(
    @Arg('zone') zone: string,
    @Arg('changes', () => [ZoneChangeInput], { validate: false }) changes: ZoneChangeInput[],
    @Arg('expectSerial', () => SerialScalar, { nullable: true }) expectSerial: number | null | undefined,
    @Ctx() ctx: GraphQLContext,
    @Arg('dryRun', () => Boolean, {
      nullable: true,
      description:
        'Plan the set and answer the plan (each RRset before and after, the serial it would make, the warnings) without writing.',
    })
    dryRun?: boolean | null,
    @Arg('force', () => Boolean, {
      nullable: true,
      description:
        'Apply a set that deletes or replaces more than 30 % of a zone of 10 records or more, or changes its apex NS (else CHANGE_NEEDS_FORCE).',
    })
    force?: boolean | null,
  ) {
    const specs = changeSpecs(changes);
    // a zone that requires approvals: the set becomes a change request (docs/changes.md, «Review»)
    return ctx.services.changeRequests.applyOrPropose(ctx, {
      zone,
      expectSerial: expectSerial ?? undefined,
      dryRun: dryRun ?? false,
      force: force ?? false,
      changes: specs,
    });
  }
}
