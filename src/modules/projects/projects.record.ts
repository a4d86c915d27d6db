import type { Selectable } from 'kysely';
import { isoTextSql, recordTextSql } from '../../db/json-text.ts';
import type { ProjectsTable } from '../../db/schema.ts';
import { childOrderText } from '../../db/reorder.repo.ts';
import { PROJECT_SECRETS } from './projects.schemas.ts';

/**
 * A project record, rendered two ways: `toProject` (an object, for a single project's reads and writes) and
 * `PROJECT_RECORD_SQL` (the whole record's JSON text written by PostgreSQL, for `GET /projects`). Both write the stored
 * document's keys first, less `PROJECT_NOT_IN_DOCUMENT`, then the record's fields in one order; test/records.test.ts
 * holds the two equal, key order included.
 */

export type ProjectRow = Selectable<ProjectsTable> & { floor_ids: string[] };

/** Ids of the project's floors in position order (null for none): `project.floors` is derived, never stored twice. */
export const FLOOR_IDS_SQL = `select array_agg(f.id order by ${childOrderText('f')}) from floors f where f.project_id = p.id`;

/**
 * Keys a stored document must never carry into a response: the record's own (kept in columns or derived) and the
 * write-only secrets (kept sealed in `secrets`). The service never stores them in `data`; both renderings leave them out.
 */
export const PROJECT_NOT_IN_DOCUMENT = [
  ...[
    '_id',
    '__v',
    'user',
    'name',
    'namespace',
    'hostName',
    'projectType',
    'administrators',
    'editors',
    'floors',
    'configuredSecrets',
    'createdAt',
    'updatedAt',
  ],
  ...PROJECT_SECRETS,
];
const NOT_IN_DOCUMENT = new Set(PROJECT_NOT_IN_DOCUMENT);

/** How an allocation's password is keyed among a project's sealed secrets: this prefix, then the allocation's name. */
export const ALLOCATION_SECRET_PREFIX = 'allocation:';

/** A secret's key as clients know it: an allocation's password by the allocation's name. */
export function secretName(key: string): string {
  return key.startsWith(ALLOCATION_SECRET_PREFIX) ? `allocations[${key.slice(ALLOCATION_SECRET_PREFIX.length)}].password` : key;
}

/**
 * Names of the secrets that are set, as `configuredSecrets` shows them, in code point order (the order PostgreSQL's
 * "C" collation gives `PROJECT_RECORD_SQL`).
 */
export function secretNames(secrets: Record<string, string>): string[] {
  return Object.keys(secrets).map(secretName).sort(byCodePoint);
}

function byCodePoint(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The response record, a new object: the row (and its `data`) is left as it was. */
export function toProject(row: ProjectRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row.data) if (!NOT_IN_DOCUMENT.has(key)) out[key] = row.data[key];
  out._id = row.id;
  out.__v = row.version;
  out.user = row.user_id;
  out.name = row.name;
  if (row.namespace !== null) out.namespace = row.namespace;
  if (row.host_name !== null) out.hostName = row.host_name;
  if (row.project_type !== null) out.projectType = row.project_type;
  out.administrators = row.administrators;
  out.editors = row.editors;
  out.floors = row.floor_ids;
  out.configuredSecrets = secretNames(row.secrets);
  out.createdAt = row.created_at.toISOString();
  out.updatedAt = row.updated_at.toISOString();
  return out;
}

/**
 * `toProject`'s record as JSON text, written wholly by PostgreSQL from the row `p`: the stored document's text (less
 * `PROJECT_NOT_IN_DOCUMENT`), then the record's fields in `toProject`'s order. Nothing of a listed project is parsed
 * or serialised in Node.
 */
export const PROJECT_RECORD_SQL = recordTextSql(
  'p.data',
  PROJECT_NOT_IN_DOCUMENT,
  [
    `'"_id":"' || p.id || '","__v":' || p.version || ',"user":"' || p.user_id || '","name":' || to_json(p.name)::text`,
    `coalesce(',"namespace":' || to_json(p.namespace)::text, '')`,
    `coalesce(',"hostName":' || to_json(p.host_name)::text, '')`,
    `coalesce(',"projectType":' || to_json(p.project_type)::text, '')`,
    `',"administrators":' || to_json(p.administrators)::text || ',"editors":' || to_json(p.editors)::text`,
    `',"floors":' || coalesce(to_json((${FLOOR_IDS_SQL}))::text, '[]')`,
    // `secretName` and `secretNames`' order, in SQL.
    `',"configuredSecrets":' || to_json(array(select s.name from (select case when starts_with(k, '${ALLOCATION_SECRET_PREFIX}') then 'allocations[' || substr(k, ${ALLOCATION_SECRET_PREFIX.length + 1}) || '].password' else k end as name from jsonb_object_keys(p.secrets) as k) as s order by s.name collate "C"))::text`,
    `',"createdAt":"' || ${isoTextSql('p.created_at')} || '","updatedAt":"' || ${isoTextSql('p.updated_at')} || '"'`,
  ].join(' || '),
);
