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
      const claims = tokens.claims();
      const email = typeof claims?.email === 'string' ? claims.email.trim() : '';
      if (!email) throw new SignInRefused('the provider gave no e-mail address (scope email)');
      if (claims?.email_verified !== true) throw new SignInRefused('the provider has not verified the e-mail address');
      const mapping = this.settings.oidc!.operator;
      const operator = mapping && { claim: mapping.claim, granted: claimGrantsOperator(claims, mapping) };
      const { token } = await this.sessions.start(db, email, { method: 'oidc', ...how, operator });
      return { token, email };
    } catch (error) {
      if (!(error instanceof SignInRefused)) {
        logger.warn({ err: error }, 'OIDC sign-in failed');
        await this.sessions.refused(db, 'oidc', 'the identity provider could not be reached', how.sourceAddress).catch(() => undefined);
        throw new SignInRefused('the identity provider could not be reached');
      }
      await this.sessions.refused(db, 'oidc', error.reason, how.sourceAddress);
      throw error;
    }
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
