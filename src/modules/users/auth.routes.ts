import { perMinute } from '../../http/rate-limits.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { Auth, REFRESH_COOKIE } from '../../http/auth.ts';
import { cookieOf } from '../../http/cookies.ts';
import { NoContent, problems } from '../../http/schemas.ts';
import { LoginBody, LoginQuery, LoginResponseSchema, RefreshBody, RefreshResponse } from './users.schemas.ts';
import { UserService } from './users.service.ts';
import { ERRORS } from '../../http/errors.catalogue.ts';

/** Login, refresh and logout: reachable without an access token. */
export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const users = new UserService(ctx);

  app.post(
    '/users/login',
    {
      schema: {
        operationId: 'logIn',
        tags: ['auth'],
        summary: 'Log in',
        description:
          'Credentials as a JSON body or as query parameters (the body wins). Returns the User record with `token`/`access_token` and sets the `service` and `serviceRefresh` cookies. ' +
          'An administrator who sends their own token while naming another username (no password) is logged in as that user (audited); anyone else gets 403.',
        body: LoginBody,
        querystring: LoginQuery,
        security: [{}, { bearerAuth: [] }],
        response: { 200: LoginResponseSchema, ...problems(400, 401, 403, 405, 415, 429) },
      },
      config: { rateLimit: perMinute(ctx.config.limits.loginPerMinute) },
    },
    async (request, reply) => {
      // Fastify leaves the body undefined when a request sends none (credentials in the query).
      const body = request.body as typeof request.body | undefined;
      const username = body?.username ?? request.query.username;
      const password = body?.password ?? request.query.password;
      if (!username) throw ERRORS.invalidBody('username is required', { errors: [{ path: '/username', message: 'is required' }] });
      const bearer = request.headers.authorization ? Auth.tokenFrom(request)?.token : undefined;
      const { user, issued } = await ctx.authService.login({ username, password, ip: request.ip, bearer });
      ctx.authService.setCookies(reply, issued);
      return {
        ...(await users.record(user)),
        token: issued.accessToken,
        access_token: issued.accessToken,
        message: 'Login successful',
      };
    },
  );

  app.post(
    '/users/refresh',
    {
      schema: {
        operationId: 'refreshToken',
        tags: ['auth'],
        summary: 'Exchange a refresh token for a new access token',
        description: 'Takes the `serviceRefresh` cookie or `refresh_token` in the body; rotates it. Presenting a used token ends its session.',
        body: RefreshBody,
        security: [{}],
        response: { 200: RefreshResponse, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const token = (request.body as typeof request.body | undefined)?.refresh_token ?? cookieOf(request, REFRESH_COOKIE);
      if (!token) throw ERRORS.unauthorized('Send the serviceRefresh cookie or refresh_token');
      const issued = await ctx.authService.refresh(token);
      ctx.authService.setCookies(reply, issued);
      return { message: 'Token refreshed', access_token: issued.accessToken, token: issued.accessToken, refresh_token: issued.refreshToken };
    },
  );

  app.post(
    '/users/logout',
    {
      schema: {
        operationId: 'logOut',
        tags: ['auth'],
        summary: 'End the session',
        description:
          'Ends the session of the presented access token and/or refresh token (at once for refresh, within 60 s for access tokens on every node) and clears both cookies.',
        body: RefreshBody,
        security: [{}, { bearerAuth: [] }, { cookieAuth: [] }],
        response: { 204: NoContent, ...problems(400) },
      },
    },
    async (request, reply) => {
      const body = request.body as typeof request.body | undefined;
      await ctx.authService.logout(Auth.tokenFrom(request)?.token, body?.refresh_token ?? cookieOf(request, REFRESH_COOKIE));
      ctx.authService.clearCookies(reply);
      return reply.code(204).send();
    },
  );
};
