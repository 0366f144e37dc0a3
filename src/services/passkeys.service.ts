import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Database } from '../db/pool';
import {
  advancePasskeyCounter,
  deletePasskey,
  insertChallenge,
  insertPasskey,
  passkeyByCredential,
  passkeyListOfPerson,
  passkeysOfPerson,
  passSecondFactor,
  PasskeyRow,
  SessionRow,
  takeChallenge,
} from '../repositories/people';
import { recordAuditEvent } from './audit-log';
import { inTransaction } from './db-errors';
import { DomainError } from '../errors/catalogue';
import { SignInRefused } from './oidc-sign-in.service';
import { hashToken, newToken, personOf } from './people.service';
import type { RequestContext } from './context';
import type { SessionsService } from './sessions.service';

/** how long a ceremony may take (seconds); its challenge is taken once */
const CEREMONY_SECONDS = 300;

/** where the ceremony happens: the page's origin as the browser reports it must be this one, the RP ID its host */
export interface RelyingParty {
  origin: string;
}
const rpIdOf = (rp: RelyingParty) => new URL(rp.origin).hostname;

/**
 * Passkeys (WebAuthn, docs/people.md), with @simplewebauthn/server: a person signed in registers one; anyone
 * signs in with one. Each ceremony's challenge waits in PostgreSQL under the hash of an id a cookie carries,
 * and is taken once: an assertion replayed, or one made for another challenge, is refused; so is one made on
 * another origin (a phishing page) and one whose signature counter did not grow (a cloned authenticator).
 */
export class PasskeysService {
  constructor(private readonly sessions: SessionsService) {}

