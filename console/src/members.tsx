import { FormEvent, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { ListState } from './list-state';
import { describeError, errorDetails, leafField } from './errors';
import {
  AcceptInvitationDocument,
  CreateRecoveryLinkDocument,
  InvitationsDocument,
  InviteMemberDocument,
  MemberRole,
  MembersDocument,
  MembershipFieldsFragment,
  RemoveMemberDocument,
  RevokeInvitationDocument,
  SetMemberRoleDocument,
} from './generated/graphql';
import { ROLE_WORDS, roleWords, useIdentity, useViewerCan, when } from './identity';
import { zoneList } from './names';

/**
 * The members of the account acted in and its open invitations (docs/people.md): roles changed, members removed
 * (the last owner cannot leave: the API's LAST_OWNER message is shown), invitations made (the one-time link the
 * API returns is shown to be passed on: Zonekeeper sends nothing) and revoked, a recovery link made for a member
 * who lost their passkeys (shown as an invitation's is).
 */
export function Members() {
  const identity = useIdentity();
  // the roles whose members the caller manages here, as the API decides (`viewer.can.memberRoles`): an owner every
  // one, an admin all but owners, an editor or a viewer none; nothing is offered before it is known
  const roles = useViewerCan()?.memberRoles ?? [];
  if (!identity.accountId) return <p className="empty">This sign-in acts in no account: there are no members to show.</p>;
  return (
    <>
      <h1>Members</h1>
      <MemberList userId={identity.accountId} roles={roles} />
      {roles.length > 0 ? (
        <Invitations userId={identity.accountId} roles={roles} />
      ) : (
        <p className="hint">
          {identity.kind === 'session'
            ? 'Your role in this account lets you see its members, not invite or change them: its owners and admins do.'
            : 'This API key may not invite or change members (it was made without “may manage keys”).'}
        </p>
      )}
    </>
  );
}

function MemberRow({
  member,
  manage,
  roles,
  self,
  onChanged,
  onNote,
  onRecoveryLink,
}: {
  member: MembershipFieldsFragment;
  /** the caller manages this member's role (and so may give them one of `roles`, remove them, make a recovery link) */
  manage: boolean;
  roles: MemberRole[];
  self: boolean;
  onChanged: () => void;
  onNote: (note: { ok: boolean; text: string }) => void;
  onRecoveryLink: (link: { email: string; link: string; expiresAt: string }) => void;
}) {
  const [role, setRole] = useState(member.role);
  const [, createRecoveryLink] = useMutation(CreateRecoveryLinkDocument);
  const [confirming, setConfirming] = useState(false);
  const [, setMemberRole] = useMutation(SetMemberRoleDocument);
  const [, removeMember] = useMutation(RemoveMemberDocument);
  const roleSelect = useRef<HTMLSelectElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => setRole(member.role), [member.role]);

  const save = async () => {
    const result = await setMemberRole({
      input: { userId: member.userId, personId: member.personId, role, zones: role === 'EDITOR' ? member.zones : null },
    });
    if (result.error) {
      setRole(member.role);
      onNote({ ok: false, text: describeError(result.error) });
    } else {
      onNote({ ok: true, text: `${member.email} is now ${roleWords(role).toLowerCase()}.` });
      onChanged();
    }
    // after saving, the focus stays with the role it changed
    roleSelect.current?.focus();
  };
  const recover = async () => {
    const result = await createRecoveryLink({ userId: member.userId, personId: member.personId });
    if (result.error) return onNote({ ok: false, text: describeError(result.error) });
    const made = result.data!.createRecoveryLink;
    // without PUBLIC_ORIGIN the API's link is a path: the console makes it whole with its own origin
    onRecoveryLink({
      email: made.recoveryLink.email,
      link: new URL(made.link, location.origin).href,
      expiresAt: made.recoveryLink.expiresAt,
    });
  };
  const remove = async () => {
    const result = await removeMember({ userId: member.userId, personId: member.personId });
    setConfirming(false);
    if (result.error) {
      onNote({ ok: false, text: describeError(result.error) });
      removeButton.current?.focus();
    } else {
      onNote({ ok: true, text: self ? 'You left the account.' : `${member.email} was removed from the account.` });
      onChanged();
    }
  };
  return (
    <tr>
      <td>
        {member.email}
        {self && ' (you)'}
      </td>
      <td>
        {manage ? (
          <>
            <label className="sr-only" htmlFor={`role-${member.personId}`}>
              Role of {member.email}
            </label>
            <select id={`role-${member.personId}`} ref={roleSelect} value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {ROLE_WORDS[r]}
                </option>
              ))}
            </select>{' '}
            {role !== member.role && (
              <button type="button" className="small" onClick={save}>
                Save role
              </button>
            )}
          </>
        ) : (
          roleWords(member.role)
        )}
      </td>
      <td>{member.zones?.length ? member.zones.join(', ') : 'Every zone'}</td>
      <td>{when(member.createdAt)}</td>
      <td>
        {manage && !self && (
          <>
            <button type="button" className="small secondary" aria-label={`Make a recovery link for ${member.email}`} onClick={recover}>
              Recovery link
            </button>{' '}
          </>
        )}
        {(manage || self) &&
          (confirming ? (
            <>
              <button type="button" className="small danger" autoFocus onClick={remove}>
                {self ? 'Confirm leaving' : `Confirm removing ${member.email}`}
              </button>{' '}
              <button type="button" className="small secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button
              type="button"
              ref={removeButton}
              className="small"
              aria-label={self ? 'Leave the account' : `Remove ${member.email}`}
              onClick={() => setConfirming(true)}
            >
              {self ? 'Leave' : 'Remove'}
            </button>
          ))}
      </td>
    </tr>
  );
}

