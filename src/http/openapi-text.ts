/**
 * The document's words for people that no route declares: the guide an integrator reads first (info.description)
 * and what each tag groups. The routes name their tags; a tag no operation uses is left out.
 */

export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'auth', description: 'Log in (body or query), refresh the access token (cookie or body), log out, reset a password.' },
  { name: 'users', description: 'Accounts: the caller’s own record, and user creation by platform administrators.' },
  { name: 'projects', description: 'Developments: search, create, change (with If-Match), delete; invitations to a project’s team.' },
  { name: 'floors', description: 'A project’s floors, in position order; each lists its units.' },
  { name: 'units', description: 'Units (apartments, lots, parkings, amenities): list with ranges, create, change one or many, delete.' },
  { name: 'groups', description: 'Groups of projects, with their own team and page settings.' },
  { name: 'leads', description: 'Enquiries collected for a project (owners and administrators).' },
  { name: 'worksheets', description: 'Realtors’ worksheets from their allocations: the sales team’s inbox, accepting with a unit or declining.' },
  {
    name: 'deposits',
    description:
      'Deposits a hold takes through the project owner’s own Stripe account: connecting the account, Stripe’s signed events, the project’s deposits and refunds (docs/deposits.md).',
  },
  {
    name: 'billing',
    description:
      'Plans a hosted Showsuite bills its customers on (BILLING=stripe; off by default): the caller’s plan, Stripe Checkout to take one, the customer portal to change it (docs/billing.md).',
  },
  { name: 'inventory', description: 'Spreadsheet and feed imports of a project’s units, with dry runs and a sync history.' },
  { name: 'events', description: 'The per-project change log (sequence numbers, oldest first) and a unit’s history.' },
  {
    name: 'integrations',
    description:
      'The sales team’s own systems (Spark, Salesforce, Zoho CRM, RENTCafé, Cal.com): each one’s state and a connection test; CRMs are sent every lead.',
  },
  { name: 'webhooks', description: 'Signed HTTP callbacks for project events (Standard Webhooks), with delivery logs and retries.' },
  { name: 'insights', description: 'Page analytics counted without cookies, the sales dashboard of a project and its weekly report.' },
  { name: 'invites', description: 'Reading and accepting an invitation link (no token needed).' },
  { name: 'media', description: 'Uploaded images and PDFs, served with long-lived caching.' },
  {
    name: 'public',
    description: 'What anonymous presentation visitors reach: the presentation bundle, enquiries, holds, the waitlist, realtors’ allocations and worksheets.',
  },
  { name: 'console', description: 'The sales team’s console.' },
  { name: 'operations', description: 'Liveness and readiness probes.' },
];

