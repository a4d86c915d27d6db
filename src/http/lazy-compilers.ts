import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify compiles every response schema of every route when it starts (fast-json-stringify: ~1.5 s of CPU here,
 * for dozens of routes × up to ten statuses, most of them problem documents that are sent as text and never
 * serialised). This factory compiles each on its first use instead; what it compiles is Fastify's own default.
 */
export function lazySerializers() {
  const build = SerializerSelector();
  return (externalSchemas?: unknown, options?: Parameters<typeof build>[1]) => {
    const compile = build(externalSchemas, options);
    return (route: Parameters<typeof compile>[0]) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc: unknown) => (serialize ??= compile(route))(doc);
    };
  };
}
