-- A check value of each key the service must keep (today SECRET_KEY): written at the first start, compared at every
-- start, so a node started with another key refuses to run instead of serving secrets it cannot open. The value is an
-- HMAC of a fixed text under the key; it tells nothing about the key itself.
create table key_checks (
  name        text primary key,
  check_value text not null,
  created_at  timestamptz not null default now()
);
