import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { ObjectId, problems } from '../../http/schemas.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { objectQuery } from '../shared/query.ts';
import { listLeads, toLead } from './leads.repo.ts';

const LeadsQuery = Type.Object(
  {
    project: ObjectId,
    options: Type.Optional(
      Type.Object(
        { skip: Type.Optional(Type.Integer({ minimum: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const leadRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  app.get(
    '/leads',
    {
      preValidation: objectQuery(['options']),
      schema: {
        tags: ['leads'],
        summary: "A project's leads, newest first (owner and administrators)",
        description: '`options` as for GET /projects: `skip` ≥ 0 (0), `limit` 1–500 (100).',
        querystring: LeadsQuery,
        response: { 200: Type.Array(Type.Ref('Lead')), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { project, options = {} } = request.query;
      authorize(principalOf(request), await findProjectMembership(ctx.db.kysely, project), 'read-leads');
      const rows = await listLeads(ctx.db.kysely, project, { skip: options.skip ?? 0, limit: options.limit ?? 100 });
      return rows.map(toLead);
    },
  );
};
