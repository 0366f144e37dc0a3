import { Command } from 'commander';
import { ApiError, print, serviceUrl, sleep, unreachable } from '../shared';
import { storedSession, storeSession } from '../stored-sessions';

/** RFC 8628 §3.2, as the service answers POST /auth/device */
interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

/** a POST to the service's /auth routes, its JSON answer and status; unreachable as `gql` says it */
async function postAuth(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const base = serviceUrl();
  try {
    const res = await fetch(`${base}/auth${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
  } catch (error) {
    throw unreachable(base, error);
  }
}

/**
 * Signs in as the person at the keyboard without a browser here (RFC 8628, as `gh auth login`): the service gives a
 * code to take to a browser on any device, and this command polls until the person finished there, at the pace
 * the service sets (`slow_down` adds 5 seconds, §3.5), until the code expires. `method`: `oidc` (at the identity
 * provider) or `passkey` (on this service's approval page, signed in there with a passkey).
 */
async function deviceSignIn(method: 'oidc' | 'passkey' | undefined): Promise<{ session: string; email: string }> {
  const begun = await postAuth('/device', method ? { method } : {});
  if (begun.status !== 200)
    throw new ApiError(begun.body.error ?? `HTTP_${begun.status}`, begun.body.message ?? `the service answered ${begun.status}`);
  const authorization = begun.body as DeviceAuthorization;
  process.stderr.write(
    `To sign in, open ${authorization.verification_uri} in a browser on any device and enter the code ${authorization.user_code}` +
      (authorization.verification_uri_complete ? `\n(or open ${authorization.verification_uri_complete})` : '') +
      `\nWaiting (the code expires in ${Math.round(authorization.expires_in / 60)} min)…\n`,
  );
  let interval = authorization.interval || 5;
  const until = Date.now() + authorization.expires_in * 1000;
  while (Date.now() < until) {
    await sleep(interval * 1000);
    const polled = await postAuth('/device/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: authorization.device_code,
    });
    if (polled.status === 200) return { session: polled.body.session_token, email: polled.body.email };
    if (polled.body.error === 'authorization_pending') continue;
    // RFC 8628 §3.5: slower from now on; so too past the service's limit per address (429)
    if (polled.body.error === 'slow_down' || polled.status === 429) {
      interval += 5;
      continue;
    }
    throw new ApiError(
      String(polled.body.error ?? `HTTP_${polled.status}`).toUpperCase(),
      `the sign-in ended: ${polled.body.error_description ?? polled.status}`,
    );
  }
  throw new ApiError('EXPIRED_TOKEN', 'the sign-in ended: the code expired before the person finished');
}

/** `zonekeeper login` and `logout`: a person's session for this CLI (docs/people.md, «Signing in from a terminal») */
export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description(
      'sign in as a person without a browser here (a code to enter on any device); the session is kept in the config file (0600)',
    )
    .option('--passkey', "approve on this service's page with a passkey, on a second device (instead of at the identity provider)")
    .option('--oidc', 'sign in at the identity provider (the default when the service has one)')
    .action(async (options: { passkey?: boolean; oidc?: boolean }) => {
      const { session, email } = await deviceSignIn(options.passkey ? 'passkey' : options.oidc ? 'oidc' : undefined);
      const file = storeSession(serviceUrl(), { session, email, at: Date.now() });
      if (program.opts().json) return print(program, { email, file });
      process.stdout.write(`signed in to ${serviceUrl()} as ${email} (session kept in ${file})\n`);
    });
  program
    .command('logout')
    .description('end the session `zonekeeper login` made, and forget it')
    .action(async () => {
      const stored = storedSession(serviceUrl());
      if (stored) await postAuth('/sign-out', {}, { cookie: `zk_session=${stored.session}`, 'x-requested-with': 'zonekeeper-cli' });
      storeSession(serviceUrl(), undefined);
      process.stdout.write(stored ? `signed out of ${serviceUrl()} (${stored.email})\n` : `not signed in to ${serviceUrl()}\n`);
    });
}
