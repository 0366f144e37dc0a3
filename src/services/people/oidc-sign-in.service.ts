import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { DomainError } from '../../errors/catalogue';
import { claimGrantsOperator } from '../../auth/roles';
import { insertSignInFlow, takeSignInFlow } from '../../repositories/people';
import { logger } from '../../logger';
import { hashToken, newToken } from './people.service';
import type { SessionsService } from './sessions.service';

type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' } });
type Configuration = import('openid-client', { with: { 'resolution-mode': 'import' } }).Configuration;

/** how long a sign-in may take between leaving for the provider and coming back (seconds) */
const FLOW_SECONDS = 600;

/** a refused sign-in: the reason goes to the audit log (sign-in-failed), the browser gets SIGN_IN_FAILED */
export class SignInRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Sign-in with OpenID Connect (docs/people.md): the authorization code flow with PKCE (RFC 7636), state and
 * nonce (OIDC Core §3.1.2.1, §3.1.3.7), by `openid-client` (an OpenID-certified relying party) against the
 * provider of OIDC_ISSUER (discovered). The code verifier, state and nonce wait in PostgreSQL under the hash of
 * an id that a short-lived cookie carries (any process may take the callback), and are taken once. A person is
 * the provider's verified e-mail address (`email_verified` true): an unverified address could be anyone's. With
 * OIDC_OPERATOR_CLAIM, the ID token's claim also says whether the person is an operator (src/auth/roles.ts).
 */
export class OidcSignInService {
  private config?: Promise<{ client: OpenIdClient; config: Configuration }>;

  constructor(
    private readonly settings: Settings,
    private readonly sessions: SessionsService,
  ) {}

  get configured(): boolean {
    return this.settings.oidc !== undefined;
  }

  /** the provider's discovered configuration, once per process (again after a failure) */
  private discover(): Promise<{ client: OpenIdClient; config: Configuration }> {
    const oidc = this.settings.oidc;
    if (!oidc) throw new DomainError('SIGN_IN_NOT_CONFIGURED');
    this.config ??= (async () => {
      const client = await import('openid-client');
      const issuer = new URL(oidc.issuer);
      // plain HTTP only to a provider on this machine (a test's, a development one): never over a network
      const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(issuer.hostname);
      const config = await client.discovery(
        issuer,
        oidc.clientId,
        undefined,
        oidc.clientSecret === undefined ? client.None() : client.ClientSecretPost(oidc.clientSecret),
        issuer.protocol === 'http:' && loopback ? { execute: [client.allowInsecureRequests] } : undefined,
      );
      return { client, config };
    })().catch((error: unknown) => {
      this.config = undefined;
      throw error;
    });
    return this.config;
  }

