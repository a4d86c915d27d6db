import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, NoContent, problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { BuyerRequest } from './privacy.schemas.ts';
import { PrivacyService } from './privacy.service.ts';

const WHO =
  'By the owner or an administrator of the projects the address was left with (editors → 403 with `project`); without `project` it covers every ' +
  'project whose leads the caller may read (a service administrator: all). Logged in the audit log with a keyed digest of the address, never the address.';

/** A buyer's data: export and erase by e-mail address, and DELETE /leads/{id} (docs/privacy.md). */
export const privacyRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const service = new PrivacyService(ctx);

  app.post(
    '/privacy/export',
    {
      schema: {
        operationId: 'exportBuyerData',
        tags: ['leads'],
        summary: 'Everything held about a buyer’s e-mail address, as one JSON file',
        description:
          'Leads, waitlist entries, holds, worksheets, stored mail, change-log events naming them and their webhook deliveries; sent as an attachment ' +
          '(`buyer-data.json`). ' +
          WHO,
        body: BuyerRequest,
        response: {
          200: { ...Type.Ref('BuyerData'), headers: { 'Content-Disposition': { type: 'string' } } },
          ...problems(400, 401, 403, 404, 415),
        },
      },
    },
    async (request, reply) => {
      const document = await service.export(principalOf(request), request.body.email, request.body.project);
      reply.header('Content-Disposition', 'attachment; filename="buyer-data.json"').header('Cache-Control', 'no-store');
      return document;
    },
  );

  app.post(
    '/privacy/erase',
    {
      schema: {
        operationId: 'eraseBuyerData',
        tags: ['leads'],
        summary: 'Erase everything held about a buyer’s e-mail address',
        description:
          'In one transaction: leads and waitlist entries deleted (with their ended holds), worksheets deleted, change-log events about them redacted ' +
          '(their changes keep only status, assignee, unit and the like; a webhook delivery not yet sent sends the redacted event), stored mail deleted ' +
          '(a queued message is never sent) and stored answers of public forms forgotten. Insights hold no address and are unchanged. Erasing again ' +
          'finds nothing (all counts 0). ' +
          WHO,
        body: BuyerRequest,
        response: { 200: Type.Ref('Erasure'), ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request) => service.erase(principalOf(request), request.body.email, request.body.project),
  );

  app.delete(
    '/leads/:id',
    {
      schema: {
        operationId: 'deleteLead',
        tags: ['leads'],
        summary: 'Delete a lead (owner and administrators; editors → 403)',
        description:
          'The lead goes with its ended holds (a running hold keeps its unit until it ends); its change-log events are redacted as by an erasure. ' +
          'Logged in the audit log. `If-Match` with a stale ETag → 412 and nothing is deleted.',
        params: IdParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await service.deleteLead(principalOf(request), request.params.id, request.headers['if-match']);
      return reply.code(204).send();
    },
  );
};
