import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { csvOrJson, sendCsv, toCsv, wantsCsv } from '../inventory/csv.ts';
import { InsightsQuery, UNIT_CSV_COLUMNS } from './insights.schemas.ts';
import { InsightsService } from './insights.service.ts';

export const insightsRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new InsightsService(ctx);

  app.get(
    '/projects/:id/insights',
    {
      schema: {
        operationId: 'listProjectsInsights',
        tags: ['insights'],
        summary: "A project's page analytics and sales figures over a range of days (owner, administrators, editors)",
        description:
          "Visitors, views, the funnel, sources and every unit's views, enquiries and holds, from daily totals (docs/insights.md). `from`/`to` default to the last 30 days (UTC); " +
          'a range is at most 731 days. With `Accept: text/csv` or `format=csv` the answer is the `units` table as RFC 4180 CSV.',
        params: IdParams,
        querystring: InsightsQuery,
        response: { 200: csvOrJson(Type.Ref('Insights'), 'the units table'), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const insights = await service.read(principalOf(request), id, request.query);
      if (wantsCsv(request, request.query.format)) {
        return sendCsv(reply, `insights-units-${insights.from}-${insights.to}.csv`, toCsv(insights.units, UNIT_CSV_COLUMNS));
      }
      return insights;
    },
  );

  app.post(
    '/projects/:id/reports/send',
    {
      schema: {
        operationId: 'createProjectsReportsSend',
        tags: ['insights'],
        summary: "Mail the project's weekly report now, to its reportSendTo (owner, administrators)",
        description:
          'The last seven full days (UTC) against the seven before, queued through the outbox like the Monday report. 409 when `reportSendTo` is empty.',
        params: IdParams,
        response: { 202: { description: 'Queued', type: 'null' }, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await service.sendReport(principalOf(request), request.params.id);
      return reply.code(202).send();
    },
  );
};
