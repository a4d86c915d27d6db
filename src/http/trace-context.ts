/** A W3C Trace Context `traceparent` header, read (version 00 and later versions' first four fields). */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** The trace-flags byte (bit 0: sampled). */
  flags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * The caller's trace, or undefined when the header is absent or malformed (the request then starts a trace of its
 * own). Version ff is invalid; version 00 has exactly four fields; a later version may add fields after them.
 */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string') return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}
