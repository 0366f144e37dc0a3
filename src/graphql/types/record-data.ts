import { ClassType, createUnionType, Field, InputType, Int, ObjectType } from 'type-graphql';
import { fieldApiName, rdataFields, RdataFieldValue, typedRdataMember } from '../../dns/rdata-fields';
import { getRecordType, listRecordTypes, RecordFieldInfo, RecordTypeDefinition } from '../../dns/record-types';
import { genericType } from '../../dns/record-types/generic';
import { SerialScalar } from '../scalars/serial';

/**
 * Typed RDATA, generated from the DNS model's field lists (src/dns/record-types, `fields`): one object type per
 * record type for `Record.data` (`MXData { preference exchange }`, `TXTData { txtData }`, …, and
 * `GenericData` for RFC 3597 TYPEnnn), and one input type per record type for `RecordInput.data`. A new type
 * file in the model appears here without code of its own.
 */
const scalarOf = (field: RecordFieldInfo) => {
  switch (field.kind) {
    case 'int':
      return Int;
    case 'serial':
      return SerialScalar;
    case 'texts':
      return [String];
    default:
      return String;
  }
};

const describe = (definition: RecordTypeDefinition) => `${definition.type} RDATA (${definition.rfcs.join(', ')}).`;

/** a class named `name`, so that type-graphql's metadata and error messages carry it */
function namedClass(name: string): ClassType {
  return { [name]: class {} }[name];
}

function dataObjectType(definition: RecordTypeDefinition, name: string): ClassType {
  const target = namedClass(name);
  for (const field of definition.fields) {
    const nullable = field.kind !== 'texts' && Boolean(field.optional);
    Field(() => scalarOf(field), { nullable, description: field.description })(target.prototype, fieldApiName(field.name));
  }
  ObjectType(name, { simpleResolvers: true, description: describe(definition) })(target);
  return target;
}

const GENERIC = genericType(65280);
const OBJECT_TYPES = new Map<string, ClassType>(
  listRecordTypes().map((definition) => [definition.type, dataObjectType(definition, `${definition.type}Data`)]),
);
const GENERIC_OBJECT_TYPE = dataObjectType({ ...GENERIC, type: 'TYPEnnn', rfcs: ['RFC 3597 §5'] }, 'GenericData');

export const RecordDataUnion = createUnionType({
  name: 'RecordData',
  description: 'RDATA as typed fields, one object type per record type (GenericData for RFC 3597 TYPEnnn types).',
  types: () => [...OBJECT_TYPES.values(), GENERIC_OBJECT_TYPE] as const,
  resolveType: (value) => (value as { __typename: string }).__typename,
});

/** the `Record.data` value of a stored record */
export function recordData(type: string, rdata: string): (Record<string, RdataFieldValue> & { __typename: string }) | null {
  const definition = getRecordType(type);
  if (!definition) return null;
  const known = OBJECT_TYPES.has(definition.type);
  return { __typename: known ? `${definition.type}Data` : 'GenericData', ...rdataFields(known ? definition : GENERIC, rdata) };
}

function dataInputType(definition: RecordTypeDefinition): ClassType {
  const name = `${definition.type}DataInput`;
  const target = namedClass(name);
  for (const field of definition.fields) {
    Field(() => scalarOf(field), { nullable: Boolean(field.optional), description: field.description })(
      target.prototype,
      fieldApiName(field.name),
    );
  }
  InputType(name, { description: describe(definition) })(target);
  return target;
}

/** `RecordInput.data`: exactly one field, the record's type's, holding its RDATA fields */
@InputType('RecordDataInput', {
  description: 'RDATA as typed fields: set exactly one member, the one of the record’s type (RFC 3597 TYPEnnn: use rdata).',
})
export class RecordDataInput {
  [type: string]: Record<string, unknown> | undefined;
}
for (const definition of listRecordTypes()) {
  const input = dataInputType(definition);
  Field(() => input, { nullable: true })(RecordDataInput.prototype, typedRdataMember(definition.type));
}
