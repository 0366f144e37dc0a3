/**
 * installDirectFieldResolvers (src/graphql/direct-field-resolvers.ts): which field resolvers leave
 * type-graphql's per-call wrapper, and that those still get their parameters and those that need the wrapper
 * (validated arguments, a root class with methods) keep it.
 */
import 'reflect-metadata';
import { Max } from 'class-validator';
import { execute, parse } from 'graphql';
import { Args, ArgsType, Ctx, Field, FieldResolver, Int, ObjectType, Query, Resolver, Root, buildSchema } from 'type-graphql';
import { installDirectFieldResolvers } from '../../src/graphql/direct-field-resolvers';
import { getSchema, RESOLVERS } from '../../src/graphql/schema';

@ObjectType()
class Zone {
  @Field()
  name!: string;
}

@ObjectType()
class Shaped {
  @Field()
  name!: string;

  shout(): string {
    return this.name.toUpperCase();
  }
}

@ArgsType()
class LooseArgs {
  @Field(() => Int, { nullable: true })
  first?: number;
}

@ArgsType()
class CheckedArgs {
  @Field(() => Int)
  @Max(5)
  first!: number;
}

/** the parent objects the queries return: plain objects, as the service's loaders give them */
const zone = { name: 'example.com' };
const shaped = { name: 'quiet' };

@Resolver(() => Zone)
class ZoneResolver {
  @Query(() => Zone)
  zone() {
    return zone;
  }

  @FieldResolver(() => String)
  seen(@Args({ validate: false }) args: LooseArgs, @Root() root: Zone, @Ctx() ctx: { tag: string }) {
    return `${root === zone ? 'same root' : 'copied root'} first=${args.first} ${ctx.tag}`;
  }

  @FieldResolver(() => Int)
  checked(@Args() args: CheckedArgs) {
    return args.first;
  }
}

@Resolver(() => Shaped)
class ShapedResolver {
  @Query(() => Shaped)
  shaped() {
    return shaped;
  }

  @FieldResolver(() => String)
  loud(@Root() root: Shaped) {
    return root.shout();
  }
}

async function testSchema() {
  const schema = await buildSchema({
    resolvers: [ZoneResolver, ShapedResolver],
    validate: { forbidUnknownValues: false },
    emitSchemaFile: false,
  });
  return { schema, installed: installDirectFieldResolvers(schema, [ZoneResolver, ShapedResolver]) };
}

const run = (schema: Awaited<ReturnType<typeof testSchema>>['schema'], query: string) =>
  execute({ schema, document: parse(query), contextValue: { tag: 'ctx' } });

describe('direct field resolvers', () => {
  it('calls a resolver with unvalidated scalar arguments directly, with the parent object itself', async () => {
    const { schema, installed } = await testSchema();
    expect(installed).toEqual(['Zone.seen']);
    const result = await run(schema, '{ zone { seen(first: 3) } }');
    expect(result.errors).toBeUndefined();
    // type-graphql's wrapper would hand over a copy of the parent in the Zone class
    expect(result.data).toEqual({ zone: { seen: 'same root first=3 ctx' } });
  });

  it('leaves validated arguments to type-graphql, which still refuses a bad value', async () => {
    const { schema } = await testSchema();
    expect((await run(schema, '{ zone { checked(first: 4) } }')).data).toEqual({ zone: { checked: 4 } });
    const refused = await run(schema, '{ zone { checked(first: 9) } }');
    expect(refused.errors?.[0]?.message).toMatch(/Argument Validation Error/);
  });

  it('leaves a root whose class has methods to type-graphql, which makes it an instance of that class', async () => {
    const { schema } = await testSchema();
    expect((await run(schema, '{ shaped { loud } }')).data).toEqual({ shaped: { loud: 'QUIET' } });
  });

  it("calls the service's nested list resolvers directly and keeps validated ones on type-graphql", async () => {
    const schema = await getSchema();
    const installed = installDirectFieldResolvers(schema, RESOLVERS);
    expect(installed).toEqual(
      expect.arrayContaining(['User.domains', 'Domain.records', 'Domain.recordsConnection', 'Record.data', 'Record.domain']),
    );
    // Domain.changes validates its page arguments (class-validator)
    expect(installed).not.toContain('Domain.changes');
  });
});
