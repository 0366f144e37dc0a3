import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('TemplateRecord', {
  simpleResolvers: true,
  description: 'A record of a template, as saved: `{zone}` stands for the zone name.',
})
export class TemplateRecordType {
  @Field({ description: 'Relative to the zone (`@`: the apex), or absolute.' })
  owner!: string;

  @Field()
  type!: string;

  @Field({ description: 'Presentation RDATA; names without a final dot are relative to the zone; the SOA serial is replaced.' })
  rdata!: string;

  @Field(() => Int)
  ttl!: number;
}

@ObjectType('RecordTemplate', {
  simpleResolvers: true,
  description: 'Records a new zone starts with (docs/templates-and-alias.md); `default` is the settings’ (DEFAULT_*), read-only.',
})
export class RecordTemplateType {
  @Field(() => ID, { nullable: true, description: 'Null for the default template (the settings’).' })
  id!: number | null;

  @Field(() => ID, { nullable: true, description: 'The user whose template it is; null: admin-wide.' })
  userId!: number | null;

  @Field()
  name!: string;

  @Field(() => [TemplateRecordType])
  records!: TemplateRecordType[];

  @Field(() => Date, { nullable: true })
  createdAt!: Date | null;

  @Field(() => Date, { nullable: true })
  updatedAt!: Date | null;
}
