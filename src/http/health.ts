import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../context.ts';
import { AppError } from './errors.ts';
import { problems } from './schemas.ts';
import { useJsonStringify } from './serializer.ts';
import { ERRORS } from './errors.catalogue.ts';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  // Probes poll these from the first moment: no serializer compiler (and its Ajv) to build for them at start.
  useJsonStringify(app);
  app.get(
    '/health',
    {
      schema: { operationId: 'checkHealth', tags: ['operations'], summary: 'Liveness: 200 while the process runs', security: [], response: { 200: Status } },
      logLevel: 'warn',
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/ready',
    {
      schema: {
        operationId: 'checkReadiness',
        tags: ['operations'],
        summary: 'Readiness: 200 when the database answers and the job queue is started, else 503',
        security: [],
        response: { 200: Status, ...problems() },
      },
      logLevel: 'warn',
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(ERRORS.databaseUnavailable('The database did not answer in time'));
        }, 3000);
      });
      try {
        try {
          await Promise.race([ctx.db.ping(), timeout]);
        } catch (err) {
          if (err instanceof AppError) throw err;
          throw ERRORS.databaseUnavailable('The database is unavailable');
        }
        // Writes that queue mail, webhooks or imports need the job queue. A node whose queue could not start (the
        // database was away at boot) tries again now, within the same 3 s, rather than at its next 5 s retry.
        if (!ctx.outbox.started) {
          try {
            await Promise.race([ctx.outbox.start(), timeout]);
          } catch {
            throw ERRORS.starting('The job queue is not started yet');
          }
        }
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ready' };
    },
  );
};
