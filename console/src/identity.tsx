import { createContext, useContext } from 'react';
import { useQuery } from 'urql';
import { ViewerDocument, type MemberRole, type MembershipFieldsFragment, type ViewerQuery } from './generated/graphql';

/**
 * Who the console acts as, for the screens that need an account's id (members, keys, transfers): a person signed
 * in (a session: `me` says the account acted in, the role there and every membership), or a key. A user key
 * learns its account from `users` (it sees only its own user); the admin key has none of its own.
 */
export interface Identity {
  kind: 'key' | 'session';
  /** the account acted in; null: the admin key, or a person who is no member of any account yet */
  accountId: string | null;
  /** the person's role in that account (a key: null) */
  role: MemberRole | null;
  /** the person's e-mail address (a key: null) */
  email: string | null;
  memberships: MembershipFieldsFragment[];
  /** the admin key: every account, keys without a user */
  admin: boolean;
  /**
   * the operator: the admin key, or a person the service made an operator (docs/people.md, «The operator»), as
   * the API says it (`viewer { can { administer } }`): the Administration, the audit log, the nameserver sets
   */
  operator: boolean;
}

export const IdentityContext = createContext<Identity>({
  kind: 'key',
  accountId: null,
  role: null,
  email: null,
  memberships: [],
  admin: false,
  operator: false,
});

export const useIdentity = () => useContext(IdentityContext);

/**
 * What the caller may do beyond one zone, as the API decides it (`viewer { can }`: the key's policy or the
 * person's role); undefined until it is known, when nothing is offered. One query, shared by every screen (the cache).
 */
export function useViewerCan(): ViewerQuery['viewer']['can'] | undefined {
  const [viewer] = useQuery({ query: ViewerDocument });
  return viewer.data?.viewer.can;
}

/** The console's words for a role (the API's MemberRole). */
export const ROLE_WORDS: Record<MemberRole, string> = {
  OWNER: 'Owner',
  ADMIN: 'Admin',
  EDITOR: 'Editor',
  VIEWER: 'Viewer',
};

/** a role's words; the sign-in routes answer the stored lower-case value, GraphQL the enum's */
export const roleWords = (role: string | null | undefined) => (role ? (ROLE_WORDS[role.toUpperCase() as MemberRole] ?? role) : '');

/** a date and time as people read it in this console */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en') : '');
