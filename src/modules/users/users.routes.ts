import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ctx } from '../../context.ts';
import { principalOf, requireRole } from '../../http/auth.ts';
import { AppError, type FieldError } from '../../http/errors.ts';
import { problems } from '../../http/schemas.ts';
import { ifMatchVersion, invalid, staleWrite, withEtag } from '../shared/records.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { revokeUserSessions } from './sessions.repo.ts';
import { findMemberships, findUserById, insertUser, mergeUserProfile, toUser } from './users.repo.ts';
import { CreateUserBody, PatchMeBody, SelfEditable, UserSchema } from './users.schemas.ts';

const SERVER_KEPT = new Set(['_id', '__v', 'createdAt', 'updatedAt', 'configuredSecrets', 'token', 'access_token', 'message']);
const SELF_EDITABLE = new Set(Object.keys(SelfEditable));

/** Account routes; all need an access token. */
export const userRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const db = ctx.db.kysely;

  app.post(
    '/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user (platform administrators only)',
        body: CreateUserBody,
        response: { 201: UserSchema, ...problems(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => {
      requireRole(request, 'admin');
      const { username, password, role, ...profile } = request.body;
      const row = await insertUser(db, {
        id: newObjectId(ctx.clock.now()),
        username,
        passwordHash: await ctx.passwords.hash(password),
        role: role ?? 'user',
        profile,
      });
      withEtag(reply, row.version);
      return reply.code(201).header('Location', `/users/${row.id}`).send(toUser(row));
    },
  );

  app.get(
    '/users/me',
    { schema: { tags: ['users'], summary: "The caller's User record", response: { 200: UserSchema, ...problems(401) } } },
    async (request, reply) => {
      const row = await findUserById(db, principalOf(request).id);
      if (!row) throw new AppError(401, 'unauthorized', 'The user no longer exists');
      withEtag(reply, row.version);
      return toUser(row, await findMemberships(db, row.id));
    },
  );

  app.patch(
    '/users/me',
    {
      schema: {
        tags: ['users'],
        summary: "Change the caller's own profile (and password, with currentPassword)",
        description:
          'Only names, phone, company, address and preferences change here. A fetched record may be sent back whole: server-kept fields are ignored, and other fields are accepted only with their current value. ' +
          'A password change ends every session of the user, this one included: log in again.',
        body: PatchMeBody,
        response: { 200: UserSchema, ...problems(400, 401, 412, 415) },
      },
    },
    async (request, reply) => {
      const me = principalOf(request);
      const row = await findUserById(db, me.id);
      if (!row) throw new AppError(401, 'unauthorized', 'The user no longer exists');
      const ifVersion = ifMatchVersion(request, row.version);
      const memberships = await findMemberships(db, me.id);
      const current = toUser(row, memberships) as Record<string, unknown>;
      const { password, currentPassword, ...fields } = request.body;

      const patch: Record<string, unknown> = {};
      const errors: FieldError[] = [];
      for (const [key, value] of Object.entries(fields)) {
        if (SERVER_KEPT.has(key)) continue;
        if (SELF_EDITABLE.has(key)) patch[key] = value;
        else if (JSON.stringify(current[key] ?? null) !== JSON.stringify(value ?? null)) {
          errors.push({ path: `/${key}`, message: 'is not yours to change' });
        }
      }
      let passwordHash: string | undefined;
      if (password !== undefined) {
        if (currentPassword === undefined) errors.push({ path: '/currentPassword', message: 'is required to change the password' });
        else if (!(await ctx.passwords.verify(row.password_hash, currentPassword))) errors.push({ path: '/currentPassword', message: 'is incorrect' });
        else passwordHash = await ctx.passwords.hash(password);
      }
      if (errors.length) invalid(errors);

      const updated = await db.transaction().execute(async (trx) => {
        const u = await mergeUserProfile(trx, me.id, patch, passwordHash, ifVersion);
        if (!u) throw staleWrite();
        if (passwordHash) await revokeUserSessions(trx, me.id);
        return u;
      });
      if (passwordHash) ctx.auth.forgetAllSessions();
      withEtag(reply, updated.version);
      return toUser(updated, memberships);
    },
  );
};
