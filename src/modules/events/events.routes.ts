import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize, can } from '../shared/access.ts';
import { findUnit } from '../units/units.repo.ts';
import { listEvents, listSubjectEvents, toEvent } from './events.repo.ts';
import { EventListQuery, HistoryEntry, HistoryQuery } from './events.schemas.ts';

export const eventRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const db = ctx.db.kysely;

  app.get(
    '/projects/:id/events',
    {
      schema: {
        operationId: 'listProjectEvents',
        tags: ['events'],
        summary: "The project's change log after a seq, oldest first",
        description:
          'Page through it by passing the last `seq` you have as `after`. Everyone who can read the project sees it; `lead.created`, `lead.updated` and `worksheet.*` events (they name buyers) only owners and administrators. ' +
          'Secrets appear by name only.',
        params: IdParams,
        querystring: EventListQuery,
        response: { 200: Type.Array(Type.Ref('Event')), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const { level } = authorize(principalOf(request), await findProjectMembership(db, request.params.id), 'read');
      const { after, limit } = request.query;
      const rows = await listEvents(db, request.params.id, { after, limit, withLeads: can(level, 'read-leads') });
      return rows.map(toEvent);
    },
  );

  app.get(
    '/units/:id/history',
    {
      schema: {
        operationId: 'listUnitHistory',
        tags: ['events'],
        summary: "A unit's changes, newest first",
        description: 'From the project change log: who changed what, when. `before` pages back.',
        params: IdParams,
        querystring: HistoryQuery,
        response: { 200: Type.Array(HistoryEntry), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      authorize(principalOf(request), await findUnit(db, request.params.id), 'read', 'Unit');
      const rows = await listSubjectEvents(db, request.params.id, request.query);
      return rows.map((r) => {
        const e = toEvent(r);
        return { seq: e.seq, type: e.type, at: e.createdAt, actor: e.actor, ...(e.data.changes ? { changes: e.data.changes } : {}) };
      });
    },
  );
};
