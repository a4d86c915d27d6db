import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type { Ctx } from './context.ts';
import { adminRoutes } from './admin/admin.routes.ts';
import { allocationRoutes } from './modules/allocations/allocations.routes.ts';
import { priorityRoutes } from './modules/priority/priority.routes.ts';
import { worksheetPublicRoutes, worksheetRoutes } from './modules/worksheets/worksheets.routes.ts';
import { WorksheetSchema } from './modules/worksheets/worksheets.schemas.ts';
import { healthRoutes } from './http/health.ts';
import { eventRoutes } from './modules/events/events.routes.ts';
import { ALL_EVENT_SCHEMAS } from './modules/events/events.schemas.ts';
import { floorRoutes } from './modules/floors/floors.routes.ts';
import { FLOOR_SCHEMAS } from './modules/floors/floors.schemas.ts';
import { groupRoutes } from './modules/groups/groups.routes.ts';
import { GROUP_SCHEMAS } from './modules/groups/groups.schemas.ts';
import { inventoryRoutes } from './modules/inventory/inventory.routes.ts';
import { INVENTORY_SCHEMAS } from './modules/inventory/inventory.schemas.ts';
import type { InventoryService } from './modules/inventory/inventory.service.ts';
import { invitePublicRoutes, inviteRoutes } from './modules/invites/invites.routes.ts';
import { leadRoutes } from './modules/leads/leads.routes.ts';
import { teamRoutes } from './modules/team/team.routes.ts';
import { TeamMemberSchema } from './modules/team/team.schemas.ts';
import { mediaFileRoutes, mediaUploadRoutes } from './modules/media/media.routes.ts';
import { projectRoutes } from './modules/projects/projects.routes.ts';
import { PROJECT_SCHEMAS } from './modules/projects/projects.schemas.ts';
import { LeadInputSchema, LeadSchema } from './modules/leads/leads.schemas.ts';
import { unitBulkRoutes } from './modules/units/units.bulk.routes.ts';
import { unitRoutes } from './modules/units/units.routes.ts';
import { UNIT_SCHEMAS } from './modules/units/units.schemas.ts';
import { apiTokenRoutes } from './modules/tokens/tokens.routes.ts';
import { ApiTokenSchema } from './modules/tokens/tokens.schemas.ts';
import { authRoutes } from './modules/users/auth.routes.ts';
import { passwordResetRoutes } from './modules/users/password-reset.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { accountRoutes } from './modules/users/accounts.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { privacyRoutes } from './modules/privacy/privacy.routes.ts';
import { BuyerDataSchema, ErasureSchema } from './modules/privacy/privacy.schemas.ts';
import { ssoRoutes } from './modules/sso/sso.routes.ts';
import { AuditEntrySchema } from './modules/audit/audit.schemas.ts';
import { AccountSchema } from './modules/users/accounts.schemas.ts';
import { InviteSchema, UserSchema } from './modules/users/users.schemas.ts';
import { integrationRoutes } from './modules/integrations/integrations.routes.ts';
import { bookingRoutes } from './modules/integrations/bookings.routes.ts';
import { INTEGRATION_SCHEMAS } from './modules/integrations/integrations.schemas.ts';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.ts';
import { WEBHOOK_SCHEMAS } from './modules/webhooks/webhooks.schemas.ts';
import type { WebhookDispatcher } from './modules/webhooks/webhooks.dispatcher.ts';
import { presentationRoutes } from './presentation/presentation.routes.ts';
import type { BundleMemo } from './public/bundle-memo.ts';
import type { LiveFeed } from './public/live-feed.ts';
import { publicRoutes } from './public/public.routes.ts';
import { PUBLIC_SCHEMAS } from './public/public.schemas.ts';
import { streamRoutes } from './public/stream.routes.ts';
import { waitlistRoutes } from './public/waitlist.routes.ts';
import { eventRoutes as publicEventRoutes } from './public/events.routes.ts';
import { depositPublicRoutes, depositRoutes } from './modules/deposits/deposits.routes.ts';
import { DEPOSIT_SCHEMAS } from './modules/deposits/deposits.schemas.ts';
import { insightsRoutes } from './modules/insights/insights.routes.ts';
import { billingRoutes } from './modules/billing/billing.routes.ts';
import { BILLING_SCHEMAS } from './modules/billing/billing.schemas.ts';
import { INSIGHT_SCHEMAS } from './modules/insights/insights.schemas.ts';

