import { ZoneKindEnum } from '../types/domain.type';
import { HealthStateEnum } from '../types/health.type';
import { IsOptional, Matches, Max, Min } from 'class-validator';
import { ArgsType, Field, ID, Int, registerEnumType } from 'type-graphql';
import { RecordTypeEnum } from '../types/record-type.enum';

/** A page's size: `first` items. */
@ArgsType()
export class PageSizeArgs {
  @Field(() => Int, { defaultValue: 100, description: 'Page size, 1 to MAX_PAGE_SIZE (default 10,000).' })
  @Min(1)
  @Max(1_000_000)
  first: number = 100;
}

/** Keyset pagination: `first` items after the cursor `after` (the `endCursor` of the previous page: an id). */
@ArgsType()
export class PageArgs extends PageSizeArgs {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Matches(/^\d{1,16}$/, { message: 'after must be a cursor returned as pageInfo.endCursor' })
  after?: string;
}

@ArgsType()
export class UsersArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only the user with this e-mail (any letter case).' })
  email?: string;
}

/** the GraphQL names of a zone list's orders (the data layer's DomainOrder) */
export enum DomainOrderEnum {
  CREATED = 'created',
  NAME = 'name',
  NAME_DESC = 'name_desc',
  RECORDS = 'records',
  RECORDS_DESC = 'records_desc',
  SERIAL = 'serial',
  SERIAL_DESC = 'serial_desc',
  KIND = 'kind',
  KIND_DESC = 'kind_desc',
  DNSSEC = 'dnssec',
  DNSSEC_DESC = 'dnssec_desc',
}
registerEnumType(DomainOrderEnum, {
  name: 'DomainOrder',
  description:
    'The order of a zone list: CREATED (oldest first, the default), NAME or NAME_DESC (the stored names, IDN as A-labels, in alphabetical order or its reverse), RECORDS, SERIAL (the last change: serials rise with each), KIND, DNSSEC (the state: disabling, signed, unsigned) and their _DESC, ties in creation order (the reverse with _DESC).',
});

@ArgsType()
export class DomainsArgs extends PageSizeArgs {
  @Field(() => String, {
    nullable: true,
    description:
      'A previous page’s `endCursor` (or an edge’s `cursor`) of this same order: the page after it (another order’s is CURSOR_ORDER_MISMATCH).',
  })
  @IsOptional()
  // an opaque cursor naming its order (inputs/zone-list-cursor.ts), or an id as cursors were before 2026-11-29
  @Matches(/^[A-Za-z0-9_-]{1,96}$/, { message: 'after must be a cursor returned as pageInfo.endCursor' })
  after?: string;

  @Field(() => DomainOrderEnum, {
    defaultValue: DomainOrderEnum.CREATED,
    description: 'The order of the zones; the cursors of one order page only that order.',
  })
  orderBy: DomainOrderEnum = DomainOrderEnum.CREATED;

  @Field(() => ID, { nullable: true, description: "Only this user's zones." })
  userId?: string;

  @Field(() => String, { nullable: true, description: 'Only the zone with this name.' })
  name?: string;

  @Field(() => String, {
    nullable: true,
    description:
      "Only the zones whose name starts with this (normalised like `name`: lower case, no final dot, IDN labels as A-labels); '' matches every zone. Pages and totalCount follow the search.",
  })
  nameStartsWith?: string;

  @Field(() => ZoneKindEnum, {
    nullable: true,
    description: 'Only the zones of this kind (PRIMARY or SECONDARY). Pages and totalCount follow.',
  })
  kind?: ZoneKindEnum;

  @Field(() => HealthStateEnum, {
    nullable: true,
    description: 'Only the zones in this health state (Domain.health.state; unknown: not checked yet). Pages and totalCount follow.',
  })
  health?: HealthStateEnum;
}

@ArgsType()
export class RecordsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only records of this zone (name).' })
  zone?: string;

  @Field(() => ID, { nullable: true, description: 'Only records of this zone (id).' })
  domainId?: string;

  @Field(() => String, { nullable: true, description: "Only records at this owner ('@' for the apex)." })
  owner?: string;

  @Field(() => String, { nullable: true, description: 'Only records of this type (any mnemonic, TYPEnnn too).' })
  type?: string;

  @Field(() => RecordTypeEnum, { nullable: true, description: 'Only records of this type (as an enum).' })
  recordType?: string;
}

/**
 * Nested lists (User.domains, Domain.records) are batched over all parents; `first` caps each parent's list,
 * MAX_PAGE_SIZE when it is absent. No class-validator rules here, and the resolvers take them with
 * `validate: false`: these arguments are read once per parent row, and validating them there costs more than
 * the rest of the field (docs/performance.md, «GraphQL, always on»); `nestedFirst` checks the one rule.
 */
@ArgsType()
export class SearchRecordsArgs extends PageArgs {
  @Field(() => String, {
    description:
      "Text found anywhere in a record's absolute name (no final dot) or its content, in any letter case, taken literally (1 to 255 characters).",
  })
  query!: string;
}

@ArgsType()
export class NestedListArgs {
  @Field(() => Int, { nullable: true, description: 'At most this many items per parent, 1 to MAX_PAGE_SIZE (default: MAX_PAGE_SIZE).' })
  first?: number | null;
}

@ArgsType()
export class NestedRecordsArgs extends NestedListArgs {
  @Field(() => String, { nullable: true, description: "Only records at this owner ('@' for the apex)." })
  owner?: string | null;

  @Field(() => String, { nullable: true, description: 'Only records of this type (any mnemonic, TYPEnnn too).' })
  type?: string | null;

  @Field(() => RecordTypeEnum, { nullable: true, description: 'Only records of this type (as an enum).' })
  recordType?: string | null;
}

/**
 * A nested connection's page (User.domainsConnection, Domain.recordsConnection): `first` items of each parent
 * after the cursor `after`. Checked by the resolver (`nestedPage`), not class-validator (see NestedListArgs).
 */
@ArgsType()
export class NestedPageArgs {
  @Field(() => Int, { defaultValue: 100, description: 'Page size per parent, 1 to MAX_PAGE_SIZE.' })
  first: number = 100;

  @Field(() => String, { nullable: true, description: 'A previous page’s endCursor.' })
  after?: string | null;
}

@ArgsType()
export class NestedDomainPageArgs extends NestedPageArgs {
  @Field(() => String, { nullable: true, description: 'Only the zone with this name.' })
  name?: string | null;
}

@ArgsType()
export class NestedRecordPageArgs extends NestedPageArgs {
  @Field(() => String, { nullable: true, description: "Only records at this owner ('@' for the apex)." })
  owner?: string | null;

  @Field(() => String, { nullable: true, description: 'Only records of this type (any mnemonic, TYPEnnn too).' })
  type?: string | null;

  @Field(() => RecordTypeEnum, { nullable: true, description: 'Only records of this type (as an enum).' })
  recordType?: string | null;
}
