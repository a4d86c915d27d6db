import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { ProblemSchema } from './schemas.ts';
import { inputErrors } from './input-guard.ts';
import { isTimeZone } from '../lib/project-time.ts';

/** Schemas referenced by $id from routes; registered with Fastify (serialisation, OpenAPI) and with Ajv. */
// ajv-formats is CommonJS with a default export.
type AddFormats = (ajv: Ajv) => Ajv;
const formatsModule = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = formatsModule.default ?? formatsModule;

export const SHARED_SCHEMAS = [ProblemSchema];

/** One address as ajv-formats' `email` checks it, for each entry of a comma-separated list. */
const ONE_EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
/** `email-list`: one or more e-mail addresses separated by commas (spaces around them allowed). */
export const isEmailList = (value: string) => value.split(',').every((a) => ONE_EMAIL.test(a.trim()));
export const splitEmailList = (value: string) =>
  value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

/** The instants a `date-time` may name: what both JavaScript and the database hold (no year 0, none past 9999). */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `date-time`: RFC 3339 as ajv-formats checks it, and an instant the service can store and compare. A leap second
 * (`23:59:60`) has no JavaScript time, and year 0000 or an offset past 9999 none in the database: 400, not a fault.
 */
function withStorableDateTime(ajv: Ajv) {
  const rfc3339 = ajv.formats['date-time'];
  const check = typeof rfc3339 === 'object' && 'validate' in rfc3339 && typeof rfc3339.validate === 'function' ? rfc3339.validate : undefined;
  if (!check) throw new Error('ajv-formats did not define date-time');
  const validate = (value: string) => {
    if (!(check as (v: string) => boolean)(value)) return false;
    const t = Date.parse(value);
    return t >= EARLIEST && t <= LATEST;
  };
  ajv.addFormat('date-time', { type: 'string', validate });
}

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  withStorableDateTime(ajv);
  ajv.addFormat('email-list', { type: 'string', validate: isEmailList });
  // `time-zone`: an IANA zone name this runtime's Intl knows (`Europe/Paris`, `America/Toronto`, `UTC`).
  ajv.addFormat('time-zone', { type: 'string', validate: isTimeZone });
  return ajv;
}

/**
 * Bodies are validated strictly (no type coercion, unknown fields reported, every bad field listed);
 * query strings and path parameters are text, so they are coerced to the declared types.
 * Before the schema, every part is checked for what no schema keyword catches (src/http/input-guard.ts).
 * Non-finite numbers fail `number` (strictNumbers: `1e400`, `Infinity`), and an integer without declared
 * bounds is held to ±(2^53 − 1): beyond that it is not exact in JSON, nor in range for the database.
 */
export function buildValidatorCompiler(extra: object[] = []): FastifySchemaCompiler<FastifySchema> {
  const base: Options = { allErrors: true, removeAdditional: false, strict: false, strictNumbers: true, useDefaults: false };
  let ajv: { body: Ajv; text: Ajv } | undefined;
  const instances = () => {
    if (ajv) return ajv;
    ajv = { body: withFormats(new Ajv({ ...base, coerceTypes: false })), text: withFormats(new Ajv({ ...base, coerceTypes: 'array', useDefaults: true })) };
    for (const s of [...SHARED_SCHEMAS, ...extra].map(boundIntegers)) {
      ajv.body.addSchema(s as object);
      ajv.text.addSchema(s as object);
    }
    return ajv;
  };
  // Made on a route's first request, not at start: building the Ajv instances and compiling every route's
  // schemas up front was most of start-up (~5 s of CPU on this machine). The result is the same function, made once.
  return (route) => {
    let compiled: ReturnType<typeof compileFor> | undefined;
    const lazy = (data: unknown) => {
      compiled ??= compileFor(route);
      const ok = compiled(data);
      lazy.errors = compiled.errors;
      return ok;
    };
    lazy.errors = null as ReturnType<typeof compileFor>['errors'];
    return lazy;
  };

  function compileFor({ schema, httpPart }: { schema: FastifySchema; httpPart?: string | undefined }) {
    const { body, text } = instances();
    const validate = (httpPart === 'body' ? body : text).compile(boundIntegers(schema) as object);
    if (httpPart === 'headers') return validate;
    // A request with no body is validated as an empty object (optional bodies stay optional; app.ts hands the
    // handler that same `{}`). A JSON `null`, array, string or number is what it is: not an object.
    const empty = httpPart === 'body';
    const check = (data: unknown) => {
      const guarded = inputErrors(data);
      if (guarded) {
        check.errors = guarded as unknown as typeof validate.errors;
        return false;
      }
      const ok = validate(empty && data === undefined ? {} : data);
      check.errors = validate.errors;
      if (!empty) {
        // Coercion turns the text `Infinity` or `1e400` into a number that passes every keyword: checked again.
        const coerced = inputErrors(data);
        if (coerced) {
          check.errors = [...(validate.errors ?? []), ...(coerced as unknown as NonNullable<typeof validate.errors>)];
          return false;
        }
      }
      return ok;
    };
    check.errors = null as typeof validate.errors;
    return check;
  }
}

const DATA_KEYWORDS = new Set(['default', 'examples', 'const', 'enum']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** A copy of a schema in which every `integer` without a maximum / minimum gets ±Number.MAX_SAFE_INTEGER. */
export function boundIntegers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(boundIntegers);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) {
    const v = (schema as Record<string | symbol, unknown>)[key];
    if (typeof key !== 'string' || DATA_KEYWORDS.has(key)) out[key] = v;
    else if (NAME_MAPS.has(key) && v !== null && typeof v === 'object') {
      out[key] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, boundIntegers(sub)]));
    } else out[key] = boundIntegers(v);
  }
  const type = out.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    if (out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
    if (out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = -Number.MAX_SAFE_INTEGER;
  }
  return out;
}
