import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf, type Principal } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { IdParams, NoContent, problems } from '../../http/schemas.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { LIST_TEXT, ListOptions, TotalHeader, UpdatedSince } from '../shared/list.ts';
import { createIdempotently, type Created } from '../shared/idempotent.ts';
import { authorize, can, levelOf } from '../shared/access.ts';
import { objectQuery } from '../shared/query.ts';
import { changedFields, checkBodyId, ifMatchVersion, invalid, staleWrite, withEtag } from '../shared/records.ts';
import { deleteGroup, findGroup, insertGroup, listGroups, setGroupProjects, toGroup, updateGroup, type GroupChange } from './groups.repo.ts';
import { GROUP_DEFAULTS, GroupCreateQuery, GroupPatchSchema } from './groups.schemas.ts';

const Group = Type.Ref('Group');
const ETag = { ETag: { type: 'string' } };
const COLUMN_OF = {
  name: 'name',
  namespace: 'namespace',
  hostName: 'host_name',
  administrators: 'administrators',
  editors: 'editors',
  user: 'user_id',
} as const;

function toChange(fields: Record<string, unknown>): { change: GroupChange; projects: string[] | undefined } {
  const change: GroupChange = { columns: {}, data: {} };
  let projects: string[] | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'projects') projects = value as string[];
    else if (key in COLUMN_OF)
      (change.columns as Record<string, unknown>)[COLUMN_OF[key as keyof typeof COLUMN_OF]] = key === 'hostName' ? String(value).toLowerCase() : value;
    else change.data[key] = value;
  }
  return { change, projects };
}

export const groupRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const db = ctx.db.kysely;

  /** `group.projects` may hold only projects the caller can see (CONTRACT §4). */
  async function checkProjects(principal: Principal, ids: string[]) {
    if (!ids.length) return;
    const rows = await db.selectFrom('projects').select(['id', 'user_id', 'administrators', 'editors']).where('id', 'in', ids).execute();
    const visible = new Set(rows.filter((r) => levelOf(principal, r)).map((r) => r.id));
    const errors = ids.flatMap((id, i) => (visible.has(id) ? [] : [{ path: `/projects/${i}`, message: 'is not a project you can see' }]));
    if (new Set(ids).size !== ids.length) errors.push({ path: '/projects', message: 'must not repeat an id' });
    if (errors.length) invalid(errors);
  }

  app.post(
    '/groups',
    {
      schema: {
        tags: ['groups'],
        summary: 'Create a group (the caller owns it)',
        description: 'Query parameters `name`, `namespace`, `hostName`; other Group fields may come in a JSON body (query parameters win).',
        querystring: GroupCreateQuery,
        body: Type.Omit(GroupPatchSchema, ['user', '_id', '__v', 'createdAt', 'updatedAt']),
        response: { 201: { ...Group, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 409, 415) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const fields = { ...GROUP_DEFAULTS, ...request.body, ...request.query };
      if (!fields.name) invalid([{ path: '/name', message: 'is required' }]);
      const { change, projects } = toChange(fields);
      await checkProjects(principal, projects ?? []);
      const id = newObjectId(ctx.clock.now());
      return createIdempotently(
        db,
        request,
        reply,
        'groups',
        (groupId) => `/groups/${groupId}`,
        async (trx) => {
          await insertGroup(trx, { id, userId: principal.id, change });
          await setGroupProjects(trx, id, projects ?? []);
          const row = (await findGroup(trx, id))!;
          return { record: toGroup(row) as Created['record'], version: row.version };
        },
      );
    },
  );

  app.get(
    '/groups',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        tags: ['groups'],
        summary: 'Visible groups',
        description: LIST_TEXT,
        querystring: Type.Object(
          {
            filters: Type.Optional(Type.Object({ updatedSince: Type.Optional(UpdatedSince) }, { additionalProperties: false })),
            options: Type.Optional(ListOptions),
          },
          { additionalProperties: false },
        ),
        response: { 200: { ...Type.Array(Group), headers: TotalHeader }, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const { filters = {}, options = {} } = request.query;
      const principal = principalOf(request);
      const skip = options.skip ?? 0;
      const { rows, total } = await listGroups(db, principal, { ...filters, skip, limit: options.limit ?? 100, sort: options.sort ?? '-createdAt' });
      // Past the last page the window count has no row to ride on; count separately so the header stays truthful.
      const count = rows.length || !skip ? total : (await listGroups(db, principal, { ...filters, skip: 0, limit: 1, sort: '-createdAt' })).total;
      reply.header('X-Total-Count', String(count));
      return rows.map(toGroup);
    },
  );

  app.get(
    '/groups/:id',
    { schema: { tags: ['groups'], summary: 'Fetch one group', params: IdParams, response: { 200: { ...Group, headers: ETag }, ...problems(400, 401, 404) } } },
    async (request, reply) => {
      const row = await findGroup(db, request.params.id);
      authorize(principalOf(request), row, 'read', 'Group');
      withEtag(reply, row!.version);
      return toGroup(row!);
    },
  );

  app.patch(
    '/groups/:id',
    {
      schema: {
        tags: ['groups'],
        summary: 'Update a group',
        description:
          'Only the fields sent change; a fetched record may be sent back whole. `projects` may hold only projects the caller can see. `If-Match` with a stale ETag → 412.',
        params: IdParams,
        body: GroupPatchSchema,
        response: { 200: { ...Group, headers: ETag }, ...problems(400, 401, 403, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const row = await findGroup(db, request.params.id);
      const { level } = authorize(principal, row, 'edit', 'Group');
      const group = row!;
      const ifVersion = ifMatchVersion(request, group.version);
      checkBodyId(request.body, group.id);
      const changes = changedFields(request.body, toGroup(group));
      const keys = Object.keys(changes);
      if (keys.includes('user') && !can(level, 'own')) throw new AppError(403, 'forbidden', 'Only the owner may change the owner');
      const managed = keys.filter((k) => ['administrators', 'editors', 'invites'].includes(k));
      if (managed.length && !can(level, 'manage')) throw new AppError(403, 'forbidden', `Editors may not change ${managed.join(', ')}`);
      if (keys.length) {
        const { change, projects } = toChange(changes);
        if (projects) await checkProjects(principal, projects);
        await db.transaction().execute(async (trx) => {
          if (!(await updateGroup(trx, group.id, change, ifVersion))) throw staleWrite();
          if (projects) await setGroupProjects(trx, group.id, projects);
        });
      }
      const updated = (await findGroup(db, group.id))!;
      withEtag(reply, updated.version);
      return toGroup(updated);
    },
  );

  app.delete(
    '/groups/:id',
    {
      schema: {
        tags: ['groups'],
        summary: 'Delete a group (owner only); its projects stay',
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const row = await findGroup(db, request.params.id);
      authorize(principalOf(request), row, 'own', 'Group');
      const ifVersion = ifMatchVersion(request, row!.version);
      if (!(await deleteGroup(db, row!.id, ifVersion))) throw staleWrite();
      return reply.code(204).send();
    },
  );
};
