import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { clearCookies, cookieOf, setCookies } from '../../http/cookies.ts';
import { perMinute } from '../../http/rate-limits.ts';
import { problems } from '../../http/schemas.ts';
import { CallbackQuery, Redirect, SsoStart } from './sso.schemas.ts';
import { SSO_STATE_SEC, SsoService } from './sso.service.ts';

const STATE_COOKIE = 'serviceOidc';
const STATE_PATH = '/auth/oidc';

/** Single sign-on through an OpenID Connect provider (OIDC_ISSUER); without it both routes answer 404. */
export const ssoRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new SsoService(ctx);
  const rateLimit = perMinute(ctx.config.limits.loginPerMinute);
  const secure = ctx.config.cookieSecure;

  app.get(
    '/auth/oidc/login',
    {
      schema: {
        operationId: 'logInWithOidc',
        tags: ['auth'],
        summary: 'Sign in through the single sign-on provider',
        description:
          'Redirects the browser to the OpenID Connect provider (authorization code with PKCE); its answer comes back to /auth/oidc/callback. ' +
          'With `Accept: application/json` the answer is 200 `{ url }` instead (the state cookie is set either way). ' +
          "404 when single sign-on is not configured; 502 when the provider's metadata cannot be read.",
        security: [],
        response: { 200: SsoStart, 302: Redirect, ...problems(404, 429, 502) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const { url, sealed } = await service.start();
      // Lax: the provider's redirect back is a top-level navigation from another site, which Lax cookies accompany.
      setCookies(reply, [[STATE_COOKIE, sealed, { httpOnly: true, sameSite: 'lax', path: STATE_PATH, maxAge: SSO_STATE_SEC, secure }]]);
      if (/\bapplication\/json\b/.test(request.headers.accept ?? '')) return { url };
      return reply.redirect(url, 302);
    },
  );

  app.get(
    '/auth/oidc/callback',
    {
      schema: {
        operationId: 'logInWithOidcCallback',
        tags: ['auth'],
        summary: "The single sign-on provider's answer",
        description:
          'Signs in the account whose e-mail the provider asserts as verified, with the same cookies as a password sign-in, and redirects to the console. ' +
          'Refused (403) for an address of no account (unless an invitation to it is open), outside OIDC_ALLOWED_DOMAINS, or of a deactivated account; ' +
          '401 when the answer does not check out; 400 when this browser holds no state for the sign-in (start again).',
        security: [],
        querystring: CallbackQuery,
        response: { 302: Redirect, ...problems(400, 401, 403, 404, 429, 502) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      const user = await service.finish(query, cookieOf(request, STATE_COOKIE), request.ip);
      const issued = await ctx.authService.signIn(user);
      ctx.authService.setCookies(reply, issued);
      clearCookies(reply, [[STATE_COOKIE, { httpOnly: true, sameSite: 'lax', path: STATE_PATH, secure }]]);
      return reply.redirect('/admin', 302);
    },
  );
};
