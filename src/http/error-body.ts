import { ERROR_CATALOGUE, ErrorCode, ErrorDetail, statusOf } from '../errors/catalogue';

/** The error body of every non-2xx answer outside GraphQL (docs/decisions.md §1). */
export interface ErrorBody {
  code: number;
  status: 'error';
  error: string;
  message: string;
  details: ErrorDetail[];
}

export function errorBody(code: ErrorCode, message: string = ERROR_CATALOGUE[code].message, details: ErrorDetail[] = []): ErrorBody {
  return { code: statusOf(code), status: 'error', error: code, message, details };
}
