import { decide, readsRecord, type KeyPolicy } from '../../auth/policy';
import { parseOwner } from '../../dns/name';
import { getRecordType } from '../../dns/record-types';
import { DomainError, errorFromProblems, type ErrorDetail } from '../../errors/catalogue';
import { commentsOfZone, RrsetComments } from '../../repositories/rrset-comments';
import type { RequestContext } from '../context';

/** PowerDNS's own bounds (its SQL schemas' `comments.content` and `comments.account` columns) */
export const MAX_COMMENT_CONTENT = 65_535;
export const MAX_COMMENT_ACCOUNT = 40;
/** the latest `modified_at`: PowerDNS keeps it as a signed 32-bit count of seconds (its schemas' INT column) */
export const MAX_COMMENT_MODIFIED_AT = new Date((2 ** 31 - 1) * 1000);
/** comments one RRset may carry: one per record is what PowerDNS-Admin writes */
export const MAX_COMMENTS_PER_RRSET = 1_000;

/** the comments a caller gives an RRset: the owner as written (absolute or relative to the zone), the type's mnemonic */
export interface RrsetCommentsInput {
  owner: string;
  type: string;
  comments: { content: string; account: string; modifiedAt?: Date }[];
}

/**
 * Comments on RRsets (docs/powerdns-api.md): free text beside an owner and type, as PowerDNS keeps them. They are
 * not DNS data (never served, transferred or signed, not in the history), but they are the zone's: written in a
 * change set's transaction (ZoneChangesService, all or nothing with its records), under the key's policy for the
 * RRset they describe, and read only where the key may read that RRset.
 */
export class RrsetCommentsService {
  /** The comments a change set brings, read and checked: each set's problems named `comments[i]…`. */
  check(zone: string, input: readonly RrsetCommentsInput[]): { sets: RrsetComments[]; problems: ErrorDetail[] } {
    const problems: ErrorDetail[] = [];
    const sets: RrsetComments[] = [];
    const now = new Date();
    input.forEach((set, index) => {
      const field = `comments[${index}]`;
      const refuse = (at: string, code: string, message: string) =>
        problems.push({ field: `${field}${at}`, code, message: `${field}${at}: ${message}` });
      const owner = parseOwner(set.owner, zone, `${field}.owner`);
      if (!owner.ok) {
        problems.push(...owner.problems);
        return;
      }
      const type = getRecordType(set.type.toUpperCase());
      if (!type) return void refuse('.type', 'INVALID_TYPE', `${set.type} is not a record type Zonekeeper knows`);
      if (set.comments.length > MAX_COMMENTS_PER_RRSET)
        return void refuse('.comments', 'TOO_MANY_COMMENTS', `an RRset carries at most ${MAX_COMMENTS_PER_RRSET} comments`);
      set.comments.forEach((comment, i) => {
        if (comment.content.length > MAX_COMMENT_CONTENT)
          refuse(`.comments[${i}].content`, 'COMMENT_TOO_LONG', `a comment holds at most ${MAX_COMMENT_CONTENT} characters`);
        if (comment.account.length > MAX_COMMENT_ACCOUNT)
          refuse(`.comments[${i}].account`, 'COMMENT_TOO_LONG', `a comment's account holds at most ${MAX_COMMENT_ACCOUNT} characters`);
        const at = comment.modifiedAt?.getTime();
        if (at !== undefined && !(at >= 0 && at <= MAX_COMMENT_MODIFIED_AT.getTime()))
          refuse(
            `.comments[${i}].modifiedAt`,
            'COMMENT_DATE_OUT_OF_RANGE',
            `a comment's modified_at is at most 2^31 - 1 seconds since 1970`,
          );
      });
      sets.push({
        owner: owner.name,
        type: type.type,
        comments: set.comments.map((c) => ({ content: c.content, account: c.account, modifiedAt: c.modifiedAt ?? now })),
      });
    });
    return { sets, problems };
  }

  /** `check`, refusing the input whole at its first problem (a zone's creation checks its comments before it writes) */
  requireValid(zone: string, input: readonly RrsetCommentsInput[]): void {
    const { problems } = this.check(zone, input);
    if (problems.length) throw errorFromProblems(problems);
  }

  /**
   * A key comments the RRsets it may write: FORBIDDEN_BY_POLICY naming each set it may not, asked once the zone
   * is found (a zone the key cannot see is not found, whatever its comments).
   */
  requireWritable(zone: string, policy: KeyPolicy | undefined, sets: readonly RrsetComments[]): void {
    const refused: ErrorDetail[] = [];
    sets.forEach((set, index) => {
      const decision = decide(policy, { zone, owner: set.owner, type: set.type, access: 'write' });
      if (!decision.allowed)
        refused.push({ field: `comments[${index}]`, code: 'FORBIDDEN_BY_POLICY', message: `comments[${index}]: ${decision.missing}` });
    });
    if (refused.length) throw new DomainError('FORBIDDEN_BY_POLICY', refused[0].message, refused);
  }

  /** a zone's comments the caller may read (the RRsets its key may read), by owner and type */
  async list(
    ctx: RequestContext,
    zone: { id: number; name: string },
    filter: { owner?: string; type?: string } = {},
  ): Promise<RrsetComments[]> {
    const sets = await commentsOfZone(ctx.db, zone.id, filter);
    return sets.filter((set) => readsRecord(ctx.principal.policy, zone.name, set.owner, set.type));
  }
}
