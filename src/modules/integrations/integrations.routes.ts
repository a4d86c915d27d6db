import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Ctx } from '../../context.ts';
import { principalOf } from '../../http/auth.ts';
import { problems } from '../../http/schemas.ts';
import { useJsonStringify } from '../../http/serializer.ts';
import { IntegrationParams, IntegrationStateArray, ProjectParams } from './integrations.schemas.ts';
import { IntegrationsService } from './integrations.service.ts';

export const integrationRoutes: FastifyPluginAsyncTypebox<{ ctx: Ctx }> = async (app, { ctx }) => {
  useJsonStringify(app);
  const integrations = new IntegrationsService(ctx, ctx.crm);

  app.get(
    '/projects/:id/integrations',
    {
      schema: {
        operationId: 'listIntegrations',
        tags: ['integrations'],
        summary: "The project's integrations: set up or not, connected or not, the last success and the last error",
        description: 'Every integration is listed, set up or not. Credentials are never shown: `complete` says whether they are all set.',
        params: ProjectParams,
        response: { 200: IntegrationStateArray, ...problems(400, 401, 404) },
      },
    },
    (request) => integrations.list(principalOf(request), request.params.id),
  );

  app.post(
    '/projects/:id/integrations/:name/test',
    {
      schema: {
        operationId: 'testIntegration',
        tags: ['integrations'],
        summary: 'Call the vendor with the project’s credentials (owner, administrators and editors)',
        description:
          'Changes nothing at the vendor. 200: it answered, with the integration’s state. 502 `upstream_failed`: the vendor’s error in words (`detail`), the state in `integration`. 409: its credentials are not all set, or it has no test yet. Either way the state keeps the outcome.',
        params: IntegrationParams,
        response: { 200: Type.Ref('IntegrationState'), ...problems(400, 401, 403, 404, 409, 502) },
      },
    },
    (request) => integrations.test(principalOf(request), request.params.id, request.params.name),
  );
};
