import { randomInt } from 'node:crypto';
import type { Database } from '../../db/pool';
import { DomainError } from '../../errors/catalogue';
import {
  answerDeviceSignIn,
  deleteDeviceSignIn,
  type DeviceSignInMethod,
  insertDeviceSignIn,
  pendingDeviceSignInByUserCode,
  personById,
  pollDeviceSignIn,
} from '../../repositories/people';
import { logger } from '../../logger';
import { recordAuditEvent } from '../audit-log';
import type { RequestContext } from '../context';
import { hashToken, newToken, personOf } from './people.service';
import { type OidcSignInService, SignInRefused } from './oidc-sign-in.service';
import type { SessionsService } from './sessions.service';

/** how long a passkey sign-in's code lives (RFC 8628 §6.1: short-lived); the provider says its own */
const PASSKEY_CODE_SECONDS = 600;
/** the least pause between polls (RFC 8628 §3.2: 5 seconds when the provider says none) */
const DEFAULT_INTERVAL_SECONDS = 5;
/** the user code's letters: consonants only, no vowel to spell a word, none mistaken for another (RFC 8628 §6.1) */
const USER_CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';

/** RFC 8628 §3.2: the device authorization response, as the CLI reads it */
export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

/** RFC 8628 §3.5 (and RFC 6749 §5.2): why a poll has no session yet, or never will */
export type DevicePollError = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';

export type DevicePoll = { token: string; email: string } | { error: DevicePollError; description: string };

