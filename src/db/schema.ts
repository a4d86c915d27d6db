import type { ColumnType, Generated } from 'kysely';

/** Table shapes as Kysely sees them. JSON columns hold the spec's camelCase fields; columns are snake_case. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = Record<string, unknown>> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  role: Generated<string>;
  profile: Json;
  secrets: Json<Record<string, string>>;
  version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  impersonator_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: Timestamp;
  actor_id: string | null;
  action: string;
  subject_id: string | null;
  detail: Json;
}

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;
type Num = ColumnType<number, number | undefined, number>;

export interface ProjectsTable {
  id: string;
  user_id: string;
  name: string;
  namespace: Nullable<string>;
  host_name: Nullable<string>;
  project_type: Nullable<string>;
  administrators: ColumnType<string[], string[] | undefined, string[]>;
  editors: ColumnType<string[], string[] | undefined, string[]>;
  data: Json;
  secrets: Json<Record<string, string>>;
  version: Generated<number>;
  content_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FloorsTable {
  id: string;
  project_id: string;
  name: string;
  position: Num;
  data: Json;
  version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UnitsTable {
  id: string;
  project_id: string;
  floor_id: Nullable<string>;
  name: string;
  position: Num;
  availability: Generated<string>;
  on_hold_expires_at: Nullable<Date | string>;
  held_by: Nullable<string>;
  data: Json;
  version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface LeadsTable {
  id: string;
  project_id: string;
  data: Json;
  created_at: Timestamp;
}

export interface GroupsTable {
  id: string;
  user_id: string;
  name: string;
  namespace: Nullable<string>;
  host_name: Nullable<string>;
  administrators: ColumnType<string[], string[] | undefined, string[]>;
  editors: ColumnType<string[], string[] | undefined, string[]>;
  data: Json;
  version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GroupProjectsTable {
  group_id: string;
  project_id: string;
  position: number;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status: number;
  body: ColumnType<unknown, string | null, string | null>;
  created_at: Timestamp;
}

export interface Database {
  idempotency_keys: IdempotencyKeysTable;
  projects: ProjectsTable;
  floors: FloorsTable;
  units: UnitsTable;
  leads: LeadsTable;
  groups: GroupsTable;
  group_projects: GroupProjectsTable;
  users: UsersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  audit_log: AuditLogTable;
}
