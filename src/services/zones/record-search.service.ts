import { readRulesOf } from '../../auth/policy';
import { scopeUserId } from '../../auth/principal';
import { DomainError } from '../../errors/catalogue';
import { likePattern, type PageRequest, RecordRow } from '../../repositories/read-model';
import { countSearchedRecords, searchRecords, type SearchScope } from '../../repositories/record-search';
import type { RequestContext } from '../context';

/** the longest search the service takes (a name's length, RFC 1035 §2.3.4, and then some for contents) */
export const MAX_SEARCH_LENGTH = 255;

/**
 * How the query is read: `substring` (the console's search box, GraphQL's searchRecords: the text anywhere in
 * a name or a content, taken literally) or `glob` (PowerDNS's search-data: `*` any run, `?` one character,
 * matched against the whole name or content, the content as PowerDNS stores it: names without their final dot,
 * an MX's or SRV's priority left out, so `mail.example.org` finds `10 mail.example.org.`).
 */
export type SearchMode = 'substring' | 'glob';

export interface SearchQuery {
  query: string;
  mode: SearchMode;
  /** the field a refusal names (`query` in GraphQL, `q` in the PowerDNS API) */
  field?: string;
}

/**
 * The run of characters every match holds: the longest piece of the pattern's literal parts between `separators`
 * (the dot for names; the dot and the space for PowerDNS's contents, whose dropped final dots sit before a space)
 */
function pieceOf(literalParts: string[], separators: RegExp): string {
  const pieces = literalParts.flatMap((part) => part.split(separators));
  const longest = pieces.reduce((best, piece) => (piece.length > best.length ? piece : best), '');
  return likePattern(longest);
}

/**
 * The search across zones (docs/search.md): records whose absolute name (no final dot) or content matches,
 * in any letter case, among the records the caller may read: its user's zones (the admin: every zone), and a
 * restricted key's rules narrow it to the zones, owners and types they name (src/auth/policy.ts), as every
 * record list. What it costs on large data: the trigram indexes of Migration20261202030000.
 */
export class RecordSearchService {
  /** a page of the matches in record id order: `first` past the record ids `after` and `before` */
  search(ctx: RequestContext, query: SearchQuery, page: PageRequest): Promise<RecordRow[]> {
    return searchRecords(ctx.db, { ...this.searchOf(ctx, query), ...page });
  }

  count(ctx: RequestContext, query: SearchQuery): Promise<number> {
    return countSearchedRecords(ctx.db, this.searchOf(ctx, query));
  }

  private searchOf(ctx: RequestContext, { query, mode, field = 'query' }: SearchQuery): SearchScope {
    // a name's final dot is no part of the stored names: `www.example.com.` finds `www.example.com` (a lone `.`
    // stays: every absolute name holds one, a zone having two labels at least)
    const trimmed = query.trim().toLowerCase();
    const text = trimmed.length > 1 ? trimmed.replace(/\.$/, '') : trimmed;
    if (text === '') throw DomainError.invalid(field, `${field}: give a name or a content to search for`);
    if (text.length > MAX_SEARCH_LENGTH) throw DomainError.invalid(field, `${field}: at most ${MAX_SEARCH_LENGTH} characters`);
    const pattern = mode === 'glob' ? likePattern(text) : `%${likePattern(text)}%`;
    const literalParts = mode === 'glob' ? text.split(/[*?]/) : [text];
    return {
      pattern,
      namePiece: pieceOf(literalParts, /\./),
      contentForm: mode === 'glob' ? 'powerdns' : 'stored',
      contentPiece: mode === 'glob' ? pieceOf(literalParts, /[. ]/) : '',
      scopeUserId: scopeUserId(ctx.principal),
      readRules: readRulesOf(ctx.principal.policy),
    };
  }
}
