import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { ProblemSchema } from './schemas.ts';
import { InviteSchema } from '../modules/users/users.schemas.ts';

/** Schemas referenced by $id from routes; registered with Fastify (serialisation, OpenAPI) and with Ajv. */
// ajv-formats is CommonJS with a default export.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats = (addFormatsModule as unknown as { default: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

export const SHARED_SCHEMAS = [ProblemSchema, InviteSchema];

/**
 * Bodies are validated strictly (no type coercion, unknown fields reported, every bad field listed);
 * query strings and path parameters are text, so they are coerced to the declared types.
 */
export function buildValidatorCompiler(extra: object[] = []): FastifySchemaCompiler<FastifySchema> {
  const base: Options = { allErrors: true, removeAdditional: false, strict: false, useDefaults: false };
  const body = addFormats(new Ajv({ ...base, coerceTypes: false }));
  const text = addFormats(new Ajv({ ...base, coerceTypes: 'array', useDefaults: true }));
  for (const s of [...SHARED_SCHEMAS, ...extra]) {
    body.addSchema(s);
    text.addSchema(s);
  }
  return ({ schema, httpPart }) => {
    if (httpPart !== 'body') return text.compile(schema as object);
    const validate = body.compile(schema as object);
    // A request with no body (or JSON null) is validated as an empty object: optional bodies stay optional.
    const check = (data: unknown) => {
      const ok = validate(data ?? {});
      check.errors = validate.errors;
      return ok;
    };
    check.errors = null as typeof validate.errors;
    return check;
  };
}