export const INTRO = `The Showsuite API manages interactive property presentations: projects (developments), their floors and units, groups of projects, and
the enquiries (leads) visitors leave. JSON in and out; this document is generated from the schemas that validate every request.

## Authentication

Log in with \`POST /users/login\` (\`{ "username": "<e-mail>", "password": "…" }\`). The answer carries the access token (a JWT) as \`access_token\`
and \`token\`; send it as \`Authorization: Bearer <token>\`. Login also sets two HttpOnly cookies: \`service\` (the access token) and
\`serviceRefresh\` (the refresh token, path \`/users\`).

- **Lifetimes**: access tokens last 1 day (90 days for role \`integration\`); refresh tokens 7 days. \`POST /users/refresh\` takes the
  \`serviceRefresh\` cookie or \`{ "refresh_token": "…" }\` in the body and rotates it; a refresh token used twice ends its whole login. \`POST
  /users/logout\` ends the session everywhere within 60 seconds.
- **Roles**: \`user\` (default), \`admin\` (platform administrator: sees and changes everything), \`integration\` (an automation connector: a 90-day
  access token and no refresh token — log in again before it lapses).
- **Who may do what**: a project is visible to its owner, its \`administrators\` and \`editors\`. Editors change content, floors and units; owners and
  administrators also change secrets, integration settings and the team, delete floors and units and read leads; only the owner deletes the project. A
  record you cannot see is 404, never 403. Fields that run code on a page or send data somewhere (tag-manager code, embed codes and snippets,
  \`formsSendTo\`, \`reportSendTo\`, \`eventsBlockList\`, \`excludeBlockedEvents\`, \`ftp*\`, \`yiStatusMapping\`) and webhooks are the owner's and
  administrators' alone: an editor's change to one is 403.
- **Cookies and CSRF**: a browser may rely on the \`service\` cookie alone; then a POST, PATCH or DELETE whose \`Origin\` is not one of the service's
  allowed origins is refused (403 \`csrf_rejected\`); without \`Origin\`, \`Sec-Fetch-Site: cross-site\` or a \`Referer\` from another origin is
  refused the same way. Programs should send the Bearer header. Answers to authenticated requests carry \`Cache-Control: no-store\`.
- **Where the pages are**: the buyer's pages (\`/p/{namespace}\`, \`/g/{namespace}\`) are served on their own origin (\`PAGES_URL\`), another host
  than this one, which answers only the pages, \`/public/...\`, \`/media/...\` and the health checks, and reads no cookie. A page asked for here is
  redirected there (308).

## Records, versions and conditional requests

Every record carries \`_id\` (24 hex characters), \`__v\` (its version), \`createdAt\` and \`updatedAt\`. Single-record answers carry \`ETag:
"<__v>"\`. Send \`If-Match\` with that value (from a list item too) on PATCH or DELETE: if someone changed the record since, the answer is 412 and
nothing is written. A GET of one record with \`If-None-Match\` naming its current ETag → 304 with no body. The bulk \`PATCH /units\` takes each
unit's ETag in its item's \`ifMatch\`, not as a header. An empty body with \`Content-Type: application/json\` is no body. A PATCH changes
only the fields it sends; server-kept fields (\`_id\`, \`__v\`, \`createdAt\`, \`updatedAt\`,
\`configuredSecrets\`) may be sent back and are ignored. Secrets are write-only: \`configuredSecrets\` names those that are set.

## Lists

\`GET /projects\`, \`/groups\`, \`/floors\`, \`/units\` and \`/leads\` take \`options[skip]\`, \`options[limit]\` (1–500, default 100) and
\`options[sort]\` (\`name\`, \`createdAt\`, \`updatedAt\`, \`-\` for descending), \`filters[updatedSince]\` (ISO 8601) for "what changed since my last
sync", and answer \`X-Total-Count\`. Object-valued queries use the deep-object form (\`options[limit]=10\`); JSON text (\`options={"limit":10}\`)
works too.

## Errors

Errors are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\` from a closed list (see the \`Problem\` schema), and
\`errors: [{ path, message }]\` naming every bad field of a 400. A 500 carries a \`requestId\`, also in the \`X-Request-Id\` header of every answer.

## Idempotency

\`POST /projects\`, \`/groups\`, \`/floors\`, \`/units\`, \`/projects/{id}/webhooks\`, \`/public/leads\`, \`/public/waitlist\` and \`/public/units/{id}/hold\` honour an
\`Idempotency-Key\` header: a retry with the same key and request gets the first answer again (\`Idempotent-Replayed: true\`) and writes nothing more;
the same key with another request → 422 \`idempotency_key_reused\`.

## Rate limits

Login: after 10 failed attempts for one username from one address within 15 minutes, every attempt for it from there until the window ends; and 60
attempts per minute per address. Public enquiries: 30 per minute per address; holds: 120 requests per minute and 3 live holds per address. Past a
limit the answer is 429 with \`Retry-After\` (seconds). These are the defaults; an operator may change them.

## Guides

The guides explain the service in more words; [all of them](/docs/guides) are listed on one page.

- [The interface in brief: resources, access, records, errors, public endpoints, feeds, mail, webhooks](/docs/guides/interface)
- [Authentication: tokens, cookies, refresh, logout, CSRF](/docs/guides/authentication)
- [Accounts, roles and invitations](/docs/guides/accounts)
- [Errors: problem details and every code](/docs/guides/errors)
- [The public API for presentation pages: bundle, enquiries, holds, waitlist](/docs/guides/public-api)
- [Bulk edits, spreadsheets and inventory feeds](/docs/guides/inventory)
- [Events, the change feed and webhooks](/docs/guides/events)
- [Decisions the specification left open](/docs/guides/decisions)`;
