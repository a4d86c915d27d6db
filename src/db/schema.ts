/**
 * The tables as Kysely sees them, generated from the migrated database by `npm run gen:schema`
 * (scripts/gen-schema.ts). Do not edit: change a migration, or the generator's OVERRIDES where the code knows more
 * than the database says, and generate again. Columns are snake_case; JSON columns hold the API's camelCase fields
 * and are written as JSON text.
 */
import type { ColumnType, Generated } from 'kysely';

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  scope: string;
  token_hash: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface AuditLogTable {
  id: Generated<number | string>;
  at: ColumnType<Date, Date | string | undefined, Date | string>;
  actor_id: string | null;
  action: string;
  subject_id: string | null;
  detail: ColumnType<Record<string, unknown>, string | undefined, string>;
  address: string | null;
  project_id: string | null;
}

export interface CalBookingsTable {
  project_id: string;
  uid: string;
  lead_id: string | null;
  created_at: ColumnType<Date, Date | string, Date | string>;
}

export interface CrmPushesTable {
  lead_id: string | null;
  integration: string;
  external_id: string | null;
  sent_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  claimed_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  worksheet_id: string | null;
  subject_id: Generated<string>;
}

export interface DepositsTable {
  id: string;
  project_id: string;
  unit_id: string | null;
  lead_id: string | null;
  hold_id: string;
  account_id: string;
  session_id: string;
  payment_intent_id: string | null;
  refund_id: string | null;
  /** In minor units (cents), written as a number. */
  amount: ColumnType<number | string, number, number>;
  currency: string;
  status: string;
  buyer_name: string;
  buyer_email: string;
  created_at: ColumnType<Date, Date | string, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  paid_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  expired_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  refunded_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  checked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface EventsTable {
  id: string;
  project_id: string;
  seq: number | string;
  type: string;
  subject_id: string;
  actor_kind: string;
  actor_id: string | null;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface FloorsTable {
  id: string;
  project_id: string;
  name: string;
  position: Generated<number>;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  version: Generated<number>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface GroupProjectsTable {
  group_id: string;
  project_id: string;
  position: number;
}

export interface GroupsTable {
  id: string;
  user_id: string;
  name: string;
  namespace: string | null;
  host_name: string | null;
  administrators: Generated<string[]>;
  editors: Generated<string[]>;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  version: Generated<number>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface HoldsTable {
  id: string;
  unit_id: string;
  project_id: string;
  token_hash: string;
  client: string;
  lead_id: string | null;
  created_at: ColumnType<Date, Date | string, Date | string>;
  extended_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  released_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status: number;
  /** The stored answer: any JSON value. */
  body: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface InsightDailyTable {
  project_id: string;
  day: ColumnType<Date, Date | string, Date | string>;
  visitors: Generated<number>;
  unit_viewers: Generated<number>;
  page_views: Generated<number>;
  unit_views: Generated<number>;
  plan_views: Generated<number>;
  list_views: Generated<number>;
  building_views: Generated<number>;
  filters: Generated<number>;
  shares: Generated<number>;
  gallery: Generated<number>;
  brochure: Generated<number>;
}

export interface InsightDailySourcesTable {
  project_id: string;
  day: ColumnType<Date, Date | string, Date | string>;
  source: string;
  visitors: Generated<number>;
}

export interface InsightDailyUnitsTable {
  project_id: string;
  day: ColumnType<Date, Date | string, Date | string>;
  unit_id: string;
  views: Generated<number>;
}

export interface InsightEventsTable {
  id: Generated<number | string>;
  project_id: string;
  at: ColumnType<Date, Date | string, Date | string>;
  type: string;
  unit_id: string | null;
  path: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  visitor: Uint8Array;
}

export interface InsightReportClaimsTable {
  project_id: string;
  week: ColumnType<Date, Date | string, Date | string>;
  claimed_at: ColumnType<Date, Date | string, Date | string>;
}

export interface InsightSaltsTable {
  day: ColumnType<Date, Date | string, Date | string>;
  salt: Uint8Array;
}

export interface InsightVisitorDaysTable {
  project_id: string;
  day: ColumnType<Date, Date | string, Date | string>;
  visitor: Uint8Array;
  unit_viewer: boolean;
}

export interface IntegrationStatesTable {
  project_id: string;
  name: string;
  connected: Generated<boolean>;
  last_success_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_error: string | null;
  last_error_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface InventoryFeedClaimsTable {
  project_id: string;
  claimed_at: ColumnType<Date, Date | string, Date | string>;
  source: Generated<string>;
}

export interface InventorySyncsTable {
  id: string;
  project_id: string;
  /** Its CHECK. */
  source: 'upload' | 'ftp' | 'rentcafe';
  /** Its CHECK. */
  status: 'applied' | 'failed';
  started_at: ColumnType<Date, Date | string, Date | string>;
  finished_at: ColumnType<Date, Date | string, Date | string>;
  summary: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** The rows an import refused, in order. */
  errors: ColumnType<unknown[], string | undefined, string>;
  user_id: string | null;
}

export interface InvitesTable {
  id: string;
  token_hash: string;
  /** Its CHECK. */
  target_kind: 'project' | 'group';
  target_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  /** Its CHECK. */
  level: 'administrator' | 'editor' | 'owner';
  invited_by: string | null;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  accepted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  accepted_by: string | null;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface KeyChecksTable {
  name: string;
  check_value: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface LeadsTable {
  id: string;
  project_id: string;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  status: Generated<string>;
  notes: string | null;
  assignee: string | null;
  version: Generated<number>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface MediaOrphansTable {
  name: string;
  since: ColumnType<Date, Date | string, Date | string>;
}

export interface MediaSweepClaimsTable {
  id: number;
  claimed_at: ColumnType<Date, Date | string, Date | string>;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string | null;
  username: string;
  created_at: ColumnType<Date, Date | string, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface PaymentEventsTable {
  id: string;
  type: string;
  received_at: ColumnType<Date, Date | string, Date | string>;
}

export interface ProjectEventCountersTable {
  project_id: string;
  last_seq: number | string;
}

export interface ProjectsTable {
  id: string;
  user_id: string;
  name: string;
  namespace: string | null;
  host_name: string | null;
  project_type: string | null;
  administrators: Generated<string[]>;
  editors: Generated<string[]>;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** Sealed secrets by name (an allocation's password under `allocation:<name>`). */
  secrets: ColumnType<Record<string, string>, string | undefined, string>;
  version: Generated<number>;
  content_version: Generated<number | string>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  impersonator_id: string | null;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface SubscriptionsTable {
  user_id: string;
  customer_id: string;
  subscription_id: string;
  item_id: string | null;
  price_id: string | null;
  plan: string | null;
  status: string;
  trial_end: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  current_period_end: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  cancel_at_period_end: Generated<boolean>;
  lapsed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  payment_warned_for: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

export interface UnitsTable {
  id: string;
  project_id: string;
  floor_id: string | null;
  name: string;
  position: Generated<number>;
  availability: Generated<string>;
  on_hold_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  held_by: string | null;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  version: Generated<number>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  role: Generated<string>;
  profile: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** Sealed secrets by name. */
  secrets: ColumnType<Record<string, string>, string | undefined, string>;
  version: Generated<number>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  deactivated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: ColumnType<Date, Date | string, Date | string>;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  manual: Generated<boolean>;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  seq: number | string;
  status: Generated<string>;
  created_at: ColumnType<Date, Date | string, Date | string>;
  delivered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface WebhooksTable {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  version: Generated<number>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface WorksheetsTable {
  id: string;
  project_id: string;
  allocation: string;
  buyer: ColumnType<Record<string, unknown>, string, string>;
  choices: string[];
  notes: string | null;
  status: Generated<string>;
  unit_id: string | null;
  version: Generated<number>;
  created_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
  realtor_email: string | null;
}

export interface Database {
  api_tokens: ApiTokensTable;
  audit_log: AuditLogTable;
  cal_bookings: CalBookingsTable;
  crm_pushes: CrmPushesTable;
  deposits: DepositsTable;
  events: EventsTable;
  floors: FloorsTable;
  group_projects: GroupProjectsTable;
  groups: GroupsTable;
  holds: HoldsTable;
  idempotency_keys: IdempotencyKeysTable;
  insight_daily: InsightDailyTable;
  insight_daily_sources: InsightDailySourcesTable;
  insight_daily_units: InsightDailyUnitsTable;
  insight_events: InsightEventsTable;
  insight_report_claims: InsightReportClaimsTable;
  insight_salts: InsightSaltsTable;
  insight_visitor_days: InsightVisitorDaysTable;
  integration_states: IntegrationStatesTable;
  inventory_feed_claims: InventoryFeedClaimsTable;
  inventory_syncs: InventorySyncsTable;
  invites: InvitesTable;
  key_checks: KeyChecksTable;
  leads: LeadsTable;
  media_orphans: MediaOrphansTable;
  media_sweep_claims: MediaSweepClaimsTable;
  password_resets: PasswordResetsTable;
  payment_events: PaymentEventsTable;
  project_event_counters: ProjectEventCountersTable;
  projects: ProjectsTable;
  refresh_tokens: RefreshTokensTable;
  schema_migrations: SchemaMigrationsTable;
  sessions: SessionsTable;
  subscriptions: SubscriptionsTable;
  units: UnitsTable;
  users: UsersTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhooks: WebhooksTable;
  worksheets: WorksheetsTable;
}
