import { SerialScalar } from '../scalars/serial';
import { Arg, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Query, registerEnumType, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { ProposedZoneChange } from './zone-changes.resolver';

enum ZoneImportMode {
  REPLACE = 'REPLACE',
  MERGE = 'MERGE',
}
registerEnumType(ZoneImportMode, {
  name: 'ZoneImportMode',
  valuesConfig: {
    REPLACE: { description: 'The zone becomes exactly the file.' },
    MERGE: {
      description: 'The file’s records are added to the zone (at the TTL of an RRset they join); the file’s SOA fields are taken.',
    },
  },
});

enum ZoneImportTtlPolicy {
  REFUSE = 'REFUSE',
  CLAMP = 'CLAMP',
}
registerEnumType(ZoneImportTtlPolicy, {
  name: 'ZoneImportTtlPolicy',
  valuesConfig: {
    REFUSE: {
      description:
        'A TTL outside the TTL policy (ALLOWED_TTLS_BEYOND_REST; ALLOWED_TTLS through REST) refuses the file, every such line listed.',
    },
    CLAMP: { description: 'A TTL outside the TTL policy becomes the nearest allowed one, reported as a TTL_CLAMPED warning.' },
  },
});

@ObjectType('ZoneImportWarning', {
  simpleResolvers: true,
  description: 'Something the import took but that is worth a look (the file is not refused for it).',
})
class ZoneImportWarning {
  @Field(() => Int, { nullable: true, description: '1-based line of the zone file.' })
  line?: number;

  @Field({ description: 'owner, type, rdata or ttl.' })
  field!: string;

  @Field({
    description:
      'Stable code: NAME_NOT_HOSTNAME, DUPLICATE_RECORD_MERGED, RRSET_TTLS_DIFFER, RELATIVE_NAME_REPEATS_ZONE, TTL_CLAMPED; WARNINGS_LEFT_OUT counts the warnings past the first 10,000.',
  })
  code!: string;

  @Field()
  message!: string;
}

@ObjectType('ZoneImportDropped', { simpleResolvers: true, description: 'Records of one type in the file that are not stored.' })
class ZoneImportDropped {
  @Field()
  type!: string;

  @Field(() => Int)
  count!: number;
}

@ObjectType('ZoneImportResult', { simpleResolvers: true })
class ZoneImportResult {
  @Field()
  zone!: string;

  @Field(() => Int, { description: 'Records added.' })
  added!: number;

  @Field(() => Int, { description: 'Records removed (REPLACE), including records whose TTL changed.' })
  removed!: number;

  @Field(() => SerialScalar, {
    description: 'The zone’s new SOA serial (a dry run: the serial it would get); the zone’s own when the file changes nothing.',
  })
  serial!: number;

  @Field({ description: 'Whether this was a dry run (nothing written).' })
  dryRun!: boolean;

  @Field(() => [ZoneImportDropped], {
    description: 'DNSSEC records a signer writes (RRSIG, NSEC, NSEC3, NSEC3PARAM), dropped on import: the primary does not sign.',
  })
  dropped!: ZoneImportDropped[];

  @Field(() => Int, {
    description:
      'The record lines whose comment (`; …` ending a record written on one line, a Cloudflare export’s `cf_tags=…` with it) the import kept as its RRset’s comment (`Record.comment`; several lines of one RRset, one a line); a change request: the comments it carries. A line of a comment alone and a comment inside parentheses are the file’s own notes.',
  })
  commentsKept!: number;

  @Field(() => [ZoneImportWarning])
  warnings!: ZoneImportWarning[];

  @Field(() => [String], { nullable: true, description: 'A dry run: the records that would be added, in master-file form.' })
  addedRecords?: string[];

  @Field(() => [String], { nullable: true, description: 'A dry run: the records that would be removed, in master-file form.' })
  removedRecords?: string[];

  @Field(() => ProposedZoneChange, {
    nullable: true,
    description:
      'The zone requires approvals: the import became this change request of the RRsets it changes, and nothing was written (added 0, removed 0, the zone’s serial; docs/changes.md, «Review»).',
  })
  changeRequest?: ProposedZoneChange;
}

@ObjectType('ZoneCheckWarning', {
  simpleResolvers: true,
  description: 'A problem of a zone that named-checkzone would flag: the zone is served, but less than meant.',
})
export class ZoneCheckWarningType {
  @Field({ description: "The owner of the record concerned ('@' = apex)." })
  owner!: string;

  @Field({ description: 'Its type.' })
  type!: string;

  @Field({
    description:
      'TARGET_IS_CNAME, TARGET_MISSING, TARGET_NO_ADDRESS, GLUE_MISSING, OCCLUDED_DATA, CAA_UNKNOWN_TAG or SPF_MULTIPLE_RECORDS.',
  })
  code!: string;

  @Field()
  message!: string;
}

@ObjectType('ZoneCheck', { simpleResolvers: true, description: 'The zone checks of a whole zone at one serial.' })
export class ZoneCheckType {
  @Field()
  zone!: string;

  @Field(() => SerialScalar, { description: 'The serial the zone was checked at.' })
  serial!: number;

  @Field(() => [ZoneCheckWarningType])
  warnings!: ZoneCheckWarningType[];
}

/** RFC 1035 master files: a Domain's `zoneFile`, `exportZone`, and `importZone`. */
@Resolver(() => DomainType)
export class ZoneFileResolver {
  @FieldResolver(() => String, { description: 'The zone as an RFC 1035 master file.', complexity: 50 })
  zoneFile(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneFiles.export(ctx, { id: domain.id });
  }

  @Query(() => String, { description: 'A zone as an RFC 1035 master file.' })
  exportZone(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneFiles.export(ctx, { name: zone });
  }

  @Query(() => ZoneCheckType, {
    description:
      "The zone checks over a whole zone (as named-checkzone's): warnings, not refusals; writes and imports report the same warnings for what they touch.",
    complexity: 50,
  })
  checkZone(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneFiles.check(ctx, { name: zone });
  }

  @Mutation(() => ZoneImportResult, {
    description:
      'Imports a master file into an existing zone, all or nothing; problems come with their line numbers, warnings and dropped DNSSEC records in the result. A file that changes nothing (the same file again) writes nothing: added 0, removed 0, the zone’s serial.',
  })
  importZone(
    @Arg('zone') zone: string,
    @Arg('text') text: string,
    @Arg('mode', () => ZoneImportMode, { defaultValue: ZoneImportMode.REPLACE }) mode: ZoneImportMode,
    @Arg('dryRun', { defaultValue: false, description: 'Answer the diff, warnings and dropped records, and write nothing.' })
    dryRun: boolean,
    @Arg('ttlPolicy', () => ZoneImportTtlPolicy, { defaultValue: ZoneImportTtlPolicy.REFUSE }) ttlPolicy: ZoneImportTtlPolicy,
    @Ctx() ctx: GraphQLContext,
  ) {
    // a zone that requires approvals: the import becomes a change request (docs/changes.md, «Review»)
    return ctx.services.changeRequests.importOrPropose(ctx, { zone, text, mode, dryRun, ttlPolicy });
  }
}
