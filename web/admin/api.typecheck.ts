/*
 * What the console's client refuses, checked by `tsc -p web/admin` (npm run typecheck) and never run: each
 * `@ts-expect-error` line is a call the document does not allow, and the check fails if it ever compiles.
 */
import { api, all, fetchFile, request, requestText } from './api.ts';
import type { Unit, User } from './types.ts';

export async function clientTypes(id: string): Promise<unknown[]> {
  // What the document allows, with the answers it types.
  const unit: Unit = await api.get(`/units/${id}`);
  const units: Unit[] = await all('/units', { query: { project: id, 'options[sort]': 'name' } });
  const me: User = await api.post('/users/login', { body: { username: 'a', password: 'b' }, noRefresh: true });
  await api.patch(`/units/${id}`, { body: { price: 1 }, ifMatch: '"1"' });
  await api.get(`/units/${id}/history`, { query: { limit: 1 } });
  await request('post', `/projects/${id}/inventory/import`, { query: { dryRun: true }, raw: 'name\nA1', contentType: 'text/csv' });
  await fetchFile('/leads', { query: { format: 'xlsx' } });
  await requestText(`/projects/${id}/inventory/template`);

  // A path the document does not have, or not for this method.
  // @ts-expect-error: no such path
  await api.get('/unit');
  // @ts-expect-error: /units/{id} takes no POST
  await api.post(`/units/${id}`);
  // @ts-expect-error: a path of two segments is not one of three
  await api.get(`/units/${id}/history/${id}`);

  // A query that is not the operation's.
  // @ts-expect-error: the query goes in `query`, where it is checked
  await api.get(`/units/${id}/history?limit=1`);
  // @ts-expect-error: GET /units requires `project`
  await all('/units');
  // @ts-expect-error: no `colour` parameter
  await all('/units', { query: { project: id, colour: 'red' } });
  // @ts-expect-error: `options[limit]` is a number
  await all('/units', { query: { project: id, 'options[limit]': 'ten' } });
  // @ts-expect-error: not a sort the operation knows
  await all('/units', { query: { project: id, 'options[sort]': 'price' } });
  // @ts-expect-error: GET /users/me takes no query
  await api.get('/users/me', { query: { all: 1 } });

  // A body that is not the operation's.
  // @ts-expect-error: PATCH /units (all or nothing) requires its list
  await api.patch('/units');
  // @ts-expect-error: no `colour` field
  await api.patch(`/units/${id}`, { body: { colour: 'red' } });
  // @ts-expect-error: `price` is a number
  await api.patch(`/units/${id}`, { body: { price: '100' } });
  // @ts-expect-error: a token's `scope` is read or write
  await api.post('/users/me/tokens', { body: { name: 'ci', scope: 'admin' } });
  // @ts-expect-error: PATCH /units takes a list of changes, each naming its unit
  await api.patch('/units', { body: [{ price: 1 }] });
  // @ts-expect-error: a GET has no body
  await api.get(`/units/${id}`, { body: { price: 1 } });
  // @ts-expect-error: the import takes CSV, a workbook or JSON, not plain text
  await request('post', `/projects/${id}/inventory/import`, { raw: 'x', contentType: 'text/plain' });

  // An answer is what the document says.
  // @ts-expect-error: GET /users/me answers a user, not a list
  const list: User[] = await api.get('/users/me');

  // Files come from the paths that answer one.
  // @ts-expect-error: GET /units/{id} answers JSON only
  await fetchFile(`/units/${id}`);
  // @ts-expect-error: the template is CSV or Excel, nothing else
  await fetchFile(`/projects/${id}/inventory/template`, { query: { format: 'pdf' } });
  return [unit, units, me, list];
}
