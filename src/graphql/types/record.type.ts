import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('Record', { simpleResolvers: true, description: 'One DNS resource record.' })
export class RecordType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'Zone name.' })
  zone!: string;

  @Field({ description: "Owner name relative to the zone; '@' is the apex." })
  owner!: string;

  @Field({ description: 'Record type, upper-case.' })
  type!: string;

  @Field({ description: 'RDATA in canonical presentation form.' })
  rdata!: string;

  @Field(() => Int)
  ttl!: number;

  /** not exposed; the `domain` field resolves it */
  domainId!: number;
}
