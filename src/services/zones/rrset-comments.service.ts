import { decide, readsRecord, type KeyPolicy } from '../../auth/policy';
import { parseOwner } from '../../dns/name';
import { getRecordType } from '../../dns/record-types';
import { DomainError, errorFromProblems, type ErrorDetail } from '../../errors/catalogue';
import { commentsOfZone, commentText, commentTextsOf, RrsetComments, rrsetKey } from '../../repositories/rrset-comments';
import type { Sql } from '../../db/pool';
import type { JournalCommentChange } from '../../entities/change.entity';
import type { Settings } from '../../config/settings';
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
  /**
   * A comment given as one text (GraphQL, REST, the CLI, the console, a zone file's line; `textComment`): where
   * it was given (`field`: `comment`, `changes[3].comment`, `records[7]`; `at`: what its owner's and type's
   * problems are named after, `changes[3]`), held to MAX_COMMENT_LENGTH; `nameReadElsewhere`: its owner and type
   * are read with the change that carries it, which reports their problems.
   */
  given?: { field: string; at: string; nameReadElsewhere?: boolean; line?: number };
}

/** an RRset's comment given as one text: it becomes the RRset's one comment ('' removes it), of no account */
export function textComment(
  owner: string,
  type: string,
  text: string,
  given: NonNullable<RrsetCommentsInput['given']>,
): RrsetCommentsInput {
  return { owner, type, comments: text === '' ? [] : [{ content: text, account: '' }], given };
}

/**
 * Comments on RRsets (docs/changes.md, «Comments»; docs/powerdns-api.md): free text beside an owner and type, as
 * PowerDNS keeps them (a list per RRset; every other edge gives and reads one text, `commentText`). They are not
 * DNS data (never served, transferred or signed, and a change of comments alone steps no serial), but they are the
 * zone's and in its history: written in a change's transaction (ZoneChangesService, RecordsService, an import:
 * all or nothing with its records, journalled with them or, alone, in a row of their own), under the key's policy
 * for the RRset they describe, and read only where the key may read that RRset.
 */
export class RrsetCommentsService {
  constructor(private readonly settings: Pick<Settings, 'maxCommentLength'>) {}