function MemberList({ userId, roles }: { userId: string; roles: MemberRole[] }) {
  const identity = useIdentity();
  const [list, refetch] = useQuery({ query: MembersDocument, variables: { userId }, requestPolicy: 'cache-and-network' });
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [recovery, setRecovery] = useState<{ email: string; link: string; expiresAt: string } | null>(null);
  const recoveryField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (recovery) recoveryField.current?.focus();
  }, [recovery]);
  const members = list.data?.members ?? [];
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">People in this account</h2>
      <p aria-live="polite" role={note && !note.ok ? 'alert' : 'status'} className={note ? (note.ok ? 'ok-box' : 'error-box') : undefined}>
        {note?.text}
      </p>
      <ListState
        error={list.error}
        loaded={!!list.data}
        what="members"
        empty={members.length === 0 && 'No member yet.'}
        labelledBy="members-title"
      >
        <table className="members">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Zones</th>
              <th scope="col">Member since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <MemberRow
                key={m.personId}
                member={m}
                manage={roles.includes(m.role)}
                roles={roles}
                self={identity.email === m.email}
                onNote={setNote}
                onRecoveryLink={(link) => {
                  setNote(null);
                  setRecovery(link);
                }}
                onChanged={() => refetch({ requestPolicy: 'network-only' })}
              />
            ))}
          </tbody>
        </table>
      </ListState>
      {recovery && (
        <div className="panel" role="status">
          <h3>Recovery link for {recovery.email}</h3>
          <p>
            Pass this link on to {recovery.email} yourself: Zonekeeper sends no e-mail. It lets them register a new passkey, works once,
            until {when(recovery.expiresAt)}, and is not shown again; following it ends their other sessions.
          </p>
          <label htmlFor="recovery-link">Recovery link</label>
          <input
            id="recovery-link"
            ref={recoveryField}
            className="mono secret"
            readOnly
            value={recovery.link}
            onFocus={(e) => e.target.select()}
          />
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setRecovery(null)}>
              Done
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

function Invitations({ userId, roles }: { userId: string; roles: MemberRole[] }) {
  const [list, refetch] = useQuery({ query: InvitationsDocument, variables: { userId }, requestPolicy: 'cache-and-network' });
  const [{ fetching }, invite] = useMutation(InviteMemberDocument);
  const [, revoke] = useMutation(RevokeInvitationDocument);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('VIEWER');
  const [zones, setZones] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [link, setLink] = useState<{ email: string; link: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const linkField = useRef<HTMLInputElement>(null);
  const emailField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (link) linkField.current?.focus();
  }, [link]);
  const invitations = list.data?.invitations ?? [];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await invite({
      input: { userId, email: email.trim(), role, zones: role === 'EDITOR' ? zoneList(zones) : null },
    });
    if (result.error) {
      const found: Record<string, string> = {};
      for (const d of errorDetails(result.error)) found[leafField(d.field)] = d.message;
      setProblems(Object.keys(found).length ? found : { form: describeError(result.error) });
      return;
    }
    setProblems({});
    setEmail('');
    setZones('');
    // without PUBLIC_ORIGIN the API's link is a path: the console makes it whole with its own origin
    setLink({
      email: result.data!.inviteMember.invitation.email,
      link: new URL(result.data!.inviteMember.link, location.origin).href,
    });
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      {note && <p role="status">{note}</p>}
      <ListState
        error={list.error}
        loaded={!!list.data}
        what="invitations"
        empty={invitations.length === 0 && 'No open invitation.'}
        labelledBy="invitations-title"
      >
        <table className="invitations">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Good until</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {invitations.map((i) => (
              <tr key={i.id}>
                <td>{i.email}</td>
                <td>
                  {roleWords(i.role)}
                  {i.zones?.length ? ` (${i.zones.join(', ')})` : ''}
                </td>
                <td>{when(i.expiresAt)}</td>
                <td>
                  <button
                    type="button"
                    className="small"
                    aria-label={`Revoke the invitation of ${i.email}`}
                    onClick={async () => {
                      const result = await revoke({ id: i.id });
                      setNote(result.error ? describeError(result.error) : `The invitation of ${i.email} was revoked.`);
                      refetch({ requestPolicy: 'network-only' });
                      emailField.current?.focus();
                    }}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {link && (
        <div className="panel" role="status">
          <h3>Invitation link for {link.email}</h3>
          <p>
            Pass this link on to {link.email} yourself: Zonekeeper sends no e-mail. It works once, for that address, and is not shown again.
          </p>
          <label htmlFor="invitation-link">Invitation link</label>
          <input
            id="invitation-link"
            ref={linkField}
            className="mono secret"
            readOnly
            value={link.link}
            onFocus={(e) => e.target.select()}
          />
          <div className="actions">
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setLink(null);
                emailField.current?.focus();
              }}
            >
              Done
            </button>
          </div>
        </div>
      )}
      <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-invitation-title">
        <h3 id="new-invitation-title">Invite someone</h3>
        {problems.form && (
          <p role="alert" className="error-box">
            {problems.form}
          </p>
        )}
        <div className="form-grid">
          <div className="field">
            <label htmlFor="invite-email">E-mail address</label>
            <input
              id="invite-email"
              ref={emailField}
              type="email"
              autoComplete="off"
              value={email}
              aria-invalid={!!problems.email || undefined}
              aria-describedby={problems.email ? 'invite-email-error' : undefined}
              onChange={(e) => setEmail(e.target.value)}
            />
            {problems.email && (
              <p id="invite-email-error" className="field-error">
                {problems.email}
              </p>
            )}
          </div>
          <div className="field">
            <label htmlFor="invite-role">Role</label>
            <select
              id="invite-role"
              value={role}
              aria-describedby={roles.includes('OWNER') ? undefined : 'invite-role-hint'}
              onChange={(e) => setRole(e.target.value as MemberRole)}
            >
              {roles.map((r) => (
                <option key={r} value={r}>
                  {ROLE_WORDS[r]}
                </option>
              ))}
            </select>
            {!roles.includes('OWNER') && (
              <p id="invite-role-hint" className="hint">
                An owner invites owners.
              </p>
            )}
          </div>
          {role === 'EDITOR' && (
            <div className="field">
              <label htmlFor="invite-zones">Zones the editor may change</label>
              <input
                id="invite-zones"
                value={zones}
                placeholder="every zone"
                aria-describedby="invite-zones-hint"
                onChange={(e) => setZones(e.target.value)}
              />
              <p id="invite-zones-hint" className="hint">
                Zone names separated by commas; empty: every zone of the account.
              </p>
            </div>
          )}
        </div>
        <div className="actions">
          <button type="submit" disabled={fetching}>
            Create invitation
          </button>
        </div>
      </form>
    </section>
  );
}

