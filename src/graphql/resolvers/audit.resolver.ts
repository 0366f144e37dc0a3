import type { GraphQLResolveInfo } from 'graphql';
import { Args, ArgsType, Ctx, Field, Info, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { connection } from '../pages';
import { AuditEventConnection, AuditEventType } from '../types/audit-event.type';
import { PageArgs } from '../inputs/page.args';
import { listComplexity, listPage } from './paging';
import { bindScope } from '../inputs/cursors';

@ArgsType()
export class AuditEventsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only events of this kind (docs/audit-log.md).' })
  kind?: string;

  @Field(() => Date, { nullable: true, description: 'Only events at or after this time.' })
  since?: Date;

  @Field(() => Date, { nullable: true, description: 'Only events before this time.' })
  until?: Date;

  @Field(() => String, { nullable: true, description: 'Only events done to this zone (subject `zone:<name>`).' })
  zone?: string;

  @Field(() => String, {
    nullable: true,
    description: "Only events whose actor's e-mail (a person) or key name holds this, in any letter case.",
  })
  actor?: string;
}

@Resolver(() => AuditEventType)
export class AuditResolver {
  @Query(() => AuditEventConnection, {
    description: 'The audit log, newest first. Admin key only (a user key: FORBIDDEN).',
    complexity: listComplexity,
  })
  auditEvents(@Args() args: AuditEventsArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const filter = {
      kind: args.kind ?? undefined,
      since: args.since ?? undefined,
      until: args.until ?? undefined,
      zone: args.zone ?? undefined,
      actor: args.actor || undefined,
    };
    const scope = bindScope({ list: 'Query.auditEvents', order: 'newest', filter });
    // the admin check comes before the page is read, and again for the count (the service checks both)
    return connection(
      listPage(args, scope, ctx),
      (request) => ctx.services.audit.list(ctx, filter, request),
      () => ctx.services.audit.count(ctx, filter),
      info,
      scope,
    );
  }
}