  /**
   * The comments a change set brings, read and checked: each set's problems named `comments[i]…` (the PowerDNS
   * API's), or where a comment given as one text was given. One RRset is commented once in a set (DUPLICATE_COMMENT).
   */
  check(zone: string, input: readonly RrsetCommentsInput[]): { sets: RrsetComments[]; problems: ErrorDetail[] } {
    const problems: ErrorDetail[] = [];
    const sets: RrsetComments[] = [];
    const seen = new Set<string>();
    const now = new Date();
    input.forEach((set, index) => {
      const field = set.given?.at ?? `comments[${index}]`;
      const line = set.given?.line;
      const refuse = (at: string, code: string, message: string, limit?: number) =>
        problems.push({
          field: at,
          code,
          message: `${line === undefined ? '' : `line ${line}: `}${at}: ${message}`,
          ...(limit === undefined ? {} : { limit }),
          ...(line === undefined ? {} : { line }),
        });
      if (set.given) {
        const max = this.settings.maxCommentLength;
        const long = set.comments.find((c) => c.content.length > max);
        if (long)
          refuse(
            set.given.field,
            'COMMENT_TOO_LONG',
            `a comment holds at most ${max} characters (MAX_COMMENT_LENGTH); this one has ${long.content.length}`,
            max,
          );
      }
      const owner = parseOwner(set.owner, zone, `${field}.owner`);
      const type = getRecordType(set.type.toUpperCase());
      if (set.given?.nameReadElsewhere && (!owner.ok || !type)) return;
      if (!owner.ok) {
        problems.push(...owner.problems);
        return;
      }
      if (!type) return void refuse(`${field}.type`, 'INVALID_TYPE', `${set.type} is not a record type Zonekeeper knows`);
      if (set.comments.length > MAX_COMMENTS_PER_RRSET)
        return void refuse(`${field}.comments`, 'TOO_MANY_COMMENTS', `an RRset carries at most ${MAX_COMMENTS_PER_RRSET} comments`);
      if (!set.given)
        set.comments.forEach((comment, i) => {
          if (comment.content.length > MAX_COMMENT_CONTENT)
            refuse(`${field}.comments[${i}].content`, 'COMMENT_TOO_LONG', `a comment holds at most ${MAX_COMMENT_CONTENT} characters`);
          if (comment.account.length > MAX_COMMENT_ACCOUNT)
            refuse(
              `${field}.comments[${i}].account`,
              'COMMENT_TOO_LONG',
              `a comment's account holds at most ${MAX_COMMENT_ACCOUNT} characters`,
            );
          const at = comment.modifiedAt?.getTime();
          if (at !== undefined && !(at >= 0 && at <= MAX_COMMENT_MODIFIED_AT.getTime()))
            refuse(
              `${field}.comments[${i}].modifiedAt`,
              'COMMENT_DATE_OUT_OF_RANGE',
              `a comment's modified_at is at most 2^31 - 1 seconds since 1970`,
            );
        });
      const key = `${owner.name} ${type.type}`;
      if (seen.has(key))
        return void refuse(
          set.given?.field ?? field,
          'DUPLICATE_COMMENT',
          `the ${type.type} RRset at ${owner.name} is commented twice in one set; give its comment once`,
        );
      seen.add(key);
      sets.push({
        owner: owner.name,
        type: type.type,
        comments: set.comments.map((c) => ({ content: c.content, account: c.account, modifiedAt: c.modifiedAt ?? now })),
      });
    });
    return { sets, problems };
  }

  /**
   * A comment given as one text for the RRset of a record read already (a record's write: its owner and type are
   * the record's): the RRset's comments it makes, refused whole (COMMENT_TOO_LONG naming `field`) past
   * MAX_COMMENT_LENGTH, before anything is written
   */
  ofRecord(record: { owner: string; type: string }, text: string, field = 'comment'): RrsetComments {
    const max = this.settings.maxCommentLength;
    if (text.length > max)
      throw errorFromProblems([
        {
          field,
          code: 'COMMENT_TOO_LONG',
          message: `${field}: a comment holds at most ${max} characters (MAX_COMMENT_LENGTH); this one has ${text.length}`,
          limit: max,
        },
      ]);
    return {
      owner: record.owner,
      type: record.type,
      comments: text === '' ? [] : [{ content: text, account: '', modifiedAt: new Date() }],
    };
  }

  /**
   * What writing `sets` changes of the zone's comments, as its journal row keeps it (the history): each RRset
   * whose comment text (`commentText`) it changes, before and after. Read in the writing transaction, which holds
   * the zone row's lock (no other change of the zone's comments runs meanwhile).
   */
  async changesOf(sql: Sql, domainId: number, sets: readonly RrsetComments[]): Promise<JournalCommentChange[]> {
    const before = await commentTextsOf(
      sql,
      sets.map((set) => ({ domainId, owner: set.owner, type: set.type })),
    );
    const changes: JournalCommentChange[] = [];
    for (const set of sets) {
      const was = before.get(rrsetKey(domainId, set.owner, set.type)) ?? null;
      const now = commentText(set.comments);
      if (was !== now) changes.push({ owner: set.owner, type: set.type, before: was, after: now });
    }
    return changes;
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

  /**
   * The comment text (`commentText`) of each record's RRset, by `rrsetKey`: records the caller has read (so may
   * read their RRsets), in one statement whatever their number (`Record.comment`, REST's records).
   */
  textsOfRecords(ctx: RequestContext, records: readonly { domainId: number; owner: string; type: string }[]): Promise<Map<string, string>> {
    return commentTextsOf(ctx.db, records);
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
