import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Database, Sql } from '../../db/pool';
import {
  advancePasskeyCounter,
  deletePasskey,
  insertChallenge,
  insertPasskey,
  passkeyByCredential,
  passkeyListOfPerson,
  passkeysOfPerson,
  MembershipRow,
  passSecondFactor,
  PasskeyRow,
  PersonRow,
  SessionRow,
  takeChallenge,
} from '../../repositories/people';
import { recordAuditEvent } from '../audit-log';
import { inTransaction } from '../db-errors';
import { DomainError } from '../../errors/catalogue';
import { SignInRefused } from './oidc-sign-in.service';
import { hashToken, newToken, PeopleService, personOf } from './people.service';
import type { RequestContext } from '../context';
import { personPrincipal } from '../../auth/principal';
import { sessionActor, type SessionsService } from './sessions.service';

/** the links that register a passkey with no session: an invitation's, a recovery link */
export type PasskeyLinkKind = 'invitation' | 'recovery';

/** the stored id of a link's ceremony: its id and the link's token together (neither alone takes it) */
const linkCeremonyHash = (ceremony: string, token: string) => hashToken(`${ceremony}\n${hashToken(token.trim())}`);

/** how long a ceremony may take (seconds); its challenge is taken once */
const CEREMONY_SECONDS = 300;

/** where the ceremony happens: the page's origin as the browser reports it must be this one, the RP ID its host */
export interface RelyingParty {
  origin: string;
}
const rpIdOf = (rp: RelyingParty) => new URL(rp.origin).hostname;

/** the new credential of a registration ceremony for `challenge` on this relying party, or SignInRefused */
async function registeredCredential(rp: RelyingParty, challenge: string, response: RegistrationResponseJSON) {
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rpIdOf(rp),
      requireUserVerification: false,
    });
  } catch (error) {
    throw new SignInRefused(error instanceof Error ? error.message : 'the passkey could not be verified');
  }
  if (!verification.verified || !verification.registrationInfo) throw new SignInRefused('the passkey could not be verified');
  return verification.registrationInfo.credential;
}

/**
 * Passkeys (WebAuthn, docs/people.md), with @simplewebauthn/server: a person signed in registers one; anyone
 * signs in with one. Each ceremony's challenge waits in PostgreSQL under the hash of an id a cookie carries,
 * and is taken once: an assertion replayed, or one made for another challenge, is refused; so is one made on
 * another origin (a phishing page) and one whose signature counter did not grow (a cloned authenticator).
 */
export class PasskeysService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly people: PeopleService,
  ) {}

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
    const credential = await registeredCredential(rp, taken.challenge, response);
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

  /**
   * What a link that registers a passkey with no session stands for (docs/people.md, «Passkeys», «Recovery»):
   * an invitation a new person's first passkey (the token stands for the invited address), a recovery link a
   * member's new one (the token stands for the person). `check` refuses a bad token and writes nothing; `take`,
   * in the registration's transaction, takes the token once and says whose passkey it is and where the session
   * it begins acts.
   */
  private readonly links: Record<
    PasskeyLinkKind,
    {
      check(db: Database, token: unknown): Promise<{ id: number; email: string; userHandle: string; personId: number | null }>;
      take(sql: Sql, token: string): Promise<{ person: PersonRow; membership: MembershipRow }>;
    }
  > = {
    invitation: {
      check: async (db, token) => {
        const invitation = await this.people.invitationForNewPerson(db, token);
        // the person has no id yet: the authenticator's user handle names the invitation (sign-in looks the
        // passkey up by its credential id, never by this)
        return { id: invitation.id, email: invitation.email, userHandle: `invitation:${invitation.id}`, personId: null };
      },
      take: (sql, token) => this.people.joinAsNewPerson(sql, token),
    },
    recovery: {
      check: async (db, token) => {
        const link = await this.people.recoveryLinkOf(db, token);
        return { id: link.id, email: link.email, userHandle: `person:${link.personId}`, personId: link.personId };
      },
      take: (sql, token) => this.people.recoverIn(sql, token),
    },
  };

  /**
   * The registration options of a link (`kind`): they name the link's address; the ceremony's challenge is
   * stored under the hash of its id together with the token, so it is taken only with the same token. A token
   * the link refuses is refused before anything is written.
   */
  async linkOptions(db: Database, rp: RelyingParty, kind: PasskeyLinkKind, token: unknown) {
    const link = await this.links[kind].check(db, token);
    const existing = link.personId === null ? [] : await passkeysOfPerson(db, link.personId);
    const options = await generateRegistrationOptions({
      rpName: 'Zonekeeper',
      rpID: rpIdOf(rp),
      userName: link.email,
      userID: new TextEncoder().encode(link.userHandle),
      attestationType: 'none',
      excludeCredentials: existing.map((k) => ({ id: k.credentialId, transports: k.transports ?? undefined })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const { token: ceremony } = newToken('zk_ceremony');
    await insertChallenge(db, linkCeremonyHash(ceremony, token as string), options.challenge, null);
    return { options, ceremony };
  }

  /**
   * The registration of linkOptions verified, then in one transaction: the link taken (an invitation: the
   * person made, or found if it never signed in, and the membership with its role and zones; a recovery link:
   * the person's live sessions ended), the passkey stored (audited passkey-added), a session begun in the link's
   * account (audited signed-in, method passkey). Returns the session cookie's token, once. A bad token changes
   * nothing (not even the ceremony's challenge); a registration that does not verify is SignInRefused, audited
   * sign-in-failed.
   */
  async registerFromLink(
    db: Database,
    rp: RelyingParty,
    kind: PasskeyLinkKind,
    token: unknown,
    ceremony: string | undefined,
    response: RegistrationResponseJSON,
    how: { sourceAddress?: string; userAgent?: string },
  ): Promise<{ token: string; email: string; accountId: number; role: string }> {
    const link = await this.links[kind].check(db, token);
    let credential;
    try {
      const taken = ceremony ? await takeChallenge(db, linkCeremonyHash(ceremony, token as string), CEREMONY_SECONDS) : undefined;
      if (!taken) throw new SignInRefused(`no passkey registration under way for this ${kind} link in this browser`);
      credential = await registeredCredential(rp, taken.challenge, response);
    } catch (error) {
      if (error instanceof SignInRefused) await this.sessions.refused(db, 'passkey', error.reason, how.sourceAddress);
      throw error;
    }
    const verified = credential;
    const linkDetail = kind === 'invitation' ? { invitation: link.id } : { recoveryLink: link.id };
    return inTransaction(db, async (sql) => {
      const { person, membership } = await this.links[kind].take(sql, token as string);
      const passkeyId = await insertPasskey(sql, {
        personId: person.id,
        credentialId: verified.id,
        publicKey: verified.publicKey,
        counter: verified.counter,
        transports: verified.transports ?? null,
      });
      const account = { accountId: membership.userId, role: membership.role };
      const { token: sessionToken, sessionId } = await this.sessions.beginIn(sql, person, account, how, {
        detail: { method: 'passkey', ...linkDetail },
      });
      const asMember = personPrincipal(person, { sessionId, accountId: membership.userId, role: membership.role });
      await recordAuditEvent(sql, { kind: 'passkey-added', actor: asMember, subject: `passkey:${passkeyId}`, detail: linkDetail });
      return { token: sessionToken, email: person.email, accountId: membership.userId, role: membership.role };
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
        await this.sessions.secondFactorPassedIn(sql, session);
        await recordAuditEvent(sql, {
          kind: 'second-factor-passed',
          actor: sessionActor(session),
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
