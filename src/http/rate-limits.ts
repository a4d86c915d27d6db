import type { Config } from '../config.ts';

/** A @fastify/rate-limit route config: `max` requests per client address per minute. */
export function perMinute(max: number): { max: number; timeWindow: number } {
  return { max, timeWindow: 60_000 };
}

/**
 * The one limit shared by the routes that mail a link or spend one (invitations, password resets), so a client
 * cannot use either to flood a mailbox or guess tokens: ACCOUNT_REQUESTS_PER_MINUTE per client address.
 */
export function accountRequestLimit(config: Config): { max: number; timeWindow: number } {
  return perMinute(config.mail.accountRequestsPerMinute);
}
