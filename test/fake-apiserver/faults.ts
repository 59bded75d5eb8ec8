/** Injected failures: the Status bodies and headers a real apiserver sends for 429, 500, 503 and 409. */
import { ResourceInfo } from './resources';
import { ApiError, conflict } from './status';
import { FaultMatch } from './types';

export interface FaultRule {
  readonly match: FaultMatch;
  remaining: number;
  readonly status: number;
  readonly retryAfterSeconds?: number;
}

export function faultError(rule: FaultRule, res: ResourceInfo, name: string | undefined): ApiError {
  switch (rule.status) {
    case 429: {
      const seconds = rule.retryAfterSeconds ?? 1;
      const err = new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: seconds });
      err.headers['Retry-After'] = String(seconds);
      return err;
    }
    case 503: {
      const err = new ApiError(503, 'ServiceUnavailable', 'The server is currently unable to handle the request',
        rule.retryAfterSeconds !== undefined ? { retryAfterSeconds: rule.retryAfterSeconds } : undefined);
      if (rule.retryAfterSeconds !== undefined) err.headers['Retry-After'] = String(rule.retryAfterSeconds);
      return err;
    }
    case 409:
      return conflict(res, name ?? '');
    default:
      return new ApiError(500, 'InternalError', 'Internal error occurred: injected fault', { causes: [{ reason: '', message: 'injected fault', field: '' }] });
  }
}
