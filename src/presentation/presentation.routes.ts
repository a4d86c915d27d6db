import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { FastifyReply } from 'fastify';
import type { Ctx } from '../context.ts';
import { notFound } from '../http/errors.ts';
import { problems } from '../http/schemas.ts';
import { webManifest, WEB_OUT, WEB_SRC } from './build.ts';

/** The page may be framed by any site (it is embedded on developers' websites) and talks only to this origin. */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  'frame-ancestors *',
].join('; ');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The interactive presentation page at /p/{namespace} (and at / for a project's own host name), and its assets. */
export const presentationRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const db = ctx.db.kysely;
  const manifest = await webManifest();
  const assets = new Map<string, { body: Buffer; type: string; immutable: boolean }>();
  for (const file of [manifest.js, manifest.css]) {
    assets.set(file, { body: readFileSync(join(WEB_OUT, file)), type: TYPES[file.slice(file.lastIndexOf('.'))]!, immutable: true });
  }
  const staticDir = join(WEB_SRC, 'static');
  for (const file of ['demo-floorplan.svg']) {
    if (existsSync(join(staticDir, file))) assets.set(file, { body: readFileSync(join(staticDir, file)), type: TYPES['.svg']!, immutable: false });
  }

  function page(reply: FastifyReply, title: string, bundleUrl: string, namespace: string) {
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/p/assets/${manifest.css}">
<script type="module" src="/p/assets/${manifest.js}"></script>
</head>
<body data-namespace="${escapeHtml(namespace)}" data-bundle="${escapeHtml(bundleUrl)}">
<div id="app" aria-busy="true"></div>
<noscript>This presentation needs JavaScript.</noscript>
</body>
</html>
`;
    reply.removeHeader('x-frame-options');
    return reply.header('Content-Security-Policy', PAGE_CSP).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
  }

  app.get(
    '/p/:namespace',
    {
      schema: {
        tags: ['public'],
        summary: 'The interactive presentation page of a project',
        security: [],
        params: Type.Object({ namespace: Type.String({ maxLength: 63 }) }),
        response: { 200: { description: 'HTML page', content: { 'text/html': { schema: Type.String() } } }, ...problems(404) },
      },
    },
    async (request, reply) => {
      const project = await db.selectFrom('projects').select(['name', 'namespace']).where('namespace', '=', request.params.namespace).executeTakeFirst();
      if (!project) throw notFound('Presentation');
      return page(reply, project.name, `/public/projects/${encodeURIComponent(project.namespace!)}`, project.namespace!);
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['public'],
        summary: "The presentation page, for a request whose Host is a project's host name",
        security: [],
        response: { 200: { description: 'HTML page', content: { 'text/html': { schema: Type.String() } } }, ...problems(404) },
      },
    },
    async (request, reply) => {
      const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      const project = host
        ? await db.selectFrom('projects').select(['name', 'namespace', 'host_name']).where(sql`lower(host_name)`, '=', host).executeTakeFirst()
        : undefined;
      if (!project) throw notFound(`Presentation for host ${host || '(none)'}`);
      return page(reply, project.name, `/public/hosts/${encodeURIComponent(host)}`, project.namespace ?? '');
    },
  );

  app.get(
    '/p/assets/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const asset = assets.get(request.params.file);
      if (!asset) throw notFound('Asset');
      // Hashed names never change content: cache for a year. The demo drawing may change between releases.
      reply.header('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=86400');
      return reply.type(asset.type).send(asset.body);
    },
  );
};
