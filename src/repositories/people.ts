/**
 * People, their memberships of accounts, invitations and sessions (docs/people.md): plain rows in, plain rows
 * out; the services (src/services/people/people.service.ts, sessions.service.ts) decide who may do what. One file a
 * table under people/: persons, operators (a person's grant), memberships, invitations, recovery links,
 * sessions, sign-in flows (OpenID Connect), device sign-ins (RFC 8628), passkeys and their challenges (WebAuthn).
 */

export { type PersonRow, personByEmail, personHasSignedIn, personById } from './people/persons';
export { type OperatorGrant, type OperatorRow, operatorsList, lockOperatorGrant, setOperatorGrant } from './people/operators';
export {
  type MembershipRow,
  membershipsOfPerson,
  membersOfAccount,
  membership,
  upsertMembership,
  deleteMembership,
  lockOwners,
} from './people/memberships';
export {
  type InvitationRow,
  insertInvitation,
  takeInvitation,
  openInvitationByToken,
  invitationTakenBy,
  openInvitationsOf,
  acceptInvitationById,
  invitationsOfAccount,
  deleteInvitation,
} from './people/invitations';
export { type RecoveryLinkRow, insertRecoveryLink, openRecoveryLinkByToken, takeRecoveryLink } from './people/recovery-links';
export {
  type SessionRow,
  insertSession,
  liveSessionByHash,
  type SessionTimeout,
  endTimedOutSession,
  endTimedOutSessions,
  sessionsOfPerson,
  endSessions,
  setSessionAccount,
  passSecondFactor,
  noteSessionWrite,
} from './people/sessions';
export { type SignInFlow, insertSignInFlow, takeSignInFlow } from './people/sign-in-flows';
export {
  type DeviceSignInMethod,
  type DeviceSignInRow,
  insertDeviceSignIn,
  pollDeviceSignIn,
  deleteDeviceSignIn,
  pendingDeviceSignInByUserCode,
  answerDeviceSignIn,
} from './people/device-sign-ins';
export {
  type PasskeyRow,
  insertPasskey,
  passkeyByCredential,
  passkeysOfPerson,
  passkeyListOfPerson,
  deletePasskey,
  advancePasskeyCounter,
  insertChallenge,
  takeChallenge,
} from './people/passkeys';
