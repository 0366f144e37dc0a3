import { Ctx, Field, FieldResolver, ID, ObjectType, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { RecordType } from '../types/record.type';

@ObjectType('AliasStatus', { simpleResolvers: true, description: 'The last refresh of one ALIAS or ANAME (docs/templates-and-alias.md).' })
class AliasStatusType {
  @Field(() => ID, { description: 'The ALIAS or ANAME record.' })
  recordId!: number;

  @Field()
  owner!: string;

  @Field({ description: 'ALIAS or ANAME.' })
  type!: string;

  @Field()
  target!: string;

  @Field({
    description:
      'pending: not asked yet; ok: the addresses are the last answer; stale: the last ask failed (see reason), the last addresses stay served; unresolvable: ALIAS_RESOLVERS is not set (a SECONDARY zone took the ALIAS by transfer), its owner serves no address.',
  })
  state!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Why the state is stale (NXDOMAIN, SERVFAIL, no answer, no address) or unresolvable.',
  })
  reason!: string | null;

  @Field(() => [String], { description: 'The addresses served at the owner.' })
  addresses!: string[];

  @Field({ description: 'The resolver validated the answer (AD, RFC 4035 §3.2.3).' })
  authenticated!: boolean;

  @Field(() => String, { nullable: true })
  checkedAt!: string | null;

  @Field()
  nextRefreshAt!: string;
}

/** `Domain.aliasStatus`: each ALIAS/ANAME's last refresh, from the worker's schedule. */
@Resolver(() => DomainType)
export class AliasDomainResolver {
  @FieldResolver(() => [AliasStatusType], { description: 'The zone’s ALIAS and ANAME records and their last refresh.', complexity: 5 })
  aliasStatus(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): Promise<AliasStatusType[]> {
    return ctx.services.aliases.ofZone(ctx.db, domain.id);
  }
}

/** `Record.derived`: an A/AAAA the service derived from the owner's ALIAS/ANAME (read-only). */
@Resolver(() => RecordType)
export class AliasRecordResolver {
  @FieldResolver(() => Boolean, { description: 'Derived by the service from the owner’s ALIAS or ANAME; read-only (RECORD_DERIVED).' })
  derived(@Root() record: RecordType, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return ctx.loaders.derivedById.load(Number(record.id));
  }
}
