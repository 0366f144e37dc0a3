import { Arg, Ctx, Field, FieldResolver, Float, Int, Mutation, ObjectType, Query, registerEnumType, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';

enum ZoneImportMode {
  REPLACE = 'REPLACE',
  MERGE = 'MERGE',
}
registerEnumType(ZoneImportMode, {
  name: 'ZoneImportMode',
  valuesConfig: {
    REPLACE: { description: 'The zone becomes exactly the file.' },
    MERGE: { description: 'The file’s records are added to the zone; the file’s SOA fields are taken.' },
  },
});

@ObjectType('ZoneImportResult')
class ZoneImportResult {
  @Field()
  zone!: string;

  @Field(() => Int, { description: 'Records added.' })
  added!: number;

  @Field(() => Int, { description: 'Records removed (REPLACE), including records whose TTL changed.' })
  removed!: number;

  @Field(() => Float, { description: 'The zone’s new SOA serial.' })
  serial!: number;
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

  @Mutation(() => ZoneImportResult, { description: 'Imports a master file into an existing zone, all or nothing; problems come with their line numbers.' })
  importZone(
    @Arg('zone') zone: string,
    @Arg('text') text: string,
    @Arg('mode', () => ZoneImportMode, { defaultValue: ZoneImportMode.REPLACE }) mode: ZoneImportMode,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.zoneFiles.import(ctx, { zone, text, mode });
  }
}
