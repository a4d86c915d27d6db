-- Projects, floors, units, leads and groups.
-- Typed columns hold identity, references, what is searched, sorted or locked; `data` (jsonb) holds the many
-- presentation fields of the interface, merged field by field on PATCH; `secrets` holds AES-256-GCM sealed values.
create extension if not exists pg_trgm;

create table projects (
  id               char(24) primary key,
  user_id          char(24) not null references users(id),
  name             text not null,
  namespace        text,
  host_name        text,
  project_type     text,
  administrators   char(24)[] not null default '{}',
  editors          char(24)[] not null default '{}',
  data             jsonb not null default '{}'::jsonb,
  secrets          jsonb not null default '{}'::jsonb,
  version          integer not null default 1,
  -- Bumped by every write to the project, its floors or its units (triggers below): the public bundle's ETag.
  content_version  bigint not null default 1,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create unique index projects_namespace_key on projects (namespace);
create unique index projects_host_name_key on projects (lower(host_name));
create index projects_user_idx on projects (user_id, created_at desc, id);
create index projects_created_idx on projects (created_at desc, id);
create index projects_administrators_idx on projects using gin (administrators) with (fastupdate = off);
create index projects_editors_idx on projects using gin (editors) with (fastupdate = off);
-- fastupdate off: no pending list, so the planner sees (and uses) the index right after bulk inserts.
create index projects_name_trgm_idx on projects using gin (name gin_trgm_ops) with (fastupdate = off);
create index projects_type_idx on projects (project_type);

create table floors (
  id          char(24) primary key,
  project_id  char(24) not null references projects(id) on delete cascade,
  name        text not null,
  position    double precision not null default 0,
  data        jsonb not null default '{}'::jsonb,
  version     integer not null default 1,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now()
);
create index floors_project_idx on floors (project_id, position, id);

create table units (
  id                  char(24) primary key,
  project_id          char(24) not null references projects(id) on delete cascade,
  floor_id            char(24) references floors(id) on delete cascade,
  name                text not null,
  position            double precision not null default 0,
  availability        text not null default 'available'
                      check (availability in ('available', 'on_hold', 'reserved', 'sold', 'leased', 'unavailable')),
  on_hold_expires_at  timestamptz,
  -- Client address that placed a public hold (caps holds per address); never returned.
  held_by             text,
  data                jsonb not null default '{}'::jsonb,
  version             integer not null default 1,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now()
);
create index units_floor_idx on units (floor_id, position, id);
create index units_project_idx on units (project_id, position, id);
create index units_holds_idx on units (on_hold_expires_at) where availability = 'on_hold';
create index units_held_by_idx on units (held_by) where availability = 'on_hold';

create table leads (
  id          char(24) primary key,
  project_id  char(24) not null references projects(id) on delete cascade,
  data        jsonb not null default '{}'::jsonb,
  created_at  timestamptz not null default now()
);
create index leads_project_idx on leads (project_id, created_at desc, id desc);

create table groups (
  id              char(24) primary key,
  user_id         char(24) not null references users(id),
  name            text not null,
  namespace       text,
  host_name       text,
  administrators  char(24)[] not null default '{}',
  editors         char(24)[] not null default '{}',
  data            jsonb not null default '{}'::jsonb,
  version         integer not null default 1,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now()
);
create unique index groups_namespace_key on groups (namespace);
create unique index groups_host_name_key on groups (lower(host_name));
create index groups_user_idx on groups (user_id, created_at desc, id);
create index groups_administrators_idx on groups using gin (administrators);
create index groups_editors_idx on groups using gin (editors);

-- A group's projects, in order; deleting a project takes it out of every group.
create table group_projects (
  group_id    char(24) not null references groups(id) on delete cascade,
  project_id  char(24) not null references projects(id) on delete cascade,
  position    integer not null,
  primary key (group_id, project_id)
);
create index group_projects_project_idx on group_projects (project_id);

-- Any change to a floor or unit changes its project's bundle version in the same transaction.
create function bump_project_content() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    update projects set content_version = content_version + 1 where id = old.project_id;
    return old;
  end if;
  update projects set content_version = content_version + 1 where id = new.project_id;
  if tg_op = 'UPDATE' and new.project_id <> old.project_id then
    update projects set content_version = content_version + 1 where id = old.project_id;
  end if;
  return new;
end $$;

create trigger floors_bump_project after insert or update or delete on floors
  for each row execute function bump_project_content();
create trigger units_bump_project after insert or update or delete on units
  for each row execute function bump_project_content();

create function bump_own_content() returns trigger language plpgsql as $$
begin
  new.content_version := old.content_version + 1;
  return new;
end $$;

create trigger projects_bump_content before update on projects
  for each row when (new.data is distinct from old.data or new.name is distinct from old.name
    or new.namespace is distinct from old.namespace or new.host_name is distinct from old.host_name
    or new.project_type is distinct from old.project_type)
  execute function bump_own_content();
