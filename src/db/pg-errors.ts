/**
 * The codes this map can produce: a subset of the catalogue in http/errors.ts (which imports this file, so this
 * file names its codes itself instead of importing them back: no import cycle).
 */
type ErrorCode = 'conflict' | 'invalid_body' | 'invalid_query' | 'database_unavailable';

/** The one place that turns database failures into HTTP: by SQLSTATE, or by network error for an unreachable server. */
const BY_SQLSTATE: Record<string, { status: number; code: ErrorCode; detail: string }> = {
  '23505': { status: 409, code: 'conflict', detail: 'A record with that value already exists' },
  '23503': { status: 400, code: 'invalid_body', detail: 'A value refers to a record that does not exist' },
  '22P02': { status: 400, code: 'invalid_body', detail: 'A value has the wrong format' },
  '22001': { status: 400, code: 'invalid_body', detail: 'A value is too long' },
  '23514': { status: 400, code: 'invalid_body', detail: 'A value is out of its allowed range' },
  '23502': { status: 400, code: 'invalid_body', detail: 'A required value is missing' },
  // Text the database cannot hold (U+0000, unpaired surrogates in JSON escapes): refused, not a fault.
  '22021': { status: 400, code: 'invalid_body', detail: 'A value contains a character that cannot be stored (such as U+0000)' },
  '22P05': { status: 400, code: 'invalid_body', detail: 'A value contains a character that cannot be stored (such as U+0000)' },
  '22003': { status: 400, code: 'invalid_body', detail: 'A number is out of range' },
  '2201W': { status: 400, code: 'invalid_query', detail: 'A limit is out of range' },
  '2201X': { status: 400, code: 'invalid_query', detail: 'An offset is out of range' },
  '22007': { status: 400, code: 'invalid_body', detail: 'A date or time has the wrong format' },
  '22008': { status: 400, code: 'invalid_body', detail: 'A date or time is out of range' },
  '54001': { status: 400, code: 'invalid_body', detail: 'A value is nested too deeply' },
  '40001': { status: 409, code: 'conflict', detail: 'Concurrent update; retry the request' },
  '40P01': { status: 409, code: 'conflict', detail: 'Concurrent update; retry the request' },
};

const UNAVAILABLE = { status: 503, code: 'database_unavailable' as ErrorCode, detail: 'The database is unavailable; retry shortly' };
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

export function problemFromDatabaseError(err: { code?: string; message?: string }) {
  const code = err.code ?? '';
  if (BY_SQLSTATE[code]) return BY_SQLSTATE[code];
  // 08: connection exception; 53: insufficient resources; 57P0x: server shutting down; 57014: statement timeout.
  if (/^(08|53|57P0)/.test(code) || code === '57014' || NETWORK.has(code)) return UNAVAILABLE;
  const msg = err.message ?? '';
  if (
    /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Query read timeout|Client has encountered a connection error/i.test(msg)
  ) {
    return UNAVAILABLE;
  }
  return undefined;
}
