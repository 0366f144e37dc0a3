import { ObjectType } from 'type-graphql';
import { Connection } from './connection';
import { DomainType } from './domain.type';
import { RecordType } from './record.type';
import { UserType } from './user.type';

@ObjectType('UserConnection')
export class UserConnection extends Connection(UserType) {}

@ObjectType('DomainConnection')
export class DomainConnection extends Connection(DomainType) {}

@ObjectType('RecordConnection')
export class RecordConnection extends Connection(RecordType) {}
