import { SerialScalar } from '../scalars/serial';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { ZoneKind } from '../../entities/domain.entity';

/** the GraphQL names of the zone kinds (the stored values are lower case) */
export enum ZoneKindEnum {
  PRIMARY = 'primary',
  SECONDARY = 'secondary',
}
registerEnumType(ZoneKindEnum, {
  name: 'ZoneKind',
  description: 'Where a zone’s data comes from: PRIMARY, the API (ours); SECONDARY, transfers from its primaries (docs/transfers.md).',
});

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

  @Field(() => ZoneKindEnum, { description: 'PRIMARY (written through the API) or SECONDARY (read-only here, taken by transfer).' })
  kind!: ZoneKind;

  /** not exposed; the `user` field resolves it */
  userId!: number;
}
