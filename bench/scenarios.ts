import type { Seeded } from './seed.ts';

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
}

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

export function scenarios(s: Seeded): Scenario[] {
  const auth = { authorization: `Bearer ${s.token}` };
  return [
    { name: 'GET /units/{id}', path: `/units/${s.sampleUnitId}`, headers: auth },
    { name: 'GET /projects?name=Tower 12&limit=20', path: `/projects?filters=${q({ name: 'Tower 12' })}&options=${q({ limit: 20 })}`, headers: auth },
    // The public presentation bundle of the showcase project (20 floors × 500 units), full and revalidated.
    { name: 'GET /public/projects/{ns} full', path: `/public/projects/${s.showcaseNamespace}` },
    { name: 'GET /public/projects/{ns} If-None-Match', path: `/public/projects/${s.showcaseNamespace}`, revalidate: true },
  ];
}
