import { Query, Resolver } from 'type-graphql';
import { listRecordTypes } from '../../dns/record-types';
import { RecordTypeInfoType } from '../types/record-type-info.type';

@Resolver(() => RecordTypeInfoType)
export class RecordTypeResolver {
  @Query(() => [RecordTypeInfoType], { description: 'Every record type the service accepts, with its fields.' })
  recordTypes(): RecordTypeInfoType[] {
    return listRecordTypes().map(({ type, code, rfcs, fields }) => ({ type, code, rfcs, fields }));
  }
}
