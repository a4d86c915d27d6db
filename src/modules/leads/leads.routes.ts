import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, ObjectId, problems } from '../../http/schemas.ts';
import { objectQuery } from '../shared/query.ts';
import { LIST_TEXT, ListOptions, pageOf, TotalHeader, UpdatedSince } from '../shared/list.ts';
import { LeadService } from './leads.service.ts';
import { toLead } from './leads.repo.ts';
import { rerankLead } from '../priority/waiting-list.ts';
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
    filters: Type.Optional(Type.Object({ updatedSince: Type.Optional(UpdatedSince) }, { additionalProperties: false })),
    options: Type.Optional(ListOptions),
  },
  { additionalProperties: false },
);

export const leadRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const service = new LeadService(ctx);
  app.get(
    '/leads',
    {
      preValidation: objectQuery(['filters', 'options']),
      schema: {
        tags: ['leads'],
        summary: "A project's leads, newest first (owner and administrators)",
        description:
          'With `Accept: text/csv` or `format=csv` the answer is RFC 4180 CSV, and without `options.limit` it holds every lead of the project. ' +
          'Sort `name` is by last name; a lead never changes, so `updatedAt` is `createdAt`. ' +
          LIST_TEXT,
        querystring: LeadsQuery,
        response: { 200: { ...csvOrJson(Type.Array(Type.Ref('Lead')), 'leads'), headers: TotalHeader }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { project, filters = {}, options = {}, format } = request.query;
      const csv = wantsCsv(request, format);
      // A spreadsheet export is the whole list unless a page is asked for.
      const { leads, total } = await service.list(principalOf(request), project, { ...filters, ...pageOf(options, csv ? MAX_CSV_LEADS : 100) });
      reply.header('X-Total-Count', String(total));
      if (csv) return sendCsv(reply, `leads-${project}.csv`, toCsv(leads, LEAD_COLUMNS));
      return leads;
    },
  );

  // Minimal until the sales team's lead fields (status, notes, assignee) land: only `rank` (§18).
  app.patch(
    '/leads/:id',
    {
      schema: {
        tags: ['leads'],
        summary: "Move a waitlist entry in its unit's waiting list (owner and administrators, with specialRankEnabled)",
        description:
          '`rank`: the place to move the entry to (1 is first; past the end is last); the others close up and the list is renumbered 1..n. ' +
          "Without the project's specialRankEnabled → 403; a lead that is not a waitlist entry for a unit → 400 naming rank.",
        params: IdParams,
        body: Type.Object({ rank: Type.Integer({ minimum: 1, maximum: 100000 }) }, { additionalProperties: false }),
        response: { 200: Type.Ref('Lead'), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => toLead(await rerankLead(ctx, principalOf(request), request.params.id, request.body.rank)),
  );
};