/** XXXX-XXXX from 20 letters: 20^8 ≈ 2^34.6 codes, enough for the few minutes one lives behind the sign-in limits */
export function newUserCode(): string {
  const letters = Array.from({ length: 8 }, () => USER_CODE_LETTERS[randomInt(USER_CODE_LETTERS.length)]).join('');
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/** a user code as typed (lower case, without or with other dashes and spaces) in its canonical form */
export const canonicalUserCode = (typed: string): string => {
  const letters = typed.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : letters;
};

/**
 * Signing in from a terminal (docs/people.md, «Signing in from a terminal»): the OAuth 2.0 device authorization
 * grant (RFC 8628) between the CLI and this service, as `gh auth login` does. The service hands the CLI a device
 * code (random, stored as its hash only, so the session it leads to goes to the one who holds it: the poller)
 * and a user code the person takes to a browser on any device: the configured OIDC provider's own device page
 * (`oidc`: the service asks the provider's device endpoint and polls its token endpoint as the CLI polls it),
 * or this service's approval page (`passkey`: the person signs in there, with a passkey, and approves the
 * code). Each poll is paced (§3.5: sooner than the interval is `slow_down`, and the interval grows by 5
 * seconds); a code lives minutes, and the session is handed out once, after which the device code answers
 * `invalid_grant`.
 */
export class DeviceSignInService {
  constructor(
    private readonly oidc: OidcSignInService,
    private readonly sessions: SessionsService,
  ) {}

  /** a device sign-in begins: the device code for the poller, the user code and page for the person */
  async begin(
    db: Database,
    method: DeviceSignInMethod,
    approvalPage: string,
    how: { sourceAddress?: string; userAgent?: string },
  ): Promise<DeviceAuthorization> {
    const { token: deviceCode, hash } = newToken('zk_device');
    if (method === 'oidc') {
      if (!this.oidc.configured) throw new DomainError('SIGN_IN_NOT_CONFIGURED');
      const provider = await this.oidc.beginDevice().catch((error: unknown) => {
        if (error instanceof DomainError) throw error;
        logger.warn({ err: error }, 'OIDC device authorization failed');
        throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE');
      });
      const interval = Math.max(provider.interval ?? DEFAULT_INTERVAL_SECONDS, 1);
      await insertDeviceSignIn(db, {
        deviceCodeHash: hash,
        method,
        userCode: provider.userCode,
        providerDeviceCode: provider.deviceCode,
        intervalSeconds: interval,
        expiresInSeconds: provider.expiresIn,
        ...how,
        userAgent: how.userAgent?.slice(0, 300),
      });
      return {
        device_code: deviceCode,
        user_code: provider.userCode,
        verification_uri: provider.verificationUri,
        ...(provider.verificationUriComplete ? { verification_uri_complete: provider.verificationUriComplete } : {}),
        expires_in: provider.expiresIn,
        interval,
      };
    }
    const userCode = newUserCode();
    await insertDeviceSignIn(db, {
      deviceCodeHash: hash,
      method,
      userCode,
      intervalSeconds: DEFAULT_INTERVAL_SECONDS,
      expiresInSeconds: PASSKEY_CODE_SECONDS,
      ...how,
      userAgent: how.userAgent?.slice(0, 300),
    });
    const complete = new URL(approvalPage);
    complete.searchParams.set('code', userCode);
    return {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: approvalPage,
      verification_uri_complete: complete.href,
      expires_in: PASSKEY_CODE_SECONDS,
      interval: DEFAULT_INTERVAL_SECONDS,
    };
  }

  /** one poll of the CLI (RFC 8628 §3.4): the session, once, or why not yet or not at all */
  async poll(db: Database, deviceCode: string, how: { sourceAddress?: string }): Promise<DevicePoll> {
    const polled = deviceCode ? await pollDeviceSignIn(db, hashToken(deviceCode)) : undefined;
    if (!polled)
      return { error: 'invalid_grant', description: 'no sign-in under way with this device code (or its session was handed out)' };
    const { signIn, tooSoon } = polled;
    if (signIn.expired) {
      await deleteDeviceSignIn(db, signIn.id);
      return { error: 'expired_token', description: 'the code expired before the person finished' };
    }
    if (tooSoon)
      return { error: 'slow_down', description: `polled sooner than the interval: wait ${signIn.intervalSeconds} s between polls` };
    const client = { sourceAddress: signIn.sourceAddress ?? how.sourceAddress, userAgent: signIn.userAgent ?? undefined };
    if (signIn.method === 'oidc') {
      let answer;
      try {
        answer = await this.oidc.pollDevice(db, signIn.providerDeviceCode!, client);
      } catch (error) {
        if (!(error instanceof SignInRefused)) throw error;
        await deleteDeviceSignIn(db, signIn.id);
        return { error: 'access_denied', description: error.reason };
      }
      if ('token' in answer || answer.error === 'expired_token') await deleteDeviceSignIn(db, signIn.id);
      return 'token' in answer ? answer : { error: answer.error as DevicePollError, description: answer.description };
    }
    if (signIn.denied) {
      await deleteDeviceSignIn(db, signIn.id);
      return { error: 'access_denied', description: 'the person denied this sign-in' };
    }
    if (signIn.personId === null) return { error: 'authorization_pending', description: 'the person has not approved the code yet' };
    // taken once: the delete decides which poll hands the session out
    if (!(await deleteDeviceSignIn(db, signIn.id)))
      return { error: 'invalid_grant', description: 'no sign-in under way with this device code (or its session was handed out)' };
    const person = (await personById(db, signIn.personId))!;
    const { token } = await this.sessions.start(db, person.email, { method: 'passkey', ...client });
    return { token, email: person.email };
  }

  /**
   * The second device's answer (a person signed in there, by the session cookie): the terminal's sign-in with this
   * user code approved for this person, or denied. Audited (`device-sign-in-approved` / `-denied`).
   */
  async answer(ctx: RequestContext, userCode: string, verdict: 'approve' | 'deny'): Promise<void> {
    const person = personOf(ctx.principal);
    const signIn = await pendingDeviceSignInByUserCode(ctx.db, canonicalUserCode(userCode));
    const answered = signIn && (await answerDeviceSignIn(ctx.db, signIn.id, verdict === 'approve' ? { personId: person.id } : 'denied'));
    if (!answered)
      throw new DomainError('DEVICE_CODE_NOT_FOUND', undefined, [
        {
          field: 'code',
          code: 'DEVICE_CODE_NOT_FOUND',
          message: 'code: no terminal is waiting for this code (mistyped, expired or answered)',
        },
      ]);
    await recordAuditEvent(ctx.db, {
      kind: verdict === 'approve' ? 'device-sign-in-approved' : 'device-sign-in-denied',
      actor: ctx.principal,
      subject: `device-sign-in:${signIn.id}`,
      detail: { sourceAddress: signIn.sourceAddress, userAgent: signIn.userAgent },
    });
  }
}
