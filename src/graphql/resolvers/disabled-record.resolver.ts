import { Ctx, Field, FieldResolver, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { JournalRecord } from '../../entities/change.entity';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { ChangedRecord } from './zone-changes.resolver';

@ObjectType('DisabledRecord', {
  simpleResolvers: true,
  description:
    'A record the zone keeps and does not serve (not in DNS answers, transfers or signatures): PowerDNS’s `disabled: true`. ENABLE serves it again.',
})
class DisabledRecordType {
  @Field({ description: "Owner name relative to the zone; '@' is the apex." })
  owner!: string;

  @Field({ description: 'Record type, upper-case.' })
  type!: string;

  @Field({ description: 'RDATA in canonical presentation form.' })
  rdata!: string;

  @Field(() => Int, { description: 'The TTL it is served with once enabled.' })
  ttl!: number;
}

/** `Domain.disabledRecords`: the records kept disabled (DisabledRecordsService), those the key may read. */
@Resolver(() => DomainType)
export class DisabledRecordsDomainResolver {
  @FieldResolver(() => [DisabledRecordType], {
    description:
      'The zone’s disabled records: kept, not served. A change set disables (DISABLE) and enables (ENABLE) them; `records` holds the served ones only.',
    complexity: 5,
  })
  disabledRecords(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): Promise<DisabledRecordType[]> {
    return ctx.services.disabledRecords.list(ctx, domain);
  }
}

/** `ChangedRecord.toggled`: the journal's mark of a record disabled or enabled (not deleted or created). */
@Resolver(() => ChangedRecord)
export class ChangedRecordResolver {
  @FieldResolver(() => Boolean, {
    description:
      'The record was toggled, not deleted or created: among `removed`, disabled (kept, no longer served); among `added`, enabled (served again).',
  })
  toggled(@Root() record: JournalRecord): boolean {
    return record.toggled === true;
  }
}
