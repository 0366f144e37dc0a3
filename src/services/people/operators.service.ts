import { personPrincipal, requireAdmin, type Principal } from '../../auth/principal';
import { DomainError } from '../../errors/catalogue';
import type { Sql } from '../../db/pool';
import {
  lockOperatorGrant,
  operatorsList,
  personByEmail,
  personById,
  PersonRow,
  setOperatorGrant,
  type OperatorGrant,
  type OperatorRow,
} from '../../repositories/people';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { recordAuditEvent } from '../audit-log';

export type { OperatorRow, OperatorGrant } from '../../repositories/people';

/**
 * The operator as a person (docs/people.md, «The operator»): who besides the admin key administers every
 * account. A person's grant is `hand` (given here, by the admin key or another operator, through GraphQL or the
 * CLI) or `oidc` (given by an OpenID Connect sign-in's claim, `signedIn`); what an operator may do is decided in
 * src/auth/principal.ts (an operator person's session is of kind admin). Every change is audited
 * (`operator-granted`, `operator-revoked`, subject `person:<id>`); a call that changes nothing records nothing.
 */
export class OperatorsService {
  list(ctx: RequestContext): Promise<OperatorRow[]> {
    requireAdmin(ctx.principal);
    return operatorsList(ctx.db);
  }

  /** makes the person an operator by hand: a grant that came from OIDC becomes one by hand (a sign-in keeps it) */
  grant(ctx: RequestContext, who: string): Promise<OperatorRow> {
    requireAdmin(ctx.principal);
    return this.change(ctx, who, 'hand');
  }

  /**
   * the person is no operator any more, whatever made them one (an OIDC grant comes back at the person's next
   * sign-in with the claim: the provider decides it); allowed for oneself too: the admin key always remains
   */
  revoke(ctx: RequestContext, who: string): Promise<OperatorRow> {
    requireAdmin(ctx.principal);
    return this.change(ctx, who, null);
  }

  private change(ctx: RequestContext, who: string, grant: OperatorGrant | null): Promise<OperatorRow> {
    return inTransaction(ctx.db, async (sql) => {
      const person = await personNamed(sql, who);
      const before = (await lockOperatorGrant(sql, person.id))?.grant ?? null;
      if (before === grant) return (await setOperatorGrant(sql, person.id, grant))!;
      const after = (await setOperatorGrant(sql, person.id, grant))!;
      await auditChange(sql, ctx.principal, person.id, before, grant);
      return after;
    });
  }
}

/**
 * In the caller's transaction (SessionsService.start, an OpenID Connect sign-in): the claim named an operator
 * value (`operator` true) or did not. Without one, the person becomes an operator by OIDC; with none, a grant
 * by OIDC is taken back; a grant by hand stays either way (only a hand revoke removes it).
 */
export async function operatorAtSignIn(sql: Sql, person: PersonRow, operator: boolean, claim: string): Promise<void> {
  const before = (await lockOperatorGrant(sql, person.id))?.grant ?? null;
  const after: OperatorGrant | null = operator ? (before ?? 'oidc') : before === 'oidc' ? null : before;
  if (after === before) return;
  await setOperatorGrant(sql, person.id, after);
  await auditChange(sql, personPrincipal(person), person.id, before, after, { claim });
}

function auditChange(
  sql: Sql,
  actor: Principal,
  personId: number,
  before: OperatorGrant | null,
  after: OperatorGrant | null,
  more: Record<string, unknown> = {},
): Promise<void> {
  return recordAuditEvent(sql, {
    kind: after === null ? 'operator-revoked' : 'operator-granted',
    actor,
    subject: `person:${personId}`,
    detail: { personId, grant: after ?? before, ...(after !== null && before !== null ? { before } : {}), ...more },
  });
}

/** a person by id (digits) or by e-mail address; PERSON_NOT_FOUND (field `person`) for one the service does not know */
async function personNamed(sql: Sql, who: string): Promise<PersonRow> {
  const text = String(who).trim();
  if (!text) throw DomainError.invalid('person', 'person: an e-mail address or a person id', 'REQUIRED');
  const person = /^\d+$/.test(text)
    ? Number(text) <= Number.MAX_SAFE_INTEGER
      ? await personById(sql, Number(text))
      : undefined
    : await personByEmail(sql, text, false);
  if (!person) throw DomainError.notFound('PERSON_NOT_FOUND', 'person');
  return person;
}
