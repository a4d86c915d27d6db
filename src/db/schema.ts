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

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  audit_log: AuditLogTable;
}
