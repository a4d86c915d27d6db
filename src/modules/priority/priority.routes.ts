import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { toLead } from '../leads/leads.repo.ts';
import { authorize } from '../shared/access.ts';
import { findUnit } from '../units/units.repo.ts';
import { listWaitingLeads } from './priority.repo.ts';

/** GET /units/{id}/waitlist: a unit's waiting list in rank order, for the owner and administrators. */
export const priorityRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.get(
    '/units/:id/waitlist',
    {
      schema: {
        operationId: 'listUnitsWaitlist',
        tags: ['leads'],
        summary: "A unit's waiting list in rank order (owner and administrators)",
        description:
          'The waitlist entries (leads with source "waitlist") for this unit, first in rank first. `offeredAt` marks an entry the priority list has offered the unit to. ' +
          "With the project's specialRankEnabled, PATCH /leads/{id} `{ rank }` moves an entry.",
        params: IdParams,
        response: { 200: Type.Array(Type.Ref('Lead')), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const db = ctx.db.kysely;
      const { row } = authorize(principalOf(request), await findUnit(db, request.params.id), 'read-leads', 'Unit');
      return (await listWaitingLeads(db, row.project_id, row.id)).map(toLead);
    },
  );
};
