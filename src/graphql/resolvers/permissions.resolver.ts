import { Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { RecordRow } from '../../services/zones/zone-reads.service';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { RecordPermissionsType, ViewerType, ZonePermissionsType } from '../types/permissions.type';
import { RecordType } from '../types/record.type';
import type { MemberRoleEnum } from '../types/people.type';

/** what the caller may do, for the screens that offer it (PermissionsService) */
@Resolver()
export class ViewerResolver {
  @Query(() => ViewerType, { description: 'The caller and what it may do beyond one zone (Domain.permissions: within one).' })
  async viewer(@Ctx() ctx: GraphQLContext): Promise<ViewerType> {
    const permissions = ctx.services.permissions;
    return { can: { ...permissions.viewer(ctx), memberRoles: (await permissions.memberRoles(ctx)) as MemberRoleEnum[] } };
  }
}

@Resolver(() => DomainType)
export class DomainPermissionsResolver {
  @FieldResolver(() => ZonePermissionsType, { description: 'What the caller may do with the zone.' })
  permissions(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.permissions.zone(ctx, domain);
  }
}

@Resolver(() => RecordType)
export class RecordPermissionsResolver {
  @FieldResolver(() => RecordPermissionsType, { description: 'What the caller may do with the record.' })
  async permissions(@Root() record: RecordType & Pick<RecordRow, 'zoneRow'>, @Ctx() ctx: GraphQLContext) {
    // the zone's kind decides too; read with the record, or batched over the records of the answer
    const zone = record.zoneRow ?? (await ctx.loaders.domainById.load(record.domainId));
    if (!zone) return { edit: false, delete: false };
    return ctx.services.permissions.record(ctx, zone, record);
  }
}
