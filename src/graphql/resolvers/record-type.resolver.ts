import { Ctx, Query, Resolver } from 'type-graphql';
import { listRecordTypes } from '../../dns/record-types';
import type { GraphQLContext } from '../context';
import { allowedTtlsOf } from '../../services/context';
import { RecordTypeInfoType } from '../types/record-type-info.type';
import { ServerSettingsType } from '../types/server-settings.type';

@Resolver(() => RecordTypeInfoType)
export class RecordTypeResolver {
  @Query(() => [RecordTypeInfoType], { description: 'Every record type the service accepts, with its fields.' })
  recordTypes(): RecordTypeInfoType[] {
    return listRecordTypes().map(({ type, code, rfcs, fields }) => ({ type, code, rfcs, fields }));
  }

  @Query(() => ServerSettingsType, { description: 'Read-only settings of the service that shape valid input, e.g. the allowed TTLs.' })
  serverSettings(@Ctx() ctx: GraphQLContext): ServerSettingsType {
    // the policy of the caller's edge: GraphQL's (and the console's), or the REST contract's for the REST layer
    const ranges = allowedTtlsOf(ctx, ctx.services.settings).map((a) =>
      typeof a === 'number' ? { min: a, max: a } : { min: a[0], max: a[1] },
    );
    return { allowedTtls: ranges.sort((a, b) => a.min - b.min), maxCommentLength: ctx.services.settings.maxCommentLength };
  }
}
