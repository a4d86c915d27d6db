import { perMinute } from '../http/rate-limits.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { chosenEncoding } from '../http/encoding.ts';
import { IdempotencyHeaders, IdParams, problems } from '../http/schemas.ts';
import { etagOf } from '../modules/shared/records.ts';
import { BundleService, type BundleKey } from './bundle.service.ts';
import type { BundleMemo } from './bundle-memo.ts';
import { idempotencyKey } from '../modules/shared/idempotency.ts';
import { PublicService } from './public.service.ts';
import {
  BundleHeaders,
  HoldBody,
  HoldHeaders,
  HoldTokenParams,
  HostNameParams,
  NamespaceParams,
  PreviewQuery,
  PublicHoldSchema,
  PublicLeadBody,
  PublicLeadSchema,
} from './public.schemas.ts';
import { allocationToken } from '../modules/allocations/token-header.ts';

/** What anonymous presentation pages and their visitors reach: no token, CORS open to every origin. */
export const publicRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx; bundleMemo: BundleMemo }> = async (app, { ctx, bundleMemo }) => {
  const service = new PublicService(ctx);
  const bundles = new BundleService(ctx, bundleMemo);

  async function sendBundle(request: FastifyRequest, reply: FastifyReply, by: BundleKey) {
    reply.header('Vary', 'X-Allocation-Token, Accept-Encoding');
    const answer = await bundles.answer(by, {
      previewToken: (request.query as { preview?: string }).preview,
      allocationToken: allocationToken(request),
      ifNoneMatch: request.headers['if-none-match'],
      encoding: chosenEncoding(request.headers['accept-encoding']),
    });
    reply.header('ETag', answer.etag).header('Cache-Control', answer.cacheControl);
    if (answer.noindex) reply.header('X-Robots-Tag', 'noindex');
    if (answer.body === undefined) return reply.code(304).send();
    if (answer.encoding) reply.header('Content-Encoding', answer.encoding);
    return reply.type('application/json; charset=utf-8').send(answer.body);
  }

  const bundleResponses = {
    200: { ...Type.Ref('Bundle'), headers: { ETag: { type: 'string' }, 'Cache-Control': { type: 'string' } } },
    304: { description: 'Not modified (If-None-Match matched)', type: 'null' },
    ...problems(400, 401, 404),
  };

  app.get(
    '/public/projects/:namespace',
    {
      schema: {
        operationId: 'getPresentation',
        tags: ['public'],
        summary: 'The presentation bundle of a project, by namespace',
        description:
          'Public project fields, floors in order with their units, as one document. Cacheable: ETag, Cache-Control public, max-age=5; If-None-Match → 304. ' +
          'A draft (`published: false`) answers 404 unless `preview` carries its preview token (then `Cache-Control: private, no-store`).',
        security: [],
        params: NamespaceParams,
        querystring: PreviewQuery,
        headers: BundleHeaders,
        response: bundleResponses,
      },
    },
    async (request, reply) => sendBundle(request, reply, { namespace: request.params.namespace }),
  );

  app.get(
    '/public/hosts/:hostName',
    {
      schema: {
        operationId: 'getPresentationByHost',
        tags: ['public'],
        summary: 'The presentation bundle of a project, by host name',
        security: [],
        params: HostNameParams,
        querystring: PreviewQuery,
        headers: BundleHeaders,
        response: bundleResponses,
      },
    },
    async (request, reply) => sendBundle(request, reply, { hostName: request.params.hostName }),
  );

  app.post(
    '/public/leads',
    {
      schema: {
        operationId: 'submitLead',
        tags: ['public'],
        summary: "Leave an enquiry on a project (when the project's enableForms is true)",
        description: 'Name the project by `project` (id) or `namespace`. Rate-limited per client address. Honours `Idempotency-Key`.',
        security: [],
        headers: IdempotencyHeaders,
        body: PublicLeadBody,
        'x-requires-one-of': ['project', 'namespace'],
        response: { 201: PublicLeadSchema, ...problems(400, 403, 404, 413, 415, 422, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.publicLeadsPerMinute) },
    },
    async (request, reply) => {
      const outcome = await service.enquire(idempotencyKey(request.headers['idempotency-key']), request.body);
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
      // A lead never changes after it is made: its one version. The stored document is the lead validated above plus
      // the server's fields: the response's shape.
      return reply
        .header('ETag', '"1"')
        .code(201)
        .send(outcome.body as Static<typeof PublicLeadSchema>);
    },
  );

  app.post(
    '/public/units/:id/hold',
    {
      schema: {
        operationId: 'holdUnit',
        tags: ['public'],
        summary: "Hold an available unit for the project's onHoldMinsDuration minutes",
        description:
          'Only when the project has onHoldExperienceEnabled, only from available: of concurrent requests for one unit exactly one gets 200, the others 409. ' +
          'Records a lead with source "hold". The answer carries `holdToken`, a secret for this hold alone (also mailed to the holder with a link to the page): ' +
          'with it, GET /public/holds/{holdToken} reads the hold, DELETE releases it, POST …/extend extends it once. One client address may hold a few units at once and send a bounded number of requests per minute (429). Honours `Idempotency-Key`.',
        security: [],
        params: IdParams,
        headers: HoldHeaders,
        body: HoldBody,
        response: { 200: Type.Ref('HeldUnit'), ...problems(400, 401, 403, 404, 409, 415, 422, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.holdRequestsPerMinute) },
    },
    async (request, reply) => {
      const outcome = await service.hold(
        idempotencyKey(request.headers['idempotency-key']),
        request.params.id,
        request.ip,
        request.body,
        allocationToken(request),
      );
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
      if (outcome.etag) reply.header('ETag', outcome.etag);
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(outcome.body));
    },
  );

  const holdLimit = { rateLimit: perMinute(ctx.config.limits.holdRequestsPerMinute) };
  const tokenNote =
    'No authentication: the hold token is the credential. Unknown token → 404; a hold released, lapsed or changed by the sales team since → 410.';

  app.get(
    '/public/holds/:holdToken',
    {
      schema: {
        operationId: 'getHold',
        tags: ['public'],
        summary: 'The hold a hold token names: its unit, project and expiry',
        description: `${tokenNote} Rate-limited per client address like the hold requests.`,
        security: [],
        params: HoldTokenParams,
        response: { 200: Type.Ref('PublicHold'), ...problems(400, 404, 410, 429) },
      },
      config: holdLimit,
    },
    async (request, reply) =>
      reply.header('Cache-Control', 'no-store').send((await service.readHold(request.params.holdToken)) as Static<typeof PublicHoldSchema>),
  );

  app.delete(
    '/public/holds/:holdToken',
    {
      schema: {
        operationId: 'releaseHold',
        tags: ['public'],
        summary: 'Release a hold: the unit is available again',
        description: `${tokenNote} Appends unit.hold_released to the change log.`,
        security: [],
        params: HoldTokenParams,
        response: { 204: { description: 'Released', type: 'null' }, ...problems(400, 404, 410, 429) },
      },
      config: holdLimit,
    },
    async (request, reply) => {
      await service.releaseHold(request.params.holdToken);
      return reply.code(204).send();
    },
  );

  app.post(
    '/public/holds/:holdToken/extend',
    {
      schema: {
        operationId: 'extendHold',
        tags: ['public'],
        summary: "Extend a hold once by the project's onHoldMinsDuration",
        description: `${tokenNote} A second extension of the same hold → 409. The answer is the hold with its new onHoldExpiresAt; appends unit.hold_extended to the change log.`,
        security: [],
        params: HoldTokenParams,
        response: { 200: Type.Ref('PublicHold'), ...problems(400, 404, 409, 410, 429) },
      },
      config: holdLimit,
    },
    async (request, reply) => {
      const { version, ...hold } = await service.extendHold(request.params.holdToken);
      return reply.header('Cache-Control', 'no-store').header('ETag', etagOf(version)).send(hold);
    },
  );
};
