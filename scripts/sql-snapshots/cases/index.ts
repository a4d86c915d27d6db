// Every repository file's calls, as the SQL snapshots make them (scripts/sql-snapshots/record.ts).
import catalogue from './catalogue.ts';
import db from './db.ts';
import events from './events.ts';
import people from './people.ts';
import publicCases from './public.ts';
import sales from './sales.ts';

export const REPO_CASES = [...db, ...catalogue, ...people, ...sales, ...events, ...publicCases];
