import { randomBytes } from 'node:crypto';

/**
 * The shape of an API token's secret: `sst_` and 256 random bits in base64url (43 characters). The prefix tells it
 * from a session JWT (which starts `eyJ`) without parsing, and lets secret scanners find leaked ones.
 */
export const API_TOKEN_PREFIX = 'sst_';
const SHAPE = /^sst_[A-Za-z0-9_-]{43}$/;

export const newApiTokenSecret = () => API_TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** A token of this shape is an API token (to look up); anything else starting `sst_` is refused unread. */
export const isApiTokenShape = (token: string) => SHAPE.test(token);
export const looksLikeApiToken = (token: string) => token.startsWith(API_TOKEN_PREFIX);
