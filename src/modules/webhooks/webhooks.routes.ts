import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { DateTime, NoContent, ObjectId, problems, Version } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { EVENT_TYPES } from '../events/events.repo.ts';
import { findProjectMembership } from '../projects/projects.repo.ts';
import { authorize } from '../shared/access.ts';
import { createIdempotently } from '../shared/idempotent.ts';
import { ifMatchVersion, invalid, staleWrite, withEtag } from '../shared/records.ts';
import { checkTarget, newWebhookSecret, RefusedTarget } from './send.ts';
import type { WebhookDispatcher } from './webhooks.service.ts';
import { deleteWebhook, findWebhook, insertWebhook, listDeliveries, listWebhooks, toDelivery, toWebhook, updateWebhook } from './webhooks.repo.ts';

const EventName = Type.Union([...EVENT_TYPES.map((t) => Type.Literal(t)), Type.Literal('*')], { description: 'An event type, or * for all' });
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'http(s) URL; loopback, private and other non-public addresses are refused, in any spelling, unless ALLOW_PRIVATE_TARGETS=true',
});
const Description = Type.String({ maxLength: 500 });
const ETag = { ETag: { type: 'string' } };

export const WebhookSchema = Type.Object(
  {
    _id: ObjectId,
    __v: Version,
    project: ObjectId,
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.Optional(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Webhook', additionalProperties: false },
);

const CreatedWebhook = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({ pattern: '^whsec_', description: 'The signing secret: shown only in this answer. Verify deliveries with it (docs/events.md).' }),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    at: DateTime,
    responseStatus: Type.Optional(Type.Integer({ description: "The receiver's answer code" })),
    error: Type.Optional(Type.String()),
    durationMs: Type.Integer(),
    manual: Type.Optional(Type.Boolean({ description: 'Asked for through POST …/retry' })),
  },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    _id: ObjectId,
    event: Type.Object({ id: ObjectId, seq: Type.Integer(), type: Type.String() }, { additionalProperties: false }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description: 'pending: not yet answered 2xx (retries scheduled); delivered; failed: given up after 24 h',
    }),
    createdAt: DateTime,
    deliveredAt: Type.Optional(DateTime),
    attempts: Type.Array(Attempt),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