/** #/invitation/<token>: the person signed in accepts it (it is for their address only, and works once). */
export function AcceptInvitation({ token, onAccepted }: { token: string; onAccepted: () => void }) {
  const identity = useIdentity();
  const [{ fetching }, accept] = useMutation(AcceptInvitationDocument);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  if (identity.kind !== 'session') {
    return (
      <p className="error-box">An invitation is accepted by a person signed in, not with an API key: sign out, then sign in as yourself.</p>
    );
  }
  return (
    <section aria-labelledby="invitation-title">
      <h1 id="invitation-title" ref={heading} tabIndex={-1}>
        An invitation
      </h1>
      {outcome ? (
        <p role={outcome.ok ? 'status' : 'alert'} className={outcome.ok ? 'ok-box' : 'error-box'}>
          {outcome.text}
        </p>
      ) : (
        <p>You were invited to an account. Accept it to become a member, as {identity.email}.</p>
      )}
      {!outcome?.ok && (
        <button
          type="button"
          disabled={fetching}
          onClick={async () => {
            const result = await accept({ token });
            if (result.error) return setOutcome({ ok: false, text: describeError(result.error) });
            const m = result.data!.acceptInvitation;
            setOutcome({ ok: true, text: `You are now ${roleWords(m.role).toLowerCase()} of the account ${m.accountEmail}.` });
            onAccepted();
          }}
        >
          Accept the invitation
        </button>
      )}
      {outcome?.ok && <a href="#/">Go to the zones</a>}
    </section>
  );
}
