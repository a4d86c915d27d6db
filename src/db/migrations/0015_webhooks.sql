-- Webhooks: per-project subscriptions, and one delivery per (webhook, event).
create table webhooks (
  id           char(24) primary key,
  project_id   char(24) not null references projects(id) on delete cascade,
  url          text not null,
  -- Event types, or '*' for all.
  events       text[] not null,
  description  text,
  -- The whsec_ secret, sealed with SECRET_KEY like every other secret; shown once, at creation.
  secret       text not null,
  version      integer not null default 1,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now()
);
create index webhooks_project_idx on webhooks (project_id);

-- Written in the event's transaction. A webhook's deliveries go out one at a time in seq order: only the oldest
-- pending one has an outbox job; when it is delivered (or given up) the next one gets its job.
create table webhook_deliveries (
  id               char(24) primary key,
  webhook_id       char(24) not null references webhooks(id) on delete cascade,
  event_id         char(24) not null references events(id) on delete cascade,
  seq              bigint not null,
  status           text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  created_at       timestamptz not null,
  delivered_at     timestamptz,
  unique (webhook_id, seq)
);
create index webhook_deliveries_pending_idx on webhook_deliveries (webhook_id, seq) where status = 'pending';

create table webhook_attempts (
  delivery_id      char(24) not null references webhook_deliveries(id) on delete cascade,
  attempt          integer not null,
  at               timestamptz not null,
  response_status  integer,
  error            text,
  duration_ms      integer not null,
  manual           boolean not null default false,
  primary key (delivery_id, attempt)
);
