/**
 * One example value made from each schema, so every operation of the document shows one without a hand-kept copy
 * (openapi-document.ts puts them in).
 */

/** The parts of a JSON Schema in the OpenAPI document that the finishing reads or writes. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  example?: unknown;
  examples?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  readOnly?: boolean;
}

/** Values that show what a field is for, by its name. */
const SAMPLES: Record<string, unknown> = {
  name: 'Tower A',
  username: 'ana@example.com',
  password: 'correct horse battery',
  email: 'ana@example.com',
  firstName: 'Ana',
  lastName: 'Ruiz',
  phone: '+1 555 0100',
  namespace: 'tower-a',
  hostName: 'tower-a.example.org',
  price: 450000,
  squareFeet: 850,
  bedrooms: '2',
  availability: 'available',
  message: 'Is the corner unit still available?',
  // Each kind of value as itself, never an id standing in for it.
  status: 'ok',
  token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl',
  access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl',
  refresh_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDIifQ.c2lnbmF0dXJl',
  url: 'https://example.org/hooks/showsuite',
  events: 'unit.updated',
  source: 'presentation',
  contentType: 'image/png',
  column: 'Price',
  unknownColumns: 'Parking spots',
  configuredSecrets: 'sfSecret',
};
/** Keys whose strings are record ids even where their schema has no id pattern. */
const ID_KEY = /^(_id|id|project|floor|unit|user|group|groups|projects|floors|units|editors|administrators)$|Id$/;
const OBJECT_ID_PATTERN = '^[0-9a-f]{24}$';
/** A mailed link's token (URL-safe, no dots) where a signed token does not fit. */
const LINK_TOKEN = 'kV3qL9xT2mZ8rW5nB7cY4hJ6dF1gS0aP';
const KEPT = new Set(['_id', '__v', 'createdAt', 'updatedAt']);
const OBJECT_ID = '65f0c0ffee00000000000001';
const DATE = '2026-03-01T09:30:00.000Z';

function fits(value: string, s: Schema) {
  if (s.minLength !== undefined && value.length < s.minLength) return false;
  if (s.maxLength !== undefined && value.length > s.maxLength) return false;
  return s.pattern === undefined || new RegExp(s.pattern, 'u').test(value);
}

function exampleString(s: Schema, key: string | undefined): string | undefined {
  if (s.format === 'date-time') return DATE;
  if (s.format === 'date') return DATE.slice(0, 10);
  if (s.format === 'email') return 'ana@example.com';
  if (s.format === 'uri') return 'https://example.org/a.png';
  const sample = key !== undefined ? SAMPLES[key] : undefined;
  // A pattern that opens with a literal prefix (`^whsec_`) takes that prefix and a word.
  const prefix = s.pattern !== undefined ? /^\^([A-Za-z0-9_]+)/.exec(s.pattern)?.[1] : undefined;
  const id = s.pattern === OBJECT_ID_PATTERN || (key !== undefined && ID_KEY.test(key)) ? OBJECT_ID : undefined;
  const token = key !== undefined && /token/i.test(key) ? LINK_TOKEN : undefined;
  for (const c of [sample, id, token, prefix && `${prefix}c2VjcmV0`, 'example', 'example.org', 'available', 'a'])
    if (typeof c === 'string' && fits(c, s)) return c;
  if (s.minLength !== undefined) return 'x'.repeat(s.minLength);
  return undefined;
}

/** A value valid for `schema`: required properties always, a few telling optional ones, one item per array. */
export function exampleOf(schema: Schema | undefined, resolve: (ref: Schema) => Schema | undefined, key?: string, depth = 0, request = false): unknown {
  if (!schema || depth > 12) return undefined;
  if (schema.$ref) return exampleOf(resolve(schema), resolve, key, depth + 1, request);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return exampleOf(options.find((o) => o.type !== 'null') ?? options[0], resolve, key, depth + 1, request);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  const sample = key !== undefined ? SAMPLES[key] : undefined;
  switch (type) {
    case 'string':
      return exampleString(schema, key);
    case 'integer':
    case 'number':
      return typeof sample === 'number' ? sample : (schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'array': {
      // An item is the same kind of value as its list (`events` → an event name).
      const item = exampleOf(schema.items, resolve, key, depth + 1, request);
      return item === undefined ? [] : [item];
    }
    case 'object':
    case undefined: {
      if (!schema.properties) return type === 'object' ? {} : undefined;
      const out: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [k, s] of Object.entries(schema.properties)) {
        if (request && !required.has(k) && (KEPT.has(k) || s.readOnly)) continue;
        if (!required.has(k) && !(k in SAMPLES) && !KEPT.has(k) && k !== 'project') continue;
        const v = exampleOf(s, resolve, k, depth + 1, request);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}
