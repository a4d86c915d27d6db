import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Ctx } from '../../context.ts';
import { hashToken } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { NoContent, problems } from '../../http/schemas.ts';
import { langOf, resetMail } from '../../mail/templates.ts';
import { revokeUserSessions } from './sessions.repo.ts';
import { findUserByUsername, recordAudit } from './users.repo.ts';

/** A reset link works once, for this long (CONTRACT §9). */
export const RESET_TTL_MS = 60 * 60 * 1000;

const RequestBody = Type.Object({ username: Type.String({ format: 'email', maxLength: 320 }) }, { additionalProperties: false });
const Accepted = Type.Object({ message: Type.String() }, { additionalProperties: false });
const ConfirmBody = Type.Object(
  {
    token: Type.String({ minLength: 20, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'The token from the mailed link' }),
    password: Type.String({ minLength: 8, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
const ANSWER = 'If an account exists for this address, a link to choose a new password has been mailed to it.';

/** Forgotten passwords: no authentication (the mailed token is the credential). */
export const passwordResetRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  const db = ctx.db.kysely;
  const rateLimit = { max: ctx.config.mail.accountRequestsPerMinute, timeWindow: 60_000 };

  app.post(
    '/users/password-reset',
    {
      schema: {
        tags: ['auth'],
        summary: 'Ask for a password-reset link',
        description:
          'Always 202 with the same body, after the same work, whether or not the account exists; ' +
          'an existing account is mailed `<PUBLIC_URL>/admin/reset/<token>` ' +
          '(once, 1 hour). At most PASSWORD_RESETS_PER_HOUR links per address per hour are mailed (more requests are answered the same and send nothing). ' +
          'Rate-limited per client address (429). The mail is in the language of `Accept-Language` (en, fr, es).',
        security: [],
        body: RequestBody,
        response: { 202: Accepted, ...problems(400, 415, 429) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const username = request.body.username.toLowerCase();
      const token = randomBytes(32).toString('base64url');
      const now = ctx.clock.now();
      const lang = langOf(request.headers['accept-language']);
      // The same statements run whether the account exists or not: a look-up, a count, a row, a queued job
      // (for an unknown address the job is a placeholder that sends nothing). Timing tells nothing.
      await db.transaction().execute(async (trx) => {
        const user = await findUserByUsername(trx, username);
        const recent = await trx
          .selectFrom('password_resets')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('username', '=', username)
          .where('created_at', '>', new Date(now - 60 * 60 * 1000))
          .executeTakeFirstOrThrow();
        if (recent.n >= ctx.config.mail.resetsPerHour) return;
        await trx
          .insertInto('password_resets')
          .values({ token_hash: hashToken(token), user_id: user?.id ?? null, username, created_at: new Date(now), expires_at: new Date(now + RESET_TTL_MS) })
          .execute();
        await ctx.mail.queue(trx, user ? resetMail({ to: user.username, lang, link: `${ctx.config.mail.publicUrl}/admin/reset/${token}`, now }) : null);
      });
      ctx.mail.wake();
      return reply.code(202).send({ message: ANSWER });
    },
  );

  app.post(
    '/users/password-reset/confirm',
    {
      schema: {
        tags: ['auth'],
        summary: 'Choose a new password with a reset token',
        description:
          'Sets the password and ends every session of the user (204). A token works once, for 1 hour: used, expired or unknown → 410. ' +
          'Rate-limited per client address.',
        security: [],
        body: ConfirmBody,
        response: { 204: NoContent, ...problems(400, 410, 415, 429) },
      },
      config: { rateLimit },
    },
    async (request, reply) => {
      const tokenHash = hashToken(request.body.token);
      const now = ctx.clock.now();
      const passwordHash = await ctx.passwords.hash(request.body.password);
      const userId = await db.transaction().execute(async (trx) => {
        // One conditional UPDATE claims the token: of two concurrent confirmations exactly one gets a row.
        const claimed = await trx
          .updateTable('password_resets')
          .set({ used_at: new Date(now) })
          .where('token_hash', '=', tokenHash)
          .where('used_at', 'is', null)
          .where('expires_at', '>', new Date(now))
          .where('user_id', 'is not', null)
          .returning('user_id')
          .executeTakeFirst();
        if (!claimed?.user_id) return undefined;
        const id = claimed.user_id;
        await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, version: sql`version + 1`, updated_at: sql`now()` })
          .where('id', '=', id)
          .execute();
        // Every other link mailed to this user stops working too, and every session ends.
        await trx
          .updateTable('password_resets')
          .set({ used_at: new Date(now) })
          .where('user_id', '=', id)
          .where('used_at', 'is', null)
          .execute();
        await revokeUserSessions(trx, id);
        await recordAudit(trx, { actorId: id, action: 'password_reset', subjectId: id });
        return id;
      });
      if (!userId) throw new AppError(410, 'gone', 'This reset link was already used, has expired or is unknown; ask for a new one');
      ctx.auth.forgetAllSessions();
      return reply.code(204).send();
    },
  );
};
