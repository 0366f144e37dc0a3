import { Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { RecordPermissions } from '../../services/people/permissions.service';
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
  permissions(
    @Root() record: RecordType & Pick<RecordRow, 'zoneRow'>,
    @Ctx() ctx: GraphQLContext,
  ): RecordPermissions | Promise<RecordPermissions> {
    // the zone's kind decides too; read with the record (answered without a promise: a zone page asks it of
    // every record), or batched over the records of the answer
    if (record.zoneRow) return ctx.services.permissions.record(ctx, record.zoneRow, record);
    return ctx.loaders.domainById
      .load(record.domainId)
      .then((zone) => (zone ? ctx.services.permissions.record(ctx, zone, record) : { edit: false, delete: false }));
  }
}
