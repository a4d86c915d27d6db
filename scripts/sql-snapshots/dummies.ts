// The values every snapshot call is made with. Each is distinctive, so the unit test can tell that none of them
// reached a statement's text: values travel as parameters ($1, $2, …), never written into the SQL.
import type { Principal } from '../../src/http/auth.ts';

export const ID = 'a1a1a1a1a1a1a1a1a1a1a1a1';
export const ID2 = 'b2b2b2b2b2b2b2b2b2b2b2b2';
export const TEXT = 'x-dummy';
export const EMAIL = 'x-dummy@example.com';
export const AT = new Date('2001-02-03T04:05:06.000Z');
export const NOW = AT.getTime();
export const DAY = '2001-02-03';

export const USER: Principal = { id: ID, username: EMAIL, role: 'user', sid: ID2 };
export const ADMIN: Principal = { id: ID, username: EMAIL, role: 'admin', sid: ID2 };

/** What a statement's text must never contain: the values above, as the driver would have been given them. */
export const NEVER_IN_SQL = ['a1a1a1', 'b2b2b2', TEXT, '2001-02-03', '2001-02-02', String(NOW), '04:05:06'];
