-- Each project's integrations as last seen: connected or not, the last success, the last error in words (never a
-- credential). Written by the test endpoint and by every push.
create table integration_states (
  project_id text not null references projects (id) on delete cascade,
  name text not null,
  connected boolean not null default false,
  last_success_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (project_id, name)
);

-- A lead as a CRM knows it: the vendor's id once created, and a short claim so one push at a time (on any node)
-- talks to the vendor about one lead (two pushes at once could create it twice).
create table crm_pushes (
  lead_id text not null references leads (id) on delete cascade,
  integration text not null,
  external_id text,
  sent_at timestamptz,
  claimed_until timestamptz,
  primary key (lead_id, integration)
);
