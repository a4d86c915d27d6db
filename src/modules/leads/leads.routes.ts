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
import { LeadSchema } from '../shared/fields.ts';
import { csvOrJson, sendCsv, toCsv, wantsCsv } from '../inventory/csv.ts';

const LEAD_COLUMNS = Object.keys(LeadSchema.properties);
const MAX_CSV_LEADS = 100_000;

const LeadsQuery = Type.Object(
  {
    project: ObjectId,
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the same list as RFC 4180 CSV (as `Accept: text/csv`)' }),
    ),
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
        description:
          '`options` as for GET /projects: `skip` ≥ 0 (0), `limit` 1–500 (100). With `Accept: text/csv` or `format=csv` the answer is RFC 4180 CSV, ' +
          'and without `options.limit` it holds every lead of the project.',
        querystring: LeadsQuery,
        response: { 200: csvOrJson(Type.Array(Type.Ref('Lead')), 'leads'), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { project, options = {}, format } = request.query;
      authorize(principalOf(request), await findProjectMembership(ctx.db.kysely, project), 'read-leads');
      const csv = wantsCsv(request, format);
      // A spreadsheet export is the whole list unless a page is asked for.
      const limit = options.limit ?? (csv ? MAX_CSV_LEADS : 100);
      const leads = (await listLeads(ctx.db.kysely, project, { skip: options.skip ?? 0, limit })).map(toLead);
      if (csv) return sendCsv(reply, `leads-${project}.csv`, toCsv(leads, LEAD_COLUMNS));
      return leads;
    },
  );
};
