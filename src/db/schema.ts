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
  deactivated_at: Generated<Date | null>;
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

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  scope: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: Timestamp;
  actor_id: string | null;
  action: string;
  subject_id: string | null;
  detail: Json;
  address: string | null;
  project_id: string | null;
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
  /** bigint: pg returns it as a string. */
  content_version: Generated<number | string>;
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

export interface WorksheetsTable {
  id: string;
  project_id: string;
  allocation: string;
  buyer: Json;
  choices: string[];
  notes: Nullable<string>;
  status: Generated<string>;
  unit_id: Nullable<string>;
  realtor_email: Nullable<string>;
  version: Generated<number>;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface LeadsTable {
  id: string;
  project_id: string;
  data: Json;
  status: Generated<string>;
  notes: Nullable<string>;
  assignee: Nullable<string>;
  version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A visitor's hold (0027): `units.held_by` names it while it holds its unit. */
export interface HoldsTable {
  id: string;
  unit_id: string;
  project_id: string;
  token_hash: string;
  client: string;
  lead_id: Nullable<string>;
  created_at: Timestamp;
  extended_at: Nullable<Date>;
  released_at: Nullable<Date>;
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

export interface EventsTable {
  id: string;
  project_id: string;
  /** bigint: pg returns it as text. */
  seq: ColumnType<string, number | string, number | string>;
  type: string;
  subject_id: string;
  actor_kind: string;
  actor_id: string | null;
  data: Json;
  created_at: Timestamp;
}

export interface ProjectEventCountersTable {
  project_id: string;
  last_seq: ColumnType<string, number | string, number | string>;
}

export interface InvitesTable {
  id: string;
  token_hash: string;
  target_kind: 'project' | 'group';
  target_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  level: 'administrator' | 'editor' | 'owner';
  invited_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  accepted_by: ColumnType<string | null, string | null | undefined, string | null>;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string | null;
  username: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface InventorySyncsTable {
  id: string;
  project_id: string;
  source: 'upload' | 'ftp';
  status: 'applied' | 'failed';
  started_at: Timestamp;
  finished_at: Timestamp;
  summary: Json;
  errors: Json<unknown[]>;
  user_id: string | null;
}

export interface InventoryFeedClaimsTable {
  project_id: string;
  claimed_at: Timestamp;
}

export interface WebhooksTable {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  seq: ColumnType<string, number | string, number | string>;
  status: Generated<string>;
  created_at: Timestamp;
  delivered_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: Timestamp;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  manual: Generated<boolean>;
}

export interface Database {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  events: EventsTable;
  project_event_counters: ProjectEventCountersTable;
  invites: InvitesTable;
  password_resets: PasswordResetsTable;
  inventory_syncs: InventorySyncsTable;
  inventory_feed_claims: InventoryFeedClaimsTable;
  idempotency_keys: IdempotencyKeysTable;
  projects: ProjectsTable;
  floors: FloorsTable;
  units: UnitsTable;
  holds: HoldsTable;
  leads: LeadsTable;
  worksheets: WorksheetsTable;
  groups: GroupsTable;
  group_projects: GroupProjectsTable;
  users: UsersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  api_tokens: ApiTokensTable;
  audit_log: AuditLogTable;
}
