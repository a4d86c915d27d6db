import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { problem, sendProblem } from './errors.ts';

/** The buyer's pages: served on the pages host only; asked for on the console's host, they are redirected there. */
const PAGE_ROUTES = new Set(['/p/:namespace', '/p/:namespace/units/:unitId', '/g/:namespace']);
/**
 * A unit's sandboxed frames (its embed, its button's snippet): on the pages host, and on a project's own host name
 * beside its page (a frame of the page's own origin); asked for on the console's host, redirected to the pages host.
 */
const FRAME_ROUTE = '/p/:namespace/units/:unitId/:frame';

/**
 * What the pages host answers besides the pages: the public API the page calls (bundle, enquiries, holds, waitlist,
 * live feed), uploaded media, the page's own assets, the embed SDK (`/embed.js`), the host-name page at `/`, and the health checks a load
 * balancer sends to any name. Nothing here reads a session.
 */
function servedOnPagesHost(route: string): boolean {
  return (
    PAGE_ROUTES.has(route) ||
    route === FRAME_ROUTE ||
    route.startsWith('/public/') ||
    route.startsWith('/p/assets/') ||
    route === '/embed.js' ||
    route === '/media/:name' ||
    route === '/' ||
    route === '/health' ||
    route === '/ready'
  );
}

/** A request's host name, lower case, without its port (`[::1]:3000` → `[::1]`). */
function hostnameOf(request: FastifyRequest): string {
  // An HTTP/1.0 request may come without Host.
  const host = ((request.host as string | undefined) ?? '').toLowerCase();
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

/**
 * Keeps the buyer's pages and the signed-in console apart (a page carries tag-manager code and embed codes its
 * editors wrote). A request for the pages host (PAGES_URL) reaches only what `servedOnPagesHost` lists, and its
 * cookies are dropped before anything reads them: a script on a page has no session to use there, and the
 * console's cookies are never sent to that host (another host name, another site). A page asked for on any other
 * host is redirected (308) to the pages origin, so no page ever runs on the console's origin; the host-name page at
 * `/` is not served on the console's host either.
 */
export function pagesHostGuard(config: Config) {
  const pagesOrigin = config.pagesUrl;
  const pagesHostname = new URL(pagesOrigin).hostname.toLowerCase();
  const consoleHostname = new URL(config.mail.publicUrl).hostname.toLowerCase();
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const route = request.routeOptions.url;
    const hostname = hostnameOf(request);
    if (hostname === pagesHostname) {
      delete request.headers.cookie;
      if (route !== undefined && servedOnPagesHost(route)) {
        done();
        return;
      }
      // Not found here (the console and the API are on their own host), whatever the path.
      sendProblem(reply, problem('not_found', `No route ${request.method} ${request.url.split('?')[0]} on the pages host`));
      return;
    }
    if (route !== undefined && PAGE_ROUTES.has(route) && (request.method === 'GET' || request.method === 'HEAD')) {
      reply.redirect(`${pagesOrigin}${request.url}`, 308);
      return;
    }
    if (route === FRAME_ROUTE && hostname === consoleHostname) {
      reply.redirect(`${pagesOrigin}${request.url}`, 308);
      return;
    }
    if (route === '/' && hostname === consoleHostname) {
      sendProblem(reply, problem('not_found', `No presentation on the console's host; pages are at ${pagesOrigin}`));
      return;
    }
    done();
  };
}
