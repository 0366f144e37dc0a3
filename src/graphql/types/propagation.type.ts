import { SerialScalar } from '../scalars/serial';
import { Field, ObjectType, registerEnumType } from 'type-graphql';

export enum PropagationStateEnum {
  pending = 'pending',
  in_sync = 'in_sync',
  error = 'error',
  no_secondaries = 'no_secondaries',
}

registerEnumType(PropagationStateEnum, {
  name: 'PropagationState',
  description:
    'pending: a change is not yet served; in_sync: the server serves the current serial; error: it keeps failing (see error); no_secondaries (of a zone only): SECONDARIES is empty, nothing to propagate to.',
});

@ObjectType('ServerPropagation', { simpleResolvers: true, description: 'The state of one zone on one secondary name server.' })
export class ServerPropagationType {
  @Field({ description: "The server, 'address:port' as configured in SECONDARIES." })
  server!: string;

  @Field(() => SerialScalar, { nullable: true, description: 'The SOA serial the server served at the last check (null: never answered).' })
  servedSerial!: number | null;

  @Field(() => PropagationStateEnum)
  state!: PropagationStateEnum;

  @Field(() => String, { nullable: true, description: 'Why the server is not in sync (last check), if known.' })
  error!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the state was last written.' })
  updatedAt!: Date | null;
}

@ObjectType('Propagation', {
  simpleResolvers: true,
  description: 'How far the current version of a zone has reached its secondary name servers.',
})
export class PropagationType {
  @Field(() => SerialScalar, { description: 'The zone’s current SOA serial.' })
  serial!: number;

  @Field(() => PropagationStateEnum, {
    description:
      'no_secondaries when none is configured, else error if any server is in error, else pending if any is pending, else in_sync.',
  })
  state!: PropagationStateEnum;

  @Field(() => String, {
    nullable: true,
    description: 'Why the zone is in its state, in words, where the servers do not tell (e.g. "no secondaries configured").',
  })
  message!: string | null;

  @Field(() => [ServerPropagationType], { description: 'One entry per configured secondary (SECONDARIES), in its order.' })
  servers!: ServerPropagationType[];
}