const ProjectParams = Type.Object({ id: ObjectId }, { additionalProperties: false });
const HookParams = Type.Object({ id: ObjectId, hookId: ObjectId }, { additionalProperties: false });
const DeliveryParams = Type.Object({ id: ObjectId, hookId: ObjectId, deliveryId: ObjectId }, { additionalProperties: false });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx; dispatcher: WebhookDispatcher }> = async (app, { ctx, dispatcher }) => {
  useJsonStringify(app);
  const db = ctx.db.kysely;
  const { allowPrivate } = ctx.config.webhooks;

  async function manage(request: Parameters<typeof principalOf>[0], projectId: string) {
    authorize(principalOf(request), await findProjectMembership(db, projectId), 'manage');
  }

  async function hook(projectId: string, hookId: string) {
    const row = await findWebhook(db, projectId, hookId);
    if (!row) throw notFound('Webhook');
    return row;
  }

  /** http(s) only; every address the host resolves to must be public (unless allowed). */
  async function checkUrl(url: string) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return invalid([{ path: '/url', message: 'is not a URL' }]);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') invalid([{ path: '/url', message: 'must be http or https' }]);
    if (parsed.username || parsed.password) invalid([{ path: '/url', message: 'must not carry credentials' }]);
    try {
      await checkTarget(parsed, allowPrivate);
    } catch (err) {
      if (err instanceof RefusedTarget) invalid([{ path: '/url', message: err.message }]);
      throw err;
    }
  }

  app.post(
    '/projects/:id/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Subscribe a URL to the project’s events (owner and administrators)',
        description: 'The answer carries the signing `secret` (whsec_…) once; it is never shown again. See the `webhooks` section for what is sent.',
        params: ProjectParams,
        body: Type.Object(
          { url: Url, events: Type.Array(EventName, { minItems: 1, maxItems: 20, uniqueItems: true }), description: Type.Optional(Description) },
          { additionalProperties: false },
        ),
        response: { 201: { ...CreatedWebhook, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      await manage(request, request.params.id);
      const { url, events, description } = request.body;
      await checkUrl(url);
      const projectId = request.params.id;
      return createIdempotently(
        db,
        request,
        reply,
        'webhooks',
        (id) => `/projects/${projectId}/webhooks/${id}`,
        async (trx) => {
          const row = await insertWebhook(trx, {
            id: newObjectId(ctx.clock.now()),
            projectId,
            url,
            events,
            description: description ?? null,
            secret: ctx.secrets.seal(newWebhookSecret()),
          });
          return { record: toWebhook(row), version: row.version };
        },
        // The secret is kept sealed on the webhook, never in the stored answer: it is opened for the first answer
        // and for a replay of it (the same caller, key and request), and for nobody else.
        async (record) => ({ ...record, secret: ctx.secrets.open((await hook(projectId, String(record._id))).secret) }),
      );
    },
  );

  app.get(
    '/projects/:id/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: "The project's webhooks (owner and administrators)",
        params: ProjectParams,
        response: { 200: Type.Array(Type.Ref('Webhook')), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await manage(request, request.params.id);
      return (await listWebhooks(db, request.params.id)).map(toWebhook);
    },
  );

  app.get(
    '/projects/:id/webhooks/:hookId',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'One webhook (owner and administrators)',
        params: HookParams,
        response: { 200: { ...Type.Ref('Webhook'), headers: ETag }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await manage(request, request.params.id);
      const row = await hook(request.params.id, request.params.hookId);
      withEtag(reply, row.version);
      return toWebhook(row);
    },
  );

  app.patch(
    '/projects/:id/webhooks/:hookId',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Change a webhook’s URL, events or description',
        description:
          'Deliveries not yet made go to the new URL. `description: null` clears it. The secret cannot change: delete and create again. `If-Match` with a stale ETag → 412.',
        params: HookParams,
        body: Type.Object(
          {
            url: Type.Optional(Url),
            events: Type.Optional(Type.Array(EventName, { minItems: 1, maxItems: 20, uniqueItems: true })),
            description: Type.Optional(Type.Union([Description, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: { ...Type.Ref('Webhook'), headers: ETag }, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    async (request, reply) => {
      await manage(request, request.params.id);
      const current = await hook(request.params.id, request.params.hookId);
      // A stale If-Match → 412 before anything is checked or written, even when nothing would change.
      const ifVersion = ifMatchVersion(request, current.version);
      const { url, events, description } = request.body;
      if (url !== undefined) await checkUrl(url);
      const set = { ...(url !== undefined ? { url } : {}), ...(events !== undefined ? { events } : {}), ...(description !== undefined ? { description } : {}) };
      let row = current;
      if (Object.keys(set).length) {
        if (!(await updateWebhook(db, current.id, set, ifVersion))) throw staleWrite();
        row = await hook(request.params.id, current.id);
      }
      withEtag(reply, row.version);
      return toWebhook(row);
    },
  );

  app.delete(
    '/projects/:id/webhooks/:hookId',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook and its deliveries',
        description: '`If-Match` with a stale ETag → 412 and nothing is deleted.',
        params: HookParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await manage(request, request.params.id);
      const row = await hook(request.params.id, request.params.hookId);
      if (!(await deleteWebhook(db, row.id, ifMatchVersion(request, row.version)))) throw staleWrite();
      return reply.code(204).send();
    },
  );

  app.get(
    '/projects/:id/webhooks/:hookId/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: "A webhook's deliveries, newest first, each with its attempts",
        description: '`before=<seq>` pages back.',
        params: HookParams,
        querystring: Type.Object(
          { before: Type.Optional(Type.Integer({ minimum: 1 })), limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(Type.Ref('WebhookDelivery')), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await manage(request, request.params.id);
      const row = await hook(request.params.id, request.params.hookId);
      return (await listDeliveries(db, row.id, request.query)).map(toDelivery);
    },
  );

  app.post(
    '/projects/:id/webhooks/:hookId/deliveries/:deliveryId/retry',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send one delivery again now (one attempt, same webhook-id)',
        params: DeliveryParams,
        response: { 202: Type.Ref('WebhookDelivery'), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await manage(request, request.params.id);
      const row = await hook(request.params.id, request.params.hookId);
      const delivery = (await listDeliveries(db, row.id, { limit: 1, id: request.params.deliveryId }))[0];
      if (!delivery) throw notFound('Delivery');
      await dispatcher.retryNow(delivery.id);
      return reply.code(202).send(toDelivery(delivery));
    },
  );
};