  /** begins a sign-in: the provider's authorization URL to send the browser to, and the flow's cookie value */
  async begin(db: Database, origin: string): Promise<{ url: string; flow: string }> {
    const { client, config } = await this.discover();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const redirectUri = this.settings.oidc!.redirectUrl ?? `${origin}/auth/oidc/callback`;
    const { token: flow, hash } = newToken('zk_flow');
    await insertSignInFlow(db, hash, { codeVerifier, state, nonce, redirectUri });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: ['openid', 'email', ...this.settings.oidc!.scopes].join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, flow };
  }

  /**
   * The provider sent the browser back (`callbackUrl`, with the code and state): the code is exchanged and the
   * ID token checked (issuer, audience = our client id, signature, nonce, expiry: openid-client), then the
   * verified address signs in. Refused (SignInRefused, audited): no flow or an expired one, a wrong state, a
   * wrong nonce, a code the provider does not take (expired, used, another client's), an unverified address.
   */
  async finish(
    db: Database,
    flowId: string | undefined,
    callbackUrl: URL,
    how: { sourceAddress?: string; userAgent?: string },
  ): Promise<{ token: string; email: string }> {
    try {
      const { client, config } = await this.discover();
      const flow = flowId ? await takeSignInFlow(db, hashToken(flowId), FLOW_SECONDS) : undefined;
      if (!flow) throw new SignInRefused('no sign-in under way in this browser (or it took too long)');
      // the callback as the provider was told it (a proxy in front may have changed the scheme or host)
      const current = new URL(flow.redirectUri);
      current.search = callbackUrl.search;
      let tokens;
      try {
        tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: flow.codeVerifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new SignInRefused(describe(error));
      }
      return await this.signIn(db, tokens.claims(), how);
    } catch (error) {
      throw await this.audited(db, error, how.sourceAddress);
    }
  }

  /**
   * A sign-in without a browser (RFC 8628 §3.1–3.2, docs/people.md, «Signing in from a terminal»): the provider's
   * device code (kept by the service, never shown), the code the person types at the provider, where, and for how
   * long and at what pace the provider may be asked. Scopes as the browser's sign-in asks them.
   */
  async beginDevice(): Promise<{
    deviceCode: string;
    userCode: string;
    verificationUri: string;
    verificationUriComplete?: string;
    expiresIn: number;
    interval?: number;
  }> {
    const { client, config } = await this.discover();
    if (!config.serverMetadata().device_authorization_endpoint) throw new DomainError('SIGN_IN_NOT_CONFIGURED');
    const answer = await client.initiateDeviceAuthorization(config, {
      scope: ['openid', 'email', ...this.settings.oidc!.scopes].join(' '),
    });
    return {
      deviceCode: answer.device_code,
      userCode: answer.user_code,
      verificationUri: answer.verification_uri,
      verificationUriComplete: answer.verification_uri_complete,
      expiresIn: answer.expires_in,
      interval: answer.interval,
    };
  }

  /**
   * One token request for the provider's device code (RFC 8628 §3.4): the session of the person who finished at
   * the provider (the ID token checked as the browser's is, the address verified), or the provider's error code
   * as it answered (§3.5: `authorization_pending`, `slow_down`, `access_denied`, `expired_token`). A person who
   * has a passkey proves it too (a second factor): that is done on a second device (`zonekeeper login --passkey`),
   * so such a sign-in is refused here, audited, rather than given a session that allows nothing.
   */
  async pollDevice(
    db: Database,
    providerDeviceCode: string,
    how: { sourceAddress?: string; userAgent?: string },
  ): Promise<{ token: string; email: string } | { error: string; description: string }> {
    try {
      const { client, config } = await this.discover();
      let tokens;
      try {
        tokens = await client.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:device_code', {
          device_code: providerDeviceCode,
        });
      } catch (error) {
        const code = (error as { error?: unknown }).error;
        if (code === 'authorization_pending' || code === 'slow_down')
          return { error: code, description: code === 'slow_down' ? 'polling too fast' : 'the person has not finished at the provider' };
        if (code === 'expired_token') return { error: code, description: 'the code expired before the person finished' };
        throw new SignInRefused(describe(error));
      }
      return await this.signIn(db, tokens.claims(), how, { refuseSecondFactor: true });
    } catch (error) {
      throw await this.audited(db, error, how.sourceAddress);
    }
  }

  /**
   * The ID token's claims sign a person in: the verified address (an unverified one could be anyone's), and with
   * OIDC_OPERATOR_CLAIM whether the person is an operator. `refuseSecondFactor`: a person who has a passkey is
   * refused (a terminal cannot present it).
   */
  private async signIn(
    db: Database,
    claims: Record<string, unknown> | undefined,
    how: { sourceAddress?: string; userAgent?: string },
    options: { refuseSecondFactor?: boolean } = {},
  ): Promise<{ token: string; email: string }> {
    const email = typeof claims?.email === 'string' ? claims.email.trim() : '';
    if (!email) throw new SignInRefused('the provider gave no e-mail address (scope email)');
    if (claims?.email_verified !== true) throw new SignInRefused('the provider has not verified the e-mail address');
    if (options.refuseSecondFactor && (await this.sessions.hasSecondFactor(db, email)))
      throw new SignInRefused('this person has a passkey, asked as a second factor: sign in with a passkey on a second device');
    const mapping = this.settings.oidc!.operator;
    const operator = mapping && { claim: mapping.claim, granted: claimGrantsOperator(claims, mapping) };
    const { token } = await this.sessions.start(db, email, { method: 'oidc', ...how, operator });
    return { token, email };
  }

  /** a failed sign-in audited (`sign-in-failed`), as the SignInRefused its caller answers */
  private async audited(db: Database, error: unknown, sourceAddress?: string): Promise<SignInRefused> {
    if (!(error instanceof SignInRefused)) {
      logger.warn({ err: error }, 'OIDC sign-in failed');
      await this.sessions.refused(db, 'oidc', 'the identity provider could not be reached', sourceAddress).catch(() => undefined);
      return new SignInRefused('the identity provider could not be reached');
    }
    await this.sessions.refused(db, 'oidc', error.reason, sourceAddress);
    return error;
  }
}

/**
 * openid-client's and the provider's reason, without anything secret: its code and message, and the message
 * of the check underneath (oauth4webapi's: which parameter or claim, e.g. `unexpected JWT "nonce" claim value`)
 */
function describe(error: unknown): string {
  const e = error as { code?: string; error?: string; error_description?: string; message?: string; cause?: { message?: string } };
  const under = e.cause instanceof Error ? e.cause.message : undefined;
  return [e.code, e.error, e.error_description ?? e.message, under].filter(Boolean).join(': ').slice(0, 300);
}
