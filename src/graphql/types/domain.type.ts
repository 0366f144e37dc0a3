import { SerialScalar } from '../scalars/serial';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('Domain', { simpleResolvers: true, description: 'A DNS zone, owned by one user.' })
export class DomainType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'Zone name: lower-case, without the trailing dot, IDN in punycode.' })
  name!: string;

  @Field(() => SerialScalar, { description: 'Current SOA serial (an unsigned 32-bit number, RFC 1982).' })
  serial!: number;

  @Field()
  createdAt!: Date;

  /** not exposed; the `user` field resolves it */
  userId!: number;
}
