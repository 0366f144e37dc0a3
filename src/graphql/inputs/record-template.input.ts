import { ArrayMaxSize, Length, MaxLength } from 'class-validator';
import { Field, ID, InputType, Int } from 'type-graphql';

@InputType()
export class TemplateRecordInput {
  @Field({ description: 'Relative to the zone (`@`: the apex), or absolute; `{zone}` is the zone name.' })
  @MaxLength(1024, { message: 'owner must be at most 1024 characters' })
  owner!: string;

  @Field()
  @MaxLength(32, { message: 'type must be at most 32 characters' })
  type!: string;

  @Field({ description: 'Presentation RDATA; `{zone}` is the zone name; the SOA serial is replaced by the zone’s.' })
  @MaxLength(65535, { message: 'rdata must be at most 65535 characters' })
  rdata!: string;

  @Field(() => Int, { nullable: true, description: 'Seconds; omitted: 3600.' })
  ttl?: number | null;
}

@InputType()
export class CreateRecordTemplateInput {
  @Field(() => ID, {
    nullable: true,
    description: 'The user whose template it is; omitted: admin-wide (admin key), or a user key’s own user.',
  })
  userId?: string | null;

  @Field({ description: 'The name zones are created with (`default` is the settings’ template).' })
  @Length(1, 63, { message: 'name must be 1 to 63 characters' })
  name!: string;

  @Field(() => [TemplateRecordInput], { description: 'Every record of a new zone: SOA and NS at the apex included.' })
  @ArrayMaxSize(1000, { message: 'records: at most 1000' })
  records!: TemplateRecordInput[];
}

@InputType()
export class UpdateRecordTemplateInput {
  @Field(() => String, { nullable: true, description: 'A new name; omitted: unchanged.' })
  name?: string | null;

  @Field(() => [TemplateRecordInput], { description: 'The template’s records, replacing the saved ones.' })
  @ArrayMaxSize(1000, { message: 'records: at most 1000' })
  records!: TemplateRecordInput[];
}
