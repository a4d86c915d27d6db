-- Launch day: realtors' worksheets, and the waiting lists of the priority list.

-- A worksheet: a realtor's (an allocation's) request for a buyer, up to three units in order of preference. The
-- sales team accepts it with one unit (that unit becomes reserved in the same transaction) or declines it.
create table worksheets (
  id          char(24) primary key,
  project_id  char(24) not null references projects(id) on delete cascade,
  allocation  text not null,
  buyer       jsonb not null,
  choices     text[] not null,
  notes       text,
  status      text not null default 'submitted' check (status in ('submitted', 'accepted', 'declined')),
  unit_id     char(24) references units(id) on delete set null,
  version     integer not null default 1,
  created_at  timestamptz not null,
  updated_at  timestamptz not null
);
create index worksheets_project_idx on worksheets (project_id, created_at, id);
create index worksheets_pending_idx on worksheets (project_id, allocation) where status = 'submitted';
-- A unit is accepted for one worksheet at most: a second acceptance fails here even if two transactions race.
create unique index worksheets_accepted_unit_idx on worksheets (unit_id) where status = 'accepted';

-- Waitlist entries for a unit, in rank order: the priority list reads the first entry not yet offered.
create index leads_waiting_idx on leads (project_id, (data->>'unit'), ((data->>'rank')::integer))
  where data->>'source' = 'waitlist' and data ? 'rank';
