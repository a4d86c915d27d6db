import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { IdempotencyHeaders, NoContent, problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { createRequestOf, sendCreated } from '../shared/idempotent.ts';
import type { WebhookDispatcher } from './webhooks.dispatcher.ts';
import {
  CreatedWebhook,
  DeliveriesQuery,
  DeliveryParams,
  HookParams,
  ProjectParams,
  WebhookArray,
  WebhookCreateBody,
  WebhookDeliveryArray,
  WebhookPatchBody,
} from './webhooks.schemas.ts';
import { WebhookService } from './webhooks.service.ts';

const ETag = { ETag: { type: 'string' } };

export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx; webhookDispatcher: WebhookDispatcher }> = async (app, { ctx, webhookDispatcher }) => {
  useJsonStringify(app);
  const webhooks = new WebhookService(ctx, webhookDispatcher);

  app.post(
    '/projects/:id/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        tags: ['webhooks'],
        summary: 'Subscribe a URL to the project’s events (owner and administrators)',
        description: 'The answer carries the signing `secret` (whsec_…) once; it is never shown again. See the `webhooks` section for what is sent.',
        params: ProjectParams,
        body: WebhookCreateBody,
        headers: IdempotencyHeaders,
        response: { 201: { ...CreatedWebhook, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const projectId = request.params.id;
      const outcome = await webhooks.create(principalOf(request), projectId, request.body, createRequestOf(request));
      return sendCreated(reply, outcome, `/projects/${projectId}/webhooks/${outcome.record._id}`);
    },
  );

  app.get(
    '/projects/:id/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: "The project's webhooks (owner and administrators)",
        params: ProjectParams,
        response: { 200: WebhookArray, ...problems(400, 401, 403, 404) },
      },
    },
    (request) => webhooks.list(principalOf(request), request.params.id),
  );

  app.get(
    '/projects/:id/webhooks/:hookId',
    {
      schema: {
        operationId: 'getWebhook',
        tags: ['webhooks'],
        summary: 'One webhook (owner and administrators)',
        params: HookParams,
        response: { 200: { ...Type.Ref('Webhook'), headers: ETag }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { record, etag } = await webhooks.get(principalOf(request), request.params.id, request.params.hookId);
      reply.header('ETag', etag);
      return record;
    },
  );

  app.patch(
    '/projects/:id/webhooks/:hookId',
    {
      schema: {
        operationId: 'updateWebhook',
        tags: ['webhooks'],
        summary: 'Change a webhook’s URL, events or description',
        description:
          'Deliveries not yet made go to the new URL. `description: null` clears it. The secret cannot change: delete and create again. `If-Match` with a stale ETag → 412.',
        params: HookParams,
        body: WebhookPatchBody,
        response: { 200: { ...Type.Ref('Webhook'), headers: ETag }, ...problems(400, 401, 403, 404, 412, 415) },
      },
    },
    async (request, reply) => {
      const { id, hookId } = request.params;
      const { record, etag } = await webhooks.update(principalOf(request), id, hookId, request.body, request.headers['if-match']);
      reply.header('ETag', etag);
      return record;
    },
  );

  app.delete(
    '/projects/:id/webhooks/:hookId',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags: ['webhooks'],
        summary: 'Delete a webhook and its deliveries',
        description: '`If-Match` with a stale ETag → 412 and nothing is deleted.',
        params: HookParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(principalOf(request), request.params.id, request.params.hookId, request.headers['if-match']);
      return reply.code(204).send();
    },
  );

  app.get(
    '/projects/:id/webhooks/:hookId/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: "A webhook's deliveries, newest first, each with its attempts",
        description: '`before=<seq>` pages back.',
        params: HookParams,
        querystring: DeliveriesQuery,
        response: { 200: WebhookDeliveryArray, ...problems(400, 401, 403, 404) },
      },
    },
    (request) => webhooks.deliveries(principalOf(request), request.params.id, request.params.hookId, request.query),
  );

  app.post(
    '/projects/:id/webhooks/:hookId/deliveries/:deliveryId/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Send one delivery again now (one attempt, same webhook-id)',
        params: DeliveryParams,
        response: { 202: Type.Ref('WebhookDelivery'), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id, hookId, deliveryId } = request.params;
      return reply.code(202).send(await webhooks.retry(principalOf(request), id, hookId, deliveryId));
    },
  );
};
