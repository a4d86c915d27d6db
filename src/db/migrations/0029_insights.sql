-- Insights (docs/insights.md): page events the buyer's page sends, counted without cookies or stored addresses.

-- One random salt per UTC day, shared by every node (created by whichever node needs it first: an insert that
-- does nothing when the day has one). A visitor is a keyed hash of the day's salt, the project, the client
-- address and the user agent; salts older than two days are deleted, after which no hash can be recomputed.
create table insight_salts (
  day   date primary key,
  salt  bytea not null
);

-- Who was seen on a day, by that hash only: a visitor is counted once a day. Deleted with the day's salt.
create table insight_visitor_days (
  project_id   char(24) not null references projects(id) on delete cascade,
  day          date not null,
  visitor      bytea not null,
  unit_viewer  boolean not null,
  primary key (project_id, day, visitor)
);

-- Raw events, kept INSIGHTS_RETENTION_DAYS. The referrer is its host only; the path has no query string.
create table insight_events (
  id            bigint generated always as identity primary key,
  project_id    char(24) not null references projects(id) on delete cascade,
  at            timestamptz not null,
  type          text not null,
  unit_id       char(24),
  path          text,
  referrer      text,
  utm_source    text,
  utm_medium    text,
  utm_campaign  text,
  visitor       bytea not null
);
-- Retention deletes by age.
create index insight_events_at_idx on insight_events (at);

-- Daily totals, kept up to date by the statement that stores each event; kept after raw events are deleted.
create table insight_daily (
  project_id      char(24) not null references projects(id) on delete cascade,
  day             date not null,
  visitors        integer not null default 0,
  unit_viewers    integer not null default 0,
  page_views      integer not null default 0,
  unit_views      integer not null default 0,
  plan_views      integer not null default 0,
  list_views      integer not null default 0,
  building_views  integer not null default 0,
  filters         integer not null default 0,
  shares          integer not null default 0,
  gallery         integer not null default 0,
  brochure        integer not null default 0,
  primary key (project_id, day)
);

create table insight_daily_units (
  project_id  char(24) not null references projects(id) on delete cascade,
  day         date not null,
  unit_id     char(24) not null,
  views       integer not null default 0,
  primary key (project_id, day, unit_id)
);

-- Visitors by where they came from (utm source, else the referrer's host, else "direct"), counted at a visitor's
-- first event of the day.
create table insight_daily_sources (
  project_id  char(24) not null references projects(id) on delete cascade,
  day         date not null,
  source      text not null,
  visitors    integer not null default 0,
  primary key (project_id, day, source)
);

-- One weekly report per project and week across every node: the node whose insert makes the row queues it.
create table insight_report_claims (
  project_id  char(24) not null references projects(id) on delete cascade,
  week        date not null,
  claimed_at  timestamptz not null,
  primary key (project_id, week)
);
