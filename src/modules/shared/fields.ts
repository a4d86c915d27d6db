import { Type, type TOptional, type TProperties, type TSchema, type TString } from '@sinclair/typebox';

/** A bounded text field: long enough for embed codes and SVG paths, bounded so no body can balloon a record. */
export const Str = Type.String({ maxLength: 100_000 });

export function strings<K extends string>(keys: readonly K[]): Record<K, TString> {
  return Object.fromEntries(keys.map((k) => [k, Str])) as Record<K, TString>;
}

export function optional<T extends TProperties>(fields: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof T]: TOptional<T[K]> };
}

/** customFinishes: `{ name, options: { kitchen, bathroom, general } }`, each option `{ tabs: [{ label, cover, thumbnail }] }`. */
export function CustomFinishesType(tabs: TSchema) {
  return Type.Object(
    {
      name: Type.Optional(Str),
      options: Type.Optional(
        Type.Object({ kitchen: Type.Optional(tabs), bathroom: Type.Optional(tabs), general: Type.Optional(tabs) }, { additionalProperties: false }),
      ),
    },
    { additionalProperties: false },
  );
}

/** A lower-case slug of at most 63 characters, unique among the records `of`. */
export const Namespace = (of: string) => Type.String({ pattern: '^[a-z0-9](-?[a-z0-9])*$', maxLength: 63, description: `Lower-case slug, unique among ${of}` });

/** A DNS host name (labels of 1–63 letters, digits and inner hyphens), unique among the records `of`. */
export const HostName = (of: string) =>
  Type.String({
    pattern: '^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
    description: `Host name, unique among ${of} (stored lower-case)`,
  });
