import type { TestApp } from './test-app';

/**
 * A person signed in, for the tests: a session begun by the service as a sign-in method begins it
 * (SessionsService.start; the OIDC and passkey tests sign in through the browser instead), and requests that
 * carry its cookie as the console sends them (X-Requested-With: the CSRF gate, src/http/request-gates.ts).
 */
export async function signIn(app: TestApp, email: string): Promise<string> {
  const { token } = await app.service.services.sessions.start(app.service.database.db, email, {
    method: 'oidc',
    sourceAddress: '127.0.0.1',
  });
  return token;
}

export const sessionHeaders = (token: string): Record<string, string> => ({
  cookie: `zk_session=${token}`,
  'x-requested-with': 'zonekeeper-console',
});

/** POST /graphql with the session's cookie */
export async function personGql(app: TestApp, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await app.http.post('/graphql').set(sessionHeaders(token)).set('content-type', 'application/json').send({ query, variables });
  return { status: res.status, data: res.body?.data, errors: res.body?.errors as any[] | undefined, body: res.body };
}
