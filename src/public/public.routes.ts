import { perMinute } from '../http/rate-limits.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { notFound } from '../http/errors.ts';
import { DateTime, IdParams, ObjectId, problems } from '../http/schemas.ts';
import { LeadFields } from '../modules/shared/fields.ts';
import { BundleCache, buildBundle, bundleEtag } from './bundle.ts';
import { findBundleHead } from './bundle.repo.ts';
import { idempotencyKey } from './idempotency.ts';
import { PublicService } from './public.service.ts';
import { PublicLeadInputSchema, Visitor } from './public.schemas.ts';
import { isPublished, PREVIEW_PARAM, previewSigner, visible } from './drafts.ts';

const PublicLeadBody = Type.Unsafe<Static<typeof PublicLeadInputSchema>>(Type.Ref('PublicLeadInput'));

const PublicLead = Type.Object(
  {
    _id: ObjectId,
    project: ObjectId,
    ...Visitor,
    unit: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    source: Type.Optional(Type.String()),
    questions: Type.Optional(LeadFields.questions),
    customFields: Type.Optional(LeadFields.customFields),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: false },
);

const HoldBody = Type.Object(Visitor, { additionalProperties: false });
const PreviewQuery = Type.Object({ preview: Type.Optional(Type.Unsafe<string>(PREVIEW_PARAM)) });
const RevalidateHeader = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the bundle the page has: unchanged → 304 with no body' })),
});
const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'Retry-safe key: the same key and body replay the first response' })),
});

/** What anonymous presentation pages and their visitors reach: no token, CORS open to every origin. */
export const publicRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const db = ctx.db.kysely;
  const service = new PublicService(ctx);
  const cache = new BundleCache(ctx.config.bundleCacheMb * 1024 * 1024);
  const previews = previewSigner(ctx.config);

  async function sendBundle(request: FastifyRequest, reply: FastifyReply, by: { namespace: string } | { hostName: string }) {
    // One instant for both the validator and the document, so a hold lapsing in between cannot split them.
    const now = ctx.clock.now();
    const head = await findBundleHead(db, by, now);
    // A draft is not there for anyone without its preview token.
    if (!head || !visible(previews, head, (request.query as { preview?: string }).preview, now)) throw notFound('Presentation');
    const etag = bundleEtag(head);
    // Previews and drafts are for the sales team's eyes: served, but never stored by shared caches or indexed.
    const preview = head.data.previewMode === true || !isPublished(head.data);
    reply.header('ETag', etag).header('Cache-Control', preview ? 'private, no-store' : 'public, max-age=5');
    if (preview) reply.header('X-Robots-Tag', 'noindex');
    const inm = request.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return reply.code(304).send();
    let body = cache.get(head.id, etag);
    if (body === undefined) {
      // Kept encoded: a string would be turned into UTF-8 bytes again (and its length counted) for every response,
      // a 560 kB allocation each that pushed the peak RSS under load.
      body = Buffer.from(JSON.stringify(await buildBundle(db, head, now)));
      cache.set(head.id, etag, body);
    }
    return reply.type('application/json; charset=utf-8').send(body);
  }

  const bundleResponses = {
    200: { ...Type.Ref('Bundle'), headers: { ETag: { type: 'string' }, 'Cache-Control': { type: 'string' } } },
    304: { description: 'Not modified (If-None-Match matched)', type: 'null' },
    ...problems(400, 404),
  };

  app.get(
    '/public/projects/:namespace',
    {
      schema: {
        tags: ['public'],
        summary: 'The presentation bundle of a project, by namespace',
        description:
          'Public project fields, floors in order with their units, as one document. Cacheable: ETag, Cache-Control public, max-age=5; If-None-Match → 304. ' +
          'A draft (`published: false`) answers 404 unless `preview` carries its preview token (then `Cache-Control: private, no-store`).',
        security: [],
        params: Type.Object({ namespace: Type.String({ maxLength: 63 }) }),
        querystring: PreviewQuery,
        headers: RevalidateHeader,
        response: bundleResponses,
      },
    },
    async (request, reply) => sendBundle(request, reply, { namespace: request.params.namespace }),
  );

  app.get(
    '/public/hosts/:hostName',
    {
      schema: {
        tags: ['public'],
        summary: 'The presentation bundle of a project, by host name',
        security: [],
        params: Type.Object({ hostName: Type.String({ maxLength: 253 }) }),
        querystring: PreviewQuery,
        headers: RevalidateHeader,
        response: bundleResponses,
      },
    },
    async (request, reply) => sendBundle(request, reply, { hostName: request.params.hostName }),
  );

  app.post(
    '/public/leads',
    {
      schema: {
        tags: ['public'],
        summary: "Leave an enquiry on a project (when the project's enableForms is true)",
        description: 'Name the project by `project` (id) or `namespace`. Rate-limited per client address. Honours `Idempotency-Key`.',
        security: [],
        headers: IdempotencyHeader,
        body: PublicLeadBody,
        response: { 201: PublicLead, ...problems(400, 403, 404, 413, 415, 422, 429) },
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
        .send(outcome.body as Static<typeof PublicLead>);
    },
  );

  app.post(
    '/public/units/:id/hold',
    {
      schema: {
        tags: ['public'],
        summary: "Hold an available unit for the project's onHoldMinsDuration minutes",
        description:
          'Only when the project has onHoldExperienceEnabled, only from available: of concurrent requests for one unit exactly one gets 200, the others 409. ' +
          'Records a lead with source "hold". One client address may hold a few units at once and send a bounded number of requests per minute (429). Honours `Idempotency-Key`.',
        security: [],
        params: IdParams,
        headers: IdempotencyHeader,
        body: HoldBody,
        response: { 200: Type.Ref('Unit'), ...problems(400, 403, 404, 409, 415, 422, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.holdRequestsPerMinute) },
    },
    async (request, reply) => {
      const outcome = await service.hold(idempotencyKey(request.headers['idempotency-key']), request.params.id, request.ip, request.body);
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
      if (outcome.etag) reply.header('ETag', outcome.etag);
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(outcome.body));
    },
  );
};
