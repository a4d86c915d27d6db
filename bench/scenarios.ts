import type { Seeded } from './seed.ts';
import { projectSearchStatement } from './bare-server.ts';
import type { Statement } from './db-alone.ts';

/**
 * One request shape, sent to the bare server and to the service alike. To add a benchmark (the public bundle,
 * say), add an entry here; `bare: false` when the bare server does not implement it (the service is then measured alone).
 */
export interface Scenario {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  bare?: boolean;
  /** Send If-None-Match with the ETag each server gave for the same path; 304 answers count as successful. */
  revalidate?: boolean;
  /** The scenario's statement, also run with no HTTP server (bench/db-alone.ts): the database's own ceiling. */
  statement?: Statement;
}

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

export function scenarios(s: Seeded): Scenario[] {
  const auth = { authorization: `Bearer ${s.token}` };
  return [
    { name: 'GET /units/{id}', path: `/units/${s.sampleUnitId}`, headers: auth },
    {
      name: 'GET /projects?name=Tower 12&limit=20',
      path: `/projects?filters=${q({ name: 'Tower 12' })}&options=${q({ limit: 20 })}`,
      headers: auth,
      statement: projectSearchStatement({ id: s.userId, role: 'user' }, { name: 'Tower 12', column: 'p.created_at', descending: true, skip: 0, limit: 20 }),
    },
    // The public presentation bundle of the showcase project (20 floors × 500 units), full and revalidated.
    { name: 'GET /public/projects/{ns} full', path: `/public/projects/${s.showcaseNamespace}` },
    { name: 'GET /public/projects/{ns} If-None-Match', path: `/public/projects/${s.showcaseNamespace}`, revalidate: true },
  ];
}
