import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Ctx } from '../context.ts';
import { sendAsset, staticAsset, type StaticAsset } from '../http/encoding.ts';
import { notFound } from '../http/errors.ts';
import { CONSOLE_MANIFEST, readManifest, WEB_OUT } from '../lib/built-assets.ts';
import { escapeHtml } from '../presentation/html.ts';
import { consoleMap } from '../presentation/map-section.ts';
import { AssetParams, HtmlContent } from '../presentation/presentation.schemas.ts';

/**
 * The console talks only to this origin and is never framed (its buttons change data); it frames one thing, the
 * buyer's page on the pages origin, as the settings preview.
 */
const consoleCsp = (pagesUrl: string, map: { connect: string[]; img: string[] }) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    ['img-src', "'self'", 'data:', 'https:', ...map.img].join(' '),
    // The Map tab's map: its styles' hosts (tiles, glyphs, sprites), as a page with a map allows them.
    ['connect-src', "'self'", ...map.connect].join(' '),
    "font-src 'self'",
    `frame-src ${pagesUrl}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/**
 * Screens that need endpoints some builds of the service may not have yet: each is offered only when all its
 * paths are routed (any method: a known path answers the others with 405), so the console never shows a screen
 * whose calls would fail. Each list holds paths that only that feature brings (PATCH /units comes with import). The shell names them in
 * `<body data-features>`; the console reads that (no extra request, no console-only endpoint).
 */
export const FEATURE_PATHS: Record<string, string[]> = {
  inventory: ['/projects/:id/inventory/import'],
  mail: ['/projects/:id/invites', '/groups/:id/invites', '/invites/:token', '/invites/:token/accept', '/users/password-reset', '/users/password-reset/confirm'],
  history: ['/units/:id/history'],
  webhooks: ['/projects/:id/webhooks', '/projects/:id/webhooks/:hookId/deliveries', '/projects/:id/webhooks/:hookId/deliveries/:deliveryId/retry'],
};

/** GET /admin and every /admin/... client route: one HTML shell; the console draws itself from the API. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  // Built by `npm run build` (main.ts checks before it starts); never built here.
  const manifest = readManifest(CONSOLE_MANIFEST);
  const assets = new Map<string, StaticAsset>();
  const files: [file: string, type: string][] = [
    [manifest.js, 'text/javascript; charset=utf-8'],
    [manifest.css, 'text/css; charset=utf-8'],
  ];
  // The chunks the console imports on demand (the Map tab's MapLibre) and MapLibre's worker.
  for (const chunk of manifest.chunks ?? []) files.push([chunk, 'text/javascript; charset=utf-8']);
  for (const [file, type] of files) assets.set(file, staticAsset(readFileSync(join(WEB_OUT, file)), type));
  const map = consoleMap(ctx.config.map, ctx.config.mail.publicUrl);
  const worker = manifest.chunks?.find((f) => f.startsWith('admin-map-worker.'));
  const mapData = worker ? JSON.stringify({ styles: map.styles, worker: `/admin/assets/${worker}` }) : '';
  let features: string | undefined;
  /** Worked out on the first request, when every route of the app is registered. */
  const featureList = () =>
    (features ??= [
      ...Object.entries(FEATURE_PATHS)
        .filter(([, paths]) => paths.every((url) => app.hasRoute({ method: 'GET', url })))
        .map(([name]) => name),
      // A setting, not a route: the routes are always there and answer 404 without a provider.
      ...(ctx.config.oidc ? ['sso'] : []),
      // Plans: only a server that bills (BILLING=stripe) shows the Profile's Plan section.
      ...(ctx.config.billing.enabled ? ['billing'] : []),
    ].join(' '));
  const html = () => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Showsuite console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/admin/assets/${manifest.css}">
<script type="module" src="/admin/assets/${manifest.js}"></script>
</head>
<body data-features="${featureList()}" data-pages="${escapeHtml(ctx.config.pagesUrl)}"${mapData ? ` data-map="${escapeHtml(mapData)}"` : ''}>
<div id="app"><p>Loading the console…</p></div>
<noscript>The Showsuite console needs JavaScript.</noscript>
</body>
</html>
`;
  const shell = (reply: FastifyReply) =>
    reply
      .header('Content-Security-Policy', consoleCsp(ctx.config.pagesUrl, map))
      .header('X-Frame-Options', 'DENY')
      .header('Cache-Control', 'no-cache')
      .header('Referrer-Policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(html());

  const page = { description: 'The console (HTML)', content: HtmlContent };
  app.get(
    '/admin',
    {
      schema: {
        tags: ['console'],
        summary: "The sales team's console",
        description:
          'An HTML application; every `/admin/...` path (including the mailed invitation and reset links) serves the same page, which signs in with the session cookies.',
        security: [],
        response: { 200: page },
      },
    },
    async (_request, reply) => shell(reply),
  );
  app.get('/admin/*', { schema: { hide: true } }, async (_request, reply) => shell(reply));
  app.get('/admin/assets/:file', { schema: { hide: true, params: AssetParams } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) throw notFound('Asset');
    return sendAsset(request, reply.header('Cache-Control', 'public, max-age=31536000, immutable'), asset);
  });
};
