import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { chosenEncoding, sendAsset, staticAsset, type StaticAsset } from '../http/encoding.ts';
import { AppError, notFound } from '../http/errors.ts';
import { problems } from '../http/schemas.ts';
import { embedScript, PAGE_MANIFEST, readManifest, WEB_OUT } from '../lib/built-assets.ts';
import { PROJECT_ROOT } from '../lib/paths.ts';
import type { BundleKey } from '../public/bundle.service.ts';
import { renderGroupPage } from './group-html.ts';
import type { GroupView } from './group-model.ts';
import { inlineStyle, renderPage, scriptStyleHashes } from './html.ts';
import { AssetParams, GroupPageQuery, HostPageQuery, HtmlContent, PageParams, PageQuery, UnitFrameParams, UnitPageParams } from './presentation.schemas.ts';
import { frameDocument, FRAME_CSP } from './frame.ts';
import { PresentationService } from './presentation.service.ts';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const TYPES: Record<string, string> = {
  '.js': JS,
  '.css': CSS,
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.glb': 'model/gltf-binary',
  '.json': 'application/json',
};

/** A page asset: a file of the build or of the demo (web/static); hashed names never change content. */
interface Asset extends StaticAsset {
  immutable: boolean;
}

const asset = (body: Buffer, type: string, immutable: boolean): Asset => ({ ...staticAsset(body, type), immutable });
const htmlPage = { 200: { description: 'HTML page', content: HtmlContent }, ...problems(404) };

/**
 * The interactive presentation page at /p/{namespace} (and at / for a project's own host name), a unit's own
 * address /p/{namespace}/units/{unitId}, a group's page at /g/{namespace}, and their assets.
 */
