import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { Auth, hashToken, principalOf } from '../../http/auth.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { DateTime, NoContent, ObjectId, problems } from '../../http/schemas.ts';
import { newObjectId } from '../../lib/object-id.ts';
import { inviteMail, langOf } from '../../mail/templates.ts';
import { authorize } from '../shared/access.ts';
import { findMemberships, findUserById, findUserByUsername, insertUser, toUser } from '../users/users.repo.ts';
import { LoginResponseSchema } from '../users/users.schemas.ts';
import {
  addMember,
  findInviteByToken,
  findTarget,
  insertInvite,
  listInviteOnRecord,
  markAccepted,
  revokeInvite,
  toInvite,
  unlistInviteOnRecord,
  type InviteRow,
  type TargetKind,
} from './invites.repo.ts';

/** An invitation link works for this long (CONTRACT §9). */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const LEVELS = ['administrator', 'editor'] as const;

const InviteBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    firstName: Type.Optional(Type.String({ maxLength: 200 })),
    lastName: Type.Optional(Type.String({ maxLength: 200 })),
    level: Type.Union(
      LEVELS.map((l) => Type.Literal(l)),
      { description: 'Where the invitee lands: `administrators` or `editors`' },
    ),
  },
  { additionalProperties: false },
);
const InviteCreated = Type.Object(
  {
    _id: ObjectId,
    email: Type.String(),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    level: Type.Union(LEVELS.map((l) => Type.Literal(l))),
    createdAt: DateTime,
    expiresAt: DateTime,
  },
  { additionalProperties: false },
);
const Named = Type.Object({ _id: ObjectId, name: Type.String() }, { additionalProperties: false });
const InviteLookup = Type.Object(
  {
    email: Type.String(),
    level: Type.Union(LEVELS.map((l) => Type.Literal(l))),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    expiresAt: DateTime,
    project: Type.Optional(Named),
    group: Type.Optional(Named),
  },
  { additionalProperties: false },
);
const TokenParams = Type.Object(
  { token: Type.String({ pattern: '^[A-Za-z0-9_-]{20,200}$', description: 'The token from the invitation link' }) },
  { additionalProperties: false },
);
const AcceptBody = Type.Object(
  {
    password: Type.Optional(
      Type.String({
        minLength: 8,
        maxLength: 1024,
        description: "The new account's password; for an existing account that is not signed in, its current password",
      }),
    ),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    lastName: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
const WhichParams = Type.Object({ id: ObjectId, inviteId: ObjectId }, { additionalProperties: false });

const what = (kind: TargetKind) => (kind === 'project' ? 'Project' : 'Group');

/** Why a token no longer works, or undefined while it does. */
function spent(invite: InviteRow, now: number): string | undefined {
  if (invite.accepted_at) return 'This invitation was already accepted';
  if (invite.revoked_at) return 'This invitation was revoked';
  if (new Date(invite.expires_at).getTime() <= now) return 'This invitation has expired';
  return undefined;
}

/** Owners and administrators invite and revoke (authenticated scope). */
export const inviteRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const db = ctx.db.kysely;

  for (const kind of ['project', 'group'] as const) {
    const base = kind === 'project' ? '/projects' : '/groups';
    app.post(
      `${base}/:id/invites`,
      {
        schema: {
          tags: [`${kind}s`],
          summary: `Invite someone to a ${kind} as administrator or editor`,
          description:
            `Owner and administrators. The invite is listed in the ${kind}'s \`invites\` and the invitee is mailed a link ` +
            '`<PUBLIC_URL>/admin/invites/<token>` that works once, for 7 days. The token is never returned.',
          params: Type.Object({ id: ObjectId }, { additionalProperties: false }),
          body: InviteBody,
          response: { 201: InviteCreated, ...problems(400, 401, 403, 404, 415) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const { id } = request.params;
        const token = randomBytes(32).toString('base64url');
        const now = ctx.clock.now();
        const invite = await db.transaction().execute(async (trx) => {
          const target = await findTarget(trx, kind, id);
          authorize(principal, target, 'manage', what(kind));
          const row = await insertInvite(trx, {
            id: newObjectId(now),
            tokenHash: hashToken(token),
            kind,
            targetId: id,
            // Usernames match without regard to case; the invite keeps the address as usernames are compared.
            email: request.body.email.toLowerCase(),
            firstName: request.body.firstName,
            lastName: request.body.lastName,
            level: request.body.level,
            invitedBy: principal.id,
            createdAt: new Date(now),
            expiresAt: new Date(now + INVITE_TTL_MS),
          });
          const invite = toInvite(row);
          await listInviteOnRecord(trx, kind, id, invite);
          const settings = target!.data;
          await ctx.mail.queue(
            trx,
            inviteMail({
              to: row.email,
              lang: langOf(kind === 'project' ? settings.projectLang : settings.groupLang),
              inviter: principal.username,
              targetName: target!.name,
              level: row.level,
              link: `${ctx.config.mail.publicUrl}/admin/invites/${token}`,
              now,
            }),
          );
          return invite;
        });
        ctx.mail.wake();
        return reply.code(201).send(invite);
      },
    );

    app.delete(
      `${base}/:id/invites/:inviteId`,
      {
        schema: {
          tags: [`${kind}s`],
          summary: `Revoke a pending invitation to a ${kind}`,
          description: `Owner and administrators. The link stops working (410) and the invite leaves the ${kind}'s \`invites\`.`,
          params: WhichParams,
          response: { 204: NoContent, ...problems(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const { id, inviteId } = request.params;
        await db.transaction().execute(async (trx) => {
          authorize(principal, await findTarget(trx, kind, id), 'manage', what(kind));
          if (!(await revokeInvite(trx, kind, id, inviteId, new Date(ctx.clock.now())))) throw notFound('Invite');
          await unlistInviteOnRecord(trx, kind, id, inviteId);
        });
        return reply.code(204).send();
      },
    );
  }
};

/** What the invitation link reaches: look-up and acceptance, with or without a session. */
export const invitePublicRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const db = ctx.db.kysely;
  const rateLimit = { max: ctx.config.mail.accountRequestsPerMinute, timeWindow: 60_000 };

  app.get(
    '/invites/:token',
    {
      schema: {
        tags: ['invites'],
        summary: 'What an invitation link is for',
        description: 'No authentication: the token is the credential. Unknown token → 404; used, revoked or expired → 410.',
        security: [],
        params: TokenParams,
        response: { 200: InviteLookup, ...problems(400, 404, 410, 429) },
      },
      config: { rateLimit },
    },
    async (request) => {
      const invite = await findInviteByToken(db, hashToken(request.params.token));
      if (!invite) throw notFound('Invitation');
      const why = spent(invite, ctx.clock.now());
      if (why) throw new AppError(410, 'gone', why);
      const target = await findTarget(db, invite.target_kind, invite.target_id);
      if (!target) throw new AppError(410, 'gone', `The ${invite.target_kind} of this invitation no longer exists`);
      return {
        email: invite.email,
        level: invite.level,
        ...(invite.first_name !== null ? { firstName: invite.first_name } : {}),
        ...(invite.last_name !== null ? { lastName: invite.last_name } : {}),
        expiresAt: new Date(invite.expires_at).toISOString(),
        [invite.target_kind]: { _id: target.id, name: target.name },
      };
    },
  );

  app.post(
    '/invites/:token/accept',
    {
      schema: {
        tags: ['invites'],
        summary: 'Accept an invitation',
        description:
          'Signed in (bearer or cookie) as the invited address: that user joins. Signed in as anyone else → 403. ' +
          'Not signed in: creates the account `email` with `password` (and `name`, `lastName`); ' +
          'if that account already exists, `password` must be its password (401 otherwise). ' +
          'The user lands in `administrators` or `editors` and the invite leaves `invites`. Answers like login (200, cookies). ' +
          'The link works once, for 7 days (410 after).',
        security: [{}, { bearerAuth: [] }, { cookieAuth: [] }],
        params: TokenParams,
        body: AcceptBody,
        response: { 200: LoginResponseSchema, ...problems(400, 401, 403, 404, 409, 410, 415, 429) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const tokenHash = hashToken(request.params.token);
      const found = Auth.tokenFrom(request);
      const principal = found ? await ctx.auth.principalFromToken(found.token) : undefined;
      const first = await findInviteByToken(db, tokenHash);
      if (!first) throw notFound('Invitation');
      const why = spent(first, ctx.clock.now());
      if (why) throw new AppError(410, 'gone', why);
      if (principal && principal.username.toLowerCase() !== first.email.toLowerCase()) {
        throw new AppError(403, 'forbidden', 'This invitation is for another address; sign out or sign in as the invited user');
      }

      // The slow work (hashing, verifying a password) before the transaction; the transaction re-checks the invite.
      let userId = principal?.id;
      let newUser: { id: string; passwordHash: string; profile: Record<string, unknown> } | undefined;
      if (!userId) {
        const { password, name, lastName } = request.body;
        if (password === undefined) throw new AppError(400, 'invalid_body', 'password is required', [{ path: '/password', message: 'is required' }]);
        const existing = await findUserByUsername(db, first.email);
        if (existing) {
          if (!(await ctx.passwords.verify(existing.password_hash, password)))
            throw new AppError(401, 'invalid_credentials', 'This address has an account: send its password, or sign in first');
          userId = existing.id;
        } else {
          const profile: Record<string, unknown> = {};
          const n = name ?? first.first_name;
          const l = lastName ?? first.last_name;
          if (n) profile.name = n;
          if (l) profile.lastName = l;
          newUser = { id: newObjectId(ctx.clock.now()), passwordHash: await ctx.passwords.hash(password), profile };
        }
      }

      const user = await db.transaction().execute(async (trx) => {
        const invite = await findInviteByToken(trx, tokenHash, { lock: true });
        const gone = invite ? spent(invite, ctx.clock.now()) : 'This invitation no longer exists';
        if (!invite || gone) throw new AppError(410, 'gone', gone!);
        const target = await findTarget(trx, invite.target_kind, invite.target_id);
        if (!target) throw new AppError(410, 'gone', `The ${invite.target_kind} of this invitation no longer exists`);
        const row = newUser
          ? await insertUser(trx, { id: newUser.id, username: invite.email, passwordHash: newUser.passwordHash, role: 'user', profile: newUser.profile })
          : await findUserById(trx, userId!);
        if (!row) throw new AppError(401, 'unauthorized', 'The signed-in user no longer exists');
        await addMember(trx, invite.target_kind, invite.target_id, row.id, invite.level);
        await unlistInviteOnRecord(trx, invite.target_kind, invite.target_id, invite.id);
        await markAccepted(trx, invite.id, row.id, new Date(ctx.clock.now()));
        return row;
      });
      const issued = await ctx.authService.signIn(user);
      ctx.authService.setCookies(reply, issued);
      return { ...toUser(user, await findMemberships(db, user.id)), token: issued.accessToken, access_token: issued.accessToken, message: 'Login successful' };
    },
  );
};
