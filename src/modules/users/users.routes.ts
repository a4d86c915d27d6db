import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf, requireRole } from '../../http/auth.ts';
import { problems } from '../../http/schemas.ts';
import { withEtag } from '../shared/records.ts';
import { CreateUserBody, PatchMeBody } from './users.schemas.ts';
import { UserService } from './users.service.ts';

/** The User record (users.schemas.ts UserSchema, registered once in app.ts). */
const User = Type.Ref('User');
const ETag = { ETag: { type: 'string' } };

/** Account routes; all need an access token. */
export const userRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const service = new UserService(ctx);

  app.post(
    '/users',
    {
      schema: {
        operationId: 'createUser',
        tags: ['users'],
        summary: 'Create a user (platform administrators only)',
        body: CreateUserBody,
        response: { 201: { ...User, headers: { Location: { type: 'string' }, ...ETag } }, ...problems(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => {
      requireRole(request, 'admin');
      const user = await service.create(request.body);
      withEtag(reply, user.__v);
      return reply.code(201).header('Location', `/users/${user._id}`).send(user);
    },
  );

  app.get(
    '/users/me',
    {
      schema: {
        operationId: 'getCurrentUser',
        tags: ['users'],
        summary: "The caller's User record",
        response: { 200: { ...User, headers: ETag }, ...problems(401) },
      },
    },
    async (request, reply) => {
      const user = await service.me(principalOf(request));
      withEtag(reply, user.__v);
      return user;
    },
  );

  app.patch(
    '/users/me',
    {
      schema: {
        operationId: 'updateCurrentUser',
        tags: ['users'],
        summary: "Change the caller's own profile (and password, with currentPassword)",
        description:
          'Only names, phone, company, address and preferences change here. A fetched record may be sent back whole: server-kept fields are ignored, and other fields are accepted only with their current value. ' +
          'A password change ends every session of the user, this one included: log in again. ' +
          'paymentsCustomer, subscription and appliedTrial are kept by the platform (a changed value → 400). With plans on (BILLING=stripe), hiding the branding (`preferences.hideBrandingIcon`, `preferences.hideLoadingLogo`) needs the Pro plan → 402 `plan_limit` otherwise.',
        body: PatchMeBody,
        response: { 200: { ...User, headers: ETag }, ...problems(400, 401, 402, 412, 415) },
      },
    },
    async (request, reply) => {
      const user = await service.patchMe(principalOf(request), request.body, request.headers['if-match']);
      withEtag(reply, user.__v);
      return user;
    },
  );
};
