import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('RecordTypeField', { simpleResolvers: true })
export class RecordTypeFieldType {
  @Field()
  name!: string;

  @Field()
  description!: string;
}

@ObjectType('RecordTypeInfo', { simpleResolvers: true, description: 'A record type the service accepts, with its RDATA fields.' })
export class RecordTypeInfoType {
  @Field()
  type!: string;

  @Field(() => Int, { description: 'IANA RR type code.' })
  code!: number;

  @Field(() => [String], { description: 'Where its rules come from.' })
  rfcs!: string[];

  @Field(() => [RecordTypeFieldType], { description: 'RDATA fields, in presentation order.' })
  fields!: RecordTypeFieldType[];
}
