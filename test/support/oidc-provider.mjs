/**
 * A real OpenID provider for the tests (oidc-provider, an OpenID-certified implementation), run as its own
 * process by test/support/oidc.ts: `node oidc-provider.mjs <port> <redirect-uri>[,<redirect-uri>…]`. Its development login
 * form takes any login; the login is the account, whose e-mail is the login itself, verified unless it starts
 * with `unverified`. Two clients: `zonekeeper` (the service's) and `other-client` (for a code of another
 * client). GET /test/code-ttl?seconds=N sets the life of the authorization codes issued from then on,
 * GET /test/device-code-ttl?seconds=N that of the device codes.
 * POST /test/next-token-response (a JSON body) makes the next token request answered with that body instead
 * (a token response of another client handed to the service: its audience check is what refuses it).
 * POST /test/groups (a JSON body `{login, groups}`) sets the `groups` claim of that login (released under the
 * `groups` scope, in the ID token): an array, a string, or null for none. The device authorization grant
 * (RFC 8628) is on: its endpoint is /device/auth, its user code is entered at /device.
 */
import Provider from 'oidc-provider';

const [port, redirectUri] = process.argv.slice(2);
let codeSeconds = 60;
/** the life of the device codes (RFC 8628) issued from then on (GET /test/device-code-ttl?seconds=N) */
let deviceCodeSeconds = 600;
/** the body the next token request gets instead of its own (POST /test/next-token-response), once */
let nextTokenResponse;
/** the `groups` claim per login (POST /test/groups); a login not named has none */
const groups = new Map();

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: ['zonekeeper', 'other-client'].map((id) => ({
    client_id: id,
    client_secret: `${id}-secret-0123456789abcdef0123456789abcdef`,
    redirect_uris: redirectUri.split(','),
    // the device authorization grant (RFC 8628): `zonekeeper login` signs in through the service without a browser
    grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  })),
  claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
  // the ID token carries the e-mail claims (the service reads them there, not from userinfo)
  conformIdTokenClaims: false,
  // deviceFlow: RFC 8628, its user code typed (or taken from verification_uri_complete) at /device
  features: { devInteractions: { enabled: true }, deviceFlow: { enabled: true } },
  pkce: { required: () => true },
  ttl: { AuthorizationCode: () => codeSeconds, DeviceCode: () => deviceCodeSeconds },
  async findAccount(_ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          email: sub,
          email_verified: !sub.startsWith('unverified'),
          ...(groups.get(sub) === undefined || groups.get(sub) === null ? {} : { groups: groups.get(sub) }),
        };
      },
    };
  },
});
provider.proxy = false;
provider.use(async (ctx, next) => {
  if (ctx.path === '/test/code-ttl') {
    codeSeconds = Number(ctx.query.seconds);
    ctx.body = 'ok';
    return;
  }
  if (ctx.path === '/test/device-code-ttl') {
    deviceCodeSeconds = Number(ctx.query.seconds);
    ctx.body = 'ok';
    return;
  }
  if (ctx.path === '/test/next-token-response' && ctx.method === 'POST') {
    let text = '';
    for await (const chunk of ctx.req) text += chunk;
    nextTokenResponse = JSON.parse(text);
    ctx.body = 'ok';
    return;
  }
  if (ctx.path === '/test/groups' && ctx.method === 'POST') {
    let text = '';
    for await (const chunk of ctx.req) text += chunk;
    const { login, groups: value } = JSON.parse(text);
    groups.set(login, value);
    ctx.body = 'ok';
    return;
  }
  if (ctx.path === '/token' && nextTokenResponse !== undefined) {
    ctx.set('cache-control', 'no-store');
    ctx.body = nextTokenResponse;
    nextTokenResponse = undefined;
    return;
  }
  await next();
});
provider.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
