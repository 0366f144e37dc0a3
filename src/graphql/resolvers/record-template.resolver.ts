import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { RecordTemplateType } from '../types/record-template.type';
import { CreateRecordTemplateInput, TemplateRecordInput, UpdateRecordTemplateInput } from '../inputs/record-template.input';
import { parseId, parseOptionalId } from '../inputs/ids';

const records = (list: TemplateRecordInput[]) => list.map((r) => ({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: r.ttl ?? 3600 }));

@Resolver(() => RecordTemplateType)
export class RecordTemplateResolver {
  @Query(() => [RecordTemplateType], {
    description:
      'Templates a new zone may start with: the default (the settings’), the admin-wide ones and the user’s (a user key: its own).',
  })
  recordTemplates(@Arg('userId', () => ID, { nullable: true }) userId: string | undefined, @Ctx() ctx: GraphQLContext) {
    return ctx.services.recordTemplates.list(ctx, parseOptionalId(userId, 'userId'));
  }

  @Mutation(() => RecordTemplateType, {
    description: 'Saves a template; refused (naming the record as records[i]) if a zone made from it would break a zone rule.',
  })
  createRecordTemplate(@Arg('input') input: CreateRecordTemplateInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.recordTemplates.create(ctx, {
      userId: parseOptionalId(input.userId ?? undefined, 'userId') ?? null,
      name: input.name,
      records: records(input.records),
    });
  }

  @Mutation(() => RecordTemplateType, {
    description: 'Replaces a template’s records (and name), checked as when created; zones made from it keep theirs.',
  })
  updateRecordTemplate(@Arg('id', () => ID) id: string, @Arg('input') input: UpdateRecordTemplateInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.recordTemplates.update(ctx, parseId(id, 'id'), { name: input.name, records: records(input.records) });
  }

  @Mutation(() => Boolean, { description: 'Deletes a template; zones made from it keep their records.' })
  async deleteRecordTemplate(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.recordTemplates.delete(ctx, parseId(id, 'id'));
    return true;
  }
}
