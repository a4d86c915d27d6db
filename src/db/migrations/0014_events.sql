-- The per-project change log.
-- `seq` is handed out by one counter row per project, updated in the writing transaction: the row lock makes
-- writers of one project take turns from that update to their commit, so numbers follow commit order, and a
-- rolled-back writer gives its number back (no gaps).
create table project_event_counters (
  project_id  char(24) primary key references projects(id) on delete cascade,
  last_seq    bigint not null
);

create table events (
  id          char(24) primary key,
  project_id  char(24) not null references projects(id) on delete cascade,
  seq         bigint not null,
  type        text not null,
  -- data._id: the project, floor, unit or lead the event is about (unit history reads by it).
  subject_id  char(24) not null,
  actor_kind  text not null check (actor_kind in ('user', 'public', 'sync', 'system')),
  actor_id    text,
  data        jsonb not null,
  created_at  timestamptz not null default now(),
  unique (project_id, seq)
);
create index events_subject_idx on events (subject_id, seq desc);