  async registrationOptions(ctx: RequestContext, rp: RelyingParty) {
    const person = personOf(ctx.principal);
    const existing = await passkeysOfPerson(ctx.db, person.id);
    const options = await generateRegistrationOptions({
      rpName: 'Zonekeeper',
      rpID: rpIdOf(rp),
      userName: person.email,
      userID: new TextEncoder().encode(`person:${person.id}`),
      attestationType: 'none',
      excludeCredentials: existing.map((k) => ({ id: k.credentialId, transports: k.transports ?? undefined })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const { token: ceremony, hash } = newToken('zk_ceremony');
    await insertChallenge(ctx.db, hash, options.challenge, person.id);
    return { options, ceremony };
  }

  /** the new passkey of the person signed in (audited: passkey-added) */
  async register(ctx: RequestContext, rp: RelyingParty, ceremony: string | undefined, response: RegistrationResponseJSON): Promise<number> {
    const person = personOf(ctx.principal);
    const taken = ceremony ? await takeChallenge(ctx.db, hashToken(ceremony), CEREMONY_SECONDS) : undefined;
    if (!taken || taken.personId !== person.id) throw new SignInRefused('no passkey registration under way for this person');
    let verification;
    try {
      verification = await verifyRegistrationResponse({
        response,
        expectedChallenge: taken.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rpIdOf(rp),
        requireUserVerification: false,
      });
    } catch (error) {
      throw new SignInRefused(error instanceof Error ? error.message : 'the passkey could not be verified');
    }
    if (!verification.verified || !verification.registrationInfo) throw new SignInRefused('the passkey could not be verified');
    const { credential } = verification.registrationInfo;
    return inTransaction(ctx.db, async (sql) => {
      const id = await insertPasskey(sql, {
        personId: person.id,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? null,
      });
      await recordAuditEvent(sql, { kind: 'passkey-added', actor: ctx.principal, subject: `passkey:${id}` });
      return id;
    });
  }

  /** the passkeys of the person signed in (never another's: a key has no passkeys, NOT_SIGNED_IN) */
  async list(ctx: RequestContext) {
    return passkeyListOfPerson(ctx.db, personOf(ctx.principal).id);
  }

  /**
   * removes one of the person's own passkeys (a lost authenticator); audited passkey-removed. Another person's
   * id is answered as an unknown one, so ids of others' passkeys are not confirmed.
   */
  async remove(ctx: RequestContext, id: number): Promise<void> {
    const person = personOf(ctx.principal);
    await inTransaction(ctx.db, async (sql) => {
      if (!(await deletePasskey(sql, person.id, id)))
        throw new DomainError('PASSKEY_NOT_FOUND', undefined, [
          { field: 'id', code: 'PASSKEY_NOT_FOUND', message: 'no passkey of yours with that id' },
        ]);
      await recordAuditEvent(sql, { kind: 'passkey-removed', actor: ctx.principal, subject: `passkey:${id}` });
    });
  }

  /** the options of a second factor: the passkeys of the session's person only */
  async secondFactorOptions(db: Database, rp: RelyingParty, session: SessionRow) {
    const passkeys = await passkeysOfPerson(db, session.personId);
    const options = await generateAuthenticationOptions({
      rpID: rpIdOf(rp),
      userVerification: 'preferred',
      allowCredentials: passkeys.map((k) => ({
        id: k.credentialId,
        transports: (k.transports ?? undefined) as AuthenticatorTransport[] | undefined,
      })),
    });
    const { token: ceremony, hash } = newToken('zk_ceremony');
    await insertChallenge(db, hash, options.challenge, session.personId);
    return { options, ceremony };
  }

  /** the session's second factor: a passkey of its own person; the session is whole from then on (audited) */
  async secondFactor(
    db: Database,
    rp: RelyingParty,
    session: SessionRow,
    ceremony: string | undefined,
    response: AuthenticationResponseJSON,
    sourceAddress?: string,
  ): Promise<void> {
    try {
      const taken = ceremony ? await takeChallenge(db, hashToken(ceremony), CEREMONY_SECONDS) : undefined;
      if (!taken || taken.personId !== session.personId) throw new SignInRefused('no second factor under way for this session');
      const passkey = await this.verified(db, rp, taken.challenge, response);
      if (passkey.personId !== session.personId) throw new SignInRefused('the passkey is another person’s');
      await inTransaction(db, async (sql) => {
        await passSecondFactor(sql, session.id);
        await recordAuditEvent(sql, {
          kind: 'second-factor-passed',
          actor: {
            kind: 'user',
            via: 'session',
            keyId: session.id,
            keyName: session.email,
            userId: session.accountId ?? 0,
            person: { id: session.personId, email: session.email, role: null },
          },
          subject: `session:${session.id}`,
          detail: { method: 'passkey' },
          sourceAddress,
        });
      });
    } catch (error) {
      if (error instanceof SignInRefused) await this.sessions.refused(db, 'passkey', error.reason, sourceAddress);
      throw error;
    }
  }

  /** the stored passkey of a valid assertion for `challenge` (its counter moved on), or SignInRefused */
  private async verified(db: Database, rp: RelyingParty, challenge: string, response: AuthenticationResponseJSON): Promise<PasskeyRow> {
    const passkey = typeof response?.id === 'string' ? await passkeyByCredential(db, response.id) : undefined;
    if (!passkey) throw new SignInRefused('unknown passkey');
    let verification;
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rpIdOf(rp),
        credential: {
          id: passkey.credentialId,
          publicKey: passkey.publicKey as Uint8Array<ArrayBuffer>,
          counter: passkey.counter,
          transports: (passkey.transports ?? undefined) as AuthenticatorTransport[] | undefined,
        },
        requireUserVerification: false,
      });
    } catch (error) {
      throw new SignInRefused(error instanceof Error ? error.message : 'the assertion could not be verified');
    }
    if (!verification.verified) throw new SignInRefused('the assertion could not be verified');
    if (!(await advancePasskeyCounter(db, passkey.id, verification.authenticationInfo.newCounter)))
      throw new SignInRefused('the signature counter did not grow (a cloned authenticator?)');
    return passkey;
  }

  /** a sign-in's options: any of the RP's discoverable credentials (the person is whoever the passkey is) */
  async signInOptions(db: Database, rp: RelyingParty) {
    const options = await generateAuthenticationOptions({ rpID: rpIdOf(rp), userVerification: 'preferred' });
    const { token: ceremony, hash } = newToken('zk_ceremony');
    await insertChallenge(db, hash, options.challenge, null);
    return { options, ceremony };
  }

  /** signs the passkey's person in; refused (SignInRefused, audited sign-in-failed) otherwise */
  async signIn(
    db: Database,
    rp: RelyingParty,
    ceremony: string | undefined,
    response: AuthenticationResponseJSON,
    how: { sourceAddress?: string; userAgent?: string },
  ): Promise<{ token: string; email: string }> {
    try {
      const taken = ceremony ? await takeChallenge(db, hashToken(ceremony), CEREMONY_SECONDS) : undefined;
      if (!taken) throw new SignInRefused('no passkey sign-in under way in this browser (or the assertion was used already)');
      const passkey = await this.verified(db, rp, taken.challenge, response);
      const { token } = await this.sessions.start(db, passkey.email, { method: 'passkey', ...how });
      return { token, email: passkey.email };
    } catch (error) {
      if (error instanceof SignInRefused) await this.sessions.refused(db, 'passkey', error.reason, how.sourceAddress);
      throw error;
    }
  }
}
