import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTimeZone, projectTime, projectZone } from '../../src/lib/project-time.ts';

test('an instant in the project’s zone and language, the zone named; an unknown zone reads as UTC', () => {
  const at = '2026-11-28T16:06:00Z';
  assert.equal(projectTime(at, { timeZone: 'America/Toronto' }, 'en'), 'Nov 28, 2026, 11:06 AM (America/Toronto)');
  assert.equal(projectTime(at, { timeZone: 'Europe/Paris' }, 'fr'), '28 nov. 2026, 17:06 (Europe/Paris)');
  assert.equal(projectTime(at, { timeZone: 'Mars/Olympus' }, 'en'), 'Nov 28, 2026, 4:06 PM (UTC)');
  assert.equal(projectTime(at, {}, 'es'), '28 nov 2026, 16:06 (UTC)');
  // Asked again (the formatter kept), the same text.
  assert.equal(projectTime(new Date(at), { timeZone: 'America/Toronto' }, 'en'), 'Nov 28, 2026, 11:06 AM (America/Toronto)');
  assert.equal(isTimeZone('Mars/Olympus'), false, 'a zone Intl refused once is refused again (nothing kept for it)');
  assert.equal(projectZone({ timeZone: 42 }), 'UTC');
});