export const presentationRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const pages = new PresentationService(ctx);
  // The console frames the page as its settings preview (web/preview-frame.ts): the page listens to that origin only.
  const consoleOrigin = new URL(ctx.config.mail.publicUrl).origin;
  // Built by `npm run build` (main.ts checks before it starts); never built here.
  const manifest = readManifest(PAGE_MANIFEST);
  const assets = new Map<string, Asset>();
  const sheet = asset(readFileSync(join(WEB_OUT, manifest.css)), CSS, true);
  assets.set(manifest.js, asset(readFileSync(join(WEB_OUT, manifest.js)), JS, true)).set(manifest.css, sheet);
  // What the page imports on demand (the 3D viewer), beside it.
  const viewerStyles: string[] = [];
  for (const chunk of manifest.chunks ?? []) {
    const body = readFileSync(join(WEB_OUT, chunk));
    assets.set(chunk, asset(body, JS, true));
    viewerStyles.push(...scriptStyleHashes(body.toString('utf8')));
  }
  // MapLibre's worker, copied beside the page's chunks by the build (scripts/build-web.ts).
  const mapWorker = (manifest.chunks ?? []).find((c) => c.startsWith('app-map-worker.'));
  // The group page's one script: its map (web/group-map.ts).
  const groupScript = (manifest.chunks ?? []).find((c) => c.startsWith('app-group.'));
  const sdk = asset(embedScript(), JS, false);
  // The project page carries its stylesheet in its HTML (allowed by hash in its CSP); the group page links the file.
  const style = inlineStyle(sheet.body.toString('utf8').trim());
  // The demo presentation's drawings and renderings (web/static): served as they are, cached for a day.
  const staticDir = join(PROJECT_ROOT, 'web', 'static');
  for (const file of existsSync(staticDir) ? readdirSync(staticDir) : []) {
    const type = TYPES[file.slice(file.lastIndexOf('.'))];
    if (type && /^[\w.-]+$/.test(file)) assets.set(file, asset(readFileSync(join(staticDir, file)), type, false));
  }

  const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const pathOf = (url: string) => (url.includes('?') ? url.slice(0, url.indexOf('?')) : url);

  function send(request: FastifyRequest, reply: FastifyReply, page: { html: string; csp: string }, draft = false) {
    reply.removeHeader('x-frame-options');
    reply
      .header('Content-Security-Policy', page.csp)
      .header('Cache-Control', draft ? 'private, no-store' : 'no-cache')
      .header('Vary', 'Accept-Encoding')
      .type('text/html; charset=utf-8');
    // Pages are compressed per response (they carry the stylesheet): brotli at a quality that costs about a
    // millisecond, else gzip.
    const encoding = chosenEncoding(request.headers['accept-encoding']);
    if (encoding === 'br') {
      return reply
        .header('Content-Encoding', 'br')
        .send(brotliCompressSync(page.html, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(page.html) } }));
    }
    if (encoding === 'gzip') return reply.header('Content-Encoding', 'gzip').send(gzipSync(page.html, { level: 6 }));
    return reply.send(page.html);
  }

  async function groupPage(request: FastifyRequest, reply: FastifyReply, by: { namespace: string } | { hostName: string }) {
    const { view, minPrice, maxPrice, minArea, maxArea } = request.query as Static<typeof GroupPageQuery>;
    const bound = (v: string | undefined) => (v ? Number(v) : undefined);
    const filters = { minPrice: bound(minPrice), maxPrice: bound(maxPrice), minArea: bound(minArea), maxArea: bound(maxArea) };
    const { group, model } = await pages.groupPage(by, filters, origin(request));
    const shown = view === undefined ? undefined : ((view.charAt(0).toUpperCase() + view.slice(1)) as GroupView);
    return send(
      request,
      reply,
      renderGroupPage(group, model, {
        origin: origin(request),
        url: `${origin(request)}${pathOf(request.url)}`,
        css: manifest.css,
        view: shown,
        map: mapWorker && groupScript ? { config: ctx.config.map, worker: mapWorker, script: groupScript } : undefined,
      }),
    );
  }

  async function projectPage(request: FastifyRequest, reply: FastifyReply, by: BundleKey, unitId?: string) {
    const token = (request.query as { preview?: string }).preview;
    const { namespace, draft, noindex, project, unit, branding } = await pages.projectPage(by, token, unitId);
    const bundlePath = 'namespace' in by ? `/public/projects/${encodeURIComponent(by.namespace)}` : `/public/hosts/${encodeURIComponent(by.hostName)}`;
    // The draft's page reads its bundle with the same token.
    const bundleUrl = draft ? `${bundlePath}?preview=${encodeURIComponent(token ?? '')}` : bundlePath;
    const path = pathOf(request.url);
    if (noindex) reply.header('X-Robots-Tag', 'noindex');
    return send(
      request,
      reply,
      renderPage({
        manifest,
        style,
        viewerStyles,
        project,
        bundleUrl,
        namespace,
        url: `${origin(request)}${path}`,
        origin: origin(request),
        unit,
        draft,
        noindex,
        branding,
        consoleOrigin,
        map: mapWorker ? { config: ctx.config.map, worker: mapWorker } : undefined,
      }),
      draft,
    );
  }

  app.get(
    '/p/:namespace',
    {
      schema: {
        tags: ['public'],
        summary: 'The interactive presentation page of a project',
        security: [],
        description: 'A draft (`published: false`) answers 404 unless `preview` carries its preview token; then the page shows a draft banner.',
        params: PageParams,
        querystring: PageQuery,
        response: htmlPage,
      },
    },
    async (request, reply) => projectPage(request, reply, { namespace: request.params.namespace }),
  );

  app.get(
    '/p/:namespace/units/:unitId',
    {
      schema: {
        tags: ['public'],
        summary: 'The presentation page opened on one unit',
        description: 'With `sharePageEnabled`, the HTML carries Open Graph and Twitter card tags for the unit. Unknown unit → 404.',
        security: [],
        params: UnitPageParams,
        querystring: PageQuery,
        response: htmlPage,
      },
    },
    async (request, reply) => projectPage(request, reply, { namespace: request.params.namespace }, request.params.unitId),
  );

  app.get(
    '/p/:namespace/units/:unitId/:frame',
    {
      schema: {
        tags: ['public'],
        summary: "The code a unit's sheet runs in a sandboxed frame: its tour or video (`embed`), its custom button's snippet (`button`)",
        description:
          "Served on the pages origin only (asked for on the console's host, redirected there), with `Content-Security-Policy: sandbox` (no " +
          "`allow-same-origin`): the code runs in an opaque origin, never in the page's document, and reads no cookie or storage of any origin of the service. " +
          "`button` answers only while the project's custom button is on with the `snippet` action. No code to run, an unknown unit, a hidden sold one → 404.",
        security: [],
        params: UnitFrameParams,
        querystring: PageQuery,
        response: htmlPage,
      },
    },
    async (request, reply) => {
      const { namespace, unitId, frame } = request.params;
      const code = await pages.unitFrameCode({ namespace }, request.query.preview, unitId, frame);
      reply.removeHeader('x-frame-options');
      return reply
        .header('Content-Security-Policy', FRAME_CSP)
        .header('X-Robots-Tag', 'noindex')
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(frameDocument(code));
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['public'],
        summary: "The presentation page, for a request whose Host is a project's host name (else a group's: its group page)",
        description: "A project's page reads `preview`; a group's page reads `view` and the filters, as `/g/{namespace}` does. A host that is neither → 404.",
        security: [],
        querystring: HostPageQuery,
        response: htmlPage,
      },
    },
    async (request, reply) => {
      const hostName = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      try {
        return await projectPage(request, reply, { hostName });
      } catch (err) {
        // No project on this host: a group's page may be.
        if (!(err instanceof AppError) || err.status !== 404) throw err;
        return await groupPage(request, reply, { hostName }).catch(() => Promise.reject(err));
      }
    },
  );

  app.get(
    '/g/:namespace',
    {
      schema: {
        tags: ['public'],
        summary: "A group's page: its public projects, each linking to its presentation, and (with `showAllUnits`) every home of them in one list",
        description:
          "Server-rendered HTML (no script), governed by the group's own settings: a card for each project of the group that has a namespace, is published and is not in preview, " +
          "and with the group's `showAllUnits` every home of those projects in one list, filtered by `minPrice`/`maxPrice` and `minArea`/`maxArea` where the group offers those filters. " +
          "`view` (`list`, `grid`) picks the view, else the group's `initialView`. Styled from the group's colours, theme and language. Unknown namespace → 404.",
        security: [],
        params: PageParams,
        querystring: GroupPageQuery,
        response: htmlPage,
      },
    },
    async (request, reply) => groupPage(request, reply, { namespace: request.params.namespace }),
  );

  app.get('/p/assets/:file', { schema: { hide: true, params: AssetParams } }, async (request, reply) => {
    const found = assets.get(request.params.file);
    if (!found) throw notFound('Asset');
    // Hashed names never change content: cache for a year. The demo drawings may change between releases.
    reply.header('Cache-Control', found.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=86400');
    return sendAsset(request, reply, found);
  });

  // The embed SDK: one stable address developers paste into their sites (docs/presentation.md), so a short cache.
  app.get('/embed.js', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return sendAsset(request, reply, sdk);
  });
};
