import { ZoneKindEnum } from '../types/domain.type';
import { HealthStateEnum } from '../types/health.type';
import { IsOptional, Max, Min } from 'class-validator';
import { ArgsType, Field, ID, Int, registerEnumType } from 'type-graphql';
import { RecordTypeEnum } from '../types/record-type.enum';

/** A page's size: `first` items from the start (or after `after`), or `last` from the end (or before `before`). */
@ArgsType()
export class PageSizeArgs {
  @Field(() => Int, {
    nullable: true,
    description: 'Page size from the start, or after `after`: 1 to MAX_PAGE_SIZE (default 100 without `last`).',
  })
  @IsOptional()
  @Min(1)
  @Max(1_000_000)
  first?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Page size from the end, or before `before` (paging backwards): 1 to MAX_PAGE_SIZE; not with `first`.',
  })
  @IsOptional()
  @Min(1)
  @Max(1_000_000)
  last?: number | null;
}

/** what the cursor arguments say of the cursors they take (the same for every list) */
export const AFTER_DESCRIPTION =
  'A cursor of this list, in this order and with these arguments (an edge’s `cursor`, `pageInfo.endCursor`): the nodes after it. Another list’s, order’s or arguments’ is refused (INVALID_INPUT: CURSOR_LIST_MISMATCH, CURSOR_ORDER_MISMATCH, CURSOR_FILTER_MISMATCH); an id, as cursors were before 2026-11-29, is still taken (deprecated).';
export const BEFORE_DESCRIPTION =
  'A cursor of this list, in this order and with these arguments (an edge’s `cursor`, `pageInfo.startCursor`): the nodes before it, with `last` the ones nearest it.';

/** Keyset pagination both ways: past the cursors `after` and `before` (opaque: inputs/cursors.ts). */
@ArgsType()
export class PageArgs extends PageSizeArgs {
  @Field(() => String, { nullable: true, description: AFTER_DESCRIPTION })
  after?: string | null;

  @Field(() => String, { nullable: true, description: BEFORE_DESCRIPTION })
  before?: string | null;
}

/** the most items a page of a zone's own history (its changes, its key events) holds, and its size without one */
export const SMALL_PAGE = { defaultSize: 20, maxSize: 1000 };

/** A page of a zone's own history (Domain.changes, Domain.dnssecEvents), newest first: 20 a page by default, 1000 at most. */
@ArgsType()
export class SmallPageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size from the newest, or after `after`: 1 to 1000 (default 20 without `last`).' })
  @IsOptional()
  @Min(1)
  @Max(1000)
  first?: number | null;

  @Field(() => Int, { nullable: true, description: 'Page size from the oldest kept, or before `before`: 1 to 1000; not with `first`.' })
  @IsOptional()
  @Min(1)
  @Max(1000)
  last?: number | null;

  @Field(() => String, { nullable: true, description: AFTER_DESCRIPTION })
  after?: string | null;

  @Field(() => String, { nullable: true, description: BEFORE_DESCRIPTION })
  before?: string | null;
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
export class DomainsArgs extends PageArgs {
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
 * after the cursor `after`, or `last` before `before`. Checked by the resolver (`listPage`), not class-validator
 * (see NestedListArgs).
 */
@ArgsType()
export class NestedPageArgs {
  @Field(() => Int, {
    nullable: true,
    description: 'Page size per parent from the start, or after `after`: 1 to MAX_PAGE_SIZE (default 100 without `last`).',
  })
  first?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Page size per parent from the end, or before `before`: 1 to MAX_PAGE_SIZE; not with `first`.',
  })
  last?: number | null;

  @Field(() => String, { nullable: true, description: AFTER_DESCRIPTION })
  after?: string | null;

  @Field(() => String, { nullable: true, description: BEFORE_DESCRIPTION })
  before?: string | null;
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
