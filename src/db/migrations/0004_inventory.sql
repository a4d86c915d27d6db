-- Inventory imports (uploads and FTP/SFTP feed pulls) and the feed schedule's claims.
create table inventory_syncs (
  id           char(24) primary key,
  project_id   char(24) not null references projects(id) on delete cascade,
  source       text not null check (source in ('upload', 'ftp')),
  status       text not null check (status in ('applied', 'failed')),
  started_at   timestamptz not null,
  finished_at  timestamptz not null,
  summary      jsonb not null default '{}'::jsonb,
  errors       jsonb not null default '[]'::jsonb,
  user_id      char(24)
);
create index inventory_syncs_project_idx on inventory_syncs (project_id, started_at desc, id desc);

-- One row per project whose feed the schedule has pulled: a node claims a pull by moving `claimed_at` forward
-- in one conditional statement, so one pull per project per interval happens across all nodes.
create table inventory_feed_claims (
  project_id  char(24) primary key references projects(id) on delete cascade,
  claimed_at  timestamptz not null
);
