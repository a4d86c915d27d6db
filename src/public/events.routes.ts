import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../context.ts';
import { perMinute } from '../http/rate-limits.ts';
import { NoContent, problems } from '../http/schemas.ts';
import { EVENT_BODY_LIMIT, EventBody } from '../modules/insights/insights.schemas.ts';
import { EventIngest } from './events.service.ts';

/**
 * `POST /public/events`: what the buyer's page reports (views, filters, shares, ...). `navigator.sendBeacon` sends
 * a string body as text/plain, so this scope (and only this one) reads text/plain as JSON.
 */
export const eventRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const ingest = new EventIngest(ctx);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: EVENT_BODY_LIMIT }, (request, body, done) => {
    void parseJson(request, body as string, done);
  });

  app.post(
    '/public/events',
    {
      bodyLimit: EVENT_BODY_LIMIT,
      // Beacons are the busiest and least telling requests there are: one log line each would be most of the log.
      // Failures (4xx, 5xx) are still logged at warn and above by the request logger and the error handler.
      logLevel: 'warn',
      schema: {
        operationId: 'createPublicEvents',
        tags: ['public'],
        summary: 'Report what a visitor did on a presentation page (page analytics)',
        description:
          "Sent by the buyer's page with `navigator.sendBeacon` (a `text/plain` body holding JSON) or as `application/json`. " +
          'Visitors are counted without cookies and without storing addresses (docs/insights.md). Requests from known bots and from ' +
          "addresses in the project's `eventsBlockList` are accepted but not counted. Rate-limited per client address (PUBLIC_EVENTS_PER_MINUTE).",
        security: [],
        consumes: ['application/json', 'text/plain'],
        body: EventBody,
        response: { 202: { ...NoContent, description: 'Accepted' }, ...problems(400, 404, 413, 415, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.publicEventsPerMinute) },
    },
    async (request, reply) => {
      await ingest.record(request.body, { address: request.ip, userAgent: request.headers['user-agent'] });
      return reply.code(202).send();
    },
  );
};
