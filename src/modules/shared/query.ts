import type { FastifyRequest } from 'fastify';
import { ERRORS } from '../../http/errors.catalogue.ts';

/**
 * Object-valued query parameters arrive as JSON text (`filters={"name":"Tower"}`) or in bracket form
 * (`filters[name]=Tower`). Both become plain objects here, before schema validation coerces and checks them.
 */
export function objectQuery(names: string[]) {
  return async (request: FastifyRequest) => {
    const query = { ...(request.query as Record<string, unknown>) };
    for (const name of names) {
      const value = query[name];
      if (typeof value === 'string') {
        try {
          query[name] = value.trim() === '' ? {} : JSON.parse(value);
        } catch {
          throw ERRORS.invalidQuery(`${name} must be a JSON object or use ${name}[key]=value`, {
            errors: [{ path: `/${name}`, message: 'is not valid JSON' }],
          });
        }
      }
      for (const key of Object.keys(query)) {
        const [, base, field] = /^([A-Za-z]+)\[([A-Za-z0-9_]+)\]$/.exec(key) ?? [];
        if (base !== name || field === undefined) continue;
        const target = (typeof query[name] === 'object' && query[name] !== null ? query[name] : (query[name] = {})) as Record<string, unknown>;
        // Defined, not assigned: `filters[__proto__]=x` becomes a field the input guard names and refuses,
        // instead of a prototype change that would slip past every check.
        Object.defineProperty(target, field, { value: query[key], enumerable: true, writable: true, configurable: true });
        delete query[key];
      }
    }
    request.query = query;
  };
}
