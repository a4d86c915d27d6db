import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../context.ts';
import { problems } from '../http/schemas.ts';
import type { LiveFeed } from './live-feed.ts';
import { StreamLimits } from './stream-limits.ts';
import type { BundleMemo } from './bundle-memo.ts';
import { BundleService } from './bundle.service.ts';
import { NamespaceParams, StreamHeaders, StreamQuery } from './public.schemas.ts';

/** GET /public/projects/{namespace}/events: the presentation's live feed (Server-Sent Events). */
export const streamRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx; feed: LiveFeed; bundleMemo: BundleMemo }> = async (app, { ctx, feed, bundleMemo }) => {
  const bundles = new BundleService(ctx, bundleMemo);
  const limits = new StreamLimits(ctx.config.sse.streamsPerClient, ctx.config.sse.maxStreams);
  app.get(
    '/public/projects/:namespace/events',
    {
      schema: {
        operationId: 'streamPresentationChanges',
        tags: ['public'],
        summary: 'Live changes of a presentation (Server-Sent Events)',
        description:
          'A `text/event-stream` of the public part of unit changes (availability, hold expiry, price while `showPrices`; floors and units added or removed), ' +
          'each as `id: <seq>` and `data: {"seq","type","_id"?,"changes"?}` (no `_id` or `changes` for a sold unit of a project with `hideSold`). Send `Last-Event-ID` (browsers do on reconnect) or `?lastEventId=` to resume after that seq. ' +
          `A stream more than ${ctx.config.sse.replayMaxEvents} events behind, or whose catching up takes over ${ctx.config.sse.replayBudgetMs} ms, is sent one ` +
          '`event: refetch` (`id: <seq>`, `data: {"seq","type":"refetch"}`) instead of what it missed: fetch the bundle again; live changes after that seq follow. ' +
          `A comment line comes at least every ${ctx.config.sseKeepAliveSec} s. ` +
          `At most ${ctx.config.sse.streamsPerClient} streams per client address and ${ctx.config.sse.maxStreams} per node are open at once; ` +
          'past either → 429 with `Retry-After`. A draft answers 404 unless `preview` carries its preview token. See docs/events.md.',
        security: [],
        params: NamespaceParams,
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: {
          200: { description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...problems(400, 404, 429),
        },
      },
    },
    async (request, reply) => {
      // The place is taken before anything is awaited (so a burst cannot slip past the count) and given back when
      // the connection closes, whether it was a stream, a 404 or a client that left early.
      const release = limits.take(request.ip);
      reply.raw.on('close', release);
      if (request.raw.socket.destroyed) release();
      const projectId = await bundles.liveProjectId(request.params.namespace, request.query.preview);
      const raw = request.headers['last-event-id'] ?? request.query.lastEventId;
      // A new stream starts after the last change committed now, read before the client can see the stream open:
      // a change it makes right after `: open` arrives is then one the stream sends, never one counted as seen.
      const lastEventId = raw === undefined ? await feed.lastSeq(projectId) : Number(raw);
      // From here on the response is written by hand; the headers the hooks set (CORS, security, request id) go with it.
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      res.socket?.setNoDelay(true);
      // `retry` tells EventSource how soon to reconnect after a drop.
      res.write(': open\nretry: 3000\n\n');
      feed.open(projectId, res, lastEventId);
    },
  );
};
