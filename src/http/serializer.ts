import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Resource records (projects have ~170 optional fields, mostly absent) serialise faster with JSON.stringify
 * than with fast-json-stringify's generated code, which tests every declared property: profiling
 * GET /projects put that code at ~20% of CPU. The response schemas still document the routes, and the
 * records are built only from validated columns and `data` (secrets live in another column), so nothing
 * undeclared can reach them.
 */
export function useJsonStringify(app: FastifyInstance) {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

/**
 * A body already written as JSON text (a hot read spliced from PostgreSQL's JSON text of the stored document): sent as
 * it is, with the JSON type, so no serialiser runs over it.
 */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
