import type { CombinedError } from 'urql';

export interface FieldProblem {
  field: string;
  code: string;
  message: string;
  current?: number;
  limit?: number;
  /** a zone check's finding (docs/changes.md, «Checks on every plan»): how much it weighs, its RRset, its RFC */
  severity?: 'error' | 'warning';
  owner?: string;
  type?: string;
  rfc?: string;
}

/** The catalogue's code of the first error (extensions.code, src/errors/catalogue.ts). */
export function errorCode(error: CombinedError | undefined): string | undefined {
  return error?.graphQLErrors[0]?.extensions?.code as string | undefined;
}

/**
 * The console's own words for some catalogue codes, where the service's message is terse ("Duplicate Zone"):
 * keyed by code, given what the person typed.
 */
const WORDS_FOR_CODE: Record<string, (subject: string) => string> = {
  DUPLICATE_ZONE: (zone) => `A zone named ${zone} already exists.`,
};

/** The console's sentence for a refused request's code, or undefined when the service's own message is the one. */
export function wordsForCode(error: CombinedError | undefined, subject: string): string | undefined {
  const code = errorCode(error);
  return code ? WORDS_FOR_CODE[code]?.(subject) : undefined;
}

/** Every problem the service listed (extensions.details: field, code, message). */
export function errorDetails(error: CombinedError | undefined): FieldProblem[] {
  return (error?.graphQLErrors ?? []).flatMap((e) => (e.extensions?.details as FieldProblem[] | undefined) ?? []);
}

/** A sentence for a person: the outage and the refused key get their own words; otherwise the service's message. */
export function describeError(error: CombinedError): string {
  const status = (error.response as Response | undefined)?.status;
  const code = errorCode(error);
  if (status === 503 || code === 'DATABASE_UNAVAILABLE') {
    return 'The service cannot reach its database right now (503). Nothing was changed; try again in a few seconds.';
  }
  if (status === 401 || code === 'UNAUTHENTICATED') return 'The API key was refused: it is mistyped or has been revoked.';
  if (error.networkError) return `The service could not be reached (${error.networkError.message}).`;
  return error.graphQLErrors.map((e) => e.message).join('; ') || error.message;
}

/** A problem's field name without its path (`changes[2].rdata` → rdata, `input.owner` → owner). */
export function leafField(field: string): string {
  return field.replace(/^.*[.\]]/, '');
}

/** The index of a change-set entry a problem names (`changes[2].rdata` → 2). */
export function changeIndex(field: string): number | undefined {
  const match = /^changes\[(\d+)\]/.exec(field);
  return match ? Number(match[1]) : undefined;
}