/** What every route plugin is given: the context, and the per-app services some take. */
export interface ModuleDeps {
  ctx: Ctx;
  /** The inventory service (imports, feeds), shared with the feed scheduler. */
  inventory: InventoryService;
  /** The webhook dispatcher, shared with the event log. */
  webhookDispatcher: WebhookDispatcher;
  /** The node's live feed of public changes. */
  feed: LiveFeed;
  /** What each public bundle address last answered with (src/public/bundle-memo.ts). */
  bundleMemo: BundleMemo;
}

export type RoutePlugin = FastifyPluginAsyncTypebox<ModuleDeps>;

/** One resource (or area) of the service: its routes by who may reach them, and the named schemas they refer to. */
export interface AppModule {
  name: string;
  /** Routes anyone reaches, without a token. */
  public?: readonly RoutePlugin[];
  /** Routes in the scope whose onRequest hook authenticates the caller, so none of them can forget to. */
  authenticated?: readonly RoutePlugin[];
  /**
   * Schemas with an `$id` that routes refer to by `Type.Ref`: added at the root, so routes in every scope, request
   * validation and /openapi.json (`components.schemas`, in this order) all see them.
   */
  schemas?: readonly TSchema[];
}

/**
 * Every module of the service, in registration order (each scope registers its routes in the order of this list,
 * the public scope first). Adding a module is its folder and one entry here.
 */
export const MODULES: readonly AppModule[] = [
  { name: 'health', public: [healthRoutes] },
  {
    name: 'users',
    public: [authRoutes, passwordResetRoutes, ssoRoutes],
    authenticated: [userRoutes, accountRoutes],
    schemas: [UserSchema, InviteSchema, AccountSchema],
  },
  { name: 'tokens', authenticated: [apiTokenRoutes], schemas: [ApiTokenSchema] },
  { name: 'audit', authenticated: [auditRoutes], schemas: [AuditEntrySchema] },
  { name: 'projects', authenticated: [projectRoutes], schemas: PROJECT_SCHEMAS },
  { name: 'floors', authenticated: [floorRoutes], schemas: FLOOR_SCHEMAS },
  { name: 'units', authenticated: [unitRoutes, unitBulkRoutes], schemas: UNIT_SCHEMAS },
  { name: 'inventory', authenticated: [inventoryRoutes], schemas: INVENTORY_SCHEMAS },
  { name: 'groups', authenticated: [groupRoutes], schemas: GROUP_SCHEMAS },
  { name: 'invites', public: [invitePublicRoutes], authenticated: [inviteRoutes] },
  { name: 'deposits', public: [depositPublicRoutes], authenticated: [depositRoutes], schemas: DEPOSIT_SCHEMAS },
  { name: 'billing', authenticated: [billingRoutes], schemas: BILLING_SCHEMAS },
  { name: 'public', public: [publicRoutes, waitlistRoutes], schemas: PUBLIC_SCHEMAS },
  { name: 'presentation', public: [presentationRoutes] },
  { name: 'leads', authenticated: [leadRoutes], schemas: [LeadSchema, LeadInputSchema] },
  { name: 'team', authenticated: [teamRoutes], schemas: [TeamMemberSchema] },
  { name: 'privacy', authenticated: [privacyRoutes], schemas: [BuyerDataSchema, ErasureSchema] },
  { name: 'media', public: [mediaFileRoutes], authenticated: [mediaUploadRoutes] },
  { name: 'stream', public: [streamRoutes] },
  { name: 'admin', public: [adminRoutes] },
  { name: 'events', authenticated: [eventRoutes], schemas: ALL_EVENT_SCHEMAS },
  { name: 'webhooks', authenticated: [webhookRoutes], schemas: WEBHOOK_SCHEMAS },
  { name: 'integrations', public: [bookingRoutes], authenticated: [integrationRoutes], schemas: INTEGRATION_SCHEMAS },
  { name: 'insights', public: [publicEventRoutes], authenticated: [insightsRoutes], schemas: INSIGHT_SCHEMAS },
  { name: 'allocations', public: [allocationRoutes] },
  { name: 'priority', authenticated: [priorityRoutes] },
  { name: 'worksheets', public: [worksheetPublicRoutes], authenticated: [worksheetRoutes], schemas: [WorksheetSchema] },
];
