/**
 * installDirectFieldResolvers (src/graphql/fast-path/direct-field-resolvers.ts): the table's fields leave type-graphql's
 * per-call wrapper on the built schema (FAST_PATHS on) and keep it with the switch off, a direct resolver gets
 * GraphQL's parent and arguments as they are, and an entry the schema does not have is refused.
 */
import 'reflect-metadata';
import { assertObjectType, execute, GraphQLSchema, parse } from 'graphql';
import {
  Args,
  ArgsType,
  Ctx,
  Field,
  FieldResolver,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
  buildSchema,
  getMetadataStorage,
} from 'type-graphql';
import {
  DIRECT_FIELD_RESOLVERS,
  DirectFieldResolver,
  installDirectFieldResolvers,
} from '../../src/graphql/fast-path/direct-field-resolvers';
import { getSchema } from '../../src/graphql/schema';

@ObjectType()
class Zone {
  @Field()
  name!: string;
}

@ArgsType()
class LooseArgs {
  @Field(() => Int, { nullable: true })
  first?: number;
}

/** the parent object the query returns: a plain object, as the service's loaders give them */
const zone = { name: 'example.com' };

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
}

const zones = new ZoneResolver();
const TABLE: DirectFieldResolver[] = [
  {
    type: 'Zone',
    field: 'seen',
    resolve: (root, args, ctx) => zones.seen(args as LooseArgs, root as Zone, ctx as unknown as { tag: string }),
  },
];

const testSchema = () => buildSchema({ resolvers: [ZoneResolver], validate: { forbidUnknownValues: false }, emitSchemaFile: false });

const run = (schema: Awaited<ReturnType<typeof testSchema>>, query: string) =>
  execute({ schema, document: parse(query), contextValue: { tag: 'ctx' } });

describe('direct field resolvers', () => {
  it('calls a table entry with the parent object itself, where type-graphql hands over a copy', async () => {
    const schema = await testSchema();
    expect((await run(schema, '{ zone { seen(first: 3) } }')).data).toEqual({ zone: { seen: 'copied root first=3 ctx' } });
    expect(installDirectFieldResolvers(schema, TABLE)).toEqual(['Zone.seen']);
    const result = await run(schema, '{ zone { seen(first: 3) } }');
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ zone: { seen: 'same root first=3 ctx' } });
  });

  it('refuses an entry whose type or field the schema does not have', async () => {
    const schema = await testSchema();
    expect(() => installDirectFieldResolvers(schema, [{ ...TABLE[0], field: 'unseen' }])).toThrow(
      /Zone\.unseen: the schema has no such field/,
    );
    expect(() => installDirectFieldResolvers(schema, [{ ...TABLE[0], type: 'Nothing' }])).toThrow(/Nothing\.seen/);
  });

  it("puts the table's resolvers on the service's schema with FAST_PATHS on, and leaves type-graphql's with it off", async () => {
    const [on, off] = await Promise.all([getSchema(true), getSchema(false)]);
    const names = DIRECT_FIELD_RESOLVERS.map((entry) => `${entry.type}.${entry.field}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'User.domains',
        'Domain.records',
        'Domain.recordsConnection',
        'Record.data',
        'Record.domain',
        'Mutation.applyZoneChanges',
      ]),
    );
    const fieldOf = (schema: GraphQLSchema, entry: DirectFieldResolver) =>
      assertObjectType(schema.getType(entry.type)).getFields()[entry.field];
    for (const entry of DIRECT_FIELD_RESOLVERS) {
      expect(fieldOf(on, entry).resolve).toBe(entry.resolve);
      // type-graphql's own resolver for the field
      expect(fieldOf(off, entry).resolve).toEqual(expect.any(Function));
      expect(fieldOf(off, entry).resolve).not.toBe(entry.resolve);
    }
  });

  it("reads every object type's plain fields as properties: type-graphql's per-field wrapper has nothing to run on them", async () => {
    await getSchema();
    const metadata = getMetadataStorage();
    // the wrapper runs middlewares and auth checks; the service declares none, on any field
    expect(metadata.middlewares).toEqual([]);
    expect(metadata.authorizedFields).toEqual([]);
    const ours = metadata.objectTypes.filter((type) => type.target !== Zone);
    expect(ours.length).toBeGreaterThan(40);
    expect(ours.filter((type) => type.simpleResolvers !== true).map((type) => type.name)).toEqual([]);
  });
});
