/**
 * The service's API as types, generated from its OpenAPI document by `npm run gen:api` (openapi-typescript).
 * Do not edit: change the schemas under src/ and generate again.
 */
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: 200 while the process runs */
    get: operations['checkHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: 200 when the database answers and the job queue is started, else 503 */
    get: operations['checkReadiness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Log in
     * @description Credentials as a JSON body or as query parameters (the body wins). Returns the User record with `token`/`access_token` and sets the `service` and `serviceRefresh` cookies. An administrator who sends their own token while naming another username (no password) is logged in as that user (audited); anyone else gets 403.
     */
    post: operations['logIn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/refresh': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Exchange a refresh token for a new access token
     * @description Takes the `serviceRefresh` cookie or `refresh_token` in the body; rotates it. Presenting a used token ends its session.
     */
    post: operations['refreshToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * End the session
     * @description Ends the session of the presented access token and/or refresh token (at once for refresh, within 60 s for access tokens on every node) and clears both cookies.
     */
    post: operations['logOut'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/password-reset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Ask for a password-reset link
     * @description Always 202 with the same body, after the same work, whether or not the account exists; an existing account is mailed `<PUBLIC_URL>/admin/reset/<token>` (once, 1 hour). At most PASSWORD_RESETS_PER_HOUR links per address per hour are mailed (more requests are answered the same and send nothing). Rate-limited per client address (429). The mail is in the language of `Accept-Language` (en, fr, es).
     */
    post: operations['requestPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/password-reset/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Choose a new password with a reset token
     * @description Sets the password and ends every session of the user (204). A token works once, for 1 hour: used, expired or unknown → 410. Rate-limited per client address.
     */
    post: operations['confirmPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/oidc/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Sign in through the single sign-on provider
     * @description Redirects the browser to the OpenID Connect provider (authorization code with PKCE); its answer comes back to /auth/oidc/callback. With `Accept: application/json` the answer is 200 `{ url }` instead (the state cookie is set either way). 404 when single sign-on is not configured; 502 when the provider's metadata cannot be read.
     */
    get: operations['logInWithOidc'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/oidc/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The single sign-on provider's answer
     * @description Signs in the account whose e-mail the provider asserts as verified, with the same cookies as a password sign-in, and redirects to the console. Refused (403) for an address of no account (unless an invitation to it is open), outside OIDC_ALLOWED_DOMAINS, or of a deactivated account; 401 when the answer does not check out; 400 when this browser holds no state for the sign-in (start again).
     */
    get: operations['logInWithOidcCallback'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/invites/{token}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What an invitation link is for
     * @description No authentication: the token is the credential. Unknown token → 404; used, revoked or expired → 410.
     */
    get: operations['getInvitation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/invites/{token}/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept an invitation
     * @description Signed in (bearer or cookie) as the invited address: that user joins. Signed in as anyone else → 403. Not signed in: creates the account `email` with `password` (and `name`, `lastName`); if that account already exists, `password` must be its password (401 otherwise). The user lands in `administrators` or `editors` and the invite leaves `invites`. Answers like login (200, cookies). The link works once, for 7 days (410 after). With plans on, a published project handed over (level `owner`) takes a place in the new owner’s plan as publishing it would: no room → 402 `plan_limit`, nothing changes and the invitation still works.
     */
    post: operations['acceptInvitation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/payments/webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Stripe's events (the platform's webhook endpoint, with Connect events)
     * @description Verifies `Stripe-Signature` over the raw body with STRIPE_WEBHOOK_SECRET (400 otherwise). Each event id is handled once across nodes and restarts, and the answer is 2xx only after its effect committed. Nothing is taken from the body but the event id, its type and the object id: the account and the Checkout Session are read back from Stripe. `account.updated` sets the owner’s paymentsDetailsSubmitted and paymentsOnboardingDone; `checkout.session.completed` makes the deposit paid and the unit reserved; `checkout.session.expired` makes it expired. With plans on (BILLING=stripe), the platform’s `customer.subscription.*`, `invoice.paid`, `invoice.payment_failed` and its own `checkout.session.completed` update the user’s subscription, read back from Stripe (docs/billing.md). Without STRIPE_SECRET_KEY → 503 `payments_off`.
     */
    post: operations['submitPaymentEvent'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/deposits/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Where a deposit stands: pending, paid, expired or refunded
     * @description For the buyer’s page after a reload or on its return from Stripe Checkout (the return address carries `deposit=<id>`). Names no buyer and no Stripe id. A payment confirmed at Stripe shows as paid once its event arrived or the reconciliation pass read it.
     */
    get: operations['getPublicDeposit'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/projects/{namespace}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The presentation bundle of a project, by namespace
     * @description Public project fields, floors in order with their units, as one document. Cacheable: ETag, Cache-Control public, max-age=5; If-None-Match → 304. A draft (`published: false`) answers 404 unless `preview` carries its preview token (then `Cache-Control: private, no-store`).
     */
    get: operations['getPresentation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/hosts/{hostName}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The presentation bundle of a project, by host name */
    get: operations['getPresentationByHost'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/leads': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Leave an enquiry on a project (when the project's enableForms is true)
     * @description Name the project by `project` (id) or `namespace`. Rate-limited per client address. Honours `Idempotency-Key`.
     */
    post: operations['submitLead'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/units/{id}/hold': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Hold an available unit for the project's onHoldMinsDuration minutes
     * @description Only when the project has onHoldExperienceEnabled, only from available: of concurrent requests for one unit exactly one gets 200, the others 409. Records a lead with source "hold". The answer carries `holdToken`, a secret for this hold alone (also mailed to the holder with a link to the page): with it, GET /public/holds/{holdToken} reads the hold, DELETE releases it, POST …/extend extends it once. One client address may hold a few units at once and send a bounded number of requests per minute (429). Honours `Idempotency-Key`.
     */
    post: operations['holdUnit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/holds/{holdToken}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The hold a hold token names: its unit, project and expiry
     * @description No authentication: the hold token is the credential. Unknown token → 404; a hold released, lapsed or changed by the sales team since → 410. Rate-limited per client address like the hold requests.
     */
    get: operations['getHold'];
    put?: never;
    post?: never;
    /**
     * Release a hold: the unit is available again
     * @description No authentication: the hold token is the credential. Unknown token → 404; a hold released, lapsed or changed by the sales team since → 410. Appends unit.hold_released to the change log.
     */
    delete: operations['releaseHold'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/holds/{holdToken}/extend': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Extend a hold once by the project's onHoldMinsDuration
     * @description No authentication: the hold token is the credential. Unknown token → 404; a hold released, lapsed or changed by the sales team since → 410. A second extension of the same hold → 409. The answer is the hold with its new onHoldExpiresAt; appends unit.hold_extended to the change log.
     */
    post: operations['extendHold'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/waitlist': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Join a project's waitlist (when the project's waitlistEnabled is true)
     * @description Name the project by `project` (id) or `namespace`; `unit` names the unit asked about, which must be one of the project's (else 400) and not free: a unit available to the public (or on a hold that has lapsed) → 409 naming `/unit` (hold it or enquire instead). Stored as a lead with `source: "waitlist"`. Same bounds, per-address rate limit and `Idempotency-Key` behaviour as POST /public/leads.
     */
    post: operations['joinWaitlist'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/media/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A stored file, or a picture resized
     * @description Served with `Cache-Control: public, max-age=31536000, immutable` and an `ETag` (the name is the hash of the content); `If-None-Match` with that ETag → 304. With `w`, a resized variant, negotiated on `Accept` (`Vary: Accept`), kept and cached the same way.
     */
    get: operations['getMedia'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/projects/{namespace}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Live changes of a presentation (Server-Sent Events)
     * @description A `text/event-stream` of the public part of unit changes (availability, hold expiry, price while `showPrices`; floors and units added or removed), each as `id: <seq>` and `data: {"seq","type","_id"?,"changes"?}` (no `_id` or `changes` for a sold unit of a project with `hideSold`). Send `Last-Event-ID` (browsers do on reconnect) or `?lastEventId=` to resume after that seq. A stream more than 1000 events behind, or whose catching up takes over 2000 ms, is sent one `event: refetch` (`id: <seq>`, `data: {"seq","type":"refetch"}`) instead of what it missed: fetch the bundle again; live changes after that seq follow. A comment line comes at least every 20 s. At most 20 streams per client address and 5000 per node are open at once; past either → 429 with `Retry-After`. A draft answers 404 unless `preview` carries its preview token. See docs/events.md.
     */
    get: operations['streamPresentationChanges'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/projects/{namespace}/bookings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cal.com's webhook: a visit booked on the project's booking page becomes a lead with source `booking`
     * @description Set this address as a webhook of the Cal.com account (or event type) whose username is the project's `calUsername`, with the project's `calKey` as its secret, for Booking Created, Booking Rescheduled and Booking Cancelled. `X-Cal-Signature-256` must be the hex HMAC-SHA256 of the raw body with `calKey` (401 otherwise; a project without `calKey` → 403). BOOKING_CREATED makes a lead (the first attendee's name, e-mail and phone, the notes as its message, the unit the metadata's `unit` names, `booking` with the visit's time) that goes where every lead goes: the CRMs, the sales team's mail, `lead.created`. BOOKING_RESCHEDULED moves the lead of `rescheduleUid` to the new time; BOOKING_CANCELLED marks its `booking` cancelled (`lead.updated`, CRMs updated). Each booking uid is handled once: a delivery sent again answers `duplicate` and changes nothing. Other triggers are acknowledged (`ignored`). Every verified delivery is the integration’s last success. Rate-limited per client address like the other public writes; bodies up to 256 KiB.
     */
    post: operations['submitBooking'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Report what a visitor did on a presentation page (page analytics)
     * @description Sent by the buyer's page with `navigator.sendBeacon` (a `text/plain` body holding JSON) or as `application/json`. Visitors are counted without cookies and without storing addresses (docs/insights.md). Requests from known bots and from addresses in the project's `eventsBlockList` are accepted but not counted. Rate-limited per client address (PUBLIC_EVENTS_PER_MINUTE).
     */
    post: operations['createPublicEvents'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/allocations/open': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Open a realtor's allocation with its password
     * @description Answers the allocation's name, its units and a 12-hour token. Any wrong password (and an unknown namespace) → the same 401 in the same time: the password is compared with every allocation's, with no early exit. At most ALLOCATION_OPENS_PER_MINUTE tries per client address (default 10) → 429.
     */
    post: operations['createPublicAllocationsOpen'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/public/worksheets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Submit a worksheet for a buyer through a realtor's allocation
     * @description Needs `X-Allocation-Token` (401 without a valid one). `choices`: 1 to 3 units of the project, in order of preference (a unit of another project → 400). At most WORKSHEETS_PER_ALLOCATION (default 200) of one allocation's worksheets may wait undecided at once → 409; rate-limited per client address like POST /public/leads.
     */
    post: operations['createPublicWorksheets'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every account, with its projects and roles (service administrators only)
     * @description Sorted by e-mail address. `filters[q]` matches part of the e-mail or the name, any case; `filters[active]=false` lists deactivated accounts. `options[skip]` ≥ 0 (0), `options[limit]` 1–500 (100); `X-Total-Count` holds the count before paging.
     */
    get: operations['listAccounts'];
    put?: never;
    /** Create a user (platform administrators only) */
    post: operations['createUser'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's User record */
    get: operations['getCurrentUser'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Change the caller's own profile (and password, with currentPassword)
     * @description Only names, phone, company, address and preferences change here. A fetched record may be sent back whole: server-kept fields are ignored, and other fields are accepted only with their current value. A password change ends every session of the user, this one included: log in again. paymentsCustomer, subscription and appliedTrial are kept by the platform (a changed value → 400). With plans on (BILLING=stripe), hiding the branding (`preferences.hideBrandingIcon`, `preferences.hideLoadingLogo`) needs the Pro plan → 402 `plan_limit` otherwise.
     */
    patch: operations['updateCurrentUser'];
    trace?: never;
  };
  '/users/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Deactivate or reactivate an account (service administrators only)
     * @description `{ "active": false }` deactivates: the account cannot sign in (403 saying so), every session of it ends and every node stops trusting it at once, and its API tokens are refused. `{ "active": true }` lets it sign in again. Deactivating your own account → 409.
     */
    patch: operations['updateAccount'];
    trace?: never;
  };
  '/users/{id}/password-reset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Mail an account a link to choose a new password (service administrators only)
     * @description The same mail and link (1 hour, once) as a forgotten-password request, in the language of `Accept-Language`; a deactivated account → 409.
     */
    post: operations['requestAccountPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's API tokens, oldest first (never the secret) */
    get: operations['listUsersMeTokens'];
    put?: never;
    /**
     * Create an API token for the caller
     * @description The answer carries the secret `token` (sst_…) once; only its hash is kept. It acts as the caller; scope `read` allows only GET and HEAD. At most 50 tokens per user (→ 409). Only from a signed-in session: a request authenticated by an API token gets 403.
     */
    post: operations['createUsersMeTokens'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/tokens/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke one of the caller’s API tokens
     * @description The token stops working at once on every node. Only from a signed-in session: a request authenticated by an API token gets 403.
     */
    delete: operations['deleteUsersMeTokens'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The audit log: sign-ins, tokens, members and roles, accounts, exports, erasures, settings changed
     * @description Newest first. A service administrator reads every entry; anyone else the entries about projects they own and their own actions. `filters[actor]` (a user id), `filters[action]`, `filters[project]`, `filters[from]` and `filters[to]` (ISO 8601, from inclusive, to exclusive); `options[skip]` ≥ 0, `options[limit]` 1–500 (100); `X-Total-Count` holds the count before paging. Entries are kept AUDIT_RETENTION_DAYS (365).
     */
    get: operations['listAuditEntries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search visible projects
     * @description `filters` and `options` as JSON text (`filters={"name":"Tower"}`) or bracket form (`filters[name]=Tower&options[limit]=10`). `filters.name` matches a case-insensitive substring, `filters.projectType` exactly. `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), `options.sort` one of name, createdAt, updatedAt with `-` for descending (-createdAt); ties break on `_id`. `X-Total-Count` holds the count before paging.
     */
    get: operations['listProjects'];
    put?: never;
    /**
     * Create a project (the caller owns it)
     * @description Inputs as query parameters `name`, `namespace`, `hostName`; any other Project field may also be sent in a JSON body (query parameters win). With plans on (BILLING=stripe) a project created published (`published` absent or true) takes a place in the caller’s plan, and `showBranding: false` needs Pro: past either → 402 `plan_limit`; `plan` and `subscriptionItem` are then the service’s.
     */
    post: operations['createProject'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/preview-link': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A signed link that opens the project's page, draft or not (owner, administrators, editors)
     * @description The page on the pages origin (`/p/{namespace}`, or the project's host name when it has no namespace) with a `preview` token good for 24 hours, for whoever holds it. While the project is a draft (`published: false`) the page shows a draft banner and reads its bundle and live feed with the same token; enquiries and holds stay off. A project with neither namespace nor host name → 409.
     */
    get: operations['getProjectPreviewLink'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/project/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Fetch one project */
    get: operations['getProject'];
    put?: never;
    post?: never;
    /** Delete a project (owner only), with its floors, units and leads */
    delete: operations['deleteProject'];
    options?: never;
    head?: never;
    /**
     * Update a project
     * @description Changes only the fields sent, atomically. A fetched record may be sent back whole: `_id` (must equal the path id), `createdAt`, `updatedAt`, `configuredSecrets`, `leads` and `waitlistees` are ignored, and unchanged values are no change. Secrets are write-only: a string sets one, `null` clears it. `floors` may reorder the project's own floors. `If-Match` with a stale ETag → 412. With plans on (BILLING=stripe): publishing past the owner’s plan, or `showBranding: false` on a plan without Pro → 402 `plan_limit` naming the plan and the limit; `plan` and `subscriptionItem` are kept by the service (sent values are ignored).
     */
    patch: operations['updateProject'];
    trace?: never;
  };
  '/projects/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Fetch one project
     * @description Alias of GET /project/{id}.
     */
    get: operations['getProjectAlias'];
    put?: never;
    post?: never;
    /**
     * Delete a project (owner only), with its floors, units and leads
     * @description Alias of DELETE /project/{id}.
     */
    delete: operations['deleteProjectAlias'];
    options?: never;
    head?: never;
    /**
     * Update a project
     * @description Changes only the fields sent, atomically. A fetched record may be sent back whole: `_id` (must equal the path id), `createdAt`, `updatedAt`, `configuredSecrets`, `leads` and `waitlistees` are ignored, and unchanged values are no change. Secrets are write-only: a string sets one, `null` clears it. `floors` may reorder the project's own floors. `If-Match` with a stale ETag → 412. With plans on (BILLING=stripe): publishing past the owner’s plan, or `showBranding: false` on a plan without Pro → 402 `plan_limit` naming the plan and the limit; `plan` and `subscriptionItem` are kept by the service (sent values are ignored). Alias of PATCH /project/{id}.
     */
    patch: operations['updateProjectAlias'];
    trace?: never;
  };
  '/floors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A project's floors in position order
     * @description `filters` and `options` as deep objects (`filters[updatedSince]=2026-01-01T00:00:00Z&options[limit]=10&options[sort]=-updatedAt`) or JSON text (`options={"limit":10}`). `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), `options.sort` name, createdAt or updatedAt, `-` for descending; ties break on `_id`. `filters.updatedSince` keeps records changed at or after that time. `X-Total-Count` holds the count before paging.
     */
    get: operations['listFloors'];
    put?: never;
    /**
     * Create a floor in a project (appended to the project's floors by position)
     * @description Query parameters `project`, `name`, `position`; other Floor fields may come in a JSON body (query parameters win).
     */
    post: operations['createFloor'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/floors/{id}/duplicate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Copy a floor with its plan, shapes and units (owner, administrators, editors)
     * @description A new floor with every field of this one (plan, image, settings), and a copy of each of its units with every field and shape, in one transaction. Copies start `available`; each is named by `unitNames` (by the id of the unit copied) or as its name and " (copy)". The floor goes after the last floor unless `position` is given; its name defaults to this one's and " (copy)". The change log gets `floor.created` and one `unit.created` per copy, sharing one `batch`. Honours `Idempotency-Key`.
     */
    post: operations['duplicateFloor'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/floors/{id}/copy-outlines': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Give this floor's units the outlines of their counterparts on another floor (owner, administrators, editors)
     * @description Units are matched by the end of their numbers (the last two digits and any letters after them: 101 ↔ 201, 1204A ↔ 1304A) where each floor has that ending once, then the rest by their order on their floors. Only units without an outline get one unless `overwrite`. Written as one bulk unit update (PATCH /units): all or nothing, one `unit.updated` per unit changed. `unmatched` names the units still without an outline.
     */
    post: operations['copyFloorOutlines'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/floors/{id}/outline-suggestions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Outlines proposed from the floor's plan picture
     * @description The light areas of `floorplanUrl` enclosed by dark walls (flood fill of the picture scaled to 400 pixels on its longer side), as outlines in the plan editor's drawing space; rooms open to each other by more than about 1 % of the picture's width come out as one. Nothing is written: a client offers them and saves the ones accepted as units' `path`. Empty when the plan is not an uploaded picture (`/media/…`, not a PDF). See docs/console.md.
     */
    get: operations['suggestFloorOutlines'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/floors/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Fetch one floor */
    get: operations['getFloor'];
    put?: never;
    post?: never;
    /** Delete a floor and its units (owner and administrators); it leaves the project's floors */
    delete: operations['deleteFloor'];
    options?: never;
    head?: never;
    /**
     * Update a floor
     * @description Only the fields sent change. `units` may reorder the floor's own units. `project` cannot change. `If-Match` with a stale ETag → 412.
     */
    patch: operations['updateFloor'];
    trace?: never;
  };
  '/units': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A project's units (optionally one floor's, or one availability)
     * @description JSON, or RFC 4180 CSV with `Accept: text/csv` or `format=csv` (one row per unit, arrays and objects as JSON text; see docs/inventory.md); a CSV export holds every unit unless `options.limit` asks for a page. Without `options.sort`, units come in floor and position order. `filters` ranges (`priceMin`…`bedroomsMax`) are inclusive; a unit without the field does not match a range on it. `filters` and `options` as deep objects (`filters[updatedSince]=2026-01-01T00:00:00Z&options[limit]=10&options[sort]=-updatedAt`) or JSON text (`options={"limit":10}`). `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), `options.sort` name, createdAt or updatedAt, `-` for descending; ties break on `_id`. `filters.updatedSince` keeps records changed at or after that time. `X-Total-Count` holds the count before paging.
     */
    get: operations['listUnits'];
    put?: never;
    /**
     * Create a unit in a project (optionally on one of its floors)
     * @description Query parameters `name`, `position`, `project` and optional `floor`; other Unit fields may come in a JSON body (query parameters win). `specificType` defaults to `unit`.
     */
    post: operations['createUnit'];
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Update many units at once (all or nothing)
     * @description A JSON array of 1–1000 items `{ "_id", ...Unit fields, "ifMatch"? }`, units of any projects the caller may edit. Each item follows the rules of PATCH /units/{id}. All items are checked before anything is written: a bad field → 400 with `errors[].path` prefixed by the item index (`/3/price`); an id the caller cannot see → 400 at `/<i>/_id`; an `ifMatch` that is not the unit's current ETag → 412. One transaction writes every change and appends one `unit.updated` event per changed unit (actor: the caller); the answer is the updated units in request order.
     */
    patch: operations['updateUnits'];
    trace?: never;
  };
  '/units/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Fetch one unit */
    get: operations['getUnit'];
    put?: never;
    post?: never;
    /** Delete a unit (owner and administrators); it leaves its floor's units */
    delete: operations['deleteUnit'];
    options?: never;
    head?: never;
    /**
     * Update a unit
     * @description Only the fields sent change. Changing `floor` moves the unit between floors of its project (both floors change in one transaction). `availability` is one of available, on_hold, reserved, sold, leased, unavailable (any case); leaving on_hold clears `onHoldExpiresAt`. `If-Match` with a stale ETag → 412.
     */
    patch: operations['updateUnit'];
    trace?: never;
  };
  '/units/by-type': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Give every unit of a type the same layout and pictures
     * @description Sets the fields sent (`layoutUrl`, `layoutGallery`, `images`, `unitImageUrl`) on every unit of `project` whose `type` is `type`, replacing what they had. Written as PATCH /units would write them (all or nothing, one `unit.updated` per unit changed, at most 1000 units); the answer is the units of the type, changed or already so, in floor order. A type no unit has → an empty list.
     */
    patch: operations['updateUnitsOfType'];
    trace?: never;
  };
  '/projects/{id}/inventory/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import the project's units from a CSV file, an Excel workbook or JSON rows (owner and administrators)
     * @description The body is the file (`text/csv`: comma, semicolon or tab separated, UTF-8 with or without BOM; or an `.xlsx` workbook, its first sheet) or `application/json` `{ "rows": [ { header: value } ] }`. Headers are Unit field names, the sales team's words (Name, Floor, Status, Price, Bedrooms/Beds, Bathrooms/Baths, Area/Sq Ft/Square Feet, Type, Parking, Orientation, Description; any case) or names the project's `ftpMapping` maps to them; a row names its unit by `_id`, else by `name` (with `floor` when names repeat). `dryRun=true` answers what would change and changes nothing; its `ETag` sent back as `If-Match` applies exactly that (412 if any floor or unit changed since). Row errors apply nothing (400 with the same answer) unless `skipErrors=true`. A unit held right now keeps its availability (listed in `kept`). At most 20000 rows (413 `too_many_rows`, counted while the file is read), 20 MiB (413) and 48 cells a row allowed (413); at most 2 imports run at once per node (429 with `Retry-After`). `changes` lists the first 1,000 rows (`truncated: true` when there are more; `summary` counts all). See docs/inventory.md.
     */
    post: operations['importInventory'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/inventory/sync': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pull the project's feed file over FTP, FTPS or SFTP now and import it (owner and administrators)
     * @description Fetches `ftpPath`/`ftpFileName` from `ftpUrl` (`ftpPort`; credentials from the sealed `ftpUsername`/`ftpPassword`) and imports it as an upload would, reading only rows whose unit name matches `ftpWhitelist` (when set) and not `ftpBlacklist`. An unreachable server, a refused login or a missing file → 502 `upstream_failed` naming which (`reason`), a failed sync record, and no change. `dryRun=true` changes nothing and records nothing.
     */
    post: operations['syncInventory'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/integrations/rentcafe/sync': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pull availability and prices from Yardi RENTCafé now and import them (owner and administrators)
     * @description Calls RENTCafé's apartment availability with the project's `yiApiToken`, `yiCompanyCode` and `yiPropertyCode` and imports each apartment into the unit of the same name (RENTCafé's `ApartmentName`, any case): its status read through `yiStatusMapping` (and the defaults docs/integrations.md lists) and its rent as `price`. Apartments naming no unit are skipped; units RENTCafé does not list are left as they are. As the feed: `dryRun=true` changes nothing and records nothing, its `ETag` as `If-Match` applies exactly that, row errors apply nothing (400) unless `skipErrors=true`, and the sync is recorded (`source: "rentcafe"`) with `lastSync`. RENTCafé refusing, failing or rate-limiting → 502 `upstream_failed` in words (`reason`) and a failed sync; credentials not all set → 409. The integration’s state keeps the outcome.
     */
    post: operations['syncRentcafe'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/inventory/template': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The project's units as an import file in the sales team's words: CSV, or .xlsx with format=xlsx
     * @description Columns Name, Floor, Status, Price, Bedrooms, Bathrooms, Area, Type, Parking, Orientation, Description; one row per unit in floor order (a floor whose name an earlier floor has is named by its id). Imported back unchanged, it changes nothing; edited, it is the import file. With no units it is the blank form. `format=xlsx` (or the XLSX type in `Accept`) answers an Excel workbook, else CSV.
     */
    get: operations['getInventoryTemplate'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/inventory/syncs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The project's applied imports and failed feed pulls, newest first
     * @description `options.skip` ≥ 0 (0), `options.limit` 1–500 (100); `X-Total-Count` holds the count before paging.
     */
    get: operations['listInventorySyncs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Visible groups
     * @description `filters` and `options` as deep objects (`filters[updatedSince]=2026-01-01T00:00:00Z&options[limit]=10&options[sort]=-updatedAt`) or JSON text (`options={"limit":10}`). `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), `options.sort` name, createdAt or updatedAt, `-` for descending; ties break on `_id`. `filters.updatedSince` keeps records changed at or after that time. `X-Total-Count` holds the count before paging.
     */
    get: operations['listGroups'];
    put?: never;
    /**
     * Create a group (the caller owns it)
     * @description Query parameters `name`, `namespace`, `hostName`; other Group fields may come in a JSON body (query parameters win).
     */
    post: operations['createGroup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Fetch one group */
    get: operations['getGroup'];
    put?: never;
    post?: never;
    /** Delete a group (owner only); its projects stay */
    delete: operations['deleteGroup'];
    options?: never;
    head?: never;
    /**
     * Update a group
     * @description Only the fields sent change; a fetched record may be sent back whole. `projects` may hold only projects the caller can see. `If-Match` with a stale ETag → 412.
     */
    patch: operations['updateGroup'];
    trace?: never;
  };
  '/projects/{id}/invites': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Invite someone to a project as administrator or editor
     * @description Owner and administrators. The invite is listed in the project's `invites` and the invitee is mailed a link `<PUBLIC_URL>/admin/invites/<token>` that works once, for 7 days. The token is never returned.
     */
    post: operations['inviteToProject'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/invites/{inviteId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke a pending invitation to a project
     * @description Owner and administrators. The link stops working (410) and the invite leaves the project's `invites`.
     */
    delete: operations['revokeProjectInvitation'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{id}/invites': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Invite someone to a group as administrator or editor
     * @description Owner and administrators. The invite is listed in the group's `invites` and the invitee is mailed a link `<PUBLIC_URL>/admin/invites/<token>` that works once, for 7 days. The token is never returned.
     */
    post: operations['inviteToGroup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{id}/invites/{inviteId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke a pending invitation to a group
     * @description Owner and administrators. The link stops working (410) and the invite leaves the group's `invites`.
     */
    delete: operations['revokeGroupInvitation'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/payments/onboarding': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Connect the caller’s own Stripe account (an Express account), or go on with it: a link to Stripe’s onboarding
     * @description Creates the caller’s connected account once (kept as paymentsAccountId) and answers a fresh account link. Stripe’s `account.updated` events then set paymentsDetailsSubmitted and paymentsOnboardingDone (charges enabled); a project takes deposits once its owner’s account is onboarded. Without STRIPE_SECRET_KEY → 503 `payments_off`; Stripe refusing → 502.
     */
    post: operations['requestPaymentsOnboarding'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/payments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Whether this server takes payments, and how the caller’s Stripe account stands now
     * @description `available` false when the server has no STRIPE_SECRET_KEY (then nothing else is asked of Stripe). With a connected account still missing something, the account is read back from Stripe at each call (a complete one at most every ten minutes per node) and kept (paymentsDetailsSubmitted, paymentsOnboardingDone, as Stripe’s `account.updated` keeps them), and `missing` lists what Stripe still needs. The console’s Profile › Payments calls it, also when Stripe’s onboarding sends the owner back (`/admin/profile?payments=done`). Stripe refusing → 502.
     */
    get: operations['getPaymentsState'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/deposits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A project's deposits, newest first (owner and administrators; editors → 403)
     * @description `filters[unit]` lists one unit’s deposits. With `Accept: text/csv` or `format=csv` the answer is RFC 4180 CSV. Amounts are in minor units.
     */
    get: operations['listProjectsDeposits'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/deposits/{id}/refund': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Refund a paid deposit at Stripe (owner and administrators; editors → 403)
     * @description The whole amount goes back to the buyer through the owner’s Stripe account; the deposit turns `refunded` (event deposit.refunded). The unit is left as it is. A deposit not paid (pending, expired, already refunded) → 409. Stripe refusing → 502, and nothing changes.
     */
    post: operations['refundDeposit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/subscription': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's plan: the plans on offer, their subscription, the plan in effect and their published projects
     * @description Without BILLING=stripe → 404 `billing_off` (nothing is limited on this server, and there is no plan to read).
     */
    get: operations['getCurrentUserSubscription'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/subscription/checkout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Subscribe to a plan: a link to Stripe Checkout (subscription mode)
     * @description Makes the caller’s Stripe customer once (kept as paymentsCustomer) and answers a Checkout Session in subscription mode on the platform’s account for the plan’s price, with a TRIAL_DAYS trial unless the caller took theirs (appliedTrial). Stripe’s subscription events then keep `subscription` current. A subscription still running (trialing, active, past_due) → 409: plans change in the customer portal. Without BILLING=stripe → 404 `billing_off`; Stripe refusing → 502.
     */
    post: operations['requestSubscriptionCheckout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/users/me/subscription/portal': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Manage the plan: a link to Stripe's customer portal (change plan, card, invoices, cancel)
     * @description Makes the caller’s Stripe customer once if need be and answers a customer portal session returning to the console’s Profile. Without BILLING=stripe → 404 `billing_off`; Stripe refusing → 502.
     */
    post: operations['requestSubscriptionPortal'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/waitlistees': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A project's waitlist sign-ups, oldest first (owner and administrators)
     * @description The project record's `waitlistees`: each visitor who joined the project's waitlist (a lead with source `waitlist`), as first name, last name, e-mail, phone, the unit asked about and when, with the lead id to work it by. Up to 1,000; `X-Total-Count` says how many there are (`GET /leads?filters[source]=waitlist` pages through them all). A PATCH of the project ignores the field.
     */
    get: operations['listWaitlistees'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/leads': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Leads, newest first (owner and administrators): one project, or every project whose leads the caller may read
     * @description With `Accept: text/csv` or `format=csv` the answer is RFC 4180 CSV, with `format=xlsx` (or the XLSX type in `Accept`) an Excel workbook; without `options.limit` either holds every lead of the filtered view. `filters[q]` is a substring of the name, e-mail or phone in any case; `filters[status]`, `[unit]`, `[source]` and `[assignee]` match exactly; `filters[createdFrom]` and `[createdTo]` bound `createdAt` (inclusive; a date covers the whole day, UTC); `filters[email]` lists one person's leads. An export with `tz` (an IANA zone) names projects, units and assignees and writes times in that zone. Each lead carries `contactCount` (leads of its e-mail on its project) and, when made with a hold, `holdState`. Sort `name` is by last name; `updatedAt` is the last change of status, notes or assignee. `filters` and `options` as deep objects (`filters[updatedSince]=2026-01-01T00:00:00Z&options[limit]=10&options[sort]=-updatedAt`) or JSON text (`options={"limit":10}`). `options.skip` ≥ 0 (0), `options.limit` 1–500 (100), `options.sort` name, createdAt or updatedAt, `-` for descending; ties break on `_id`. `filters.updatedSince` keeps records changed at or after that time. `X-Total-Count` holds the count before paging.
     */
    get: operations['listLeads'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/leads/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Delete a lead (owner and administrators; editors → 403)
     * @description The lead goes with its ended holds (a running hold keeps its unit until it ends); its change-log events are redacted as by an erasure. Logged in the audit log. `If-Match` with a stale ETag → 412 and nothing is deleted.
     */
    delete: operations['deleteLead'];
    options?: never;
    head?: never;
    /**
     * Work a lead: its status, notes, assignee, and a waitlist entry's rank (owner and administrators; editors → 403)
     * @description Changes only the fields sent; the visitor's own fields cannot change. `assignee` must be the project's owner, one of its administrators or editors (else 400). Appends `lead.updated` to the project's change log (and sends it to webhooks). `If-Match` with a stale ETag → 412.
     */
    patch: operations['updateLead'];
    trace?: never;
  };
  '/projects/{id}/team': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A project's team by name and e-mail (everyone who can read the project)
     * @description The owner, then administrators, then editors, each with `name` (from their profile; null when unset) and `email`, so clients show colleagues (a lead's `assignee`, the team) as people. A stranger → 404.
     */
    get: operations['listProjectTeam'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/groups/{id}/team': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A group's team by name and e-mail (everyone who can read the group)
     * @description As `GET /projects/{id}/team`, for a group: the owner, then administrators, then editors, each with `name` (null when unset) and `email`. A stranger → 404.
     */
    get: operations['listGroupTeam'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/privacy/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Everything held about a buyer’s e-mail address, as one JSON file
     * @description Leads, waitlist entries, holds, worksheets, stored mail, change-log events naming them and their webhook deliveries; sent as an attachment (`buyer-data.json`). By the owner or an administrator of the projects the address was left with (editors → 403 with `project`); without `project` it covers every project whose leads the caller may read (a service administrator: all). Logged in the audit log with a keyed digest of the address, never the address.
     */
    post: operations['exportBuyerData'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/privacy/erase': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Erase everything held about a buyer’s e-mail address
     * @description In one transaction: leads and waitlist entries deleted (with their ended holds), worksheets deleted, change-log events about them redacted (their changes keep only status, assignee, unit and the like; a webhook delivery not yet sent sends the redacted event), stored mail deleted (a queued message is never sent) and stored answers of public forms forgotten. Insights hold no address and are unchanged. Erasing again finds nothing (all counts 0). By the owner or an administrator of the projects the address was left with (editors → 403 with `project`); without `project` it covers every project whose leads the caller may read (a service administrator: all). Logged in the audit log with a keyed digest of the address, never the address.
     */
    post: operations['eraseBuyerData'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/media': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload a picture or document (floor plans, images, brochures)
     * @description `multipart/form-data` with one part named `file`: PNG, JPEG, WebP, SVG or PDF, at most 20 MiB, recognised by its content (not its name or declared type). SVGs are rewritten keeping only drawing elements: no scripts, event handlers, foreignObject, animation or external references. The answer names the address to use in `floorplanUrl`, `images`, `brochurePDF` and the like.
     */
    post: operations['uploadMedia'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The project's change log after a seq, oldest first
     * @description Page through it by passing the last `seq` you have as `after`. Everyone who can read the project sees it; `lead.created`, `lead.updated` and `worksheet.*` events (they name buyers) only owners and administrators. Secrets appear by name only.
     */
    get: operations['listProjectEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/units/{id}/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A unit's changes, newest first
     * @description From the project change log: who changed what, when. `before` pages back.
     */
    get: operations['listUnitHistory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The project's webhooks (owner and administrators) */
    get: operations['listWebhooks'];
    put?: never;
    /**
     * Subscribe a URL to the project’s events (owner and administrators)
     * @description The answer carries the signing `secret` (whsec_…) once; it is never shown again. See the `webhooks` section for what is sent.
     */
    post: operations['createWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/webhooks/{hookId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One webhook (owner and administrators) */
    get: operations['getWebhook'];
    put?: never;
    post?: never;
    /**
     * Delete a webhook and its deliveries
     * @description `If-Match` with a stale ETag → 412 and nothing is deleted.
     */
    delete: operations['deleteWebhook'];
    options?: never;
    head?: never;
    /**
     * Change a webhook’s URL, events or description
     * @description Deliveries not yet made go to the new URL. `description: null` clears it. The secret cannot change: delete and create again. `If-Match` with a stale ETag → 412.
     */
    patch: operations['updateWebhook'];
    trace?: never;
  };
  '/projects/{id}/webhooks/{hookId}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A webhook's deliveries, newest first, each with its attempts
     * @description `before=<seq>` pages back.
     */
    get: operations['listWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/webhooks/{hookId}/deliveries/{deliveryId}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send one delivery again now (one attempt, same webhook-id) */
    post: operations['retryWebhookDelivery'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/integrations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The project's integrations: set up or not, connected or not, the last success and the last error
     * @description Every integration is listed, set up or not. Credentials are never shown: `complete` says whether they are all set.
     */
    get: operations['listIntegrations'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/integrations/{name}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Call the vendor with the project’s credentials (owner, administrators and editors)
     * @description Changes nothing at the vendor. 200: it answered, with the integration’s state. 502 `upstream_failed`: the vendor’s error in words (`detail`), the state in `integration`. 409: its credentials are not all set, or it has no test yet. Either way the state keeps the outcome.
     */
    post: operations['testIntegration'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/insights': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A project's page analytics and sales figures over a range of days (owner, administrators, editors)
     * @description Visitors, views, the funnel, sources and every unit's views, enquiries and holds, from daily totals (docs/insights.md). `from`/`to` default to the last 30 days (UTC); a range is at most 731 days. With `Accept: text/csv` or `format=csv` the answer is the `units` table as RFC 4180 CSV.
     */
    get: operations['listProjectsInsights'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/reports/send': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Mail the project's weekly report now, to its reportSendTo (owner, administrators)
     * @description The last seven full days (UTC) against the seven before, queued through the outbox like the Monday report. 409 when `reportSendTo` is empty.
     */
    post: operations['createProjectsReportsSend'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/units/{id}/waitlist': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A unit's waiting list in rank order (owner and administrators)
     * @description The waitlist entries (leads with source "waitlist") for this unit, first in rank first. `offeredAt` marks an entry the priority list has offered the unit to. With the project's specialRankEnabled, PATCH /leads/{id} `{ rank }` moves an entry.
     */
    get: operations['listUnitsWaitlist'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/projects/{id}/worksheets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A project's worksheets, oldest first (owner and administrators) */
    get: operations['listProjectsWorksheets'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/worksheets/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Accept a worksheet with one of its units (the unit turns reserved), or decline it
     * @description `{ status: "accepted", unit }`: the unit (one of its choices, available or held by its allocation) turns `reserved` and the worksheet `accepted` in one transaction; a unit already accepted for another worksheet, or otherwise taken → 409. `{ status: "declined" }` declines. A worksheet decided already → 409.
     */
    patch: operations['updateWorksheets'];
    trace?: never;
  };
}
export interface webhooks {
  'project.updated': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * project.updated delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookProjectUpdated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'floor.created': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * floor.created delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookFloorCreated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'floor.updated': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * floor.updated delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookFloorUpdated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'floor.deleted': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * floor.deleted delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookFloorDeleted'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.created': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.created delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitCreated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.updated': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.updated delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitUpdated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.deleted': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.deleted delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitDeleted'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.held': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.held delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitHeld'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.hold_expired': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.hold_expired delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitHoldExpired'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.hold_released': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.hold_released delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitHoldReleased'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'unit.hold_extended': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * unit.hold_extended delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookUnitHoldExtended'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'lead.created': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * lead.created delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookLeadCreated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'lead.updated': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * lead.updated delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookLeadUpdated'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'inventory.imported': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * inventory.imported delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookInventoryImported'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'worksheet.submitted': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * worksheet.submitted delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookWorksheetSubmitted'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'worksheet.accepted': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * worksheet.accepted delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookWorksheetAccepted'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'worksheet.declined': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * worksheet.declined delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookWorksheetDeclined'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'deposit.pending': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * deposit.pending delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookDepositPending'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'deposit.paid': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * deposit.paid delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookDepositPaid'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'deposit.expired': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * deposit.expired delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookDepositExpired'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'deposit.refunded': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * deposit.refunded delivered to a subscribed URL
     * @description Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 after `whsec_` (docs/events.md shows how to verify). Every attempt of one delivery carries the same `webhook-id`; drop repeats. Answer 2xx within 10 s, else it is retried after about 5 s, 30 s, 2 min, 10 min, 1 h and then hourly for 24 h. One webhook receives its events in `seq` order.
     */
    post: operations['webhookDepositRefunded'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface components {
  schemas: {
    /**
     * Problem
     * @description RFC 9457 problem details
     */
    Problem: {
      /** @description URI naming the kind of problem: `urn:showsuite:problem:<code>` */
      type: string;
      /** @description Short human summary of the kind of problem */
      title: string;
      /** @description The HTTP status code */
      status: number;
      /** @description What went wrong with this request, for people */
      detail: string;
      /** @description Stable machine word from a closed list (see the guide on errors); programs branch on it */
      code:
        | 'invalid_body'
        | 'invalid_query'
        | 'invalid_params'
        | 'invalid_json'
        | 'invalid_request'
        | 'uri_too_long'
        | 'headers_too_large'
        | 'request_timeout'
        | 'plan_limit'
        | 'invalid_credentials'
        | 'unauthorized'
        | 'forbidden'
        | 'csrf_rejected'
        | 'not_found'
        | 'method_not_allowed'
        | 'conflict'
        | 'precondition_failed'
        | 'gone'
        | 'payload_too_large'
        | 'too_many_rows'
        | 'unsupported_media_type'
        | 'idempotency_key_reused'
        | 'rate_limited'
        | 'upstream_failed'
        | 'payments_off'
        | 'billing_off'
        | 'database_unavailable'
        | 'rate_limit_unavailable'
        | 'too_many_connections'
        | 'starting'
        | 'internal';
      /** @description The request path */
      instance?: string;
      /** @description The X-Request-Id of this request, for a 500 */
      requestId?: string;
      /** @description A 402 `plan_limit`: the plan in effect (`starter`, `pro`, or `none`) */
      plan?: string;
      /** @description A 402 `plan_limit`: what the plan limits (`publishedProjects` or `hideBranding`) */
      limit?: string;
      /** @description A 402 `plan_limit`: what the plan allows (projects published at once, or false) */
      allowed?: number | boolean;
      /** @description One entry per bad field of a 400 */
      errors?: {
        /** @description JSON pointer to the bad field (`/units/3`, `/query/options/limit`) */
        path: string;
        /** @description What is wrong with it */
        message: string;
      }[];
    };
    User: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      role: 'user' | 'admin' | 'integration';
      username: string;
      /** @description Shows the console’s features marked experimental (absent reads as false) */
      experimentalFeatures?: boolean;
      name?: string;
      lastName?: string;
      fullName?: string;
      phone?: string;
      /** @description The user’s company: it signs the mail sent for the projects they own */
      companyName?: string;
      country?: string;
      address1?: string;
      address2?: string;
      city?: string;
      region?: string;
      zip?: string;
      preferences?: {
        hideBrandingIcon?: boolean;
        hideLoadingLogo?: boolean;
      };
      /** @description The public address (namespace) proposed for the user’s next project: their company’s or name’s slug, free at the time of asking */
      projectNameURL?: string;
      paymentsAccountId?: string;
      paymentsOnboardingDone?: boolean;
      paymentsDetailsSubmitted?: boolean;
      /** @description With plans on: the user’s Stripe customer, made once at their first checkout or portal visit */
      paymentsCustomer?: {
        /** @description The Stripe customer id (cus_…) */
        id?: string;
      } & {
        [key: string]: unknown;
      };
      /** @description With plans on: the user’s subscription as last read back from Stripe (docs/billing.md) */
      subscription?: {
        /** @description Stripe's status: trialing, active, past_due, unpaid, canceled, … */
        status?: string;
        /** @description starter or pro (null: another price) */
        plan?: string | null;
        trialEnd?: string | null;
        currentPeriodEnd?: string | null;
        cancelAtPeriodEnd?: boolean;
      } & {
        [key: string]: unknown;
      };
      /** @description With plans on: the user took their trial (it is offered once) */
      appliedTrial?: boolean;
      /** @description The other people who are administrators of projects the user belongs to (user ids) */
      administrators?: string[];
      /** @description The other people who are editors of projects the user belongs to (user ids) */
      editors?: string[];
      /** @description The invitations to the user’s e-mail address still pending (neither accepted, revoked nor expired) */
      invites?: components['schemas']['Invite'][];
      projects: string[];
      groups: string[];
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    /** @description A pending invitation; those made by POST …/invites carry _id, createdAt and expiresAt, and those listed on GET /users/me (addressed to the caller) also name their project or group */
    Invite: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      readonly _id?: string;
      /** @description First name of the invitee */
      firstName?: string;
      /** @description Last name of the invitee */
      lastName?: string;
      /**
       * Format: email
       * @description E-mail address the invitation goes to
       */
      email?: string;
      /** @description Level the invitee gets: administrator or editor */
      level?: string;
      /**
       * Format: date-time
       * @description When the record was created (ISO 8601, set by the server)
       */
      readonly createdAt?: string;
      /**
       * Format: date-time
       * @description When the invitation link stops working
       */
      expiresAt?: string;
      /** @description The project the invitation is to (in the invitee’s own `invites` on GET /users/me) */
      project?: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
      };
      /** @description The group the invitation is to (in the invitee’s own `invites` on GET /users/me) */
      group?: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
      };
    };
    Account: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description The account's e-mail address */
      username: string;
      /** @description Its role in the service: user, admin (a service administrator) or integration */
      role: 'user' | 'admin' | 'integration';
      name?: string;
      lastName?: string;
      /** @description false once an administrator deactivated it: it cannot sign in, and its sessions and API tokens are refused */
      active: boolean;
      /**
       * Format: date-time
       * @description When it was deactivated
       */
      deactivatedAt?: string;
      /**
       * Format: date-time
       * @description Its most recent sign-in
       */
      lastSignInAt?: string;
      /** @description The projects it owns or is a member of, oldest first, with its role in each */
      projects: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
        /** @description Its role in that project */
        role: 'owner' | 'administrator' | 'editor';
      }[];
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    /** @description An API token, without its secret */
    ApiToken: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description What the token is for, as its creator named it */
      name: string;
      /** @description `read`: GET and HEAD only (anything else → 403); `write`: everything the user may do */
      scope: 'read' | 'write';
      /** Format: date-time */
      createdAt: string;
      /** @description When it stops working; null: never */
      expiresAt: string | null;
      /** @description The last request it authenticated, to the minute; null: never used */
      lastUsedAt: string | null;
    };
    AuditEntry: {
      /** @description The entry, in the order entries were written */
      _id: string;
      /** Format: date-time */
      at: string;
      /** @description What happened */
      action:
        | 'sign_in'
        | 'sign_in_failed'
        | 'impersonate'
        | 'password_changed'
        | 'password_reset'
        | 'password_reset_sent'
        | 'api_token_created'
        | 'api_token_revoked'
        | 'account_deactivated'
        | 'account_reactivated'
        | 'members_changed'
        | 'member_invited'
        | 'member_joined'
        | 'invite_revoked'
        | 'settings_changed'
        | 'leads_exported'
        | 'buyer_data_exported'
        | 'buyer_data_erased'
        | 'lead_deleted'
        | 'leads_expired'
        | 'owner_changed';
      /** @description Who did it; null for a failed sign-in */
      actor: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        username?: string;
      } | null;
      /** @description The client address it came from */
      address: string | null;
      /** @description The id of the account, token, invitation or project it was about */
      subject: string | null;
      /** @description The project it concerned, when one did */
      project: string | null;
      /** @description Field names, roles, counts; never a value of a secret */
      detail: {
        [key: string]: unknown;
      };
    };
    Project: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      readonly _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description The owning user; a PATCH that sends another id is refused (400, the same for any id) */
      user: string;
      /** @description Name of the project */
      name: string;
      /** @description Lower-case slug, unique among projects */
      namespace?: string;
      /** @description Host name, unique among projects (stored lower-case) */
      hostName?: string;
      /** @description Kind of project (filters match it exactly) */
      projectType?: string;
      /** @description User ids of administrators */
      administrators: string[];
      /** @description User ids of editors */
      editors: string[];
      /** @description Website URL */
      websiteURL?: string;
      /** @description Internal management URL */
      internalURL?: string;
      /** @description Accent colour */
      accentColor?: string;
      /** @description Walkscore */
      walkscore?: string;
      /** @description Custom button text */
      customButtonText?: string;
      /** @description Custom button icon */
      customButtonIcon?: string;
      /** @description Area unit */
      areaUnit?: string;
      /** @description Share page description */
      sharePageDescription?: string;
      /** @description Share page logo */
      sharePageLogo?: string;
      /** @description Project image url */
      projectImageUrl?: string;
      /** @description Project svgurl */
      projectSVGUrl?: string;
      /** @description SVG group identifier */
      svgGroupId?: string;
      /** @description Layout image url */
      layoutImageUrl?: string;
      /** @description Forms subject */
      formsSubject?: string;
      /** @description Forms from name */
      formsFromName?: string;
      /** @description Forms message */
      formsMessage?: string;
      /** @description Redirect after form submission: where the page goes after a form is sent */
      formsRedirectURL?: string;
      /** @description Project lang */
      projectLang?: string;
      /** @description Property type */
      propertyType?: string;
      /** @description Lots layout */
      lotsLayout?: string;
      /** @description Area description */
      areaDescription?: string;
      /** @description Enterprise address display */
      enterpriseAddressDisplay?: string;
      /** @description Custom form message */
      crfMessage?: string;
      /** @description Charge description */
      chargeDescription?: string;
      /** @description Pay button text */
      payButtonText?: string;
      /** @description Pay button icon */
      payButtonIcon?: string;
      /** @description Tag-manager snippets: the one for the head (served only with gtmEnabled) */
      gtmHeadCode?: string;
      /** @description Tag-manager snippets: the one for the body (served only with gtmEnabled) */
      gtmBodyCode?: string;
      /** @description Physical address */
      address?: string;
      /** @description Perimeter of the area, drawn on the map: "lat,lon lat,lon …" pairs (at least three) or a GeoJSON Polygon, MultiPolygon or Feature holding one; anything else → 400 */
      perimeter?: string;
      /** @description Map marker image URL */
      markerImageUrl?: string;
      /** @description Target marker identifier */
      targetMarker?: string;
      /** @description Colour of map points */
      mapPointColor?: string;
      /** @description Sponsors */
      sponsors?: string;
      /** @description Layouts */
      layouts?: string;
      /** @description Downloadable assets */
      downloadableAssets?: string;
      /** @description Floorplans */
      floorplans?: string;
      /** @description Drawing path */
      path?: string;
      /** @description Alternative paths (drawing) */
      alternativePaths?: string;
      /** @description Subscription item */
      subscriptionItem?: string;
      /** @description When the last inventory import was applied */
      lastSync?: string;
      /** @description Events block list */
      eventsBlockList?: string;
      /** @description Phase prefix */
      phasePrefix?: string;
      /** @description 3d model url */
      _3dModelUrl?: string;
      /** @description 3d building model url */
      _3dBuildingModelUrl?: string;
      /** @description 3d floor selector model url */
      _3dFloorSelectorModelUrl?: string;
      /** @description Custom button opens at */
      customButtonOpensAt?: string;
      /** @description Custom button action type */
      customButtonActionType?: string;
      /** @description Initial view (default `List`) */
      initialView?: string;
      /** @description Image type on the grid (default `Unit Plan`) */
      unitImageOnGrid?: string;
      /** @description Similar sorting by */
      similarSortingBy?: string;
      /** @description Charge type */
      chargeType?: string;
      /** @description Charge currency */
      chargeCurrency?: string;
      /** @description Map style (default `Light`) */
      mapStyle?: string;
      /** @description Colours: base */
      colorBase?: string;
      /** @description Colours: accent */
      colorAccent?: string;
      /** @description Colours: hover */
      colorHover?: string;
      /** @description Colours: button */
      colorButton?: string;
      /** @description Colours: button text */
      colorButtonText?: string;
      /** @description Colours: text */
      colorText?: string;
      /** @description Colours: featured */
      colorFeatured?: string;
      /** @description Colours: sold */
      colorSold?: string;
      /** @description Colours: available */
      colorAvailable?: string;
      /** @description Colours: reserved */
      colorReserved?: string;
      /**
       * @description Where the floor navigation sits: one of top, side, or '' for the page's default
       * @enum {string}
       */
      styleNavigation?: 'top' | 'side' | '';
      /**
       * @description The look of the service mark at the foot of the page: one of light, dark, or '' for the page's default
       * @enum {string}
       */
      styleBranding?: 'light' | 'dark' | '';
      /**
       * @description How the filters are laid out: one of bar, panel, or '' for the page's default
       * @enum {string}
       */
      styleFilter?: 'bar' | 'panel' | '';
      /**
       * @description Corners of cards, buttons and fields: rounded or square: one of rounded, square, or '' for the page's default
       * @enum {string}
       */
      styleShapes?: 'rounded' | 'square' | '';
      /**
       * @description The page's font, a Google Fonts family: one of Montserrat, Inter, Roboto, Open Sans, Lato, Poppins, Raleway, Nunito, Work Sans, DM Sans, Playfair Display, Merriweather, Lora, Cormorant Garamond, Libre Baskerville, or '' for the page's default
       * @enum {string}
       */
      styleFont?:
        | 'Montserrat'
        | 'Inter'
        | 'Roboto'
        | 'Open Sans'
        | 'Lato'
        | 'Poppins'
        | 'Raleway'
        | 'Nunito'
        | 'Work Sans'
        | 'DM Sans'
        | 'Playfair Display'
        | 'Merriweather'
        | 'Lora'
        | 'Cormorant Garamond'
        | 'Libre Baskerville'
        | '';
      /**
       * Format: email-list
       * @description E-mail address to send forms to: one or more, separated by commas; enquiries go there
       */
      formsSendTo?: string;
      /**
       * Format: email-list
       * @description E-mail addresses (comma-separated) reports are sent to
       */
      reportSendTo?: string;
      /**
       * Format: time-zone
       * @description The project's time zone, an IANA name (America/Toronto): times in the project's mail (a hold's expiry) and in its hold leads read in it. Absent: UTC
       */
      timeZone?: string;
      /** @description How long a public hold lasts, in minutes (default 5) */
      onHoldMinsDuration?: number;
      /** @description Map layout width */
      mapLayoutWidth?: number;
      /** @description Map layout rotation */
      mapLayoutRotation?: number;
      /** @description Global amount */
      globalAmount?: number;
      /** @description Default map zoom level */
      zoomLevel?: number;
      /** @description Longitude */
      lon?: number;
      /** @description Latitude */
      lat?: number;
      /** @description One of the display switches: show inclusions (absent reads as false) */
      showInclusions?: boolean;
      /** @description One of the display switches: show bathrooms (absent reads as false) */
      showBathrooms?: boolean;
      /** @description One of the display switches: show additional info (absent reads as false) */
      showAdditionalInfo?: boolean;
      /** @description One of the display switches: show parking (absent reads as false) */
      showParking?: boolean;
      /** @description One of the display switches: show orientation (absent reads as false) */
      showOrientation?: boolean;
      /** @description One of the display switches: brochure button enabled (absent reads as false) */
      brochureButtonEnabled?: boolean;
      /** @description One of the display switches: custom button enabled (absent reads as false) */
      customButtonEnabled?: boolean;
      /** @description One of the display switches: walkscore enabled (absent reads as false) */
      walkscoreEnabled?: boolean;
      /** @description One of the display switches: show availability (absent reads as false) */
      showAvailability?: boolean;
      /** @description Sold units are left out of the public page */
      hideSold?: boolean;
      /** @description Prices are shown to visitors */
      showPrices?: boolean;
      /** @description One of the display switches: gtm enabled (absent reads as false) */
      gtmEnabled?: boolean;
      /** @description One of the display switches: day night enabled (absent reads as false) */
      dayNightEnabled?: boolean;
      /** @description One of the display switches: show available first (absent reads as false) */
      showAvailableFirst?: boolean;
      /** @description One of the display switches: skip floor step (absent reads as false) */
      skipFloorStep?: boolean;
      /** @description One of the display switches: show unit custom finishes (absent reads as false) */
      showUnitCustomFinishes?: boolean;
      /** @description Every floor above the homes: its homes available of all, and its lowest price */
      showFloorOverview?: boolean;
      /** @description One of the display switches: prices starting at (absent reads as false) */
      pricesStartingAt?: boolean;
      /** @description One of the display switches: show price filter (absent reads as false) */
      showPriceFilter?: boolean;
      /** @description One of the display switches: show area filter (absent reads as false) */
      showAreaFilter?: boolean;
      /** @description One of the display switches: show unit description (absent reads as false) */
      showUnitDescription?: boolean;
      /** @description One of the display switches: show taxes (absent reads as false) */
      showTaxes?: boolean;
      /** @description One of the display switches: share page enabled (absent reads as false) */
      sharePageEnabled?: boolean;
      /** @description One of the display switches: price before tax (absent reads as false) */
      priceBeforeTax?: boolean;
      /** @description The page takes enquiries */
      enableForms?: boolean;
      /** @description One of the display switches: rental object (absent reads as false) */
      rentalObject?: boolean;
      /** @description One of the display switches: delivery dates (absent reads as false) */
      deliveryDates?: boolean;
      /** @description One of the display switches: hide area (absent reads as false) */
      hideArea?: boolean;
      /** @description One of the display switches: show branding (absent reads as false) */
      showBranding?: boolean;
      /** @description Visitors may hold available units */
      onHoldExperienceEnabled?: boolean;
      /** @description One of the display switches: custom form enabled (absent reads as false) */
      customFormEnabled?: boolean;
      /** @description The page is a preview (not cached, not indexed) */
      previewMode?: boolean;
      /** @description One of the display switches: land only (absent reads as false) */
      landOnly?: boolean;
      /** @description One of the display switches: show unit finishes (absent reads as false) */
      showUnitFinishes?: boolean;
      /** @description One of the display switches: show variants (absent reads as false) */
      showVariants?: boolean;
      /** @description One of the display switches: sponsors enabled (absent reads as false) */
      sponsorsEnabled?: boolean;
      /** @description The page takes waitlist sign-ups */
      waitlistEnabled?: boolean;
      /** @description One of the display switches: invert nav (absent reads as false) */
      invertNav?: boolean;
      /** @description One of the display switches: map directions (absent reads as false) */
      mapDirections?: boolean;
      /** @description Visitors leave their details before seeing the page */
      lockScreen?: boolean;
      /** @description One of the display switches: special rank enabled (absent reads as false) */
      specialRankEnabled?: boolean;
      /** @description One of the display switches: priority list (absent reads as false) */
      priorityList?: boolean;
      /** @description One of the display switches: lock screen name (absent reads as false) */
      lockScreenName?: boolean;
      /** @description One of the display switches: lock screen email (absent reads as false) */
      lockScreenEmail?: boolean;
      /** @description One of the display switches: lock screen phone (absent reads as false) */
      lockScreenPhone?: boolean;
      /** @description One of the display switches: lock screen message (absent reads as false) */
      lockScreenMessage?: boolean;
      /** @description The lock screen also asks lockScreenCustomQuestions */
      lockScreenCustom?: boolean;
      /** @description One of the display switches: exclude blocked events (absent reads as false) */
      excludeBlockedEvents?: boolean;
      /** @description One of the display switches: enable3d (absent reads as false) */
      enable3d?: boolean;
      /** @description One of the display switches: hide gallery (absent reads as false) */
      hideGallery?: boolean;
      /** @description One of the display switches: hide bedrooms (absent reads as false) */
      hideBedrooms?: boolean;
      /** @description false: a draft: its page, bundle, live feed, forms and holds answer 404 and group pages leave it out; its team opens it through GET /projects/{id}/preview-link. Absent means true */
      published?: boolean;
      /** @description Brochure assets */
      brochureAssets?: string[];
      /** @description Alternative cover images */
      alternativeCovers?: string[];
      /** @description Image URLs */
      images?: string[];
      /** @description Finishes */
      finishes?: string[];
      /** @description calendar booking integration setting: username */
      calUsername?: string;
      /** @description payments integration setting: client id */
      payProviderClientId?: string;
      /** @description payments integration setting: currency */
      payProviderCurrency?: string;
      /** @description inventory system (yi) integration setting: company code */
      yiCompanyCode?: string;
      /** @description inventory system (yi) integration setting: property code */
      yiPropertyCode?: string;
      /** @description inventory system (pv) integration setting: username */
      pvUsername?: string;
      /** @description inventory system (pv) integration setting: building name */
      pvBuildingName?: string;
      /** @description CRM (zh) integration setting: client id */
      zhClientId?: string;
      /** @description CRM (zh) integration setting: org id */
      zhOrgId?: string;
      /** @description CRM (sr) integration setting: base url */
      srBaseUrl?: string;
      /** @description CRM (sf) integration setting: project id */
      sfProjectId?: string;
      /** @description CRM (so) integration setting: project id */
      soProjectId?: string;
      /** @description CRM (so) integration setting: domain */
      soDomain?: string;
      /** @description inventory system (bs) integration setting: building id */
      bsBuildingId?: string;
      /** @description inventory system (bs) integration setting: username */
      bsUsername?: string;
      /** @description inventory feed integration setting: url */
      ftpUrl?: string;
      /** @description inventory feed integration setting: whitelist */
      ftpWhitelist?: string;
      /** @description inventory feed integration setting: blacklist */
      ftpBlacklist?: string;
      /** @description inventory feed integration setting: path */
      ftpPath?: string;
      /** @description inventory feed integration setting: file name */
      ftpFileName?: string;
      /** @description payments integration setting: deposit */
      payProviderDeposit?: number;
      /** @description inventory feed integration setting: port */
      ftpPort?: number;
      /** @description Commercial spaces (record ids) */
      commercialSpaces?: string[];
      /** @description Fields of the custom enquiry form */
      customFormFields?: {
        [key: string]: unknown;
      }[];
      /** @description Subscription plan */
      plan?: {
        [key: string]: unknown;
      };
      /** @description Pending invitations */
      invites?: components['schemas']['Invite'][];
      /** @description Finish options per room */
      customFinishes?: {
        name?: string;
        options?: {
          kitchen?: {
            tabs?: {
              label?: string;
              cover?: string;
              thumbnail?: string;
            }[];
          };
          bathroom?: {
            tabs?: {
              label?: string;
              cover?: string;
              thumbnail?: string;
            }[];
          };
          general?: {
            tabs?: {
              label?: string;
              cover?: string;
              thumbnail?: string;
            }[];
          };
        };
      };
      /** @description The lock screen's own questions (with lockScreenCustom), each asked where the page is in its `lang`; the answers are kept on the lead as `questions` (up to 20 questions of 500 characters) */
      lockScreenCustomQuestions?: {
        /**
         * @description The page language the question is asked in (the two letters of `projectLang`: en, fr, es), or '' (or none) for every language
         * @enum {string}
         */
        lang?: 'en' | 'fr' | 'es' | '';
        /** @description The question, as the visitor reads it */
        value: string;
      }[];
      /** @description Inventory file headers mapped to Unit fields */
      ftpMapping?: {
        header?: string;
        property?: string;
      }[];
      /** @description External status strings for the five availability names */
      yiStatusMapping?: {
        available?: string;
        leased?: string;
        sold?: string;
        unavailable?: string;
        reserved?: string;
      };
      /** @description Allocations: name, write-only password, allocation */
      allocations?: {
        name?: string;
        allocation?: string;
      }[];
      /** @description The project's floors in position order (kept by the server; a PATCH may reorder them) */
      floors: string[];
      /** @description Names of the write-only fields that are set */
      readonly configuredSecrets: string[];
      /**
       * Format: date-time
       * @description When the record was created (ISO 8601, set by the server)
       */
      readonly createdAt: string;
      /**
       * Format: date-time
       * @description When the record last changed (ISO 8601, set by the server)
       */
      readonly updatedAt: string;
    };
    Floor: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      readonly _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description Associated project: the project the floor belongs to */
      project: string;
      /** @description Associated units: the floor's units in position order (kept by the server; a PATCH may reorder them) */
      units: string[];
      /** @description Name of the floor */
      name: string;
      /** @description Position or order; floors are listed by it */
      position: number;
      /** @description Floorplan image URL */
      floorplanUrl?: string;
      /** @description Floor drawing path: the floor's shape on the project's picture (`projectImageUrl`), SVG path data in that picture's pixels */
      path?: string;
      /** @description Alternative paths: more shapes of the same floor on the picture (a floor seen in two places), each SVG path data like `path` */
      alternativePaths?: string[];
      /**
       * Format: date-time
       * @description When the record was created (ISO 8601, set by the server)
       */
      readonly createdAt: string;
      /**
       * Format: date-time
       * @description When the record last changed (ISO 8601, set by the server)
       */
      readonly updatedAt: string;
    };
    Unit: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      readonly _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description The project this record belongs to */
      project: string;
      /** @description Associated floor: the floor the unit is on */
      floor?: string;
      /** @description Name of the unit */
      name: string;
      /** @description Position or order within the floor */
      position: number;
      /**
       * @description Availability status: one of available, on_hold, reserved, sold, leased, unavailable
       * @enum {string}
       */
      availability: 'available' | 'on_hold' | 'reserved' | 'sold' | 'leased' | 'unavailable';
      /**
       * Format: date-time
       * @description Expiry of the hold status: when the current hold ends (only while on_hold)
       */
      onHoldExpiresAt?: string;
      /** @description Number of bedrooms (text, e.g. `2` or `Studio`) */
      bedrooms?: string;
      /** @description Area */
      squareFeet?: number;
      /** @description Featured flag */
      isFeatured?: boolean;
      /** @description Price (left out of public answers when the project hides prices) */
      price?: number;
      /** @description Price is to be determined */
      unitPriceTBD?: boolean;
      /** @description Type of the unit */
      type?: string;
      /** @description Specific type, for example amenities or parkings; the value `unit` applies when not specified */
      specificType?: string;
      /** @description Detail path (drawing) */
      path?: string;
      /** @description Lot path: an SVG path in the pixels of the project's site plan picture (layoutImageUrl) */
      lotPath?: string;
      /** @description Image URL */
      unitImageUrl?: string;
      /** @description Layout URL */
      layoutUrl?: string;
      /** @description URL of a downloadable asset */
      downloadableAsset?: string;
      /** @description URL of the brochure PDF */
      brochurePDF?: string;
      /** @description Embed code */
      embedCode?: string;
      /** @description Custom button URL and snippet: the URL (empty unless set) */
      customButtonUrl?: string;
      /** @description Custom button URL and snippet: the snippet (empty unless set) */
      customButtonSnippet?: string;
      /** @description Orientation (one of the unit's texts) */
      orientation?: string;
      /** @description Inclusions (one of the unit's texts) */
      inclusions?: string;
      /** @description Delivery date (one of the unit's texts: free text, not a date-time) */
      deliveryDate?: string;
      /** @description Description (one of the unit's texts) */
      description?: string;
      /** @description Perimeter of the area, drawn on the map: "lat,lon lat,lon …" pairs (at least three) or a GeoJSON Polygon, MultiPolygon or Feature holding one; anything else → 400 */
      perimeter?: string;
      /** @description SVG id of the lot: an element's id in the project's projectSVGUrl */
      svgLotId?: string;
      /** @description Layout images */
      layoutGallery?: string[];
      /** @description Extra information as label/value pairs */
      additionalInfo?: {
        label?: string;
        value?: string;
      }[];
      /** @description Payable amount (a deposit; shown even when prices are hidden) */
      payableAmount?: number;
      /** @description Image URLs */
      images?: string[];
      /** @description Cloned image URLs */
      clonedImages?: string[];
      /** @description Finish options per room and the default choice: `type` {`name` string, `options` {`kitchen`, `bathroom`, `general`, each {`tabs` array of {`label`, `cover`, `thumbnail` strings}}}} and `default` object */
      customFinishes?: {
        type?: {
          name?: string;
          options?: {
            kitchen?: {
              tabs?: {
                label?: string;
                cover?: string;
                thumbnail?: string;
              }[];
            };
            bathroom?: {
              tabs?: {
                label?: string;
                cover?: string;
                thumbnail?: string;
              }[];
            };
            general?: {
              tabs?: {
                label?: string;
                cover?: string;
                thumbnail?: string;
              }[];
            };
          };
        };
        default?: {
          [key: string]: unknown;
        };
      };
      /** @description Finishes */
      finishes?: string[];
      /** @description Cloned finishes */
      clonedFinishes?: string[];
      /** @description Counts: the number of parking spaces */
      parking?: number;
      /** @description Counts: the number of bathrooms */
      bathrooms?: number;
      /** @description References to unit models */
      unitmodels?: string[];
      /** @description Longitude (location) */
      lon?: number;
      /** @description Latitude (location) */
      lat?: number;
      /** @description Only in a bundle read with X-Allocation-Token: the unit belongs to that realtor's allocation */
      readonly allocated?: boolean;
      /**
       * Format: date-time
       * @description When the record was created (ISO 8601, set by the server)
       */
      readonly createdAt: string;
      /**
       * Format: date-time
       * @description When the record last changed (ISO 8601, set by the server)
       */
      readonly updatedAt: string;
    };
    /** @description What an import changes (dry run) or changed */
    InventoryImport: {
      dryRun: boolean;
      summary: {
        created: number;
        updated: number;
        unchanged: number;
        /** @description Rows whose availability was not applied because the unit is held right now */
        kept: number;
        errors: number;
        /** @description Rows left out by ftpWhitelist / ftpBlacklist (feed pulls), or apartments naming no unit of the project (RENTCafé pulls) */
        skipped: number;
      };
      /** @description One entry per row, in file order: the first 1,000 rows (`truncated` says whether there were more) */
      changes: {
        row: number;
        action: 'create' | 'update' | 'unchanged';
        /** @description The unit changed; null for one the import creates */
        unit: string | null;
        name: string;
        /** @description The unit's floor by name (after the import) */
        floor: string | null;
        /** @description `{ field: [before, after] }`; floors by name */
        fields: {
          [key: string]: unknown[];
        };
      }[];
      /** @description true: the file had more than 1,000 rows and `changes` lists the first 1,000; `summary` counts every row */
      truncated: boolean;
      errors: {
        /** @description 1 = the first data row; null for a failure of the whole file */
        row: number | null;
        /** @description The column header as written in the file */
        column: string | null;
        message: string;
        /** @description In a 400 answer: `/<row>/<column>`, as problem details name fields */
        path?: string;
      }[];
      unknownColumns: string[];
      kept: {
        row: number;
        /** @description 24-character lower-case hex identifier */
        unit: string;
        name: string;
      }[];
      /** @description The sync record of an applied import */
      sync?: string;
    };
    InventorySync: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description upload: a file sent; ftp: the FTP/SFTP feed; rentcafe: availability and prices pulled from Yardi RENTCafé */
      source: 'upload' | 'ftp' | 'rentcafe';
      status: 'applied' | 'failed';
      /** Format: date-time */
      startedAt: string;
      /** Format: date-time */
      finishedAt: string;
      summary: {
        [key: string]: unknown;
      };
      errors: {
        /** @description 1 = the first data row; null for a failure of the whole file */
        row: number | null;
        /** @description The column header as written in the file */
        column: string | null;
        message: string;
        /** @description In a 400 answer: `/<row>/<column>`, as problem details name fields */
        path?: string;
      }[];
      /** @description Who uploaded or asked for the pull; null for a scheduled pull */
      user: string | null;
    };
    Group: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      readonly _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description The owning user */
      user: string;
      /** @description Name of the group */
      name: string;
      /** @description Namespace: lower-case slug, unique among groups */
      namespace?: string;
      /** @description Host name, unique among groups (stored lower-case) */
      hostName?: string;
      /** @description User ids of administrators */
      administrators: string[];
      /** @description User ids of editors */
      editors: string[];
      /** @description Associated projects: the group's projects, in order (only projects the caller can see) */
      projects: string[];
      /** @description Website URL */
      websiteURL?: string;
      /** @description Language (default `en`) */
      groupLang?: string;
      /** @description Default link behaviour (default `Service`) */
      linkBehavior?: string;
      /** @description Accent colour */
      accentColor?: string;
      /** @description Image URL */
      groupImageUrl?: string;
      /** @description SVG URL */
      groupSVGUrl?: string;
      /** @description SVG group identifier */
      svgGroupId?: string;
      /** @description Physical address */
      address?: string;
      /** @description Perimeter of the group area, drawn on the group page map: "lat,lon lat,lon …" pairs (at least three) or a GeoJSON Polygon, MultiPolygon or Feature holding one; anything else → 400 */
      perimeter?: string;
      /** @description Map marker image URL */
      markerImageUrl?: string;
      /** @description Target marker identifier */
      targetMarker?: string;
      /** @description Map style (default `Light`) */
      mapStyle?: string;
      /** @description Colour of map points */
      mapPointColor?: string;
      /** @description Initial view (default `List`) */
      initialView?: string;
      /** @description Image type on the grid (default `Unit Plan`) */
      unitImageOnGrid?: string;
      /** @description Internal URL (for management) */
      internalURL?: string;
      /** @description Theme */
      theme?: string;
      /** @description Colours: base */
      colorBase?: string;
      /** @description Colours: accent */
      colorAccent?: string;
      /** @description Colours: hover */
      colorHover?: string;
      /** @description Colours: button */
      colorButton?: string;
      /** @description Colours: button text */
      colorButtonText?: string;
      /** @description Colours: text */
      colorText?: string;
      /** @description Longitude */
      lon?: number;
      /** @description Latitude */
      lat?: number;
      /** @description Default map zoom level */
      zoomLevel?: number;
      /** @description Alternative cover images */
      alternativeCovers?: string[];
      /** @description Invited users: pending invitations to the group */
      invites?: components['schemas']['Invite'][];
      /** @description One of the display switches: show available first (absent reads as false) */
      showAvailableFirst?: boolean;
      /** @description One of the display switches: show all units (absent reads as false) */
      showAllUnits?: boolean;
      /** @description One of the display switches: show prices (absent reads as false) */
      showPrices?: boolean;
      /** @description One of the display switches: prices starting at (absent reads as false) */
      pricesStartingAt?: boolean;
      /** @description One of the display switches: show taxes (absent reads as false) */
      showTaxes?: boolean;
      /** @description One of the display switches: price before tax (absent reads as false) */
      priceBeforeTax?: boolean;
      /** @description One of the display switches: show availability (absent reads as false) */
      showAvailability?: boolean;
      /** @description One of the display switches: hide sold (absent reads as false) */
      hideSold?: boolean;
      /** @description One of the display switches: delivery dates (absent reads as false) */
      deliveryDates?: boolean;
      /** @description One of the display switches: hide area (absent reads as false) */
      hideArea?: boolean;
      /** @description One of the display switches: show branding (absent reads as false) */
      showBranding?: boolean;
      /** @description One of the display switches: show price filter (absent reads as false) */
      showPriceFilter?: boolean;
      /** @description One of the display switches: show area filter (absent reads as false) */
      showAreaFilter?: boolean;
      /** @description One of the display switches: show floor overview (absent reads as false) */
      showFloorOverview?: boolean;
      /**
       * Format: date-time
       * @description When the record was created (ISO 8601, set by the server)
       */
      readonly createdAt: string;
      /**
       * Format: date-time
       * @description When the record last changed (ISO 8601, set by the server)
       */
      readonly updatedAt: string;
    };
    /** @description A deposit taken with a hold, through the project owner’s Stripe account */
    Deposit: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description 24-character lower-case hex identifier */
      project: string;
      /** @description The unit held (null once the unit is deleted) */
      unit: string | null;
      /** @description The unit's name, when it still exists */
      unitName?: string;
      /** @description The lead the hold made (null once the lead is erased) */
      lead: string | null;
      /** @description pending: waiting for the buyer to pay at Stripe Checkout (the unit is on hold); paid: Stripe confirmed it (the unit turned reserved); expired: the payment window lapsed or the session expired unpaid; refunded: refunded at Stripe by the sales team */
      status: 'pending' | 'paid' | 'expired' | 'refunded';
      /**
       * @description In the currency's minor unit, as Stripe counts it (cents: 50000 is 500.00 usd; yen: 500 is ¥500)
       * @example 50000
       */
      amount: number;
      /**
       * @description Lower-case ISO 4217 code
       * @example usd
       */
      currency: string;
      /** @description The holder’s first and last name */
      buyerName: string;
      /** @description The holder’s e-mail (Stripe Checkout asks for it again) */
      buyerEmail: string;
      /**
       * Format: date-time
       * @description When the hold asked for it
       */
      createdAt: string;
      /**
       * Format: date-time
       * @description The end of the payment window (DEPOSIT_WINDOW_MINUTES after the hold)
       */
      expiresAt: string;
      /** @description When Stripe confirmed it paid */
      paidAt: string | null;
      /** @description When it expired unpaid */
      expiredAt: string | null;
      /** @description When it was refunded */
      refundedAt: string | null;
    };
    /** @description The deposit this hold asks for */
    PaymentOffer: {
      /** @description The deposit: GET /public/deposits/{id} tells where it stands; the return address from Checkout carries it */
      _id: string;
      /** @enum {string} */
      status: 'pending';
      /**
       * Format: uri
       * @description Stripe Checkout's page on the owner's account: send the buyer there
       */
      checkoutUrl: string;
      /**
       * @description In the currency's minor unit, as Stripe counts it (cents: 50000 is 500.00 usd; yen: 500 is ¥500)
       * @example 50000
       */
      amount: number;
      /**
       * @description Lower-case ISO 4217 code
       * @example usd
       */
      currency: string;
      /**
       * Format: date-time
       * @description The end of the payment window: unpaid by then, the unit is released and the session expired
       */
      expiresAt: string;
    };
    PublicDeposit: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description pending: waiting for the buyer to pay at Stripe Checkout (the unit is on hold); paid: Stripe confirmed it (the unit turned reserved); expired: the payment window lapsed or the session expired unpaid; refunded: refunded at Stripe by the sales team */
      status: 'pending' | 'paid' | 'expired' | 'refunded';
      /**
       * @description In the currency's minor unit, as Stripe counts it (cents: 50000 is 500.00 usd; yen: 500 is ¥500)
       * @example 50000
       */
      amount: number;
      /**
       * @description Lower-case ISO 4217 code
       * @example usd
       */
      currency: string;
      unit: string | null;
      /** @description 24-character lower-case hex identifier */
      project: string;
      /**
       * Format: date-time
       * @description The end of the payment window
       */
      expiresAt: string;
    };
    /** @description Whether this server takes payments, and how the caller’s Stripe account stands */
    PaymentsState: {
      /** @description Whether this server takes payments at all (STRIPE_SECRET_KEY set). False: no deposit is taken anywhere, and there is nothing to connect */
      available: boolean;
      /** @description Whether the caller has a connected Stripe account (paymentsAccountId) */
      connected: boolean;
      /** @description Stripe's `details_submitted`: the owner finished Stripe's onboarding form */
      detailsSubmitted: boolean;
      /** @description Stripe's `charges_enabled`: the owner's projects take deposits (paymentsOnboardingDone) */
      chargesEnabled: boolean;
      /**
       * @description What Stripe still needs before it enables charges or keeps them enabled, in Stripe's requirement names (past due first): `external_account`, `tos_acceptance.date`, `individual.dob.day`, …
       * @example [
       *       "external_account",
       *       "tos_acceptance.date"
       *     ]
       */
      missing: string[];
      /** @description Why Stripe disabled charges, in Stripe's words (`requirements.past_due`, `requirements.pending_verification`, `under_review`, …), or null */
      disabledReason: string | null;
    };
    /** @description A user's subscription to a plan, as last read back from Stripe */
    Subscription: {
      /** @description Stripe's status: trialing, active (in good standing), past_due, unpaid, canceled, paused (the plan holds until currentPeriodEnd), incomplete, incomplete_expired */
      status: string;
      /** @description The plan its price is (null: a price that is neither configured plan) */
      plan: ('starter' | 'pro') | null;
      /** @description When the trial ends (null: no trial) */
      trialEnd: string | null;
      /** @description The end of the period paid for (or of the trial) */
      currentPeriodEnd: string | null;
      /** @description It is cancelled and ends at currentPeriodEnd */
      cancelAtPeriodEnd: boolean;
    };
    Bundle: {
      /** @description Public Project fields (see docs/public-api.md for what is left out) */
      project: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
        /** @description Whether a hold on this project may ask for a deposit: payments are configured on the server and the owner's Stripe account is onboarded. False: the page says nothing of a deposit */
        deposits: boolean;
        /**
         * Format: uri
         * @description The Cal.com booking page of the project's `calUsername` (at the server's CAL_URL), where "Book a visit" sends a visitor; absent without one. The username itself is not in the bundle
         */
        bookingUrl?: string;
      } & {
        [key: string]: unknown;
      };
      /** @description Floors in position order, each with its units in position order */
      floors: ({
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
        position: number;
        units: components['schemas']['Unit'][];
        /** @description When the project hides sold units: the plan shapes (SVG path data) of its sold units, to draw as sold; nothing names those units */
        soldShapes?: string[];
        /** @description With soldShapes: each hidden sold unit's position on its floor (the same order), so a page draws it in its place among the units */
        soldPositions?: number[];
      } & {
        [key: string]: unknown;
      })[];
      /** @description Units not placed on a floor */
      unassignedUnits: components['schemas']['Unit'][];
    };
    /** @description An enquiry as a visitor sends it. The project is named by `project` (its id) or `namespace`: one of the two is required; when both are sent, `project` decides. */
    PublicLeadInput:
      | {
          /** @description The project the enquiry is for, by id (or name it by `namespace`) */
          project?: string;
          /** @description The project the enquiry is for, by namespace: the slug of its public page (or name it by `project`) */
          namespace?: string;
          /** @description First name */
          firstName: string;
          /** @description Last name */
          lastName: string;
          /**
           * Format: email
           * @description E-mail address
           */
          email: string;
          /** @description Phone number */
          phone: string;
          /** @description Unit associated with the lead (as the visitor sent it; a hold names the unit by id) */
          unit?: string;
          /** @description Message */
          message?: string;
          /** @description Where the lead came from (default `presentation`) */
          source?: string;
          /** @description Answers to the lock-screen questions */
          questions?: {
            question: string;
            answer: string;
          }[];
          /** @description Answers to the project's custom form fields */
          customFields?: {
            key: string;
            value: string;
          }[];
          /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
          utm?: {
            source?: string;
            medium?: string;
            campaign?: string;
            term?: string;
            content?: string;
          };
        }
      | unknown
      | unknown;
    /** @description The unit now on hold, with the hold token */
    HeldUnit: components['schemas']['Unit'] & {
      /** @description A secret for this hold alone (256 random bits, base64url): GET, DELETE /public/holds/{holdToken} and POST …/extend. The server keeps only its hash */
      holdToken: string;
      payment?: components['schemas']['PaymentOffer'];
    };
    PublicHold: {
      unit: components['schemas']['Unit'];
      /** @description The project of the unit */
      project: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
        /** @description The page is at /p/{namespace} */
        namespace?: string;
      };
      /** Format: date-time */
      expiresAt: string;
      /** @description Whether the one extension has been used */
      extended: boolean;
      /**
       * Format: date-time
       * @description In the answer to an extension: the new expiry (the same as expiresAt)
       */
      onHoldExpiresAt?: string;
    };
    Lead: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      readonly _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description The project this record belongs to */
      project: string;
      /** @description First name */
      firstName: string;
      /** @description Last name */
      lastName: string;
      /**
       * Format: email
       * @description E-mail address
       */
      email: string;
      /** @description Phone number */
      phone?: string;
      /** @description Unit associated with the lead (as the visitor sent it; a hold names the unit by id) */
      unit?: string;
      /** @description Message */
      message?: string;
      /** @description Where the lead came from (`presentation`, `hold`, `waitlist`, `booking`, …) */
      source: string;
      /** @description Answers to the lock-screen questions */
      questions?: {
        question: string;
        answer: string;
      }[];
      /** @description Answers to the project's custom form fields */
      customFields?: {
        key: string;
        value: string;
      }[];
      /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
      utm?: {
        source?: string;
        medium?: string;
        campaign?: string;
        term?: string;
        content?: string;
      };
      /** @description Where the lead was sent and when: one entry per CRM of the project (Spark, Salesforce, Zoho CRM), the latest push. Absent until a CRM accepts it; a push waits and retries while the CRM is down, so a lead is never lost or sent twice */
      sentTo?: {
        /**
         * @description spark, salesforce or zoho
         * @example salesforce
         */
        integration: string;
        /**
         * Format: date-time
         * @description When the CRM last accepted the lead (created, then each update)
         */
        at: string;
        /**
         * @description The lead's id in that CRM
         * @example 00Q5g00000AbCdEEAZ
         */
        externalId: string;
      }[];
      /** @description Where the sales team is with this lead: new (when it arrives), contacted, qualified or lost */
      status: 'new' | 'contacted' | 'qualified' | 'lost';
      /** @description The member of the project's team working this lead, or null */
      assignee: string | null;
      /** @description The sales team's notes (never shown to the visitor), or null */
      notes: string | null;
      /** @description A waitlist entry for a unit: its place in the unit's waiting list (1 is first); see the priority list */
      rank?: number;
      /**
       * Format: date-time
       * @description A waitlist entry the priority list has offered its unit to (a priority hold): when
       */
      offeredAt?: string;
      /** @description A lead made with a hold that took a deposit: where the deposit stands */
      deposit?: {
        /** @description The deposit (GET /projects/{id}/deposits) */
        _id: string;
        status: 'pending' | 'paid' | 'expired' | 'refunded';
        /** @description In the currency's minor unit (cents) */
        amount: number;
        /** @description Lower-case ISO 4217 */
        currency: string;
        /**
         * Format: date-time
         * @description When Stripe confirmed it paid (a deposit paid, or paid and then refunded)
         */
        paidAt?: string;
      };
      /** @description A lead with source `booking` (a visit booked through Cal.com): the visit, kept current as Cal.com reports it */
      booking?: {
        /** @description Cal.com's uid of the booking (after a reschedule, the new booking's) */
        uid: string;
        status: 'booked' | 'rescheduled' | 'cancelled';
        /**
         * Format: date-time
         * @description When the visit starts
         */
        startTime?: string;
        /**
         * Format: date-time
         * @description When it ends
         */
        endTime?: string;
        /** @description Cancelled: the reason the attendee gave, if any */
        cancellationReason?: string;
      };
      /**
       * Format: date-time
       * @description When the lead was left
       */
      readonly createdAt: string;
      /**
       * Format: date-time
       * @description Equal to createdAt: a lead never changes
       */
      readonly updatedAt: string;
      /** @description A lead made with a hold (GET /leads): `active` while the hold still holds its unit, `converted` when the unit is now reserved or sold and no later hold was placed on it, else `expired` (lapsed, released, or taken by someone else). Absent for a lead without a hold */
      holdState?: 'active' | 'expired' | 'converted';
      /**
       * Format: date-time
       * @description With holdState `active`: when the hold lapses unless extended
       */
      holdUntil?: string;
      /** @description GET /leads: how many leads the same e-mail (any case) has left on the same project, this one included; more than 1 is a repeat contact, whose history `filters[email]` lists */
      contactCount?: number;
    };
    LeadInput: {
      /** @description Unique identifier (24 lower-case hex characters), set by the server */
      _id?: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v?: number;
      /** @description The project this record belongs to */
      project?: string;
      /** @description First name */
      firstName?: string;
      /** @description Last name */
      lastName?: string;
      /**
       * Format: email
       * @description E-mail address
       */
      email?: string;
      /** @description Phone number */
      phone?: string;
      /** @description Unit associated with the lead (as the visitor sent it; a hold names the unit by id) */
      unit?: string;
      /** @description Message */
      message?: string;
      /** @description Where the lead came from (`presentation`, `hold`, `waitlist`, `booking`, …) */
      source?: string;
      /** @description Answers to the lock-screen questions */
      questions?: {
        question: string;
        answer: string;
      }[];
      /** @description Answers to the project's custom form fields */
      customFields?: {
        key: string;
        value: string;
      }[];
      /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
      utm?: {
        source?: string;
        medium?: string;
        campaign?: string;
        term?: string;
        content?: string;
      };
      /** @description Status */
      status?: string;
      /** @description Assignee */
      assignee?: string | null;
      /** @description Notes */
      notes?: string | null;
      /** @description Rank */
      rank?: number;
      /**
       * Format: date-time
       * @description Offered at
       */
      offeredAt?: string;
      /** @description Where the lead was sent and when: one entry per CRM of the project (Spark, Salesforce, Zoho CRM), the latest push. Absent until a CRM accepts it; a push waits and retries while the CRM is down, so a lead is never lost or sent twice */
      sentTo?: {
        /**
         * @description spark, salesforce or zoho
         * @example salesforce
         */
        integration: string;
        /**
         * Format: date-time
         * @description When the CRM last accepted the lead (created, then each update)
         */
        at: string;
        /**
         * @description The lead's id in that CRM
         * @example 00Q5g00000AbCdEEAZ
         */
        externalId: string;
      }[];
      /**
       * Format: date-time
       * @description When the lead was left
       */
      createdAt?: string;
      /**
       * Format: date-time
       * @description Equal to createdAt: a lead never changes
       */
      updatedAt?: string;
    };
    TeamMember: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description owner, administrator or editor of the project */
      role: 'owner' | 'administrator' | 'editor';
      /** @description The person's name as their profile gives it (fullName, else name and lastName), or null when it has none */
      name: string | null;
      /** @description The account's e-mail address (its username) */
      email: string;
    };
    /** @description Everything the service holds about one e-mail address */
    BuyerData: {
      /** @description The address, lower-cased */
      email: string;
      /** Format: date-time */
      exportedAt: string;
      /** @description Enquiries and hold leads left with the address */
      leads: components['schemas']['Lead'][];
      /** @description Waitlist entries (leads with source "waitlist") */
      waitlist: components['schemas']['Lead'][];
      /** @description Holds placed with those leads */
      holds: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        /** @description 24-character lower-case hex identifier */
        project: string;
        /** @description 24-character lower-case hex identifier */
        unit: string;
        lead: string | null;
        /** Format: date-time */
        createdAt: string;
        extendedAt: string | null;
        releasedAt: string | null;
      }[];
      /** @description Worksheets realtors submitted for the buyer */
      worksheets: components['schemas']['Worksheet'][];
      /** @description Mail to or about the buyer the service still keeps (queued, or sent within the last 7 days) */
      mail: {
        /** @description The message id (stable across retries) */
        _id: string;
        /** @description Where the message is: created or retry (queued), active, completed (sent or given up), failed… */
        state: string;
        to: string[];
        subject: string;
        /** Format: date-time */
        date: string;
        /** @description The plain-text body */
        text: string;
      }[];
      /** @description Change-log events naming the buyer's leads and worksheets */
      events: components['schemas']['Event'][];
      /** @description Webhook deliveries of those events (their payload is the event) */
      webhookDeliveries: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        /** @description 24-character lower-case hex identifier */
        webhook: string;
        /** @description 24-character lower-case hex identifier */
        event: string;
        seq: number;
        status: string;
        /** Format: date-time */
        createdAt: string;
        deliveredAt: string | null;
      }[];
    };
    /** @description What an erasure removed, by kind */
    Erasure: {
      erased: {
        /** @description Enquiries and hold leads deleted */
        leads: number;
        /** @description Waitlist entries deleted */
        waitlist: number;
        /** @description Holds unlinked from the buyer (ended ones deleted; a running hold keeps its unit until it ends) */
        holds: number;
        /** @description Worksheets deleted */
        worksheets: number;
        /** @description Change-log events redacted (only impersonal changes such as status remain) */
        events: number;
        /** @description Webhook deliveries whose payload is now the redacted event */
        webhookDeliveries: number;
        /** @description Stored messages deleted (queued ones are never sent) */
        mail: number;
        /** @description Stored answers of public forms (kept for retries) forgotten */
        storedAnswers: number;
      };
    };
    EventActor: {
      /** @description user: a signed-in account (id), also for an uploaded import; public: an anonymous visitor; sync: an inventory feed pull; system: the service itself (hold expiry) */
      kind: 'user' | 'public' | 'sync' | 'system';
      /** @description The user id: for kind user; for kind sync the user who asked for the pull through the API (absent for the schedule) */
      id?: string;
    };
    /** @description field → [before, after]; null for absent. A secret is named with "***" for a value: [null, "***"] set, ["***", "***"] replaced, ["***", null] cleared. */
    EventChanges: {
      [key: string]: unknown[];
    };
    /** @description Project fields changed (secrets by name only) */
    ProjectUpdatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'project.updated';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A floor was created: changes hold every field from null */
    FloorCreatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'floor.created';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A floor changed */
    FloorUpdatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'floor.updated';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A floor and its units were deleted */
    FloorDeletedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'floor.deleted';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A unit was created: changes hold every field from null */
    UnitCreatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.created';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A unit changed */
    UnitUpdatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.updated';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A unit was deleted */
    UnitDeletedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.deleted';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A visitor put an available unit on hold (actor public), or the priority list offered a unit that came free to the first in its waiting list (actor system) */
    UnitHeldEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.held';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A hold lapsed and was written back as available (actor system) */
    UnitHoldExpiredEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.hold_expired';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The holder released a hold with its hold token: the unit is available again (actor public) */
    UnitHoldReleasedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.hold_released';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The holder extended a hold once with its hold token: changes hold the old and new onHoldExpiresAt (actor public) */
    UnitHoldExtendedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'unit.hold_extended';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A lead arrived (owner and administrators only): changes hold its fields from null */
    LeadCreatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'lead.created';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The sales team changed a lead's status, notes or assignee (owner and administrators only) */
    LeadUpdatedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'lead.updated';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description An import or feed pull was applied (actor user for an upload, sync for a feed pull): `_id` is its record in GET /projects/{id}/inventory/syncs; changes hold its source, status, startedAt, finishedAt and summary from null. The floors and units it wrote have their own events (floor.created, unit.created, unit.updated) just before it, in the same transaction */
    InventoryImportedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'inventory.imported';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A realtor submitted a worksheet through their allocation (owner and administrators only): changes hold its allocation, buyer, choices and notes from null */
    WorksheetSubmittedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'worksheet.submitted';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The sales team accepted a worksheet (owner and administrators only): changes hold status and unit; the unit turned reserved in the same transaction (its unit.updated just before) */
    WorksheetAcceptedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'worksheet.accepted';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The sales team declined a worksheet (owner and administrators only): changes hold status */
    WorksheetDeclinedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'worksheet.declined';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description A hold asked for a deposit: a Stripe Checkout Session was created on the owner's account (actor public); changes hold status, amount (minor units), currency, unit and lead */
    DepositPendingEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'deposit.pending';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description Stripe confirmed the deposit paid (actor system): changes hold status; the unit turned reserved in the same transaction (its unit.updated just before) */
    DepositPaidEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'deposit.paid';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The payment window lapsed, the buyer left Checkout, or Stripe expired the session (actor system): changes hold status */
    DepositExpiredEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'deposit.expired';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description The owner or an administrator refunded a paid deposit at Stripe (actor user): changes hold status */
    DepositRefundedEvent: {
      /** @description 24-character lower-case hex identifier */
      id: string;
      /** @description Position in the project's log: 1, 2, 3, … in commit order, no gaps */
      seq: number;
      /** @enum {string} */
      type: 'deposit.refunded';
      /** @description 24-character lower-case hex identifier */
      projectId: string;
      /** Format: date-time */
      createdAt: string;
      actor: components['schemas']['EventActor'];
      data: {
        /** @description The record the event is about */
        _id: string;
        changes?: components['schemas']['EventChanges'];
        /** @description Shared by every event of one bulk write (a bulk PATCH /units, an import: then the sync record id); with `changes` before values, what a client reverts as one */
        batch?: string;
      };
    };
    /** @description One entry of a project change log; `type` tells which */
    Event:
      | components['schemas']['ProjectUpdatedEvent']
      | components['schemas']['FloorCreatedEvent']
      | components['schemas']['FloorUpdatedEvent']
      | components['schemas']['FloorDeletedEvent']
      | components['schemas']['UnitCreatedEvent']
      | components['schemas']['UnitUpdatedEvent']
      | components['schemas']['UnitDeletedEvent']
      | components['schemas']['UnitHeldEvent']
      | components['schemas']['UnitHoldExpiredEvent']
      | components['schemas']['UnitHoldReleasedEvent']
      | components['schemas']['UnitHoldExtendedEvent']
      | components['schemas']['LeadCreatedEvent']
      | components['schemas']['LeadUpdatedEvent']
      | components['schemas']['InventoryImportedEvent']
      | components['schemas']['WorksheetSubmittedEvent']
      | components['schemas']['WorksheetAcceptedEvent']
      | components['schemas']['WorksheetDeclinedEvent']
      | components['schemas']['DepositPendingEvent']
      | components['schemas']['DepositPaidEvent']
      | components['schemas']['DepositExpiredEvent']
      | components['schemas']['DepositRefundedEvent'];
    Webhook: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description 24-character lower-case hex identifier */
      project: string;
      url: string;
      events: string[];
      description?: string;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
    WebhookDelivery: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      event: {
        /** @description 24-character lower-case hex identifier */
        id: string;
        seq: number;
        type: string;
      };
      /** @description pending: not yet answered 2xx (retries scheduled); delivered; failed: given up after 24 h */
      status: 'pending' | 'delivered' | 'failed';
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      deliveredAt?: string;
      attempts: {
        attempt: number;
        /** Format: date-time */
        at: string;
        /** @description The receiver's answer code */
        responseStatus?: number;
        error?: string;
        durationMs: number;
        /** @description Asked for through POST …/retry */
        manual?: boolean;
      }[];
    };
    IntegrationState: {
      /** @description spark, salesforce, zoho (CRMs), rentcafe (inventory), cal (scheduling) */
      name: 'spark' | 'salesforce' | 'zoho' | 'rentcafe' | 'cal';
      /**
       * @description The vendor's name
       * @example Salesforce
       */
      label: string;
      /** @description Its project fields (the sealed ones are set through the project, never shown) */
      fields: string[];
      /** @description Every field it needs is set: it acts (a CRM is sent every lead) */
      complete: boolean;
      /** @description A CRM: every lead is pushed to it and updated there */
      crm: boolean;
      /** @description POST …/test calls the vendor (false: its connection test is not available yet) */
      testable: boolean;
      /** @description The last call to the vendor (a test or a push) worked */
      connected: boolean;
      /**
       * Format: date-time
       * @description When a call to the vendor last worked
       */
      lastSuccessAt?: string;
      /** @description What went wrong at the last failure, in words (never a credential) */
      lastError?: string;
      /**
       * Format: date-time
       * @description When that failure happened
       */
      lastErrorAt?: string;
    };
    Insights: {
      /**
       * Format: date
       * @description YYYY-MM-DD (UTC)
       */
      from: string;
      /**
       * Format: date
       * @description YYYY-MM-DD (UTC)
       */
      to: string;
      interval: 'day' | 'week';
      totals: {
        /** @description Visitors per day, summed over the range (a visitor is recognised within one UTC day only) */
        visitors: number;
        pageViews: number;
        unitViews: number;
        /** @description Leads other than holds and waitlist joins */
        enquiries: number;
        holds: number;
        waitlist: number;
      };
      /** @description Every day (or week) of the range, in order, zeros included */
      series: {
        /**
         * Format: date
         * @description The day, or the Monday of the week
         */
        date: string;
        visitors: number;
        pageViews: number;
        unitViews: number;
        enquiries: number;
        holds: number;
      }[];
      funnel: {
        visitors: number;
        /** @description Visitors who viewed a unit (per day, summed) */
        unitViewers: number;
        /** @description Distinct e-mail addresses that enquired */
        enquirers: number;
        /** @description Distinct e-mail addresses that held a unit */
        holders: number;
      };
      /** @description Every unit of the project, most viewed first */
      units: {
        /** @description 24-character lower-case hex identifier */
        _id: string;
        name: string;
        views: number;
        enquiries: number;
        holds: number;
      }[];
      /** @description Visitors by utm source, else the referring host, else "direct"; most first */
      sources: {
        source: string;
        visitors: number;
      }[];
    };
    Worksheet: {
      /** @description 24-character lower-case hex identifier */
      _id: string;
      /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
      readonly __v: number;
      /** @description 24-character lower-case hex identifier */
      project: string;
      status: 'submitted' | 'accepted' | 'declined';
      /** @description The name of the allocation (realtor) that submitted it */
      allocation: string;
      /** @description The buyer the realtor submits the worksheet for */
      buyer: {
        firstName: string;
        lastName: string;
        /** Format: email */
        email: string;
        phone: string;
      };
      /** @description Units of the project, 1 to 3, in the buyer's order of preference */
      choices: string[];
      notes?: string;
      /** @description When accepted: the unit reserved for it */
      unit?: string;
      /** @description The realtor's e-mail, where the sales team's decision is mailed */
      realtorEmail?: string;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
    };
  };
  responses: never;
  parameters: {
    /**
     * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
     * @example "3"
     */
    IfMatch: string;
    /**
     * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
     * @example "65f0c0ffee00000000000001-12-0"
     */
    IfNoneMatch: string;
    /**
     * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
     * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
     */
    IdempotencyKey: string;
  };
  requestBodies: never;
  headers: {
    /** @description Identifies this request in the service logs; echoes a valid incoming X-Request-Id. A 500 body carries it too. */
    'X-Request-Id': string;
    /** @description The record’s version, `"<__v>"`. Send it as If-Match to change or delete only that version. */
    ETag: string;
    /** @description Path of the record just created. */
    Location: string;
    /** @description Number of matching records before skip and limit. */
    'X-Total-Count': number;
    /** @description Seconds to wait before trying again. */
    'Retry-After': number;
    /** @description Requests allowed in the window. */
    'X-RateLimit-Limit': number;
    /** @description Requests left in the window. */
    'X-RateLimit-Remaining': number;
    /** @description Seconds until the window ends. */
    'X-RateLimit-Reset': number;
    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key. */
    'Idempotent-Replayed': 'true';
  };
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  checkHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ok"
           *     }
           */
          'application/json': {
            status: string;
          };
        };
      };
      /** @description Request headers too large */
      431: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  checkReadiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ok"
           *     }
           */
          'application/json': {
            status: string;
          };
        };
      };
      /** @description Request headers too large */
      431: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  logIn: {
    parameters: {
      query?: {
        username?: string;
        password?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "username": "ana@example.com",
         *       "password": "correct horse battery"
         *     }
         */
        'application/json': {
          /** Format: email */
          username?: string;
          password?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "role": "user",
           *       "username": "ana@example.com",
           *       "name": "Tower A",
           *       "lastName": "Ruiz",
           *       "phone": "+1 555 0100",
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "groups": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z",
           *       "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "message": "Is the corner unit still available?"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
            readonly __v: number;
            role: 'user' | 'admin' | 'integration';
            username: string;
            /** @description Shows the console’s features marked experimental (absent reads as false) */
            experimentalFeatures?: boolean;
            name?: string;
            lastName?: string;
            fullName?: string;
            phone?: string;
            /** @description The user’s company: it signs the mail sent for the projects they own */
            companyName?: string;
            country?: string;
            address1?: string;
            address2?: string;
            city?: string;
            region?: string;
            zip?: string;
            preferences?: {
              hideBrandingIcon?: boolean;
              hideLoadingLogo?: boolean;
            };
            /** @description The public address (namespace) proposed for the user’s next project: their company’s or name’s slug, free at the time of asking */
            projectNameURL?: string;
            paymentsAccountId?: string;
            paymentsOnboardingDone?: boolean;
            paymentsDetailsSubmitted?: boolean;
            /** @description With plans on: the user’s Stripe customer, made once at their first checkout or portal visit */
            paymentsCustomer?: {
              /** @description The Stripe customer id (cus_…) */
              id?: string;
            } & {
              [key: string]: unknown;
            };
            /** @description With plans on: the user’s subscription as last read back from Stripe (docs/billing.md) */
            subscription?: {
              /** @description Stripe's status: trialing, active, past_due, unpaid, canceled, … */
              status?: string;
              /** @description starter or pro (null: another price) */
              plan?: string | null;
              trialEnd?: string | null;
              currentPeriodEnd?: string | null;
              cancelAtPeriodEnd?: boolean;
            } & {
              [key: string]: unknown;
            };
            /** @description With plans on: the user took their trial (it is offered once) */
            appliedTrial?: boolean;
            /** @description The other people who are administrators of projects the user belongs to (user ids) */
            administrators?: string[];
            /** @description The other people who are editors of projects the user belongs to (user ids) */
            editors?: string[];
            /** @description The invitations to the user’s e-mail address still pending (neither accepted, revoked nor expired) */
            invites?: components['schemas']['Invite'][];
            projects: string[];
            groups: string[];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The access token (same as access_token) */
            token: string;
            /** @description JWT access token */
            access_token: string;
            message: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Method not allowed */
      405: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  refreshToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "refresh_token": "eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDIifQ.c2lnbmF0dXJl"
         *     }
         */
        'application/json': {
          refresh_token?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "message": "Is the corner unit still available?",
           *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "refresh_token": "eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDIifQ.c2lnbmF0dXJl"
           *     }
           */
          'application/json': {
            message: string;
            access_token: string;
            token: string;
            /** @description Also set as the serviceRefresh cookie */
            refresh_token: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  logOut: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "refresh_token": "eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDIifQ.c2lnbmF0dXJl"
         *     }
         */
        'application/json': {
          refresh_token?: string;
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  requestPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "username": "ana@example.com"
         *     }
         */
        'application/json': {
          /**
           * Format: email
           * @description The account's e-mail address
           */
          username: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      202: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "message": "Is the corner unit still available?"
           *     }
           */
          'application/json': {
            /** @description The same sentence for every address: it tells nothing about the account */
            message: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  confirmPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "token": "kV3qL9xT2mZ8rW5nB7cY4hJ6dF1gS0aP",
         *       "password": "correct horse battery"
         *     }
         */
        'application/json': {
          /** @description The token from the mailed link */
          token: string;
          /** @description The new password */
          password: string;
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The link was used, revoked or has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  logInWithOidc: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "url": "https://id.example.com/auth?client_id=showsuite&response_type=code&scope=openid%20email%20profile"
           *     }
           */
          'application/json': {
            /**
             * @description The provider's authorization address to open
             * @example https://id.example.com/auth?client_id=showsuite&…
             */
            url: string;
          };
        };
      };
      /** @description Redirect to `Location` */
      302: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  logInWithOidcCallback: {
    parameters: {
      query?: {
        /**
         * @description The authorization code
         * @example SplxlOBeZQQYbYS6WxSbIA
         */
        code?: string;
        /**
         * @description The state this service sent
         * @example af0ifjsldkj
         */
        state?: string;
        /**
         * @description The issuer (RFC 9207)
         * @example example
         */
        iss?: string;
        /**
         * @description The provider's refusal, such as access_denied
         * @example example
         */
        error?: string;
        /** @example example */
        error_description?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Redirect to `Location` */
      302: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The token from the invitation link */
        token: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "email": "ana@example.com",
           *       "level": "administrator",
           *       "firstName": "Ana",
           *       "lastName": "Ruiz",
           *       "expiresAt": "2026-03-01T09:30:00.000Z",
           *       "project": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "name": "Tower A"
           *       }
           *     }
           */
          'application/json': {
            /** @description The invited address */
            email: string;
            /** @description Where the invitee lands once they accept */
            level: 'administrator' | 'editor' | 'owner';
            /** @description First name of the invitee */
            firstName?: string;
            /** @description Last name of the invitee */
            lastName?: string;
            /**
             * Format: date-time
             * @description When the invitation link stops working
             */
            expiresAt: string;
            /** @description The project the invitation is to */
            project?: {
              /** @description 24-character lower-case hex identifier */
              _id: string;
              /** @description Its name */
              name: string;
            };
            /** @description The group the invitation is to */
            group?: {
              /** @description 24-character lower-case hex identifier */
              _id: string;
              /** @description Its name */
              name: string;
            };
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The link was used, revoked or has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  acceptInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The token from the invitation link */
        token: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "password": "correct horse battery",
         *       "name": "Tower A",
         *       "lastName": "Ruiz"
         *     }
         */
        'application/json': {
          /** @description The new account's password; for an existing account that is not signed in, its current password */
          password?: string;
          /** @description The new account's first name */
          name?: string;
          /** @description The new account's last name */
          lastName?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "role": "user",
           *       "username": "ana@example.com",
           *       "name": "Tower A",
           *       "lastName": "Ruiz",
           *       "phone": "+1 555 0100",
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "groups": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z",
           *       "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "message": "Is the corner unit still available?"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
            readonly __v: number;
            role: 'user' | 'admin' | 'integration';
            username: string;
            /** @description Shows the console’s features marked experimental (absent reads as false) */
            experimentalFeatures?: boolean;
            name?: string;
            lastName?: string;
            fullName?: string;
            phone?: string;
            /** @description The user’s company: it signs the mail sent for the projects they own */
            companyName?: string;
            country?: string;
            address1?: string;
            address2?: string;
            city?: string;
            region?: string;
            zip?: string;
            preferences?: {
              hideBrandingIcon?: boolean;
              hideLoadingLogo?: boolean;
            };
            /** @description The public address (namespace) proposed for the user’s next project: their company’s or name’s slug, free at the time of asking */
            projectNameURL?: string;
            paymentsAccountId?: string;
            paymentsOnboardingDone?: boolean;
            paymentsDetailsSubmitted?: boolean;
            /** @description With plans on: the user’s Stripe customer, made once at their first checkout or portal visit */
            paymentsCustomer?: {
              /** @description The Stripe customer id (cus_…) */
              id?: string;
            } & {
              [key: string]: unknown;
            };
            /** @description With plans on: the user’s subscription as last read back from Stripe (docs/billing.md) */
            subscription?: {
              /** @description Stripe's status: trialing, active, past_due, unpaid, canceled, … */
              status?: string;
              /** @description starter or pro (null: another price) */
              plan?: string | null;
              trialEnd?: string | null;
              currentPeriodEnd?: string | null;
              cancelAtPeriodEnd?: boolean;
            } & {
              [key: string]: unknown;
            };
            /** @description With plans on: the user took their trial (it is offered once) */
            appliedTrial?: boolean;
            /** @description The other people who are administrators of projects the user belongs to (user ids) */
            administrators?: string[];
            /** @description The other people who are editors of projects the user belongs to (user ids) */
            editors?: string[];
            /** @description The invitations to the user’s e-mail address still pending (neither accepted, revoked nor expired) */
            invites?: components['schemas']['Invite'][];
            projects: string[];
            groups: string[];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The access token (same as access_token) */
            token: string;
            /** @description JWT access token */
            access_token: string;
            message: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The link was used, revoked or has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  submitPaymentEvent: {
    parameters: {
      query?: never;
      header?: {
        /** @description t=<unix time>,v1=<HMAC-SHA256 of "t.body" with STRIPE_WEBHOOK_SECRET> */
        'stripe-signature'?: string;
      };
      path?: never;
      cookie?: never;
    };
    /** @description A Stripe event, signed with the endpoint's secret (Stripe-Signature) */
    requestBody: {
      content: {
        /**
         * @example {
         *       "id": "65f0c0ffee00000000000001",
         *       "type": "example"
         *     }
         */
        'application/json': {
          /** @description The event id (evt_…): each is handled once */
          id: string;
          /** @description account.updated, checkout.session.completed, checkout.session.async_payment_succeeded, checkout.session.expired; with plans on also customer.subscription.created|updated|deleted, invoice.paid, invoice.payment_failed; others are acknowledged */
          type: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "received": true,
           *       "duplicate": true
           *     }
           */
          'application/json': {
            received: boolean;
            /** @description true when this event had been handled before (nothing changed) */
            duplicate: boolean;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getPublicDeposit: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "status": "pending",
           *       "amount": 50000,
           *       "currency": "usd",
           *       "unit": "65f0c0ffee00000000000001",
           *       "project": "65f0c0ffee00000000000001",
           *       "expiresAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['PublicDeposit'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getPresentation: {
    parameters: {
      query?: {
        /** @description A draft's preview token (from GET /projects/{id}/preview-link): opens an unpublished project until it expires */
        preview?: string;
      };
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
        /** @description A token from POST /public/allocations/open: the request acts for that realtor's allocation (401 when it has expired or was revoked) */
        'x-allocation-token'?: string;
      };
      path: {
        /** @description The project's namespace: the slug of its public page */
        namespace: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          'Cache-Control'?: string;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "project": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "deposits": true
           *       },
           *       "floors": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "position": 1,
           *           "units": [
           *             {
           *               "_id": "65f0c0ffee00000000000001",
           *               "__v": 1,
           *               "project": "65f0c0ffee00000000000001",
           *               "name": "Tower A",
           *               "position": 1,
           *               "availability": "available",
           *               "bedrooms": "2",
           *               "squareFeet": 850,
           *               "price": 450000,
           *               "createdAt": "2026-03-01T09:30:00.000Z",
           *               "updatedAt": "2026-03-01T09:30:00.000Z"
           *             }
           *           ]
           *         }
           *       ],
           *       "unassignedUnits": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "__v": 1,
           *           "project": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "position": 1,
           *           "availability": "available",
           *           "bedrooms": "2",
           *           "squareFeet": 850,
           *           "price": 450000,
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "updatedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['Bundle'];
        };
      };
      /** @description Not modified (If-None-Match matched) */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getPresentationByHost: {
    parameters: {
      query?: {
        /** @description A draft's preview token (from GET /projects/{id}/preview-link): opens an unpublished project until it expires */
        preview?: string;
      };
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
        /** @description A token from POST /public/allocations/open: the request acts for that realtor's allocation (401 when it has expired or was revoked) */
        'x-allocation-token'?: string;
      };
      path: {
        /** @description A host name the project is served on (its `hostName`) */
        hostName: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          'Cache-Control'?: string;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "project": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "deposits": true
           *       },
           *       "floors": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "position": 1,
           *           "units": [
           *             {
           *               "_id": "65f0c0ffee00000000000001",
           *               "__v": 1,
           *               "project": "65f0c0ffee00000000000001",
           *               "name": "Tower A",
           *               "position": 1,
           *               "availability": "available",
           *               "bedrooms": "2",
           *               "squareFeet": 850,
           *               "price": 450000,
           *               "createdAt": "2026-03-01T09:30:00.000Z",
           *               "updatedAt": "2026-03-01T09:30:00.000Z"
           *             }
           *           ]
           *         }
           *       ],
           *       "unassignedUnits": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "__v": 1,
           *           "project": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "position": 1,
           *           "availability": "available",
           *           "bedrooms": "2",
           *           "squareFeet": 850,
           *           "price": 450000,
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "updatedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['Bundle'];
        };
      };
      /** @description Not modified (If-None-Match matched) */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  submitLead: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PublicLeadInput'];
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "project": "65f0c0ffee00000000000001",
           *       "firstName": "Ana",
           *       "lastName": "Ruiz",
           *       "email": "ana@example.com",
           *       "phone": "+1 555 0100",
           *       "message": "Is the corner unit still available?",
           *       "source": "presentation",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description 24-character lower-case hex identifier */
            project: string;
            /** @description First name */
            firstName: string;
            /** @description Last name */
            lastName: string;
            /**
             * Format: email
             * @description E-mail address
             */
            email: string;
            /** @description Phone number */
            phone: string;
            /** @description Unit associated with the lead (as the visitor sent it; a hold names the unit by id) */
            unit?: string;
            /** @description Message */
            message?: string;
            /** @description Where the lead came from (`presentation`, `hold`, `waitlist`, `booking`, …) */
            source?: string;
            /** @description Answers to the lock-screen questions */
            questions?: {
              question: string;
              answer: string;
            }[];
            /** @description Answers to the project's custom form fields */
            customFields?: {
              key: string;
              value: string;
            }[];
            /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
            utm?: {
              source?: string;
              medium?: string;
              campaign?: string;
              term?: string;
              content?: string;
            };
            /**
             * Format: date-time
             * @description When the lead was left
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description When the lead last changed: in this answer, its createdAt
             */
            updatedAt: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another body */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  holdUnit: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
        /** @description A token from POST /public/allocations/open: the request acts for that realtor's allocation (401 when it has expired or was revoked) */
        'x-allocation-token'?: string;
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "firstName": "Ana",
         *       "lastName": "Ruiz",
         *       "email": "ana@example.com",
         *       "phone": "+1 555 0100"
         *     }
         */
        'application/json': {
          firstName: string;
          lastName: string;
          /** Format: email */
          email: string;
          phone: string;
          /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
          utm?: {
            source?: string;
            medium?: string;
            campaign?: string;
            term?: string;
            content?: string;
          };
        };
      };
    };
    responses: {
      /** @description The unit now on hold, with the hold token */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['HeldUnit'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another body */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getHold: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The hold token from the hold answer or the holder’s e-mail */
        holdToken: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "unit": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "position": 1,
           *         "availability": "available",
           *         "bedrooms": "2",
           *         "squareFeet": 850,
           *         "price": 450000,
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       },
           *       "project": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "namespace": "tower-a"
           *       },
           *       "expiresAt": "2026-03-01T09:30:00.000Z",
           *       "extended": true
           *     }
           */
          'application/json': components['schemas']['PublicHold'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The link was used, revoked or has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  releaseHold: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The hold token from the hold answer or the holder’s e-mail
         * @example pX2o9Vq4Zr8yTnK1cW6dLmB3sHj7uQe0aFgYiRtUv5w
         */
        holdToken: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Released */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The link was used, revoked or has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  extendHold: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The hold token from the hold answer or the holder’s e-mail */
        holdToken: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "unit": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "position": 1,
           *         "availability": "available",
           *         "bedrooms": "2",
           *         "squareFeet": 850,
           *         "price": 450000,
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       },
           *       "project": {
           *         "_id": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "namespace": "tower-a"
           *       },
           *       "expiresAt": "2026-03-01T09:30:00.000Z",
           *       "extended": true
           *     }
           */
          'application/json': components['schemas']['PublicHold'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The link was used, revoked or has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  joinWaitlist: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              /** @description 24-character lower-case hex identifier */
              project?: string;
              /** @description The project, by namespace: the slug of its public page (or name it by `project`) */
              namespace?: string;
              /** @description First name */
              firstName: string;
              /** @description Last name */
              lastName: string;
              /**
               * Format: email
               * @description E-mail address
               */
              email: string;
              /** @description Phone number */
              phone?: string;
              /** @description The unit asked about */
              unit?: string;
              /** @description Message */
              message?: string;
              /** @description Answers to the project's custom form fields */
              customFields?: {
                key: string;
                value: string;
              }[];
              /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
              utm?: {
                source?: string;
                medium?: string;
                campaign?: string;
                term?: string;
                content?: string;
              };
            }
          | unknown
          | unknown;
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "project": "65f0c0ffee00000000000001",
           *       "firstName": "Ana",
           *       "lastName": "Ruiz",
           *       "email": "ana@example.com",
           *       "phone": "+1 555 0100",
           *       "message": "Is the corner unit still available?",
           *       "source": "waitlist",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description 24-character lower-case hex identifier */
            project: string;
            /** @description First name */
            firstName: string;
            /** @description Last name */
            lastName: string;
            /**
             * Format: email
             * @description E-mail address
             */
            email: string;
            /** @description Phone number */
            phone?: string;
            /** @description The unit asked about */
            unit?: string;
            /** @description Message */
            message?: string;
            /** @description Answers to the project's custom form fields */
            customFields?: {
              key: string;
              value: string;
            }[];
            /** @description The campaign that brought the visitor (`utm_source`, `utm_medium`, … of the page's address); sent on to the project's CRMs */
            utm?: {
              source?: string;
              medium?: string;
              campaign?: string;
              term?: string;
              content?: string;
            };
            /**
             * @description Always `waitlist`
             * @enum {string}
             */
            source: 'waitlist';
            /** @description For an entry about a unit: its place in that unit's waiting list (1 is first), by arrival */
            rank?: number;
            /**
             * Format: date-time
             * @description When the entry was left
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description When the entry last changed: in this answer, its createdAt
             */
            updatedAt: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another body */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getMedia: {
    parameters: {
      query?: {
        /**
         * @description A PNG, JPEG or WebP resized to this width (64–2560; rounded up to a multiple of 16, never wider than the picture), as AVIF when `Accept` names image/avif, else WebP when it names image/webp, else in its own format. An SVG is served as it is; a PDF → 400.
         * @example 64
         */
        w?: number;
      };
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /**
         * @description The stored name: content hash and extension
         * @example 9f86d081884c7d659a2feaa0c55ad015.png
         */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'image/png': string;
          'image/jpeg': string;
          'image/webp': string;
          'application/pdf': string;
          'image/svg+xml': string;
          'image/avif': string;
        };
      };
      /** @description Not modified: the `If-None-Match` ETag is this file */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  streamPresentationChanges: {
    parameters: {
      query?: {
        /** @description The last `id:` received: the stream resumes after it */
        lastEventId?: string;
        /**
         * @description A draft's preview token (from GET /projects/{id}/preview-link): opens an unpublished project until it expires
         * @example example
         */
        preview?: string;
      };
      header?: {
        /** @description The last `id:` received: the stream resumes after it */
        'last-event-id'?: string;
      };
      path: {
        /**
         * @description The project's namespace: the slug of its public page
         * @example tower-a
         */
        namespace: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The stream */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  submitBooking: {
    parameters: {
      query?: never;
      header?: {
        /** @description Cal.com's signature: the hex HMAC-SHA256 of the raw body with the webhook's secret (the project's calKey) */
        'x-cal-signature-256'?: string;
      };
      path: {
        /** @description The project's namespace: the slug of its public page */
        namespace: string;
      };
      cookie?: never;
    };
    /** @description Cal.com's webhook body, signed with the project's calKey */
    requestBody?: {
      content: {
        /** @example {} */
        'application/json': {
          /** @description BOOKING_CREATED, BOOKING_RESCHEDULED and BOOKING_CANCELLED are followed; any other trigger is acknowledged and ignored */
          triggerEvent?: string;
          createdAt?: string;
          payload?: {
            /** @description The booking's uid: one lead per booking (a reschedule's new uid joins the lead of `rescheduleUid`) */
            uid?: string;
            /** @description BOOKING_RESCHEDULED: the uid of the booking it replaces */
            rescheduleUid?: string;
            /** @description The visit, as the lead's `booking.startTime` */
            startTime?: string;
            endTime?: string;
            /** @description The first is the lead: `name` (or `firstName`, `lastName`), `email` (required), `phoneNumber` */
            attendees?: {
              [key: string]: unknown;
            }[];
            /** @description The booking form: `attendeePhoneNumber.value` is the phone when given */
            responses?: {
              [key: string]: unknown;
            };
            /** @description The attendee's notes: the lead's message */
            additionalNotes?: string;
            /** @description As the page passed it: `unit` (a unit id of the project) becomes the lead's unit */
            metadata?: {
              [key: string]: unknown;
            };
            cancellationReason?: string;
          } & {
            [key: string]: unknown;
          };
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "received": true,
           *       "outcome": "created"
           *     }
           */
          'application/json': {
            /** @enum {boolean} */
            received: true;
            /** @description created: a new lead (also from a cancellation arriving before its booking, already cancelled); updated: the lead of the booking moved or cancelled; duplicate: this delivery had been handled before (nothing changed); ignored: a trigger a lead does not follow, or a booking whose lead is gone */
            outcome: 'created' | 'updated' | 'duplicate' | 'ignored';
            /** @description The lead the booking made or changed */
            lead?: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createPublicEvents: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "namespace": "tower-a",
         *       "type": "page_view"
         *     }
         */
        'application/json': {
          /** @description The presentation's namespace */
          namespace: string;
          /** @description What happened */
          type: 'page_view' | 'unit_view' | 'plan_view' | 'list_view' | 'building_view' | 'filter' | 'share' | 'gallery' | 'brochure';
          /** @description The unit viewed, shared or filtered to (a unit of the project) */
          unit?: string;
          /** @description The page's path (its query string is dropped) */
          path?: string;
          /** @description The referring page (only its host is kept) */
          referrer?: string;
          utm?: {
            /** @description utm_source */
            source?: string;
            /** @description utm_medium */
            medium?: string;
            /** @description utm_campaign */
            campaign?: string;
          };
        };
        /**
         * @example {
         *       "namespace": "tower-a",
         *       "type": "page_view"
         *     }
         */
        'text/plain': {
          /** @description The presentation's namespace */
          namespace: string;
          /** @description What happened */
          type: 'page_view' | 'unit_view' | 'plan_view' | 'list_view' | 'building_view' | 'filter' | 'share' | 'gallery' | 'brochure';
          /** @description The unit viewed, shared or filtered to (a unit of the project) */
          unit?: string;
          /** @description The page's path (its query string is dropped) */
          path?: string;
          /** @description The referring page (only its host is kept) */
          referrer?: string;
          utm?: {
            /** @description utm_source */
            source?: string;
            /** @description utm_medium */
            medium?: string;
            /** @description utm_campaign */
            campaign?: string;
          };
        };
      };
    };
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createPublicAllocationsOpen: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "namespace": "tower-a",
         *       "password": "correct horse battery"
         *     }
         */
        'application/json': {
          /** @description The project's namespace */
          namespace: string;
          /** @description The allocation's password, as the developer gave it to the realtor */
          password: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "name": "Tower A",
           *       "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
           *       "expiresAt": "2026-03-01T09:30:00.000Z",
           *       "units": [
           *         "65f0c0ffee00000000000001"
           *       ]
           *     }
           */
          'application/json': {
            /** @description The allocation's name */
            name: string;
            /** @description Send as `X-Allocation-Token` on this project's public routes; valid 12 hours, ends early when the password is replaced or the allocation removed */
            token: string;
            /**
             * Format: date-time
             * @description When the token stops working
             */
            expiresAt: string;
            /** @description The units that belong to this allocation now (listed in it, neither sold nor reserved) */
            units: string[];
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createPublicWorksheets: {
    parameters: {
      query?: never;
      header?: {
        /** @description A token from POST /public/allocations/open: the request acts for that realtor's allocation (401 when it has expired or was revoked) */
        'x-allocation-token'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "buyer": {
         *         "firstName": "Ana",
         *         "lastName": "Ruiz",
         *         "email": "ana@example.com",
         *         "phone": "+1 555 0100"
         *       },
         *       "choices": [
         *         "65f0c0ffee00000000000001"
         *       ]
         *     }
         */
        'application/json': {
          /** @description The buyer the realtor submits the worksheet for */
          buyer: {
            firstName: string;
            lastName: string;
            /** Format: email */
            email: string;
            phone: string;
          };
          /** @description Units of the project, 1 to 3, in the buyer's order of preference */
          choices: string[];
          notes?: string;
          /**
           * Format: email
           * @description The realtor's own e-mail: when the sales team accepts or declines the worksheet, the decision is mailed there
           */
          realtorEmail?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "status": "submitted",
           *       "allocation": "example",
           *       "buyer": {
           *         "firstName": "Ana",
           *         "lastName": "Ruiz",
           *         "email": "ana@example.com",
           *         "phone": "+1 555 0100"
           *       },
           *       "choices": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Worksheet'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listAccounts: {
    parameters: {
      query?: {
        /** @description Part of the e-mail address or the name, any case */
        'filters[q]'?: string;
        /** @description true: active accounts only; false: deactivated ones only */
        'filters[active]'?: boolean;
        /** @description Accounts to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most accounts to return, 1–500 (default 100) */
        'options[limit]'?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "username": "ana@example.com",
           *         "role": "user",
           *         "name": "Tower A",
           *         "lastName": "Ruiz",
           *         "active": true,
           *         "projects": [
           *           {
           *             "_id": "65f0c0ffee00000000000001",
           *             "name": "Tower A",
           *             "role": "owner"
           *           }
           *         ],
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Account'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createUser: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "username": "ana@example.com",
         *       "password": "correct horse battery",
         *       "name": "Tower A",
         *       "lastName": "Ruiz"
         *     }
         */
        'application/json': {
          /** Format: email */
          username: string;
          password: string;
          name?: string;
          lastName?: string;
          role?: 'user' | 'admin' | 'integration';
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "role": "user",
           *       "username": "ana@example.com",
           *       "name": "Tower A",
           *       "lastName": "Ruiz",
           *       "phone": "+1 555 0100",
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "groups": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['User'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getCurrentUser: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "role": "user",
           *       "username": "ana@example.com",
           *       "name": "Tower A",
           *       "lastName": "Ruiz",
           *       "phone": "+1 555 0100",
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "groups": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['User'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateCurrentUser: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "lastName": "Ruiz",
         *       "phone": "+1 555 0100",
         *       "password": "correct horse battery",
         *       "username": "ana@example.com",
         *       "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
         *       "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI2NWYwYzBmZmVlMDAwMDAwMDAwMDAwMDEifQ.c2lnbmF0dXJl",
         *       "message": "Is the corner unit still available?"
         *     }
         */
        'application/json': {
          /** @description Shows the console’s features marked experimental (absent reads as false) */
          experimentalFeatures?: boolean;
          name?: string;
          lastName?: string;
          fullName?: string;
          phone?: string;
          /** @description The user’s company: it signs the mail sent for the projects they own */
          companyName?: string;
          country?: string;
          address1?: string;
          address2?: string;
          city?: string;
          region?: string;
          zip?: string;
          preferences?: {
            hideBrandingIcon?: boolean;
            hideLoadingLogo?: boolean;
          };
          /** @description The public address (namespace) proposed for the user’s next project: their company’s or name’s slug, free at the time of asking */
          projectNameURL?: string;
          paymentsAccountId?: string;
          paymentsOnboardingDone?: boolean;
          paymentsDetailsSubmitted?: boolean;
          /** @description With plans on: the user’s Stripe customer, made once at their first checkout or portal visit */
          paymentsCustomer?: {
            /** @description The Stripe customer id (cus_…) */
            id?: string;
          } & {
            [key: string]: unknown;
          };
          /** @description With plans on: the user’s subscription as last read back from Stripe (docs/billing.md) */
          subscription?: {
            /** @description Stripe's status: trialing, active, past_due, unpaid, canceled, … */
            status?: string;
            /** @description starter or pro (null: another price) */
            plan?: string | null;
            trialEnd?: string | null;
            currentPeriodEnd?: string | null;
            cancelAtPeriodEnd?: boolean;
          } & {
            [key: string]: unknown;
          };
          /** @description With plans on: the user took their trial (it is offered once) */
          appliedTrial?: boolean;
          /** @description The other people who are administrators of projects the user belongs to (user ids) */
          administrators?: string[];
          /** @description The other people who are editors of projects the user belongs to (user ids) */
          editors?: string[];
          /** @description The invitations to the user’s e-mail address still pending (neither accepted, revoked nor expired) */
          invites?: components['schemas']['Invite'][];
          password?: string;
          currentPassword?: string;
          role?: string;
          username?: string;
          projects?: string[];
          groups?: string[];
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
          configuredSecrets?: unknown;
          token?: string;
          access_token?: string;
          message?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "role": "user",
           *       "username": "ana@example.com",
           *       "name": "Tower A",
           *       "lastName": "Ruiz",
           *       "phone": "+1 555 0100",
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "groups": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['User'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateAccount: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "active": true
         *     }
         */
        'application/json': {
          /** @description false deactivates the account (at once, on every node); true reactivates it */
          active: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "username": "ana@example.com",
           *       "role": "user",
           *       "name": "Tower A",
           *       "lastName": "Ruiz",
           *       "active": true,
           *       "projects": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "role": "owner"
           *         }
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  requestAccountPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      202: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "message": "Is the corner unit still available?"
           *     }
           */
          'application/json': {
            /** @description Says the link was mailed to the account */
            message: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listUsersMeTokens: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "scope": "read",
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "expiresAt": "2026-03-01T09:30:00.000Z",
           *         "lastUsedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['ApiToken'][];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createUsersMeTokens: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "scope": "read"
         *     }
         */
        'application/json': {
          /** @description What the token is for (shown in the list) */
          name: string;
          /** @description `read`: GET and HEAD only (anything else → 403); `write`: everything the user may do */
          scope: 'read' | 'write';
          /** @description Lifetime in days; omitted → never expires */
          expiresInDays?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "scope": "read",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "expiresAt": "2026-03-01T09:30:00.000Z",
           *       "lastUsedAt": "2026-03-01T09:30:00.000Z",
           *       "token": "sst_c2VjcmV0"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description What the token is for, as its creator named it */
            name: string;
            /** @description `read`: GET and HEAD only (anything else → 403); `write`: everything the user may do */
            scope: 'read' | 'write';
            /** Format: date-time */
            createdAt: string;
            /** @description When it stops working; null: never */
            expiresAt: string | null;
            /** @description The last request it authenticated, to the minute; null: never used */
            lastUsedAt: string | null;
            /** @description The secret (`sst_` and 43 base64url characters): shown only in this answer (only its SHA-256 is kept). Send it as `Authorization: Bearer <token>`. */
            token: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteUsersMeTokens: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listAuditEntries: {
    parameters: {
      query?: {
        /** @description 24-character lower-case hex identifier */
        'filters[actor]'?: string;
        'filters[action]'?:
          | 'sign_in'
          | 'sign_in_failed'
          | 'impersonate'
          | 'password_changed'
          | 'password_reset'
          | 'password_reset_sent'
          | 'api_token_created'
          | 'api_token_revoked'
          | 'account_deactivated'
          | 'account_reactivated'
          | 'members_changed'
          | 'member_invited'
          | 'member_joined'
          | 'invite_revoked'
          | 'settings_changed'
          | 'leads_exported'
          | 'buyer_data_exported'
          | 'buyer_data_erased'
          | 'lead_deleted'
          | 'leads_expired'
          | 'owner_changed';
        /** @description 24-character lower-case hex identifier */
        'filters[project]'?: string;
        /** @description Entries at or after this time */
        'filters[from]'?: string;
        /** @description Entries before this time */
        'filters[to]'?: string;
        'options[skip]'?: number;
        'options[limit]'?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "at": "2026-03-01T09:30:00.000Z",
           *         "action": "sign_in",
           *         "actor": {
           *           "_id": "65f0c0ffee00000000000001",
           *           "username": "ana@example.com"
           *         },
           *         "address": "example",
           *         "subject": "example",
           *         "project": "65f0c0ffee00000000000001",
           *         "detail": {}
           *       }
           *     ]
           */
          'application/json': components['schemas']['AuditEntry'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listProjects: {
    parameters: {
      query?: {
        /** @description Case-insensitive substring of the name */
        'filters[name]'?: string;
        /** @description Exact projectType */
        'filters[projectType]'?: string;
        /** @description Only records changed at or after this time (ISO 8601) */
        'filters[updatedSince]'?: string;
        /** @description Records to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most records to return, 1–500 (default 100) */
        'options[limit]'?: number;
        /** @description Field to sort by, `-` for descending; ties break on `_id` so pages are stable */
        'options[sort]'?: 'name' | '-name' | 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "user": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "namespace": "tower-a",
           *         "hostName": "tower-a.example.org",
           *         "administrators": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "editors": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "floors": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "configuredSecrets": [
           *           "sfSecret"
           *         ],
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Project'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createProject: {
    parameters: {
      query: {
        /** @description Required here, or as the JSON body's `name` instead; when both are sent this one wins. */
        name: string;
        /** @description Lower-case slug, unique among projects */
        namespace?: string;
        /** @description Host name, unique among projects (stored lower-case) */
        hostName?: string;
      };
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "namespace": "tower-a",
         *       "hostName": "tower-a.example.org"
         *     }
         */
        'application/json': {
          /** @description Or the query parameter of the same name (which wins when both are sent); one of the two is required. */
          name?: string;
          /** @description Lower-case slug, unique among projects. Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          namespace?: string;
          /** @description Host name, unique among projects (stored lower-case). Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          hostName?: string;
          projectType?: string;
          administrators?: string[];
          editors?: string[];
          websiteURL?: string;
          internalURL?: string;
          accentColor?: string;
          walkscore?: string;
          customButtonText?: string;
          customButtonIcon?: string;
          areaUnit?: string;
          sharePageDescription?: string;
          sharePageLogo?: string;
          projectImageUrl?: string;
          projectSVGUrl?: string;
          svgGroupId?: string;
          layoutImageUrl?: string;
          formsSubject?: string;
          formsFromName?: string;
          formsMessage?: string;
          formsRedirectURL?: string;
          projectLang?: string;
          propertyType?: string;
          lotsLayout?: string;
          areaDescription?: string;
          enterpriseAddressDisplay?: string;
          crfMessage?: string;
          chargeDescription?: string;
          payButtonText?: string;
          payButtonIcon?: string;
          gtmHeadCode?: string;
          gtmBodyCode?: string;
          address?: string;
          perimeter?: string;
          markerImageUrl?: string;
          targetMarker?: string;
          mapPointColor?: string;
          sponsors?: string;
          layouts?: string;
          downloadableAssets?: string;
          floorplans?: string;
          path?: string;
          alternativePaths?: string;
          subscriptionItem?: string;
          lastSync?: string;
          eventsBlockList?: string;
          phasePrefix?: string;
          _3dModelUrl?: string;
          _3dBuildingModelUrl?: string;
          _3dFloorSelectorModelUrl?: string;
          customButtonOpensAt?: string;
          customButtonActionType?: string;
          initialView?: string;
          unitImageOnGrid?: string;
          similarSortingBy?: string;
          chargeType?: string;
          chargeCurrency?: string;
          mapStyle?: string;
          colorBase?: string;
          colorAccent?: string;
          colorHover?: string;
          colorButton?: string;
          colorButtonText?: string;
          colorText?: string;
          colorFeatured?: string;
          colorSold?: string;
          colorAvailable?: string;
          colorReserved?: string;
          /**
           * @description Where the floor navigation sits: one of top, side, or '' for the page's default
           * @enum {string}
           */
          styleNavigation?: 'top' | 'side' | '';
          /**
           * @description The look of the service mark at the foot of the page: one of light, dark, or '' for the page's default
           * @enum {string}
           */
          styleBranding?: 'light' | 'dark' | '';
          /**
           * @description How the filters are laid out: one of bar, panel, or '' for the page's default
           * @enum {string}
           */
          styleFilter?: 'bar' | 'panel' | '';
          /**
           * @description Corners of cards, buttons and fields: rounded or square: one of rounded, square, or '' for the page's default
           * @enum {string}
           */
          styleShapes?: 'rounded' | 'square' | '';
          /**
           * @description The page's font, a Google Fonts family: one of Montserrat, Inter, Roboto, Open Sans, Lato, Poppins, Raleway, Nunito, Work Sans, DM Sans, Playfair Display, Merriweather, Lora, Cormorant Garamond, Libre Baskerville, or '' for the page's default
           * @enum {string}
           */
          styleFont?:
            | 'Montserrat'
            | 'Inter'
            | 'Roboto'
            | 'Open Sans'
            | 'Lato'
            | 'Poppins'
            | 'Raleway'
            | 'Nunito'
            | 'Work Sans'
            | 'DM Sans'
            | 'Playfair Display'
            | 'Merriweather'
            | 'Lora'
            | 'Cormorant Garamond'
            | 'Libre Baskerville'
            | '';
          /**
           * Format: email-list
           * @description One or more e-mail addresses separated by commas
           */
          formsSendTo?: string;
          /**
           * Format: email-list
           * @description One or more e-mail addresses separated by commas
           */
          reportSendTo?: string;
          /** Format: time-zone */
          timeZone?: string;
          onHoldMinsDuration?: number;
          mapLayoutWidth?: number;
          mapLayoutRotation?: number;
          globalAmount?: number;
          zoomLevel?: number;
          lon?: number;
          lat?: number;
          showInclusions?: boolean;
          showBathrooms?: boolean;
          showAdditionalInfo?: boolean;
          showParking?: boolean;
          showOrientation?: boolean;
          brochureButtonEnabled?: boolean;
          customButtonEnabled?: boolean;
          walkscoreEnabled?: boolean;
          showAvailability?: boolean;
          hideSold?: boolean;
          showPrices?: boolean;
          gtmEnabled?: boolean;
          dayNightEnabled?: boolean;
          showAvailableFirst?: boolean;
          skipFloorStep?: boolean;
          showUnitCustomFinishes?: boolean;
          showFloorOverview?: boolean;
          pricesStartingAt?: boolean;
          showPriceFilter?: boolean;
          showAreaFilter?: boolean;
          showUnitDescription?: boolean;
          showTaxes?: boolean;
          sharePageEnabled?: boolean;
          priceBeforeTax?: boolean;
          enableForms?: boolean;
          rentalObject?: boolean;
          deliveryDates?: boolean;
          hideArea?: boolean;
          showBranding?: boolean;
          onHoldExperienceEnabled?: boolean;
          customFormEnabled?: boolean;
          previewMode?: boolean;
          landOnly?: boolean;
          showUnitFinishes?: boolean;
          showVariants?: boolean;
          sponsorsEnabled?: boolean;
          waitlistEnabled?: boolean;
          invertNav?: boolean;
          mapDirections?: boolean;
          lockScreen?: boolean;
          specialRankEnabled?: boolean;
          priorityList?: boolean;
          lockScreenName?: boolean;
          lockScreenEmail?: boolean;
          lockScreenPhone?: boolean;
          lockScreenMessage?: boolean;
          lockScreenCustom?: boolean;
          excludeBlockedEvents?: boolean;
          enable3d?: boolean;
          hideGallery?: boolean;
          hideBedrooms?: boolean;
          published?: boolean;
          brochureAssets?: string[];
          alternativeCovers?: string[];
          images?: string[];
          finishes?: string[];
          calUsername?: string;
          payProviderClientId?: string;
          payProviderCurrency?: string;
          yiCompanyCode?: string;
          yiPropertyCode?: string;
          pvUsername?: string;
          pvBuildingName?: string;
          zhClientId?: string;
          zhOrgId?: string;
          srBaseUrl?: string;
          sfProjectId?: string;
          soProjectId?: string;
          soDomain?: string;
          bsBuildingId?: string;
          bsUsername?: string;
          ftpUrl?: string;
          ftpWhitelist?: string;
          ftpBlacklist?: string;
          ftpPath?: string;
          ftpFileName?: string;
          payProviderDeposit?: number;
          ftpPort?: number;
          commercialSpaces?: string[];
          customFormFields?: {
            [key: string]: unknown;
          }[];
          plan?: {
            [key: string]: unknown;
          };
          invites?: components['schemas']['Invite'][];
          customFinishes?: {
            name?: string;
            options?: {
              kitchen?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
              bathroom?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
              general?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
            };
          };
          lockScreenCustomQuestions?: {
            /**
             * @description The page language the question is asked in (the two letters of `projectLang`: en, fr, es), or '' (or none) for every language
             * @enum {string}
             */
            lang?: 'en' | 'fr' | 'es' | '';
            /** @description The question, as the visitor reads it */
            value: string;
          }[];
          ftpMapping?: {
            header?: string;
            property?: string;
          }[];
          yiStatusMapping?: {
            available?: string;
            leased?: string;
            sold?: string;
            unavailable?: string;
            reserved?: string;
          };
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          pvPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          ftpPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          ftpUsername?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          sfKey?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          sfSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          soKey?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          soSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          zhClientSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          zhAccessToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          bsPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          yiApiToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          srToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          calKey?: string | null;
          allocations?: {
            name?: string;
            /** @description Write-only: a string sets it, null clears it */
            password?: string | null;
            allocation?: string;
          }[];
          /** @description 24-character lower-case hex identifier */
          user?: string;
          floors?: string[];
          leads?: components['schemas']['LeadInput'][];
          waitlistees?: {
            [key: string]: unknown;
          }[];
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
          configuredSecrets?: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "floors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "configuredSecrets": [
           *         "sfSecret"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Project'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another request */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getProjectPreviewLink: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Cache-Control'?: string;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "url": "https://example.org/hooks/showsuite",
           *       "expiresAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': {
            /** @description The page, with its preview token */
            url: string;
            /**
             * Format: date-time
             * @description When the link stops working
             */
            expiresAt: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getProject: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "floors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "configuredSecrets": [
           *         "sfSecret"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Project'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteProject: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateProject: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "namespace": "tower-a",
         *       "hostName": "tower-a.example.org"
         *     }
         */
        'application/json': {
          name?: string;
          /** @description Lower-case slug, unique among projects */
          namespace?: string;
          /** @description Host name, unique among projects (stored lower-case) */
          hostName?: string;
          projectType?: string;
          administrators?: string[];
          editors?: string[];
          websiteURL?: string;
          internalURL?: string;
          accentColor?: string;
          walkscore?: string;
          customButtonText?: string;
          customButtonIcon?: string;
          areaUnit?: string;
          sharePageDescription?: string;
          sharePageLogo?: string;
          projectImageUrl?: string;
          projectSVGUrl?: string;
          svgGroupId?: string;
          layoutImageUrl?: string;
          formsSubject?: string;
          formsFromName?: string;
          formsMessage?: string;
          formsRedirectURL?: string;
          projectLang?: string;
          propertyType?: string;
          lotsLayout?: string;
          areaDescription?: string;
          enterpriseAddressDisplay?: string;
          crfMessage?: string;
          chargeDescription?: string;
          payButtonText?: string;
          payButtonIcon?: string;
          gtmHeadCode?: string;
          gtmBodyCode?: string;
          address?: string;
          perimeter?: string;
          markerImageUrl?: string;
          targetMarker?: string;
          mapPointColor?: string;
          sponsors?: string;
          layouts?: string;
          downloadableAssets?: string;
          floorplans?: string;
          path?: string;
          alternativePaths?: string;
          subscriptionItem?: string;
          lastSync?: string;
          eventsBlockList?: string;
          phasePrefix?: string;
          _3dModelUrl?: string;
          _3dBuildingModelUrl?: string;
          _3dFloorSelectorModelUrl?: string;
          customButtonOpensAt?: string;
          customButtonActionType?: string;
          initialView?: string;
          unitImageOnGrid?: string;
          similarSortingBy?: string;
          chargeType?: string;
          chargeCurrency?: string;
          mapStyle?: string;
          colorBase?: string;
          colorAccent?: string;
          colorHover?: string;
          colorButton?: string;
          colorButtonText?: string;
          colorText?: string;
          colorFeatured?: string;
          colorSold?: string;
          colorAvailable?: string;
          colorReserved?: string;
          /**
           * @description Where the floor navigation sits: one of top, side, or '' for the page's default
           * @enum {string}
           */
          styleNavigation?: 'top' | 'side' | '';
          /**
           * @description The look of the service mark at the foot of the page: one of light, dark, or '' for the page's default
           * @enum {string}
           */
          styleBranding?: 'light' | 'dark' | '';
          /**
           * @description How the filters are laid out: one of bar, panel, or '' for the page's default
           * @enum {string}
           */
          styleFilter?: 'bar' | 'panel' | '';
          /**
           * @description Corners of cards, buttons and fields: rounded or square: one of rounded, square, or '' for the page's default
           * @enum {string}
           */
          styleShapes?: 'rounded' | 'square' | '';
          /**
           * @description The page's font, a Google Fonts family: one of Montserrat, Inter, Roboto, Open Sans, Lato, Poppins, Raleway, Nunito, Work Sans, DM Sans, Playfair Display, Merriweather, Lora, Cormorant Garamond, Libre Baskerville, or '' for the page's default
           * @enum {string}
           */
          styleFont?:
            | 'Montserrat'
            | 'Inter'
            | 'Roboto'
            | 'Open Sans'
            | 'Lato'
            | 'Poppins'
            | 'Raleway'
            | 'Nunito'
            | 'Work Sans'
            | 'DM Sans'
            | 'Playfair Display'
            | 'Merriweather'
            | 'Lora'
            | 'Cormorant Garamond'
            | 'Libre Baskerville'
            | '';
          /**
           * Format: email-list
           * @description One or more e-mail addresses separated by commas
           */
          formsSendTo?: string;
          /**
           * Format: email-list
           * @description One or more e-mail addresses separated by commas
           */
          reportSendTo?: string;
          /** Format: time-zone */
          timeZone?: string;
          onHoldMinsDuration?: number;
          mapLayoutWidth?: number;
          mapLayoutRotation?: number;
          globalAmount?: number;
          zoomLevel?: number;
          lon?: number;
          lat?: number;
          showInclusions?: boolean;
          showBathrooms?: boolean;
          showAdditionalInfo?: boolean;
          showParking?: boolean;
          showOrientation?: boolean;
          brochureButtonEnabled?: boolean;
          customButtonEnabled?: boolean;
          walkscoreEnabled?: boolean;
          showAvailability?: boolean;
          hideSold?: boolean;
          showPrices?: boolean;
          gtmEnabled?: boolean;
          dayNightEnabled?: boolean;
          showAvailableFirst?: boolean;
          skipFloorStep?: boolean;
          showUnitCustomFinishes?: boolean;
          showFloorOverview?: boolean;
          pricesStartingAt?: boolean;
          showPriceFilter?: boolean;
          showAreaFilter?: boolean;
          showUnitDescription?: boolean;
          showTaxes?: boolean;
          sharePageEnabled?: boolean;
          priceBeforeTax?: boolean;
          enableForms?: boolean;
          rentalObject?: boolean;
          deliveryDates?: boolean;
          hideArea?: boolean;
          showBranding?: boolean;
          onHoldExperienceEnabled?: boolean;
          customFormEnabled?: boolean;
          previewMode?: boolean;
          landOnly?: boolean;
          showUnitFinishes?: boolean;
          showVariants?: boolean;
          sponsorsEnabled?: boolean;
          waitlistEnabled?: boolean;
          invertNav?: boolean;
          mapDirections?: boolean;
          lockScreen?: boolean;
          specialRankEnabled?: boolean;
          priorityList?: boolean;
          lockScreenName?: boolean;
          lockScreenEmail?: boolean;
          lockScreenPhone?: boolean;
          lockScreenMessage?: boolean;
          lockScreenCustom?: boolean;
          excludeBlockedEvents?: boolean;
          enable3d?: boolean;
          hideGallery?: boolean;
          hideBedrooms?: boolean;
          published?: boolean;
          brochureAssets?: string[];
          alternativeCovers?: string[];
          images?: string[];
          finishes?: string[];
          calUsername?: string;
          payProviderClientId?: string;
          payProviderCurrency?: string;
          yiCompanyCode?: string;
          yiPropertyCode?: string;
          pvUsername?: string;
          pvBuildingName?: string;
          zhClientId?: string;
          zhOrgId?: string;
          srBaseUrl?: string;
          sfProjectId?: string;
          soProjectId?: string;
          soDomain?: string;
          bsBuildingId?: string;
          bsUsername?: string;
          ftpUrl?: string;
          ftpWhitelist?: string;
          ftpBlacklist?: string;
          ftpPath?: string;
          ftpFileName?: string;
          payProviderDeposit?: number;
          ftpPort?: number;
          commercialSpaces?: string[];
          customFormFields?: {
            [key: string]: unknown;
          }[];
          plan?: {
            [key: string]: unknown;
          };
          invites?: components['schemas']['Invite'][];
          customFinishes?: {
            name?: string;
            options?: {
              kitchen?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
              bathroom?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
              general?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
            };
          };
          lockScreenCustomQuestions?: {
            /**
             * @description The page language the question is asked in (the two letters of `projectLang`: en, fr, es), or '' (or none) for every language
             * @enum {string}
             */
            lang?: 'en' | 'fr' | 'es' | '';
            /** @description The question, as the visitor reads it */
            value: string;
          }[];
          ftpMapping?: {
            header?: string;
            property?: string;
          }[];
          yiStatusMapping?: {
            available?: string;
            leased?: string;
            sold?: string;
            unavailable?: string;
            reserved?: string;
          };
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          pvPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          ftpPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          ftpUsername?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          sfKey?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          sfSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          soKey?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          soSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          zhClientSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          zhAccessToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          bsPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          yiApiToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          srToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          calKey?: string | null;
          allocations?: {
            name?: string;
            /** @description Write-only: a string sets it, null clears it */
            password?: string | null;
            allocation?: string;
          }[];
          /** @description 24-character lower-case hex identifier */
          user?: string;
          floors?: string[];
          leads?: components['schemas']['LeadInput'][];
          waitlistees?: {
            [key: string]: unknown;
          }[];
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
          configuredSecrets?: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "floors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "configuredSecrets": [
           *         "sfSecret"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Project'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getProjectAlias: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "floors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "configuredSecrets": [
           *         "sfSecret"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Project'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteProjectAlias: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateProjectAlias: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "namespace": "tower-a",
         *       "hostName": "tower-a.example.org"
         *     }
         */
        'application/json': {
          name?: string;
          /** @description Lower-case slug, unique among projects */
          namespace?: string;
          /** @description Host name, unique among projects (stored lower-case) */
          hostName?: string;
          projectType?: string;
          administrators?: string[];
          editors?: string[];
          websiteURL?: string;
          internalURL?: string;
          accentColor?: string;
          walkscore?: string;
          customButtonText?: string;
          customButtonIcon?: string;
          areaUnit?: string;
          sharePageDescription?: string;
          sharePageLogo?: string;
          projectImageUrl?: string;
          projectSVGUrl?: string;
          svgGroupId?: string;
          layoutImageUrl?: string;
          formsSubject?: string;
          formsFromName?: string;
          formsMessage?: string;
          formsRedirectURL?: string;
          projectLang?: string;
          propertyType?: string;
          lotsLayout?: string;
          areaDescription?: string;
          enterpriseAddressDisplay?: string;
          crfMessage?: string;
          chargeDescription?: string;
          payButtonText?: string;
          payButtonIcon?: string;
          gtmHeadCode?: string;
          gtmBodyCode?: string;
          address?: string;
          perimeter?: string;
          markerImageUrl?: string;
          targetMarker?: string;
          mapPointColor?: string;
          sponsors?: string;
          layouts?: string;
          downloadableAssets?: string;
          floorplans?: string;
          path?: string;
          alternativePaths?: string;
          subscriptionItem?: string;
          lastSync?: string;
          eventsBlockList?: string;
          phasePrefix?: string;
          _3dModelUrl?: string;
          _3dBuildingModelUrl?: string;
          _3dFloorSelectorModelUrl?: string;
          customButtonOpensAt?: string;
          customButtonActionType?: string;
          initialView?: string;
          unitImageOnGrid?: string;
          similarSortingBy?: string;
          chargeType?: string;
          chargeCurrency?: string;
          mapStyle?: string;
          colorBase?: string;
          colorAccent?: string;
          colorHover?: string;
          colorButton?: string;
          colorButtonText?: string;
          colorText?: string;
          colorFeatured?: string;
          colorSold?: string;
          colorAvailable?: string;
          colorReserved?: string;
          /**
           * @description Where the floor navigation sits: one of top, side, or '' for the page's default
           * @enum {string}
           */
          styleNavigation?: 'top' | 'side' | '';
          /**
           * @description The look of the service mark at the foot of the page: one of light, dark, or '' for the page's default
           * @enum {string}
           */
          styleBranding?: 'light' | 'dark' | '';
          /**
           * @description How the filters are laid out: one of bar, panel, or '' for the page's default
           * @enum {string}
           */
          styleFilter?: 'bar' | 'panel' | '';
          /**
           * @description Corners of cards, buttons and fields: rounded or square: one of rounded, square, or '' for the page's default
           * @enum {string}
           */
          styleShapes?: 'rounded' | 'square' | '';
          /**
           * @description The page's font, a Google Fonts family: one of Montserrat, Inter, Roboto, Open Sans, Lato, Poppins, Raleway, Nunito, Work Sans, DM Sans, Playfair Display, Merriweather, Lora, Cormorant Garamond, Libre Baskerville, or '' for the page's default
           * @enum {string}
           */
          styleFont?:
            | 'Montserrat'
            | 'Inter'
            | 'Roboto'
            | 'Open Sans'
            | 'Lato'
            | 'Poppins'
            | 'Raleway'
            | 'Nunito'
            | 'Work Sans'
            | 'DM Sans'
            | 'Playfair Display'
            | 'Merriweather'
            | 'Lora'
            | 'Cormorant Garamond'
            | 'Libre Baskerville'
            | '';
          /**
           * Format: email-list
           * @description One or more e-mail addresses separated by commas
           */
          formsSendTo?: string;
          /**
           * Format: email-list
           * @description One or more e-mail addresses separated by commas
           */
          reportSendTo?: string;
          /** Format: time-zone */
          timeZone?: string;
          onHoldMinsDuration?: number;
          mapLayoutWidth?: number;
          mapLayoutRotation?: number;
          globalAmount?: number;
          zoomLevel?: number;
          lon?: number;
          lat?: number;
          showInclusions?: boolean;
          showBathrooms?: boolean;
          showAdditionalInfo?: boolean;
          showParking?: boolean;
          showOrientation?: boolean;
          brochureButtonEnabled?: boolean;
          customButtonEnabled?: boolean;
          walkscoreEnabled?: boolean;
          showAvailability?: boolean;
          hideSold?: boolean;
          showPrices?: boolean;
          gtmEnabled?: boolean;
          dayNightEnabled?: boolean;
          showAvailableFirst?: boolean;
          skipFloorStep?: boolean;
          showUnitCustomFinishes?: boolean;
          showFloorOverview?: boolean;
          pricesStartingAt?: boolean;
          showPriceFilter?: boolean;
          showAreaFilter?: boolean;
          showUnitDescription?: boolean;
          showTaxes?: boolean;
          sharePageEnabled?: boolean;
          priceBeforeTax?: boolean;
          enableForms?: boolean;
          rentalObject?: boolean;
          deliveryDates?: boolean;
          hideArea?: boolean;
          showBranding?: boolean;
          onHoldExperienceEnabled?: boolean;
          customFormEnabled?: boolean;
          previewMode?: boolean;
          landOnly?: boolean;
          showUnitFinishes?: boolean;
          showVariants?: boolean;
          sponsorsEnabled?: boolean;
          waitlistEnabled?: boolean;
          invertNav?: boolean;
          mapDirections?: boolean;
          lockScreen?: boolean;
          specialRankEnabled?: boolean;
          priorityList?: boolean;
          lockScreenName?: boolean;
          lockScreenEmail?: boolean;
          lockScreenPhone?: boolean;
          lockScreenMessage?: boolean;
          lockScreenCustom?: boolean;
          excludeBlockedEvents?: boolean;
          enable3d?: boolean;
          hideGallery?: boolean;
          hideBedrooms?: boolean;
          published?: boolean;
          brochureAssets?: string[];
          alternativeCovers?: string[];
          images?: string[];
          finishes?: string[];
          calUsername?: string;
          payProviderClientId?: string;
          payProviderCurrency?: string;
          yiCompanyCode?: string;
          yiPropertyCode?: string;
          pvUsername?: string;
          pvBuildingName?: string;
          zhClientId?: string;
          zhOrgId?: string;
          srBaseUrl?: string;
          sfProjectId?: string;
          soProjectId?: string;
          soDomain?: string;
          bsBuildingId?: string;
          bsUsername?: string;
          ftpUrl?: string;
          ftpWhitelist?: string;
          ftpBlacklist?: string;
          ftpPath?: string;
          ftpFileName?: string;
          payProviderDeposit?: number;
          ftpPort?: number;
          commercialSpaces?: string[];
          customFormFields?: {
            [key: string]: unknown;
          }[];
          plan?: {
            [key: string]: unknown;
          };
          invites?: components['schemas']['Invite'][];
          customFinishes?: {
            name?: string;
            options?: {
              kitchen?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
              bathroom?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
              general?: {
                tabs?: {
                  label?: string;
                  cover?: string;
                  thumbnail?: string;
                }[];
              };
            };
          };
          lockScreenCustomQuestions?: {
            /**
             * @description The page language the question is asked in (the two letters of `projectLang`: en, fr, es), or '' (or none) for every language
             * @enum {string}
             */
            lang?: 'en' | 'fr' | 'es' | '';
            /** @description The question, as the visitor reads it */
            value: string;
          }[];
          ftpMapping?: {
            header?: string;
            property?: string;
          }[];
          yiStatusMapping?: {
            available?: string;
            leased?: string;
            sold?: string;
            unavailable?: string;
            reserved?: string;
          };
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          pvPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          ftpPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          ftpUsername?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          sfKey?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          sfSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          soKey?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          soSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          zhClientSecret?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          zhAccessToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          bsPassword?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          yiApiToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          srToken?: string | null;
          /** @description Write-only secret: a string sets it, null clears it; never returned (see configuredSecrets) */
          calKey?: string | null;
          allocations?: {
            name?: string;
            /** @description Write-only: a string sets it, null clears it */
            password?: string | null;
            allocation?: string;
          }[];
          /** @description 24-character lower-case hex identifier */
          user?: string;
          floors?: string[];
          leads?: components['schemas']['LeadInput'][];
          waitlistees?: {
            [key: string]: unknown;
          }[];
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
          configuredSecrets?: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "floors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "configuredSecrets": [
           *         "sfSecret"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Project'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listFloors: {
    parameters: {
      query: {
        /** @description 24-character lower-case hex identifier */
        project: string;
        /** @description Only records changed at or after this time (ISO 8601) */
        'filters[updatedSince]'?: string;
        /** @description Records to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most records to return, 1–500 (default 100) */
        'options[limit]'?: number;
        /** @description Field to sort by, `-` for descending; ties break on `_id` so pages are stable */
        'options[sort]'?: 'name' | '-name' | 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "units": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "name": "Tower A",
           *         "position": 1,
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Floor'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createFloor: {
    parameters: {
      query: {
        /** @description 24-character lower-case hex identifier. Required here, or as the JSON body's `project` instead; when both are sent this one wins. */
        project: string;
        /** @description Required here, or as the JSON body's `name` instead; when both are sent this one wins. */
        name: string;
        /** @description Position or order; floors are listed by it */
        position?: number;
      };
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "project": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          /** @description Or the query parameter of the same name (which wins when both are sent); one of the two is required. */
          name?: string;
          /** @description Position or order; floors are listed by it. Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          position?: number;
          floorplanUrl?: string;
          /** @description SVG path data in the pixels of the project's `projectImageUrl` (a moveto first, then path commands and numbers), or '' */
          path?: string;
          alternativePaths?: string[];
          /** @description 24-character lower-case hex identifier. Or the query parameter of the same name (which wins when both are sent); one of the two is required. */
          project?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "units": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "name": "Tower A",
           *       "position": 1,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Floor'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another request */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  duplicateFloor: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A"
         *     }
         */
        'application/json': {
          /** @description The new floor's name (default: the floor's name and " (copy)") */
          name?: string;
          /** @description Where the new floor goes (default: after the last floor) */
          position?: number;
          /** @description New names of the copies, by the id of the unit copied; a unit not named here is copied as its name and " (copy)" */
          unitNames?: {
            [key: string]: string;
          };
          /** @description true: name the copy and its units by number instead of " (copy)": the floor's last number goes to the next one no floor of the project has ("Level 1" → "Level 2"), and each unit whose number starts with the floor's number has it replaced (101 → 201, A-1204 → A-1304). `name` and `unitNames` still win; a name without such a number keeps " (copy)". */
          renumber?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "units": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "name": "Tower A",
           *       "position": 1,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Floor'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another request */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  copyFloorOutlines: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "from": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          /** @description The floor of the same project whose units' outlines are copied */
          from: string;
          /** @description true: replace outlines drawn already (default: only units without one get one) */
          overwrite?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "units": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "__v": 1,
           *           "project": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "position": 1,
           *           "availability": "available",
           *           "bedrooms": "2",
           *           "squareFeet": 850,
           *           "price": 450000,
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "updatedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ],
           *       "unmatched": [
           *         "example"
           *       ]
           *     }
           */
          'application/json': {
            /** @description The units of this floor that got an outline, updated */
            units: components['schemas']['Unit'][];
            /** @description Names of this floor's units left without an outline: no counterpart, or the counterpart has none */
            unmatched: string[];
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  suggestFloorOutlines: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "suggestions": [
           *         {
           *           "path": "example",
           *           "box": {
           *             "x": 1,
           *             "y": 1,
           *             "width": 1,
           *             "height": 1
           *           },
           *           "fill": 1
           *         }
           *       ]
           *     }
           */
          'application/json': {
            /** @description Enclosed light areas of the plan picture, in reading order (rows top to bottom, each left to right) */
            suggestions: {
              /** @description The outline, `M x y L x y … Z` in the drawing space (600 × 300, the plan drawn whole and centred), as a unit's `path` */
              path: string;
              /** @description The area's bounding box in the drawing space */
              box: {
                x: number;
                y: number;
                width: number;
                height: number;
              };
              /** @description How much of its box the area fills, 0–1 (1: a rectangle) */
              fill: number;
            }[];
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getFloor: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "units": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "name": "Tower A",
           *       "position": 1,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Floor'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteFloor: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateFloor: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "project": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          name?: string;
          /** @description Position or order; floors are listed by it */
          position?: number;
          floorplanUrl?: string;
          /** @description SVG path data in the pixels of the project's `projectImageUrl` (a moveto first, then path commands and numbers), or '' */
          path?: string;
          alternativePaths?: string[];
          units?: string[];
          /** @description 24-character lower-case hex identifier */
          project?: string;
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "units": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "name": "Tower A",
           *       "position": 1,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Floor'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listUnits: {
    parameters: {
      query: {
        /** @description 24-character lower-case hex identifier */
        project: string;
        /** @description 24-character lower-case hex identifier */
        floor?: string;
        /** @description One of available, on_hold, reserved, sold, leased, unavailable. Any case is accepted (`SOLD`, `Sold`) and stored in lower case. */
        availability?: 'available' | 'on_hold' | 'reserved' | 'sold' | 'leased' | 'unavailable';
        /** @description Only records changed at or after this time (ISO 8601) */
        'filters[updatedSince]'?: string;
        /** @description Comma-separated availabilities, each one of available, on_hold, reserved, sold, leased, unavailable (any case is accepted) */
        'filters[availability]'?: string;
        /** @description Only units priced at least this */
        'filters[priceMin]'?: number;
        /** @description Only units priced at most this */
        'filters[priceMax]'?: number;
        /** @description Only units with squareFeet at least this */
        'filters[areaMin]'?: number;
        /** @description Only units with squareFeet at most this */
        'filters[areaMax]'?: number;
        /** @description Only units with at least this many bedrooms */
        'filters[bedroomsMin]'?: number;
        /** @description Only units with at most this many bedrooms */
        'filters[bedroomsMax]'?: number;
        /** @description Records to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most records to return, 1–500 (default 100) */
        'options[limit]'?: number;
        /** @description Field to sort by, `-` for descending; ties break on `_id` so pages are stable */
        'options[sort]'?: 'name' | '-name' | 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';
        /** @description csv: the same list as RFC 4180 CSV (as `Accept: text/csv`) */
        format?: 'json' | 'csv';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The units as JSON, or as CSV when asked for */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "position": 1,
           *         "availability": "available",
           *         "bedrooms": "2",
           *         "squareFeet": 850,
           *         "price": 450000,
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Unit'][];
          'text/csv': string;
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createUnit: {
    parameters: {
      query: {
        /** @description Required here, or as the JSON body's `name` instead; when both are sent this one wins. */
        name: string;
        /** @description Position or order within the floor */
        position?: number;
        /** @description 24-character lower-case hex identifier. Required here, or as the JSON body's `project` instead; when both are sent this one wins. */
        project: string;
        /** @description 24-character lower-case hex identifier */
        floor?: string;
      };
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "availability": "available",
         *       "bedrooms": "2",
         *       "squareFeet": 850,
         *       "price": 450000,
         *       "project": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          /** @description Or the query parameter of the same name (which wins when both are sent); one of the two is required. */
          name?: string;
          /** @description Position or order within the floor. Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          position?: number;
          /** @description Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          floor?: string | null;
          /**
           * @description One of available, on_hold, reserved, sold, leased, unavailable. Any case is accepted (`SOLD`, `Sold`) and stored in lower case.
           * @enum {string}
           */
          availability?: 'available' | 'on_hold' | 'reserved' | 'sold' | 'leased' | 'unavailable';
          onHoldExpiresAt?: string | null;
          bedrooms?: string;
          squareFeet?: number;
          isFeatured?: boolean;
          price?: number;
          unitPriceTBD?: boolean;
          type?: string;
          specificType?: string;
          path?: string;
          lotPath?: string;
          unitImageUrl?: string;
          layoutUrl?: string;
          downloadableAsset?: string;
          brochurePDF?: string;
          embedCode?: string;
          customButtonUrl?: string;
          customButtonSnippet?: string;
          orientation?: string;
          inclusions?: string;
          deliveryDate?: string;
          description?: string;
          perimeter?: string;
          svgLotId?: string;
          layoutGallery?: string[];
          additionalInfo?: {
            label?: string;
            value?: string;
          }[];
          payableAmount?: number;
          images?: string[];
          clonedImages?: string[];
          customFinishes?: {
            type?: {
              name?: string;
              options?: {
                kitchen?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
                bathroom?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
                general?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
              };
            };
            default?: {
              [key: string]: unknown;
            };
          };
          finishes?: string[];
          clonedFinishes?: string[];
          parking?: number;
          bathrooms?: number;
          unitmodels?: string[];
          lon?: number;
          lat?: number;
          /** @description Or the query parameter of the same name (which wins when both are sent); one of the two is required. */
          project?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "position": 1,
           *       "availability": "available",
           *       "bedrooms": "2",
           *       "squareFeet": 850,
           *       "price": 450000,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Unit'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another request */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateUnits: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example [
         *       {
         *         "name": "Tower A",
         *         "availability": "available",
         *         "bedrooms": "2",
         *         "squareFeet": 850,
         *         "price": 450000,
         *         "project": "65f0c0ffee00000000000001",
         *         "_id": "65f0c0ffee00000000000001"
         *       }
         *     ]
         */
        'application/json': {
          name?: string;
          /** @description Position or order within the floor */
          position?: number;
          floor?: string | null;
          /**
           * @description One of available, on_hold, reserved, sold, leased, unavailable. Any case is accepted (`SOLD`, `Sold`) and stored in lower case.
           * @enum {string}
           */
          availability?: 'available' | 'on_hold' | 'reserved' | 'sold' | 'leased' | 'unavailable';
          onHoldExpiresAt?: string | null;
          bedrooms?: string;
          squareFeet?: number;
          isFeatured?: boolean;
          price?: number;
          unitPriceTBD?: boolean;
          type?: string;
          specificType?: string;
          path?: string;
          lotPath?: string;
          unitImageUrl?: string;
          layoutUrl?: string;
          downloadableAsset?: string;
          brochurePDF?: string;
          embedCode?: string;
          customButtonUrl?: string;
          customButtonSnippet?: string;
          orientation?: string;
          inclusions?: string;
          deliveryDate?: string;
          description?: string;
          perimeter?: string;
          svgLotId?: string;
          layoutGallery?: string[];
          additionalInfo?: {
            label?: string;
            value?: string;
          }[];
          payableAmount?: number;
          images?: string[];
          clonedImages?: string[];
          customFinishes?: {
            type?: {
              name?: string;
              options?: {
                kitchen?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
                bathroom?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
                general?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
              };
            };
            default?: {
              [key: string]: unknown;
            };
          };
          finishes?: string[];
          clonedFinishes?: string[];
          parking?: number;
          bathrooms?: number;
          unitmodels?: string[];
          lon?: number;
          lat?: number;
          project?: string;
          /** @description 24-character lower-case hex identifier */
          _id: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
          /** @description The ETag this unit must still have (`"<__v>"`), as If-Match on a single PATCH */
          ifMatch?: string;
        }[];
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "position": 1,
           *         "availability": "available",
           *         "bedrooms": "2",
           *         "squareFeet": 850,
           *         "price": 450000,
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Unit'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getUnit: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "position": 1,
           *       "availability": "available",
           *       "bedrooms": "2",
           *       "squareFeet": 850,
           *       "price": 450000,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Unit'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteUnit: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateUnit: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "availability": "available",
         *       "bedrooms": "2",
         *       "squareFeet": 850,
         *       "price": 450000,
         *       "project": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          name?: string;
          /** @description Position or order within the floor */
          position?: number;
          floor?: string | null;
          /**
           * @description One of available, on_hold, reserved, sold, leased, unavailable. Any case is accepted (`SOLD`, `Sold`) and stored in lower case.
           * @enum {string}
           */
          availability?: 'available' | 'on_hold' | 'reserved' | 'sold' | 'leased' | 'unavailable';
          onHoldExpiresAt?: string | null;
          bedrooms?: string;
          squareFeet?: number;
          isFeatured?: boolean;
          price?: number;
          unitPriceTBD?: boolean;
          type?: string;
          specificType?: string;
          path?: string;
          lotPath?: string;
          unitImageUrl?: string;
          layoutUrl?: string;
          downloadableAsset?: string;
          brochurePDF?: string;
          embedCode?: string;
          customButtonUrl?: string;
          customButtonSnippet?: string;
          orientation?: string;
          inclusions?: string;
          deliveryDate?: string;
          description?: string;
          perimeter?: string;
          svgLotId?: string;
          layoutGallery?: string[];
          additionalInfo?: {
            label?: string;
            value?: string;
          }[];
          payableAmount?: number;
          images?: string[];
          clonedImages?: string[];
          customFinishes?: {
            type?: {
              name?: string;
              options?: {
                kitchen?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
                bathroom?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
                general?: {
                  tabs?: {
                    label?: string;
                    cover?: string;
                    thumbnail?: string;
                  }[];
                };
              };
            };
            default?: {
              [key: string]: unknown;
            };
          };
          finishes?: string[];
          clonedFinishes?: string[];
          parking?: number;
          bathrooms?: number;
          unitmodels?: string[];
          lon?: number;
          lat?: number;
          project?: string;
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "position": 1,
           *       "availability": "available",
           *       "bedrooms": "2",
           *       "squareFeet": 850,
           *       "price": 450000,
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Unit'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateUnitsOfType: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "project": "65f0c0ffee00000000000001",
         *       "type": "2B-A",
         *       "layoutUrl": "/media/2b-a-layout.png",
         *       "images": [
         *         "/media/2b-a-living.jpg"
         *       ]
         *     }
         */
        'application/json': {
          /** @description The project whose units change */
          project: string;
          /** @description Every unit whose `type` is exactly this changes */
          type: string;
          layoutUrl?: string;
          layoutGallery?: string[];
          images?: string[];
          unitImageUrl?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "position": 1,
           *         "availability": "available",
           *         "bedrooms": "2",
           *         "squareFeet": 850,
           *         "price": 450000,
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Unit'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  importInventory: {
    parameters: {
      query?: {
        /** @description true: answer what would change, change nothing */
        dryRun?: boolean;
        /** @description true: apply the good rows of a file with row errors */
        skipErrors?: boolean;
      };
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "rows": [
         *         {}
         *       ]
         *     }
         */
        'application/json': {
          /** @description One object per row, `{ header: value }`, headers as in a CSV file */
          rows: {
            [key: string]: unknown;
          }[];
        };
        'text/csv': string;
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': string;
      };
    };
    responses: {
      /** @description The import answer (dry run: what would change; else: what changed) */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "dryRun": true,
           *       "summary": {
           *         "created": 1,
           *         "updated": 1,
           *         "unchanged": 1,
           *         "kept": 1,
           *         "errors": 1,
           *         "skipped": 1
           *       },
           *       "changes": [
           *         {
           *           "row": 1,
           *           "action": "create",
           *           "unit": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "floor": "65f0c0ffee00000000000001",
           *           "fields": {}
           *         }
           *       ],
           *       "truncated": true,
           *       "errors": [
           *         {
           *           "row": 1,
           *           "column": "Price",
           *           "message": "Is the corner unit still available?"
           *         }
           *       ],
           *       "unknownColumns": [
           *         "Parking spots"
           *       ],
           *       "kept": [
           *         {
           *           "row": 1,
           *           "unit": "65f0c0ffee00000000000001",
           *           "name": "Tower A"
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['InventoryImport'];
        };
      };
      /** @description Row errors (nothing applied), or a bad file; with row errors the import answer stands beside the problem details */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': {
            type: string;
            title: string;
            status: number;
            detail: string;
            code: string;
            dryRun: boolean;
            summary: {
              [key: string]: unknown;
            };
            changes: {
              [key: string]: unknown;
            }[];
            truncated: boolean;
            errors: {
              /** @description 1 = the first data row; null for a failure of the whole file */
              row: number | null;
              /** @description The column header as written in the file */
              column: string | null;
              message: string;
              /** @description In a 400 answer: `/<row>/<column>`, as problem details name fields */
              path?: string;
            }[];
            unknownColumns: string[];
            kept: {
              [key: string]: unknown;
            }[];
          };
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  syncInventory: {
    parameters: {
      query?: {
        /** @description true: answer what would change, change nothing */
        dryRun?: boolean;
        /** @description true: apply the good rows of a file with row errors */
        skipErrors?: boolean;
      };
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The import answer of the pulled file */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "dryRun": true,
           *       "summary": {
           *         "created": 1,
           *         "updated": 1,
           *         "unchanged": 1,
           *         "kept": 1,
           *         "errors": 1,
           *         "skipped": 1
           *       },
           *       "changes": [
           *         {
           *           "row": 1,
           *           "action": "create",
           *           "unit": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "floor": "65f0c0ffee00000000000001",
           *           "fields": {}
           *         }
           *       ],
           *       "truncated": true,
           *       "errors": [
           *         {
           *           "row": 1,
           *           "column": "Price",
           *           "message": "Is the corner unit still available?"
           *         }
           *       ],
           *       "unknownColumns": [
           *         "Parking spots"
           *       ],
           *       "kept": [
           *         {
           *           "row": 1,
           *           "unit": "65f0c0ffee00000000000001",
           *           "name": "Tower A"
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['InventoryImport'];
        };
      };
      /** @description Row errors (nothing applied), or a bad file; with row errors the import answer stands beside the problem details */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': {
            type: string;
            title: string;
            status: number;
            detail: string;
            code: string;
            dryRun: boolean;
            summary: {
              [key: string]: unknown;
            };
            changes: {
              [key: string]: unknown;
            }[];
            truncated: boolean;
            errors: {
              /** @description 1 = the first data row; null for a failure of the whole file */
              row: number | null;
              /** @description The column header as written in the file */
              column: string | null;
              message: string;
              /** @description In a 400 answer: `/<row>/<column>`, as problem details name fields */
              path?: string;
            }[];
            unknownColumns: string[];
            kept: {
              [key: string]: unknown;
            }[];
          };
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  syncRentcafe: {
    parameters: {
      query?: {
        /** @description true: answer what would change, change nothing */
        dryRun?: boolean;
        /** @description true: apply the good rows of a file with row errors */
        skipErrors?: boolean;
      };
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The import answer of RENTCafé's availability */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "dryRun": true,
           *       "summary": {
           *         "created": 1,
           *         "updated": 1,
           *         "unchanged": 1,
           *         "kept": 1,
           *         "errors": 1,
           *         "skipped": 1
           *       },
           *       "changes": [
           *         {
           *           "row": 1,
           *           "action": "create",
           *           "unit": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "floor": "65f0c0ffee00000000000001",
           *           "fields": {}
           *         }
           *       ],
           *       "truncated": true,
           *       "errors": [
           *         {
           *           "row": 1,
           *           "column": "Price",
           *           "message": "Is the corner unit still available?"
           *         }
           *       ],
           *       "unknownColumns": [
           *         "Parking spots"
           *       ],
           *       "kept": [
           *         {
           *           "row": 1,
           *           "unit": "65f0c0ffee00000000000001",
           *           "name": "Tower A"
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['InventoryImport'];
        };
      };
      /** @description Row errors (nothing applied), or a bad file; with row errors the import answer stands beside the problem details */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': {
            type: string;
            title: string;
            status: number;
            detail: string;
            code: string;
            dryRun: boolean;
            summary: {
              [key: string]: unknown;
            };
            changes: {
              [key: string]: unknown;
            }[];
            truncated: boolean;
            errors: {
              /** @description 1 = the first data row; null for a failure of the whole file */
              row: number | null;
              /** @description The column header as written in the file */
              column: string | null;
              message: string;
              /** @description In a 400 answer: `/<row>/<column>`, as problem details name fields */
              path?: string;
            }[];
            unknownColumns: string[];
            kept: {
              [key: string]: unknown;
            }[];
          };
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Retry-After': components['headers']['Retry-After'];
          'X-RateLimit-Limit': components['headers']['X-RateLimit-Limit'];
          'X-RateLimit-Remaining': components['headers']['X-RateLimit-Remaining'];
          'X-RateLimit-Reset': components['headers']['X-RateLimit-Reset'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getInventoryTemplate: {
    parameters: {
      query?: {
        /**
         * @description csv (default) or xlsx
         * @example csv
         */
        format?: 'csv' | 'xlsx';
      };
      header?: never;
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The template */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'text/csv': string;
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': string;
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listInventorySyncs: {
    parameters: {
      query?: {
        'options[skip]'?: number;
        'options[limit]'?: number;
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "source": "upload",
           *         "status": "applied",
           *         "startedAt": "2026-03-01T09:30:00.000Z",
           *         "finishedAt": "2026-03-01T09:30:00.000Z",
           *         "summary": {},
           *         "errors": [
           *           {
           *             "row": 1,
           *             "column": "Price",
           *             "message": "Is the corner unit still available?"
           *           }
           *         ],
           *         "user": "65f0c0ffee00000000000001"
           *       }
           *     ]
           */
          'application/json': components['schemas']['InventorySync'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listGroups: {
    parameters: {
      query?: {
        /** @description Only records changed at or after this time (ISO 8601) */
        'filters[updatedSince]'?: string;
        /** @description Records to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most records to return, 1–500 (default 100) */
        'options[limit]'?: number;
        /** @description Field to sort by, `-` for descending; ties break on `_id` so pages are stable */
        'options[sort]'?: 'name' | '-name' | 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "user": "65f0c0ffee00000000000001",
           *         "name": "Tower A",
           *         "namespace": "tower-a",
           *         "hostName": "tower-a.example.org",
           *         "administrators": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "editors": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "projects": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Group'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createGroup: {
    parameters: {
      query: {
        /** @description Required here, or as the JSON body's `name` instead; when both are sent this one wins. */
        name: string;
        /** @description Lower-case slug, unique among groups */
        namespace?: string;
        /** @description Host name, unique among groups (stored lower-case) */
        hostName?: string;
      };
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "namespace": "tower-a",
         *       "hostName": "tower-a.example.org"
         *     }
         */
        'application/json': {
          /** @description Or the query parameter of the same name (which wins when both are sent); one of the two is required. */
          name?: string;
          /** @description Lower-case slug, unique among groups. Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          namespace?: string;
          /** @description Host name, unique among groups (stored lower-case). Or the query parameter of the same name (which wins when both are sent); both may be left out. */
          hostName?: string;
          administrators?: string[];
          editors?: string[];
          /** @description Projects of the group, in order; only projects the caller can see */
          projects?: string[];
          websiteURL?: string;
          groupLang?: string;
          linkBehavior?: string;
          accentColor?: string;
          groupImageUrl?: string;
          groupSVGUrl?: string;
          svgGroupId?: string;
          address?: string;
          perimeter?: string;
          markerImageUrl?: string;
          targetMarker?: string;
          mapStyle?: string;
          mapPointColor?: string;
          initialView?: string;
          unitImageOnGrid?: string;
          internalURL?: string;
          theme?: string;
          colorBase?: string;
          colorAccent?: string;
          colorHover?: string;
          colorButton?: string;
          colorButtonText?: string;
          colorText?: string;
          lon?: number;
          lat?: number;
          zoomLevel?: number;
          alternativeCovers?: string[];
          invites?: components['schemas']['Invite'][];
          showAvailableFirst?: boolean;
          showAllUnits?: boolean;
          showPrices?: boolean;
          pricesStartingAt?: boolean;
          showTaxes?: boolean;
          priceBeforeTax?: boolean;
          showAvailability?: boolean;
          hideSold?: boolean;
          deliveryDates?: boolean;
          hideArea?: boolean;
          showBranding?: boolean;
          showPriceFilter?: boolean;
          showAreaFilter?: boolean;
          showFloorOverview?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Group'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another request */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getGroup: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Group'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteGroup: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateGroup: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "Tower A",
         *       "namespace": "tower-a",
         *       "hostName": "tower-a.example.org"
         *     }
         */
        'application/json': {
          name?: string;
          /** @description Lower-case slug, unique among groups */
          namespace?: string;
          /** @description Host name, unique among groups (stored lower-case) */
          hostName?: string;
          administrators?: string[];
          editors?: string[];
          /** @description Projects of the group, in order; only projects the caller can see */
          projects?: string[];
          websiteURL?: string;
          groupLang?: string;
          linkBehavior?: string;
          accentColor?: string;
          groupImageUrl?: string;
          groupSVGUrl?: string;
          svgGroupId?: string;
          address?: string;
          perimeter?: string;
          markerImageUrl?: string;
          targetMarker?: string;
          mapStyle?: string;
          mapPointColor?: string;
          initialView?: string;
          unitImageOnGrid?: string;
          internalURL?: string;
          theme?: string;
          colorBase?: string;
          colorAccent?: string;
          colorHover?: string;
          colorButton?: string;
          colorButtonText?: string;
          colorText?: string;
          lon?: number;
          lat?: number;
          zoomLevel?: number;
          alternativeCovers?: string[];
          invites?: components['schemas']['Invite'][];
          showAvailableFirst?: boolean;
          showAllUnits?: boolean;
          showPrices?: boolean;
          pricesStartingAt?: boolean;
          showTaxes?: boolean;
          priceBeforeTax?: boolean;
          showAvailability?: boolean;
          hideSold?: boolean;
          deliveryDates?: boolean;
          hideArea?: boolean;
          showBranding?: boolean;
          showPriceFilter?: boolean;
          showAreaFilter?: boolean;
          showFloorOverview?: boolean;
          /** @description 24-character lower-case hex identifier */
          user?: string;
          _id?: string;
          __v?: unknown;
          createdAt?: string;
          updatedAt?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "user": "65f0c0ffee00000000000001",
           *       "name": "Tower A",
           *       "namespace": "tower-a",
           *       "hostName": "tower-a.example.org",
           *       "administrators": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "editors": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "projects": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Group'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description The owner’s plan does not allow this (plans on): `plan`, `limit` and `allowed` name the plan and its limit */
      402: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  inviteToProject: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "email": "ana@example.com",
         *       "firstName": "Ana",
         *       "lastName": "Ruiz",
         *       "level": "administrator"
         *     }
         */
        'application/json': {
          /**
           * Format: email
           * @description The address the invitation is mailed to; the account it creates or joins
           */
          email: string;
          /** @description First name of the invitee, for the mail */
          firstName?: string;
          /** @description Last name of the invitee, for the mail */
          lastName?: string;
          /** @description The role the invitee gets: `administrator` (joins the `administrators` list), `editor` (joins `editors`), or `owner` (the record is handed to them when they accept; the current owner becomes an administrator; only the owner may send it) */
          level: 'administrator' | 'editor' | 'owner';
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "email": "ana@example.com",
           *       "firstName": "Ana",
           *       "lastName": "Ruiz",
           *       "level": "administrator",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "expiresAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description The address the invitation was mailed to */
            email: string;
            /** @description First name of the invitee */
            firstName?: string;
            /** @description Last name of the invitee */
            lastName?: string;
            /** @description Where the invitee lands once they accept */
            level: 'administrator' | 'editor' | 'owner';
            /**
             * Format: date-time
             * @description When the invitation was made
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description When the invitation link stops working
             */
            expiresAt: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeProjectInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        inviteId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  inviteToGroup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "email": "ana@example.com",
         *       "firstName": "Ana",
         *       "lastName": "Ruiz",
         *       "level": "administrator"
         *     }
         */
        'application/json': {
          /**
           * Format: email
           * @description The address the invitation is mailed to; the account it creates or joins
           */
          email: string;
          /** @description First name of the invitee, for the mail */
          firstName?: string;
          /** @description Last name of the invitee, for the mail */
          lastName?: string;
          /** @description The role the invitee gets: `administrator` (joins the `administrators` list), `editor` (joins `editors`), or `owner` (the record is handed to them when they accept; the current owner becomes an administrator; only the owner may send it) */
          level: 'administrator' | 'editor' | 'owner';
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "email": "ana@example.com",
           *       "firstName": "Ana",
           *       "lastName": "Ruiz",
           *       "level": "administrator",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "expiresAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description The address the invitation was mailed to */
            email: string;
            /** @description First name of the invitee */
            firstName?: string;
            /** @description Last name of the invitee */
            lastName?: string;
            /** @description Where the invitee lands once they accept */
            level: 'administrator' | 'editor' | 'owner';
            /**
             * Format: date-time
             * @description When the invitation was made
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description When the invitation link stops working
             */
            expiresAt: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeGroupInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        inviteId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  requestPaymentsOnboarding: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "url": "https://example.org/a.png"
           *     }
           */
          'application/json': {
            /**
             * Format: uri
             * @description Stripe's onboarding page for the caller's connected account (an account link: single use, short-lived)
             */
            url: string;
          };
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getPaymentsState: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Whether this server takes payments, and how the caller’s Stripe account stands */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "available": true,
           *       "connected": true,
           *       "detailsSubmitted": true,
           *       "chargesEnabled": true,
           *       "missing": [
           *         "external_account",
           *         "tos_acceptance.date"
           *       ],
           *       "disabledReason": "example"
           *     }
           */
          'application/json': components['schemas']['PaymentsState'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listProjectsDeposits: {
    parameters: {
      query?: {
        /** @description One unit's deposits (the console's unit sheet) */
        'filters[unit]'?: string;
        /** @description CSV instead of JSON (as `Accept: text/csv`) */
        format?: 'csv';
        /** @description Deposits to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most deposits to return, 1–1000 (default 100) */
        'options[limit]'?: number;
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The deposits as JSON, or as CSV when asked for */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "project": "65f0c0ffee00000000000001",
           *         "unit": "65f0c0ffee00000000000001",
           *         "lead": "65f0c0ffee00000000000001",
           *         "status": "pending",
           *         "amount": 50000,
           *         "currency": "usd",
           *         "buyerName": "example",
           *         "buyerEmail": "example",
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "expiresAt": "2026-03-01T09:30:00.000Z",
           *         "paidAt": "2026-03-01T09:30:00.000Z",
           *         "expiredAt": "2026-03-01T09:30:00.000Z",
           *         "refundedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Deposit'][];
          'text/csv': string;
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  refundDeposit: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A deposit taken with a hold, through the project owner’s Stripe account */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "project": "65f0c0ffee00000000000001",
           *       "unit": "65f0c0ffee00000000000001",
           *       "lead": "65f0c0ffee00000000000001",
           *       "status": "pending",
           *       "amount": 50000,
           *       "currency": "usd",
           *       "buyerName": "example",
           *       "buyerEmail": "example",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "expiresAt": "2026-03-01T09:30:00.000Z",
           *       "paidAt": "2026-03-01T09:30:00.000Z",
           *       "expiredAt": "2026-03-01T09:30:00.000Z",
           *       "refundedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Deposit'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getCurrentUserSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "plans": [
           *         {
           *           "name": "starter",
           *           "publishedProjects": 1,
           *           "hideBranding": true
           *         }
           *       ],
           *       "trialDays": 0,
           *       "planInEffect": "starter",
           *       "subscription": {
           *         "status": "ok",
           *         "plan": "starter",
           *         "trialEnd": "2026-03-01T09:30:00.000Z",
           *         "currentPeriodEnd": "2026-03-01T09:30:00.000Z",
           *         "cancelAtPeriodEnd": true
           *       },
           *       "publishedProjects": 0
           *     }
           */
          'application/json': {
            /** @description The plans on offer and what each allows */
            plans: {
              /** @description starter: publishes up to PLAN_STARTER_PROJECTS projects at once, the branding shown; pro: any number, the branding may be hidden */
              name: 'starter' | 'pro';
              /** @description Projects published at once (null: any number) */
              publishedProjects: number | null;
              /** @description Whether the Showsuite branding may be hidden (showBranding, preferences) */
              hideBranding: boolean;
            }[];
            /** @description The trial a checkout starts with now (0: the caller took theirs, or there is none) */
            trialDays: number;
            /** @description The plan that counts now (null: none; publishing needs one): the subscription’s while in good standing or until its paid period ends */
            planInEffect: ('starter' | 'pro') | null;
            /** @description The caller’s subscription (null: never subscribed) */
            subscription: components['schemas']['Subscription'] | null;
            /** @description The caller’s projects published now (what the Starter limit counts) */
            publishedProjects: number;
          };
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  requestSubscriptionCheckout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "plan": "starter"
         *     }
         */
        'application/json': {
          /** @description starter: publishes up to PLAN_STARTER_PROJECTS projects at once, the branding shown; pro: any number, the branding may be hidden */
          plan: 'starter' | 'pro';
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "url": "https://example.org/a.png"
           *     }
           */
          'application/json': {
            /**
             * Format: uri
             * @description Stripe's page to send the user to (single use, short-lived)
             */
            url: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  requestSubscriptionPortal: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "url": "https://example.org/a.png"
           *     }
           */
          'application/json': {
            /**
             * Format: uri
             * @description Stripe's page to send the user to (single use, short-lived)
             */
            url: string;
          };
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listWaitlistees: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "firstName": "Ana",
           *         "lastName": "Ruiz",
           *         "email": "ana@example.com",
           *         "phone": "+1 555 0100",
           *         "createdAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': {
            /** @description The sign-up's lead (PATCH /leads/{id}: its status, notes, rank) */
            _id: string;
            firstName?: string;
            lastName?: string;
            email?: string;
            phone?: string;
            /** @description The unit asked about, when the sign-up named one */
            unit?: string;
            /**
             * Format: date-time
             * @description When the visitor signed up
             */
            createdAt: string;
          }[];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listLeads: {
    parameters: {
      query?: {
        /** @description One project's leads; without it, the leads of every project whose leads the caller may read */
        project?: string;
        /** @description csv: the same list as RFC 4180 CSV (as `Accept: text/csv`); xlsx: as an Excel workbook (as the XLSX `Accept`) */
        format?: 'json' | 'csv' | 'xlsx';
        /** @description Only records changed at or after this time (ISO 8601) */
        'filters[updatedSince]'?: string;
        /** @description A substring of the name ("first last"), e-mail or phone, any case */
        'filters[q]'?: string;
        /** @description new, contacted, qualified or lost */
        'filters[status]'?: 'new' | 'contacted' | 'qualified' | 'lost';
        /** @description The `unit` the lead names, exactly */
        'filters[unit]'?: string;
        /** @description The `source`, exactly (presentation, hold, waitlist, …) */
        'filters[source]'?: string;
        /** @description Leads assigned to this user */
        'filters[assignee]'?: string;
        /** @description Leads made at or after this time (a date: from its start, UTC) */
        'filters[createdFrom]'?: string;
        /** @description Leads made at or before this time (a date: to its end, UTC) */
        'filters[createdTo]'?: string;
        /** @description One person's leads: this e-mail address exactly, any case (a repeat contact's history) */
        'filters[email]'?: string;
        /** @description Records to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most records to return, 1–500 (default 100) */
        'options[limit]'?: number;
        /** @description Field to sort by, `-` for descending; ties break on `_id` so pages are stable */
        'options[sort]'?: 'name' | '-name' | 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';
        /** @description An export (csv, xlsx) for people: with an IANA time zone (`America/Toronto`, `UTC`), `project`, `unit` and `assignee` are written as names (a member by name, else e-mail), times as `YYYY-MM-DD HH:mm` in that zone, and a last column `timeZone` names it. Without it the export holds ids and ISO 8601 UTC times. Ignored for JSON */
        tz?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The leads as JSON, or as CSV when asked for */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "firstName": "Ana",
           *         "lastName": "Ruiz",
           *         "email": "ana@example.com",
           *         "phone": "+1 555 0100",
           *         "message": "Is the corner unit still available?",
           *         "source": "presentation",
           *         "status": "new",
           *         "assignee": "65f0c0ffee00000000000001",
           *         "notes": "example",
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Lead'][];
          'text/csv': string;
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': string;
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteLead: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateLead: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "status": "new"
         *     }
         */
        'application/json': {
          /** @description new, contacted, qualified or lost */
          status?: 'new' | 'contacted' | 'qualified' | 'lost';
          /** @description Text; null clears */
          notes?: string | null;
          /** @description A user of the project's team (owner, administrator, editor); null unassigns */
          assignee?: string | null;
          /** @description A waitlist entry's place in its unit's waiting list (1 is first; past the end is last; the others close up), with the project's specialRankEnabled (else 403); a lead that is no waitlist entry for a unit → 400 */
          rank?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "firstName": "Ana",
           *       "lastName": "Ruiz",
           *       "email": "ana@example.com",
           *       "phone": "+1 555 0100",
           *       "message": "Is the corner unit still available?",
           *       "source": "presentation",
           *       "status": "new",
           *       "assignee": "65f0c0ffee00000000000001",
           *       "notes": "example",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Lead'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listProjectTeam: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "role": "owner",
           *         "name": "Tower A",
           *         "email": "ana@example.com"
           *       }
           *     ]
           */
          'application/json': components['schemas']['TeamMember'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listGroupTeam: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "role": "owner",
           *         "name": "Tower A",
           *         "email": "ana@example.com"
           *       }
           *     ]
           */
          'application/json': components['schemas']['TeamMember'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  exportBuyerData: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "email": "ana@example.com",
         *       "project": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          /**
           * Format: email
           * @description The buyer’s e-mail address (any case)
           */
          email: string;
          /** @description Only this project (its owner or administrators); without it every project the caller may read leads of */
          project?: string;
        };
      };
    };
    responses: {
      /** @description Everything the service holds about one e-mail address */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'Content-Disposition'?: string;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "email": "ana@example.com",
           *       "exportedAt": "2026-03-01T09:30:00.000Z",
           *       "leads": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "__v": 1,
           *           "project": "65f0c0ffee00000000000001",
           *           "firstName": "Ana",
           *           "lastName": "Ruiz",
           *           "email": "ana@example.com",
           *           "phone": "+1 555 0100",
           *           "message": "Is the corner unit still available?",
           *           "source": "presentation",
           *           "status": "new",
           *           "assignee": "65f0c0ffee00000000000001",
           *           "notes": "example",
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "updatedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ],
           *       "waitlist": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "__v": 1,
           *           "project": "65f0c0ffee00000000000001",
           *           "firstName": "Ana",
           *           "lastName": "Ruiz",
           *           "email": "ana@example.com",
           *           "phone": "+1 555 0100",
           *           "message": "Is the corner unit still available?",
           *           "source": "presentation",
           *           "status": "new",
           *           "assignee": "65f0c0ffee00000000000001",
           *           "notes": "example",
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "updatedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ],
           *       "holds": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "project": "65f0c0ffee00000000000001",
           *           "unit": "65f0c0ffee00000000000001",
           *           "lead": "65f0c0ffee00000000000001",
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "extendedAt": "2026-03-01T09:30:00.000Z",
           *           "releasedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ],
           *       "worksheets": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "__v": 1,
           *           "project": "65f0c0ffee00000000000001",
           *           "status": "submitted",
           *           "allocation": "example",
           *           "buyer": {
           *             "firstName": "Ana",
           *             "lastName": "Ruiz",
           *             "email": "ana@example.com",
           *             "phone": "+1 555 0100"
           *           },
           *           "choices": [
           *             "65f0c0ffee00000000000001"
           *           ],
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "updatedAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ],
           *       "mail": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "state": "example",
           *           "to": [
           *             "example"
           *           ],
           *           "subject": "example",
           *           "date": "2026-03-01T09:30:00.000Z",
           *           "text": "example"
           *         }
           *       ],
           *       "events": [
           *         {
           *           "id": "65f0c0ffee00000000000001",
           *           "seq": 1,
           *           "type": "project.updated",
           *           "projectId": "65f0c0ffee00000000000001",
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "actor": {
           *             "kind": "user"
           *           },
           *           "data": {
           *             "_id": "65f0c0ffee00000000000001"
           *           }
           *         }
           *       ],
           *       "webhookDeliveries": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "webhook": "65f0c0ffee00000000000001",
           *           "event": "65f0c0ffee00000000000001",
           *           "seq": 1,
           *           "status": "ok",
           *           "createdAt": "2026-03-01T09:30:00.000Z",
           *           "deliveredAt": "2026-03-01T09:30:00.000Z"
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['BuyerData'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  eraseBuyerData: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "email": "ana@example.com",
         *       "project": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json': {
          /**
           * Format: email
           * @description The buyer’s e-mail address (any case)
           */
          email: string;
          /** @description Only this project (its owner or administrators); without it every project the caller may read leads of */
          project?: string;
        };
      };
    };
    responses: {
      /** @description What an erasure removed, by kind */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "erased": {
           *         "leads": 1,
           *         "waitlist": 1,
           *         "holds": 1,
           *         "worksheets": 1,
           *         "events": 1,
           *         "webhookDeliveries": 1,
           *         "mail": 1,
           *         "storedAnswers": 1
           *       }
           *     }
           */
          'application/json': components['schemas']['Erasure'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  uploadMedia: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'multipart/form-data': {
          /** @description The file (required) */
          file?: string;
        };
      };
    };
    responses: {
      /** @description Stored */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "url": "https://example.org/hooks/showsuite",
           *       "contentType": "image/png",
           *       "size": 1
           *     }
           */
          'application/json': {
            /** @description Where the file is served: `/media/<content hash>.<extension>` */
            url: string;
            /** @description What the content was recognised as */
            contentType: string;
            /** @description Bytes stored (an SVG after sanitising) */
            size: number;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listProjectEvents: {
    parameters: {
      query?: {
        /** @description Events after this seq (0: from the start) */
        after?: number;
        limit?: number;
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "id": "65f0c0ffee00000000000001",
           *         "seq": 1,
           *         "type": "project.updated",
           *         "projectId": "65f0c0ffee00000000000001",
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "actor": {
           *           "kind": "user"
           *         },
           *         "data": {
           *           "_id": "65f0c0ffee00000000000001"
           *         }
           *       }
           *     ]
           */
          'application/json': components['schemas']['Event'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listUnitHistory: {
    parameters: {
      query?: {
        /** @description Changes before this seq (the next page) */
        before?: number;
        limit?: number;
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "seq": 1,
           *         "type": "unit.updated",
           *         "at": "2026-03-01T09:30:00.000Z",
           *         "actor": {
           *           "kind": "user"
           *         }
           *       }
           *     ]
           */
          'application/json': {
            seq: number;
            /**
             * @description The event type (unit.created, unit.updated, unit.held, unit.hold_expired, unit.hold_released, unit.hold_extended)
             * @example unit.updated
             */
            type: string;
            /** Format: date-time */
            at: string;
            actor: components['schemas']['EventActor'];
            changes?: components['schemas']['EventChanges'];
          }[];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listWebhooks: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "url": "https://example.org/hooks/showsuite",
           *         "events": [
           *           "unit.updated"
           *         ],
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Webhook'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createWebhook: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Retry-safe key (1–200 visible ASCII characters, a UUID is ideal): a retry with the same key and request gets the first answer again and writes nothing more; the same key with another request → 422. Kept 24 hours.
         * @example 6f1c1f0e-2f4a-4b59-9d0e-0a6f5a1c2b3d
         */
        'Idempotency-Key'?: components['parameters']['IdempotencyKey'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "url": "https://crm.example.com/hooks/showsuite",
         *       "events": [
         *         "unit.updated",
         *         "lead.created"
         *       ]
         *     }
         */
        'application/json': {
          /**
           * @description http(s) URL; loopback, private and other non-public addresses are refused, in any spelling, unless ALLOW_PRIVATE_TARGETS=true
           * @example https://crm.example.com/hooks/showsuite
           */
          url: string;
          /**
           * @example [
           *       "unit.updated",
           *       "lead.created"
           *     ]
           */
          events: (
            | 'project.updated'
            | 'floor.created'
            | 'floor.updated'
            | 'floor.deleted'
            | 'unit.created'
            | 'unit.updated'
            | 'unit.deleted'
            | 'unit.held'
            | 'unit.hold_expired'
            | 'unit.hold_released'
            | 'unit.hold_extended'
            | 'lead.created'
            | 'lead.updated'
            | 'inventory.imported'
            | 'worksheet.submitted'
            | 'worksheet.accepted'
            | 'worksheet.declined'
            | 'deposit.pending'
            | 'deposit.paid'
            | 'deposit.expired'
            | 'deposit.refunded'
            | '*'
          )[];
          description?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          Location: components['headers']['Location'];
          ETag: components['headers']['ETag'];
          'Idempotent-Replayed': components['headers']['Idempotent-Replayed'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "url": "https://example.org/hooks/showsuite",
           *       "events": [
           *         "unit.updated"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z",
           *       "secret": "whsec_c2VjcmV0"
           *     }
           */
          'application/json': {
            /** @description 24-character lower-case hex identifier */
            _id: string;
            /** @description Version of the record, raised by every change; the ETag is `"<__v>"`. Send it as If-Match on PATCH or DELETE. Ignored in bodies. */
            readonly __v: number;
            /** @description 24-character lower-case hex identifier */
            project: string;
            url: string;
            events: string[];
            description?: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The signing secret: shown only in this answer. Verify deliveries with it (docs/events.md). */
            secret: string;
          };
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Idempotency-Key reused with another request */
      422: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getWebhook: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description The ETag of the copy the client holds; when it is still current the answer is 304 with no body.
         * @example "65f0c0ffee00000000000001-12-0"
         */
        'If-None-Match'?: components['parameters']['IfNoneMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
        /** @description 24-character lower-case hex identifier */
        hookId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "url": "https://example.org/hooks/showsuite",
           *       "events": [
           *         "unit.updated"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Webhook'];
        };
      };
      /** @description Not modified: the If-None-Match ETag is still current; no body */
      304: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteWebhook: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        hookId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateWebhook: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Only act if the record is still at this version: its ETag, or `"<__v>"` from any record or list. A stale one → 412 and nothing is written.
         * @example "3"
         */
        'If-Match'?: components['parameters']['IfMatch'];
      };
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
        /** @description 24-character lower-case hex identifier */
        hookId: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "url": "https://crm.example.com/hooks/showsuite",
         *       "events": [
         *         "unit.updated",
         *         "lead.created"
         *       ]
         *     }
         */
        'application/json': {
          /**
           * @description http(s) URL; loopback, private and other non-public addresses are refused, in any spelling, unless ALLOW_PRIVATE_TARGETS=true
           * @example https://crm.example.com/hooks/showsuite
           */
          url?: string;
          /**
           * @example [
           *       "unit.updated",
           *       "lead.created"
           *     ]
           */
          events?: (
            | 'project.updated'
            | 'floor.created'
            | 'floor.updated'
            | 'floor.deleted'
            | 'unit.created'
            | 'unit.updated'
            | 'unit.deleted'
            | 'unit.held'
            | 'unit.hold_expired'
            | 'unit.hold_released'
            | 'unit.hold_extended'
            | 'lead.created'
            | 'lead.updated'
            | 'inventory.imported'
            | 'worksheet.submitted'
            | 'worksheet.accepted'
            | 'worksheet.declined'
            | 'deposit.pending'
            | 'deposit.paid'
            | 'deposit.expired'
            | 'deposit.refunded'
            | '*'
          )[];
          description?: string | null;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "url": "https://example.org/hooks/showsuite",
           *       "events": [
           *         "unit.updated"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Webhook'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description If-Match does not match the current ETag */
      412: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listWebhookDeliveries: {
    parameters: {
      query?: {
        before?: number;
        limit?: number;
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
        /** @description 24-character lower-case hex identifier */
        hookId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "event": {
           *           "id": "65f0c0ffee00000000000001",
           *           "seq": 1,
           *           "type": "example"
           *         },
           *         "status": "pending",
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "attempts": [
           *           {
           *             "attempt": 1,
           *             "at": "2026-03-01T09:30:00.000Z",
           *             "durationMs": 1
           *           }
           *         ]
           *       }
           *     ]
           */
          'application/json': components['schemas']['WebhookDelivery'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  retryWebhookDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
        /** @description 24-character lower-case hex identifier */
        hookId: string;
        /** @description 24-character lower-case hex identifier */
        deliveryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      202: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "event": {
           *         "id": "65f0c0ffee00000000000001",
           *         "seq": 1,
           *         "type": "example"
           *       },
           *       "status": "pending",
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "attempts": [
           *         {
           *           "attempt": 1,
           *           "at": "2026-03-01T09:30:00.000Z",
           *           "durationMs": 1
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['WebhookDelivery'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listIntegrations: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "name": "spark",
           *         "label": "Salesforce",
           *         "fields": [
           *           "example"
           *         ],
           *         "complete": true,
           *         "crm": true,
           *         "testable": true,
           *         "connected": true
           *       }
           *     ]
           */
          'application/json': components['schemas']['IntegrationState'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  testIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
        /** @description spark, salesforce, zoho (CRMs), rentcafe (inventory), cal (scheduling) */
        name: 'spark' | 'salesforce' | 'zoho' | 'rentcafe' | 'cal';
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "name": "spark",
           *       "label": "Salesforce",
           *       "fields": [
           *         "example"
           *       ],
           *       "complete": true,
           *       "crm": true,
           *       "testable": true,
           *       "connected": true
           *     }
           */
          'application/json': components['schemas']['IntegrationState'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A server this one called failed or did not answer (an inventory feed, the sign-in provider, the media store); `detail` names which */
      502: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listProjectsInsights: {
    parameters: {
      query?: {
        /** @description First day, UTC (default: 29 days before `to`) */
        from?: string;
        /** @description Last day, UTC, included (default: today) */
        to?: string;
        /** @description Series per day (default) or per ISO week (Monday) */
        interval?: 'day' | 'week';
        /** @description csv: the `units` table as CSV (as `Accept: text/csv`) */
        format?: 'json' | 'csv';
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The the units table as JSON, or as CSV when asked for */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "from": "2026-03-01",
           *       "to": "2026-03-01",
           *       "interval": "day",
           *       "totals": {
           *         "visitors": 0,
           *         "pageViews": 0,
           *         "unitViews": 0,
           *         "enquiries": 0,
           *         "holds": 0,
           *         "waitlist": 0
           *       },
           *       "series": [
           *         {
           *           "date": "2026-03-01",
           *           "visitors": 0,
           *           "pageViews": 0,
           *           "unitViews": 0,
           *           "enquiries": 0,
           *           "holds": 0
           *         }
           *       ],
           *       "funnel": {
           *         "visitors": 0,
           *         "unitViewers": 0,
           *         "enquirers": 0,
           *         "holders": 0
           *       },
           *       "units": [
           *         {
           *           "_id": "65f0c0ffee00000000000001",
           *           "name": "Tower A",
           *           "views": 0,
           *           "enquiries": 0,
           *           "holds": 0
           *         }
           *       ],
           *       "sources": [
           *         {
           *           "source": "presentation",
           *           "visitors": 0
           *         }
           *       ]
           *     }
           */
          'application/json': components['schemas']['Insights'];
          'text/csv': string;
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createProjectsReportsSend: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description 24-character lower-case hex identifier
         * @example 65f0c0ffee00000000000001
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Queued */
      202: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listUnitsWaitlist: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "firstName": "Ana",
           *         "lastName": "Ruiz",
           *         "email": "ana@example.com",
           *         "phone": "+1 555 0100",
           *         "message": "Is the corner unit still available?",
           *         "source": "presentation",
           *         "status": "new",
           *         "assignee": "65f0c0ffee00000000000001",
           *         "notes": "example",
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Lead'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listProjectsWorksheets: {
    parameters: {
      query?: {
        status?: 'submitted' | 'accepted' | 'declined';
        /** @description Worksheets to skip (default 0) */
        'options[skip]'?: number;
        /** @description Most worksheets to return, 1–1000 (default 100) */
        'options[limit]'?: number;
      };
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          'X-Total-Count': components['headers']['X-Total-Count'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "_id": "65f0c0ffee00000000000001",
           *         "__v": 1,
           *         "project": "65f0c0ffee00000000000001",
           *         "status": "submitted",
           *         "allocation": "example",
           *         "buyer": {
           *           "firstName": "Ana",
           *           "lastName": "Ruiz",
           *           "email": "ana@example.com",
           *           "phone": "+1 555 0100"
           *         },
           *         "choices": [
           *           "65f0c0ffee00000000000001"
           *         ],
           *         "createdAt": "2026-03-01T09:30:00.000Z",
           *         "updatedAt": "2026-03-01T09:30:00.000Z"
           *       }
           *     ]
           */
          'application/json': components['schemas']['Worksheet'][];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateWorksheets: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description 24-character lower-case hex identifier */
        id: string;
      };
      cookie?: never;
    };
    /** @description Accept with a unit (the unit turns reserved), or decline */
    requestBody: {
      content: {
        /**
         * @example {
         *       "status": "accepted",
         *       "unit": "65f0c0ffee00000000000001"
         *     }
         */
        'application/json':
          | {
              /** @enum {string} */
              status: 'accepted';
              /** @description One of its choices, still available or held by its allocation */
              unit: string;
            }
          | {
              /** @enum {string} */
              status: 'declined';
            };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "_id": "65f0c0ffee00000000000001",
           *       "__v": 1,
           *       "project": "65f0c0ffee00000000000001",
           *       "status": "submitted",
           *       "allocation": "example",
           *       "buyer": {
           *         "firstName": "Ana",
           *         "lastName": "Ruiz",
           *         "email": "ana@example.com",
           *         "phone": "+1 555 0100"
           *       },
           *       "choices": [
           *         "65f0c0ffee00000000000001"
           *       ],
           *       "createdAt": "2026-03-01T09:30:00.000Z",
           *       "updatedAt": "2026-03-01T09:30:00.000Z"
           *     }
           */
          'application/json': components['schemas']['Worksheet'];
        };
      };
      /** @description Invalid input; `errors` names each bad field */
      400: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, invalid or expired credentials */
      401: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Not found, or not visible to the caller */
      404: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Conflict with the current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body larger than 1 MiB */
      413: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A path segment is longer than 100 characters */
      414: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unexpected error; the body carries a request id */
      500: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Unavailable for now: the database or a store did not answer, or the service is starting; retry after Retry-After */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  webhookProjectUpdated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ProjectUpdatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookFloorCreated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['FloorCreatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookFloorUpdated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['FloorUpdatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookFloorDeleted: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['FloorDeletedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitCreated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitCreatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitUpdated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitUpdatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitDeleted: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitDeletedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitHeld: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitHeldEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitHoldExpired: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitHoldExpiredEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitHoldReleased: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitHoldReleasedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookUnitHoldExtended: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnitHoldExtendedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookLeadCreated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LeadCreatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookLeadUpdated: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LeadUpdatedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookInventoryImported: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['InventoryImportedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookWorksheetSubmitted: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WorksheetSubmittedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookWorksheetAccepted: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WorksheetAcceptedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookWorksheetDeclined: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WorksheetDeclinedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookDepositPending: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DepositPendingEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookDepositPaid: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DepositPaidEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookDepositExpired: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DepositExpiredEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhookDepositRefunded: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery id, the same on every attempt */
        'webhook-id': string;
        /** @description Seconds since the epoch when this attempt was signed */
        'webhook-timestamp': string;
        /** @description v1,<base64 signature> */
        'webhook-signature': string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DepositRefundedEvent'];
      };
    };
    responses: {
      /** @description Any 2xx: delivered */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Any other answer, or none within 10 s: retried later */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
