-- A visitor's hold as a record of its own, so the visitor can come back to it: the secret that lets its holder
-- see, extend and release it (the hold token) is kept only as its SHA-256. units.held_by now names the hold
-- (holds.id) rather than the client address; the address moves here, where the per-address cap counts it.
create table holds (
  id           char(24) primary key,
  unit_id      char(24) not null references units (id) on delete cascade,
  project_id   char(24) not null references projects (id) on delete cascade,
  token_hash   text not null unique,
  -- Who placed it, for the per-address cap: the client address of a public hold.
  client       text not null,
  lead_id      char(24) references leads (id) on delete set null,
  created_at   timestamptz not null,
  -- A hold is extended at most once.
  extended_at  timestamptz,
  released_at  timestamptz
);
create index holds_client_idx on holds (client);
create index holds_unit_idx on holds (unit_id);

-- Holds in progress keep counting against their address: each gets a record whose token nobody knows.
insert into holds (id, unit_id, project_id, token_hash, client, created_at)
select substr(md5(random()::text || u.id), 1, 24), u.id, u.project_id, md5(random()::text || u.id) || md5(u.id || random()::text), u.held_by, now()
from units u
where u.held_by is not null;
update units u set held_by = h.id from holds h where h.unit_id = u.id and u.held_by = h.client;
