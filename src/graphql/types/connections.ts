import { ObjectType } from 'type-graphql';
import { Connection } from './connection';
import { DomainType } from './domain.type';
import { RecordType } from './record.type';
import { UserType } from './user.type';

@ObjectType('UserConnection', { simpleResolvers: true })
export class UserConnection extends Connection(UserType, 'UserEdge') {}

@ObjectType('DomainConnection', { simpleResolvers: true })
export class DomainConnection extends Connection(DomainType, 'DomainEdge') {}

@ObjectType('RecordConnection', { simpleResolvers: true })
export class RecordConnection extends Connection(RecordType, 'RecordEdge') {}
