import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

const MAX_SERIAL = 4_294_967_295;

/** a serial or a message saying what is wrong with the value */
function checkSerial(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_SERIAL) {
    throw new GraphQLError(
      `Serial must be a whole number from 0 to ${MAX_SERIAL} (an unsigned 32-bit SOA serial, RFC 1982); got ${JSON.stringify(value)}`,
      {
        extensions: {
          code: 'INVALID_INPUT',
          details: [{ field: 'serial', code: 'INVALID_SERIAL', message: `serial: a whole number from 0 to ${MAX_SERIAL}` }],
        },
      },
    );
  }
  return value;
}

/**
 * An SOA serial: an unsigned 32-bit integer (RFC 1035 §3.3.13), compared with serial number arithmetic
 * (RFC 1982), so a larger number is not always a later serial. Sent as a JSON number; GraphQL's `Int` is
 * signed 32-bit and `Float` admits fractions, so neither fits.
 */
export const SerialScalar = new GraphQLScalarType({
  name: 'Serial',
  description:
    'An SOA serial: a whole number from 0 to 4294967295 (unsigned 32 bits, RFC 1035 §3.3.13), ordered by serial number arithmetic (RFC 1982).',
  serialize: (value) => checkSerial(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
  parseValue: checkSerial,
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT)
      throw new GraphQLError('Serial must be a whole number literal', { nodes: ast, extensions: { code: 'INVALID_INPUT' } });
    return checkSerial(Number(ast.value));
  },
});
