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
}

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

export function scenarios(s: Seeded): Scenario[] {
  const auth = { authorization: `Bearer ${s.token}` };
  return [
    { name: 'GET /units/{id}', path: `/units/${s.sampleUnitId}`, headers: auth },
    { name: 'GET /projects?name=Tower 12&limit=20', path: `/projects?filters=${q({ name: 'Tower 12' })}&options=${q({ limit: 20 })}`, headers: auth },
  ];
}
