/**
 * Input that no schema keyword catches but that breaks things further in: U+0000 and unpaired surrogates
 * (PostgreSQL text and jsonb refuse them: SQLSTATE 22021 / 22P05), non-finite numbers (`1e400` parses to
 * Infinity, which JSON writes back as null), nesting deep enough to overflow the stack of a recursive walker
 * (JSON.stringify, deepEqual), and keys that name the object machinery (`__proto__`, `constructor`,
 * `prototype`). Checked on every validated part of every request (body, query, path), before the schema,
 * so a route added later is covered without doing anything.
 */

import { parse } from 'node:querystring';

/** Deeper than this, in any body or query object, is refused. The deepest shape the API documents is ~4. */
export const MAX_DEPTH = 32;
/** At most this many problems are reported for one request part. */
const MAX_PROBLEMS = 20;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The shape Ajv reports errors in, so the one error handler turns these into field errors too. */
export interface InputError {
  instancePath: string;
  keyword: 'input';
  message: string;
  params: Record<string, never>;
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function stringProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain the character U+0000';
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/** Query parameters whose percent-encoding is not UTF-8 (`%ED%A0%80` is how a lone surrogate arrives in a URL). */
const BAD_ENCODING = Symbol('badEncoding');

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
};

/**
 * The query string parser: Node's, which like Fastify's gives a null-prototype object and arrays for repeated
 * names, but which does not keep undecodable text silently; such names are remembered for inputErrors.
 */
export function parseQuery(text: string): Record<string, unknown> {
  const query = parse(text, '&', '=', { maxKeys: 0 }) as Record<string | symbol, unknown>;
  if (!text.includes('%')) return query;
  const bad: string[] = [];
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    const [name, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const decodedName = decode(name);
    if (decodedName === undefined || decode(value) === undefined) bad.push(`/${pointer(decodedName ?? name)}`);
  }
  // Enumerable, so copies of the query (`{ ...request.query }`) keep it; schemas never see symbol keys.
  if (bad.length) query[BAD_ENCODING] = bad;
  return query;
}

/** Every problem in a parsed request part (undefined when there is none). Iterative and bounded, never recursive. */
export function inputErrors(value: unknown): InputError[] | undefined {
  const errors: InputError[] = [];
  const report = (instancePath: string, message: string) => errors.push({ instancePath, keyword: 'input', message, params: {} });
  const badEncoding = (value as { [BAD_ENCODING]?: string[] } | null | undefined)?.[BAD_ENCODING];
  for (const path of badEncoding ?? []) report(path, 'is not valid percent-encoded UTF-8');
  const stack: [unknown, string, number][] = [[value, '', 0]];
  while (errors.length < MAX_PROBLEMS) {
    const top = stack.pop();
    if (top === undefined) break;
    const [v, path, depth] = top;
    if (typeof v === 'string') {
      const p = stringProblem(v);
      if (p) report(path, p);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) report(path, 'must be a finite number');
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_DEPTH) {
        report(path, `is nested deeper than ${MAX_DEPTH} levels`);
      } else if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`, depth + 1]);
      } else {
        for (const key of Object.keys(v)) {
          const childPath = `${path}/${pointer(key)}`;
          const keyProblem = FORBIDDEN_KEYS.has(key) ? 'is not an allowed field name' : stringProblem(key);
          // The path of a bad key is shown with the bad characters replaced, so the answer is well-formed text.
          // eslint-disable-next-line no-control-regex -- U+0000 is exactly what must not be echoed back
          if (keyProblem) report(childPath.replace(/[\u0000\uD800-\uDFFF]/g, '\uFFFD'), FORBIDDEN_KEYS.has(key) ? keyProblem : `name ${keyProblem}`);
          else stack.push([(v as Record<string, unknown>)[key], childPath, depth + 1]);
        }
      }
    }
  }
  return errors.length ? errors : undefined;
}
