/**
 * The one error tail of the three edges (src/request-failure.ts): what a thrown value answers, whichever edge
 * (REST, the PowerDNS API, GraphQL) writes it in its shape.
 */
import { noteStopping, RETRY_AFTER_SECONDS } from '../../src/db/availability';
import { DomainError } from '../../src/errors/catalogue';
import { failureOf } from '../../src/request-failure';

afterEach(() => noteStopping(false));

test.each([
  ['a zone not found', new DomainError('ZONE_NOT_FOUND'), 404, undefined],
  ['a quota', new DomainError('QUOTA_EXCEEDED'), 403, undefined],
  ['bad input', DomainError.invalid('ttl', 'ttl must be a number'), 422, undefined],
  [
    'a zone changed too often',
    new DomainError('RATE_LIMITED', 'too many changes', [{ field: 'zone', code: 'RATE_LIMITED', message: 'later', retryAfter: 3 }]),
    429,
    3,
  ],
  ['the database away, as a service tells it', new DomainError('DATABASE_UNAVAILABLE'), 503, RETRY_AFTER_SECONDS],
])('%s is refused with its catalogued status and when to come back', (_what, error, status, retryAfter) => {
  expect(failureOf(error, 'test')).toEqual({ kind: 'refused', error, status, retryAfter });
});

test('a connection the database refused is an outage: 503, come back in RETRY_AFTER_SECONDS', () => {
  // (as while the service stops: no probe of a database that is not there)
  noteStopping(true);
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  expect(failureOf(refused, 'test')).toEqual({ kind: 'unavailable', status: 503, retryAfter: RETRY_AFTER_SECONDS });
  // wrapped as graphql-js wraps what a resolver threw
  expect(failureOf({ originalError: refused }, 'test').kind).toBe('unavailable');
});

test('anything else is a bug: 500, with nothing of it in the failure', () => {
  expect(failureOf(new TypeError("Cannot read properties of undefined (reading 'id')"), 'test')).toEqual({ kind: 'internal', status: 500 });
});
